import { availableParallelism } from 'node:os';
import { describe, expect, it } from 'vitest';
import { parseCommandArgs, portNumber, positiveInteger, UsageError, wantsHelp, workerCount } from './args.js';

describe('CLI arguments', () => {
  it('sees -h/--help anywhere before a -- terminator', () => {
    expect(wantsHelp(['count', 'body.json', '-h'])).toBe(true);
    expect(wantsHelp(['--json', '--help'])).toBe(true);
    expect(wantsHelp(['--', '--help'])).toBe(false);
    expect(wantsHelp(['body.json'])).toBe(false);
  });

  it('accepts whole numbers only, and echoes what it refuses', () => {
    expect(positiveInteger('--turns', '12')).toBe(12);
    for (const bad of ['abc', '0', '-3', '1.5', '1e3', ' 4', '']) {
      expect(() => positiveInteger('--turns', bad)).toThrow(new UsageError(`--turns must be a positive integer, got '${bad}'`));
    }
    expect(portNumber('PORT', '0')).toBe(0);
    expect(portNumber('--port', '65535')).toBe(65535);
    expect(() => portNumber('--port', '65536')).toThrow("--port must be a port number from 0 to 65535, got '65536'");
    expect(workerCount('--workers', 'auto')).toBe(availableParallelism());
    expect(workerCount('--workers', '3')).toBe(3);
    expect(() => workerCount('--workers', '0')).toThrow("--workers must be a positive integer or 'auto', got '0'");
  });

  it("turns node's parser errors into usage errors of the command", () => {
    expect(() => parseCommandArgs('serve', ['--prot', '1'], { port: { type: 'string' } })).toThrow(new UsageError("Unknown option '--prot'", 'serve'));
    expect(() => parseCommandArgs('serve', ['--port'], { port: { type: 'string' } })).toThrow(/argument missing/);
    expect(() => parseCommandArgs('demo', ['extra'], {})).toThrow(/Unexpected argument 'extra'/);
    expect(parseCommandArgs('count', ['f.json', '--json'], { json: { type: 'boolean' } }, true)).toMatchObject({ values: { json: true }, positionals: ['f.json'] });
  });
});
