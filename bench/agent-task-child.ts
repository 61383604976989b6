import { driveAgentTask } from './agent-task-drive.js';
import { measureFidelity } from './agent-task-fidelity.js';
import { agentScript } from './agent-task-script.js';
import { checkShape } from './agent-task-shape.js';
import { BUDGET, SEED, STEPS, SUMMARIZER_LATENCY_MS, variantNamed, WAIT_THRESHOLD_MS } from './agent-task-variants.js';
import { measure } from './conversation-measure.js';
import { answerParent } from './variant-process.js';

// Child-process entry (variant-process.ts): runs one variant, sends its measures and shape checks to the parent.

answerParent(async () => {
  const drive = await driveAgentTask(variantNamed(process.argv[2] ?? ''));
  return {
    ...measure(drive, { budget: BUDGET, waitThresholdMs: WAIT_THRESHOLD_MS, summarizerLatencyMs: SUMMARIZER_LATENCY_MS }),
    shape: checkShape(drive),
    fidelity: measureFidelity(drive, agentScript(SEED, STEPS)),
  };
});
