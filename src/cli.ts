#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { ConfigError, loadConfig } from './config.js';

const USAGE = `usage:
  recap serve [--config FILE] [--port N]     serve (config: RECAP_CONFIG or config/recap.yaml)
  recap count FILE|- [--config FILE] [--json] prompt tokens and budget of a request body
  recap demo [--turns N]                       a compacting conversation against a fake upstream
  recap eval FILE [--config FILE] [--json]     recall of what compaction evicted from a conversation`;

function configPath(flag: string | undefined): string {
  return flag ?? process.env.RECAP_CONFIG ?? 'config/recap.yaml';
}

async function serveCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { config: { type: 'string' }, port: { type: 'string' } } });
  const config = loadConfig(configPath(values.config));
  const portArg = values.port ?? process.env.PORT;
  const port = portArg === undefined ? config.server.port : Number(portArg);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`invalid port: ${portArg}`);
  const { startRecap } = await import('./main.js');
  const recap = await startRecap(config, { port });
  const stop = (signal: string) => {
    recap.runtime.logger.info({ signal }, 'shutting down');
    // Log lines are written asynchronously: let them out before the process goes.
    const exit = (code: number) => recap.runtime.logger.flush(() => process.exit(code));
    recap.close().then(
      () => exit(0),
      () => exit(1),
    );
  };
  process.once('SIGTERM', () => stop('SIGTERM'));
  process.once('SIGINT', () => stop('SIGINT'));
}

async function countCommand(args: string[]): Promise<void> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: { config: { type: 'string' }, json: { type: 'boolean', default: false } },
  });
  const file = positionals[0];
  if (!file) throw new Error('recap count needs a FILE (or - for stdin)');
  const { runCount } = await import('./count-command.js');
  process.stdout.write(await runCount(file, loadConfig(configPath(values.config)), values.json ?? false));
}

async function demoCommand(args: string[]): Promise<void> {
  const { values } = parseArgs({ args, options: { turns: { type: 'string', default: '40' } } });
  const { runDemo } = await import('./demo/demo.js');
  await runDemo({ turns: Number(values.turns), out: process.stdout });
}

async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv;
  if (command === 'serve') return serveCommand(rest);
  if (command === 'count') return countCommand(rest);
  if (command === 'demo') return demoCommand(rest);
  if (command === 'eval') return (await import('./eval/command.js')).evalCommand(rest);
  process.stderr.write(`${USAGE}\n`);
  process.exitCode = command === undefined || command === '--help' || command === 'help' ? 0 : 2;
}

main(process.argv.slice(2)).catch((err: unknown) => {
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.problems.join('\n')}\n`);
  } else {
    process.stderr.write(`recap: ${(err as Error).message}\n`);
  }
  process.exit(1);
});
