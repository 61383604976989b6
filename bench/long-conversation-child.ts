import { driveConversation } from './long-conversation-drive.js';
import { measure } from './long-conversation-measure.js';
import { variantNamed } from './long-conversation-variants.js';

// Child-process entry: runs one variant and sends its measures to the parent. Each variant gets
// its own process, hence its own event loop, so that the CPU one variant spends on a large
// request never shows up as another variant's "wait before forwarding".

async function main(): Promise<void> {
  const variant = variantNamed(process.argv[2] ?? '');
  const measured = measure(await driveConversation(variant));
  await new Promise<void>((resolve, reject) => process.send!(measured, (err: Error | null) => (err ? reject(err) : resolve())));
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`${(err as Error).stack ?? String(err)}\n`);
    process.exit(1);
  },
);
