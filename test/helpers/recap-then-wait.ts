import { startRecapProcess } from './recap-process.js';

// A test process in miniature, for recap-process.test.ts: starts a recap with the config file
// given, says so on stdout, and waits to be ended (as vitest ends its workers, with SIGTERM).
const recap = await startRecapProcess(process.argv[2]!);
process.stdout.write(`started ${recap.pid}\n`);
setInterval(() => undefined, 60_000);
