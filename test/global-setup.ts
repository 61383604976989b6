import { redisAdvice, redisProblems } from './helpers/redis-check.js';

// Runs once, before any test file: without Redis every Redis test would fail on its own with
// `spawn ENOENT` or a connection error; this stops the run first with one message instead.
// (Thrown, vitest would bury the message under a stack trace and "No test files found".)
export default async function checkMachine(): Promise<void> {
  const problems = await redisProblems();
  if (problems.length === 0) return;
  process.stderr.write(`\n${redisAdvice(problems)}\n\n`);
  process.exit(1);
}
