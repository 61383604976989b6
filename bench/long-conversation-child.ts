import { measure } from './conversation-measure.js';
import { driveConversation } from './long-conversation-drive.js';
import { BUDGET, SUMMARIZER_LATENCY_MS, variantNamed, WAIT_THRESHOLD_MS } from './long-conversation-variants.js';
import { answerParent } from './variant-process.js';

// Child-process entry (variant-process.ts): runs one variant and sends its measures to the parent.

answerParent(async () =>
  measure(await driveConversation(variantNamed(process.argv[2] ?? '')), { budget: BUDGET, waitThresholdMs: WAIT_THRESHOLD_MS, summarizerLatencyMs: SUMMARIZER_LATENCY_MS }),
);
