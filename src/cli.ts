#!/usr/bin/env node
import { UsageError, wantsHelp } from './cli/args.js';
import { EVAL_USAGE } from './eval/usage.js';

// `recap <command>`: one table entry per command (its one-line summary, its --help text, and how
// to run it). Commands load their code only when run, so `recap --help` starts at once.

interface Command {
  summary: string;
  usage: string;
  run(args: string[]): Promise<void>;
}

const COMMANDS: Record<string, Command> = {
  serve: {
    summary: 'serve the proxy',
    usage: `usage: recap serve [--config FILE] [--port N] [--workers N|auto]

  --config FILE     config file (default: $RECAP_CONFIG, else config/recap.yaml)
  --port N          listening port (default: $PORT, else server.port, 8787)
  --workers N|auto  processes sharing the port (default: server.workers, 1); auto = one per core
  -h, --help        print this text

environment: RECAP_CONFIG, PORT, REDIS_URL, RECAP_SECRET; traces with OTEL_EXPORTER_OTLP_ENDPOINT`,
    run: async (args) => (await import('./cli/serve-command.js')).serveCommand(args),
  },
  count: {
    summary: 'prompt tokens and budget of a request body (chat completions or Responses)',
    usage: `usage: recap count FILE|- [--config FILE] [--json]

  FILE           a /v1/chat/completions or /v1/responses request body (JSON), at most the
                 config's server.body_limit_bytes; - reads it from stdin
  --config FILE  config whose models[] give the encoding and budget (default: $RECAP_CONFIG,
                 else config/recap.yaml)
  --json         print {"prompt_tokens", "budget", "priming_tokens", "tools_tokens", "messages"}
                 (and "instructions_tokens" for a Responses body)
  -h, --help     print this text`,
    run: async (args) => (await import('./cli/count-command.js')).countCommand(args),
  },
  demo: {
    summary: 'a compacting conversation against a fake upstream (no key, no network)',
    usage: `usage: recap demo [--turns N]

  --turns N   turns of the conversation (default 40)
  -h, --help  print this text`,
    run: async (args) => (await import('./cli/demo-command.js')).demoCommand(args),
  },
  eval: {
    summary: 'how much of what compaction evicted the model still recalls, on your own conversation',
    usage: EVAL_USAGE,
    run: async (args) => (await import('./eval/command.js')).evalCommand(args),
  },
  health: {
    summary: "probe a running recap's /healthz (for container health checks)",
    usage: `usage: recap health [--config FILE] [--port N]

Exits 0 when recap on this host answers GET /healthz with 200, else 1. The port is found as
\`recap serve\` finds it: --port, else $PORT, else the config's server.port.

  --config FILE  config file (default: $RECAP_CONFIG, else config/recap.yaml)
  --port N       port to probe
  -h, --help     print this text`,
    run: async (args) => (await import('./cli/health-command.js')).healthCommand(args),
  },
};

function overview(): string {
  const width = Math.max(...Object.keys(COMMANDS).map((name) => name.length));
  const lines = Object.entries(COMMANDS).map(([name, c]) => `  ${name.padEnd(width)}  ${c.summary}`);
  return `usage: recap <command> [options]\n\ncommands:\n${lines.join('\n')}\n\nrun 'recap <command> --help' for the options of one.`;
}

function lookup(name: string): Command {
  const command = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
  if (!command) throw new UsageError(`unknown command '${name}'`);
  return command;
}

async function main(argv: string[]): Promise<void> {
  const [name, ...rest] = argv;
  if (name === undefined) {
    // A bare `recap` is a mistake: the same text, as an error.
    process.stderr.write(`${overview()}\n`);
    process.exitCode = 2;
    return;
  }
  if (name === 'help' || name === '--help' || name === '-h') {
    const topic = name === 'help' ? rest[0] : undefined;
    process.stdout.write(`${topic === undefined ? overview() : lookup(topic).usage}\n`);
    return;
  }
  const command = lookup(name);
  if (wantsHelp(rest)) {
    process.stdout.write(`${command.usage}\n`);
    return;
  }
  await command.run(rest).catch((err: unknown) => {
    if (err instanceof UsageError && err.command === undefined) throw new UsageError(err.message, name);
    throw err;
  });
}

main(process.argv.slice(2)).catch(async (err: unknown) => {
  if (err instanceof UsageError) {
    const help = err.command ? `recap ${err.command} --help` : 'recap --help';
    process.stderr.write(`recap: ${err.message}\nrun '${help}' for usage\n`);
    process.exit(2);
  }
  // Loaded only here: `recap --help` and usage errors need none of the config's code.
  const { ConfigError } = await import('./config/config.js');
  if (err instanceof ConfigError) {
    process.stderr.write(`${err.problems.join('\n')}\n`);
  } else {
    process.stderr.write(`recap: ${(err as Error).message}\n`);
  }
  process.exit(1);
});
