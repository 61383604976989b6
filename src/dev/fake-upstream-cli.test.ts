// The CLI in its own process: prints its URL, serves, and stops on SIGTERM.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const cli = fileURLToPath(new URL('./fake-upstream-cli.ts', import.meta.url));

describe('fake-upstream-cli', () => {
  it('prints its base URL and answers there until SIGTERM', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', cli, '--port', '0', '--summarizer-model', 'summ'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const [url] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
      const models = (await (await fetch(`${url}/models`)).json()) as { data: { id: string }[] };
      expect(models.data.map((m) => m.id)).toContain('summ');
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });

  it('plays a lossy summarizer with --lossy-summarizer', async () => {
    const child = spawn(process.execPath, ['--import', 'tsx', cli, '--summarizer-model', 'summ', '--lossy-summarizer'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    try {
      const [url] = (await once(createInterface({ input: child.stdout }), 'line')) as [string];
      const res = await fetch(`${url}/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ model: 'summ', messages: [{ role: 'user', content: 'We need ticket SUP-4411 fixed in src/app/main.ts today.' }] }),
      });
      const summary = ((await res.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
      expect(summary).toContain('We need ticket … fixed in … today.');
      expect(summary).not.toContain('SUP-4411');
    } finally {
      child.kill('SIGTERM');
    }
    const [code] = await once(child, 'exit');
    expect(code).toBe(0);
  });
});
