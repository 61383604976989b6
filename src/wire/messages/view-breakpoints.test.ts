import { describe, expect, it } from 'vitest';
import { SUMMARY_MARKER } from '../../compaction/summary-message.js';
import { countBreakpoints } from './breakpoints.js';
import type { AnthropicMessage, MessagesRequest } from './types.js';
import { withViewBreakpoints } from './view-breakpoints.js';

const cc = { type: 'ephemeral' };
const LONG = 'x'.repeat(6_000);
const text = (t: string, marked = false): AnthropicMessage => ({ role: 'user', content: [{ type: 'text', text: t, ...(marked ? { cache_control: cc } : {}) }] });
const body = (messages: AnthropicMessage[], system: MessagesRequest['system'] = [{ type: 'text', text: LONG, cache_control: cc }]): MessagesRequest => ({
  model: 'claude-x',
  system,
  messages,
});
const marks = (view: readonly AnthropicMessage[]) => view.map((m) => countBreakpoints(m.content));

describe('the breakpoints of a view forwarded on /v1/messages', () => {
  const evicted = text('a pasted document', true);
  const task = text('the task');
  const last = text('the newest question');

  it('puts the breakpoint of an evicted message on the end of recap’s summary', () => {
    const view = withViewBreakpoints(body([task, evicted, last]), [text(`${SUMMARY_MARKER} the summary`), task, last]);
    expect(marks(view)).toEqual([1, 0, 0]);
    expect(view[1]).toBe(task);
  });

  it('counts tools toward the shortest cached prefix, and adds nothing under it', () => {
    const short = body([task, evicted, last], 'Be brief.');
    expect(marks(withViewBreakpoints(short, [text(`${SUMMARY_MARKER} s`), task, last]))).toEqual([0, 0, 0]);
    const tooled = { ...short, tools: [{ name: 't', description: LONG, input_schema: { type: 'object' } }] };
    expect(marks(withViewBreakpoints(tooled, [text(`${SUMMARY_MARKER} s`), task, last]))).toEqual([1, 0, 0]);
  });

  it('treats a message the client sent, whatever its text, as the client’s own', () => {
    const lookalike = text(`${SUMMARY_MARKER} sent by the client`);
    const view = [lookalike, last];
    expect(withViewBreakpoints(body([lookalike, evicted, last]), view)).toBe(view);
  });

  it('leaves a view whose client lost no breakpoint as it is', () => {
    const view = [text(`${SUMMARY_MARKER} the summary`), task, text('newest', true)];
    expect(withViewBreakpoints(body([task, text('old'), view[2]!]), view)).toBe(view);
  });
});
