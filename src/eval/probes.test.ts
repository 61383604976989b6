import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../messages/types.js';
import { buildProbes, type Probe } from './probes.js';

const u = (content: string): ChatMessage => ({ role: 'user', content });
const a = (content: string): ChatMessage => ({ role: 'assistant', content });

const evicted: ChatMessage[] = [
  u('Hi, the customer was charged twice, see ticket SUP-4411.'),
  a('I checked the billing rates file and the refund ceiling is 250 EUR per order.'),
  u('We decided to use Stripe for the duplicate charge payout.'),
  a('The refund job finished with status code: 1045 in the ledger service.'),
  u('Good, and the audit trail?'),
  a('The audit export went to /var/audit/refunds-7.csv this morning.'),
];
const kept: ChatMessage[] = [{ role: 'system', content: 'You help billing support.' }, u('Thanks. Anything else?'), a('No.')];

const byKind = (probes: Probe[], kind: Probe['kind']) => probes.filter((p) => p.kind === kind);

describe('buildProbes', () => {
  const probes = buildProbes({ evicted, kept, maxProbes: 24 });

  it('asks for identifiers by their beginning', () => {
    expect(byKind(probes, 'identifier')).toContainEqual({
      kind: 'identifier',
      question: 'Earlier in this conversation an identifier beginning with "SUP-" came up. What was it, exactly? Reply with the exact value.',
      expected: ['SUP-4411'],
      message: 0,
    });
  });

  it('asks for a code of capitals and digits stated in a tool result', () => {
    const booked: ChatMessage[] = [
      u('Book the 9:40 train to Lyon.'),
      { role: 'assistant', content: null, tool_calls: [{ id: 'c1', type: 'function', function: { name: 'book', arguments: '{}' } }] },
      { role: 'tool', tool_call_id: 'c1', content: 'Booked. Confirmation K7QX2MPA, seat 14.' },
    ];
    const found = byKind(buildProbes({ evicted: booked, kept, maxProbes: 24 }), 'identifier').flatMap((p) => p.expected);
    expect(found).toContain('K7QX2MPA');
  });

  it('asks for a fact by the rarest words of its sentence', () => {
    const fact = byKind(probes, 'fact').find((p) => p.expected[0] === '250 EUR');
    expect(fact?.question).toBe('Earlier in this conversation a message mentioned "checked rates ceiling". What exactly did it say? Quote any names and figures exactly.');
  });

  it('asks what was decided', () => {
    expect(byKind(probes, 'decision')).toEqual([
      expect.objectContaining({
        expected: ['Stripe'],
        question: expect.stringMatching(/^Earlier in this conversation a decision was made in a message that mentioned "[a-z ]+"\. What was decided\?$/),
      }),
    ]);
  });

  it('asks for the last state before the kept part', () => {
    expect(byKind(probes, 'state').map((p) => [p.message, p.expected[0]])).toEqual([
      [3, '1045'],
      [5, '/var/audit/refunds-7.csv'],
    ]);
    expect(byKind(probes, 'state')[0]!.question).toBe(
      'Earlier in this conversation, what was the latest update about "finished status service"? Quote any names and figures exactly.',
    );
    expect(byKind(probes, 'fact').map((p) => p.expected[0])).not.toContain('1045');
  });

  it('is deterministic and bounded', () => {
    expect(buildProbes({ evicted, kept, maxProbes: 24 })).toEqual(probes);
    expect(buildProbes({ evicted, kept, maxProbes: 2 })).toHaveLength(2);
  });

  it('skips what the kept part says again', () => {
    const again = buildProbes({ evicted, kept: [...kept, u('Ticket SUP-4411 is closed.')], maxProbes: 24 });
    expect(again.flatMap((p) => p.expected)).not.toContain('SUP-4411');
  });

  it('skips an identifier whose beginning is shared with another one', () => {
    const twins = buildProbes({ evicted: [u('Orders ORD-1001 and ORD-1002 shipped.')], kept: [], maxProbes: 24 });
    expect(byKind(twins, 'identifier')).toEqual([]);
  });

  it('never asks about a redacted secret', () => {
    const secret = buildProbes({ evicted: [u('The key is sk-proj-abc123def456ghi789jkl012 for the deploy service.')], kept: [], maxProbes: 24 });
    expect(JSON.stringify(secret)).not.toContain('sk-proj');
  });
});
