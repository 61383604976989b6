import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../messages/types.js';
import { TEMPLATE_HEADER, buildTemplateSummary, TRUNCATED_MARKER } from './template.js';

const bytes = (s: string): number => new TextEncoder().encode(s).length;

describe('buildTemplateSummary', () => {
  it('rolls up a header and one line per evicted message', () => {
    const evicted: ChatMessage[] = [
      { role: 'user', content: '\nWhat port does recap use?\nSecond line is dropped' },
      { role: 'assistant', content: null, tool_calls: [{ id: 'c', type: 'function', function: { name: 'read_config', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c', content: 'port: 8787' },
      { role: 'user', content: [{ type: 'image_url', image_url: { url: 'x' } }] },
    ];
    expect(buildTemplateSummary({ previous: null, evicted, maxBytes: 0 })).toBe(
      `${TEMPLATE_HEADER}\nuser: What port does recap use?\nassistant: → tool_call read_config\ntool: port: 8787\nuser: [image]`,
    );
  });

  it('carries the previous rollup over without repeating its header', () => {
    const first = buildTemplateSummary({ previous: null, evicted: [{ role: 'user', content: 'one' }], maxBytes: 0 });
    const second = buildTemplateSummary({ previous: first, evicted: [{ role: 'user', content: 'two' }], maxBytes: 0 });
    expect(second).toBe(`${TEMPLATE_HEADER}\nuser: one\nuser: two`);
  });

  it('truncates long lines and redacts secrets', () => {
    const out = buildTemplateSummary({
      previous: null,
      evicted: [{ role: 'user', content: `token=abcdefgh1234 ${'x'.repeat(50)}` }],
      maxBytes: 0,
      lineMaxChars: 30,
    });
    expect(out).toBe(`${TEMPLATE_HEADER}\nuser: token=[REDACTED:secret] xxxxxx…`);
  });

  it('drops the oldest text behind a marker when over max_bytes, keeping the header and newest text', () => {
    const evicted = Array.from({ length: 20 }, (_, i): ChatMessage => ({ role: 'user', content: `message number ${i}` }));
    const out = buildTemplateSummary({ previous: null, evicted, maxBytes: 120 });
    expect(bytes(out)).toBeLessThanOrEqual(120);
    expect(out.startsWith(`${TEMPLATE_HEADER}\n${TRUNCATED_MARKER}\n`)).toBe(true);
    expect(out.endsWith('user: message number 19')).toBe(true);
    expect(out).not.toContain('message number 0\n');
  });

  it('cuts at a UTF-8 character boundary', () => {
    // Every character is 3 bytes (CJK) or 4 (emoji): most byte offsets fall inside one.
    for (let maxBytes = 60; maxBytes < 80; maxBytes++) {
      const evicted = [{ role: 'user', content: '日本語のテキスト😀'.repeat(5) }];
      const out = buildTemplateSummary({ previous: null, evicted, maxBytes, lineMaxChars: 1000 });
      expect(bytes(out)).toBeLessThanOrEqual(maxBytes);
      expect(out).not.toContain('\uFFFD');
      expect(out.endsWith('😀')).toBe(true);
    }
  });

  it('keeps the marker when a truncated rollup is carried over, and never stacks markers', () => {
    const first = buildTemplateSummary({ previous: null, evicted: [{ role: 'user', content: 'a'.repeat(200) }], maxBytes: 100 });
    const second = buildTemplateSummary({ previous: first, evicted: [{ role: 'user', content: 'b' }], maxBytes: 1000 });
    expect(second.startsWith(`${TEMPLATE_HEADER}\n${TRUNCATED_MARKER}\n`)).toBe(true);
    expect(second.split(TRUNCATED_MARKER)).toHaveLength(2);
    expect(second.endsWith('\nuser: b')).toBe(true);
  });

  it('always keeps header and marker, even past a tiny cap', () => {
    const out = buildTemplateSummary({ previous: null, evicted: [{ role: 'user', content: 'hello' }], maxBytes: 5 });
    expect(out).toBe(`${TEMPLATE_HEADER}\n${TRUNCATED_MARKER}`);
  });
});
