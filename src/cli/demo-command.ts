import { parseCommandArgs, positiveInteger } from './args.js';

export async function demoCommand(args: string[]): Promise<void> {
  const { values } = parseCommandArgs('demo', args, { turns: { type: 'string' } });
  const turns = values.turns === undefined ? undefined : positiveInteger('--turns', values.turns);
  const { runDemo } = await import('../demo/demo.js');
  await runDemo({ turns, out: process.stdout });
}
