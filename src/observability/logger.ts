import { pino, type Logger } from 'pino';
import { batchedStdout } from './batched-stdout.js';

export type { Logger } from 'pino';

// Credentials must never reach a log line, whatever object a caller hands to the logger.
export const REDACT_PATHS = [
  'authorization',
  'headers.authorization',
  'headers["api-key"]',
  'headers["x-api-key"]',
  'req.headers.authorization',
  'api_key',
  '*.api_key',
  'apiKey',
  '*.apiKey',
  'secret',
  '*.secret',
  'admin_token',
  '*.admin_token',
];

/** JSON lines to `destination`, or to stdout, written asynchronously in batches (batched-stdout.ts; flush() before exiting). */
export function createLogger(level: string, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'recap' },
      redact: { paths: REDACT_PATHS, censor: '[REDACTED]' },
      timestamp: pino.stdTimeFunctions.isoTime,
    },
    (destination as pino.DestinationStream | undefined) ?? batchedStdout(),
  );
}
