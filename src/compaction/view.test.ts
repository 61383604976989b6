import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../chat/types.js';
import { isSummaryMessage, summaryTextOf } from './summary-message.js';
import { assembleView } from './view.js';

const pinned: ChatMessage[] = [
  { role: 'system', content: 'You are helpful.' },
  { role: 'developer', content: 'Answer in French.' },
];
const kept: ChatMessage[] = [
  { role: 'user', content: 'q4' },
  { role: 'assistant', content: 'a4' },
];

describe('assembleView', () => {
  it('puts pinned messages first, then the summary, then the kept messages', () => {
    const view = assembleView(pinned, 'earlier facts', kept);
    expect(view).toHaveLength(5);
    expect(view[0]).toBe(pinned[0]);
    expect(view[1]).toBe(pinned[1]);
    expect(isSummaryMessage(view[2]!)).toBe(true);
    expect(summaryTextOf(view[2]!)).toBe('earlier facts');
    expect(view[3]).toBe(kept[0]);
    expect(view[4]).toBe(kept[1]);
  });

  it('adds no summary message when there is none', () => {
    expect(assembleView(pinned, null, kept)).toEqual([...pinned, ...kept]);
  });
});
