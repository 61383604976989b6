import { parseCommandArgs, positiveInteger, UsageError } from '../cli/args.js';
import { loadConfig } from '../config/config.js';
import { reportJson, reportTable } from './report.js';
import { runEval } from './run.js';
import { DEFAULT_MAX_PROBES, EVAL_USAGE } from './usage.js';

// `recap eval FILE [--config FILE] [--json] [--max-probes N]`: the command line around runEval.
// Progress goes to stderr (one line rewritten in place on a terminal), the result to stdout.

export interface EvalIo {
  stdout: NodeJS.WritableStream;
  stderr: NodeJS.WritableStream & { isTTY?: boolean };
  env: Record<string, string | undefined>;
}

export async function evalCommand(args: string[], io: EvalIo = { stdout: process.stdout, stderr: process.stderr, env: process.env }): Promise<void> {
  const { values, positionals } = parseCommandArgs(
    'eval',
    args,
    { config: { type: 'string' }, json: { type: 'boolean', default: false }, 'max-probes': { type: 'string' }, help: { type: 'boolean', default: false } },
    true,
  );
  if (values.help) {
    io.stdout.write(`${EVAL_USAGE}\n`);
    return;
  }
  const [file, ...extra] = positionals;
  if (file === undefined) throw new UsageError('eval needs a FILE (a whole conversation: a chat or Responses request body as JSON)');
  if (extra.length > 0) throw new UsageError(`eval takes one FILE, got also '${extra.join(' ')}'`);
  const maxProbes = values['max-probes'] === undefined ? DEFAULT_MAX_PROBES : positiveInteger('--max-probes', values['max-probes']);
  const config = loadConfig(values.config ?? io.env.RECAP_CONFIG ?? 'config/recap.yaml', io.env);
  const tty = io.stderr.isTTY === true;
  const progress = (line: string) => io.stderr.write(tty ? `\r\x1b[2Krecap eval: ${line}` : `recap eval: ${line}\n`);
  try {
    const report = await runEval({ file, config, maxProbes, credential: io.env.OPENAI_API_KEY || undefined, progress });
    io.stdout.write(values.json ? `${JSON.stringify(reportJson(report))}\n` : reportTable(report));
  } finally {
    if (tty) io.stderr.write('\r\x1b[2K');
  }
}
