import { describe, expect, it } from 'vitest';
import type { ChatMessage } from '../messages/types.js';
import { collectLedgerCandidates, ledgerCandidates } from './ledger-candidates.js';
import { LEDGER_HEADING } from './ledger-section.js';

// Rule 5's ranking: provenance first (task, user, system, developer; then tool-call arguments;
// then assistant text and the previous summary; then tool outputs), within a class recurrence,
// then recency; identifiers read from decoded text.

const user = (content: string): ChatMessage => ({ role: 'user', content });
const call = (args: string, id = 'c1'): ChatMessage => ({ role: 'assistant', content: null, tool_calls: [{ id, type: 'function', function: { name: 'run', arguments: args } }] });
const output = (content: string, id = 'c1'): ChatMessage => ({ role: 'tool', tool_call_id: id, content });

describe('ledgerCandidates', () => {
  it('ranks what users and instructions stated, then the calls, then assistant text, then tool outputs', () => {
    const evicted: ChatMessage[] = [
      { role: 'assistant', content: 'I will look at ORD-1 first.' },
      call('{"path":"src/app/main.ts"}'),
      output('trace 7f3a9c21 in /var/log/app.log'),
      { role: 'developer', content: 'Never touch config/prod.yaml.' },
      user('Ticket SUP-4411.'),
    ];
    expect(ledgerCandidates(evicted, null)).toEqual([
      { id: 'SUP-4411', from: 'user' },
      { id: 'config/prod.yaml', from: 'developer' },
      { id: 'src/app/main.ts', from: 'call' },
      { id: 'ORD-1', from: 'assistant' },
      { id: '7f3a9c21', from: 'tool' },
      { id: '/var/log/app.log', from: 'tool' },
    ]);
  });

  it('names the opening task as such, and gives an identifier its best provenance wherever else it recurs', () => {
    const evicted = [user('Fix BUG-7731 in src/importer/csv.ts.'), call('{"path":"src/importer/csv.ts"}'), output('src/importer/csv.ts: 120 lines')];
    expect(ledgerCandidates(evicted, null, { taskAt: 0 })).toEqual([
      { id: 'src/importer/csv.ts', from: 'task' },
      { id: 'BUG-7731', from: 'task' },
    ]);
  });

  it('ranks within a class by recurrence, then by recency, each identifier once', () => {
    const evicted = [call('{"path":"src/a.ts"}'), call('{"path":"src/b.ts"}'), call('{"path":"src/a.ts"}'), call('{"path":"src/c.ts"}')];
    expect(ledgerCandidates(evicted, null).map((e) => e.id)).toEqual(['src/a.ts', 'src/c.ts', 'src/b.ts']);
    expect(ledgerCandidates([user('SUP-1 first'), user('INV-22 then'), user('SUP-1 again')], null).map((e) => e.id)).toEqual(['SUP-1', 'INV-22']);
  });

  it('reads the values of JSON arguments, never their raw escapes', () => {
    const script = 'import os\nfor d in dirs:\n    os.makedirs(d)\nsys.path.insert(0, "lib")';
    const evicted = [call(JSON.stringify({ code: script, cwd: '/srv/app' })), output(JSON.stringify({ stdout: 'wrote\n/tmp/out.txt', returncode: 0 }))];
    const found = ledgerCandidates(evicted, null).map((e) => e.id);
    expect(found).toEqual(expect.arrayContaining(['os.makedirs', 'sys.path.insert', '/srv/app', '/tmp/out.txt']));
    for (const leaked of ['nos.makedirs', 'nsys.path.insert', 'n/tmp/out.txt', '/returncode']) expect(found).not.toContain(leaked);
  });

  it('decodes the escapes of arguments that are not whole JSON (cut, malformed)', () => {
    const found = ledgerCandidates([call('{"code": "x = 1\\nos.makedirs(d)\\n')], null).map((e) => e.id);
    expect(found).toContain('os.makedirs');
    expect(found).not.toContain('nos.makedirs');
  });

  it('keeps the previous ledger’s provenance and its order, behind what is new of the same class', () => {
    const previous = `## Goal\n- none\n\n${LEDGER_HEADING}\n- user: FACT-1001\n- call: src/a.ts\n- tool: 7f3a9c21`;
    const out = ledgerCandidates([user('Now FACT-2002.'), call('{"path":"src/b.ts"}')], previous);
    expect(out).toEqual([
      { id: 'FACT-2002', from: 'user' },
      { id: 'FACT-1001', from: 'user' },
      { id: 'src/b.ts', from: 'call' },
      { id: 'src/a.ts', from: 'call' },
      { id: '7f3a9c21', from: 'tool' },
    ]);
  });

  it('reads several identifiers of one line, and never carries one that holds the separator', () => {
    const previous = `## Goal\n- none\n\n${LEDGER_HEADING}\n- task: BUG-7731, src/importer/csv.ts\n- tool: 7f3a9c21`;
    expect(ledgerCandidates([user('Call `merge(a, b)` on ORD-7.')], previous)).toEqual([
      { id: 'ORD-7', from: 'user' },
      { id: 'BUG-7731', from: 'task' },
      { id: 'src/importer/csv.ts', from: 'task' },
      { id: '7f3a9c21', from: 'tool' },
    ]);
  });

  it('collects the same candidates while giving the event loop back', async () => {
    const evicted = Array.from({ length: 400 }, (_, i) => user(`Order ORD-${10_000 + i} in /srv/app/${i}.json`));
    const previous = `## Goal\n- none\n\n${LEDGER_HEADING}\n- user: SUP-4411`;
    let turns = 0;
    const ticking = setInterval(() => turns++, 0);
    try {
      expect(await collectLedgerCandidates(evicted, previous, {}, 0)).toEqual(ledgerCandidates(evicted, previous));
    } finally {
      clearInterval(ticking);
    }
    expect(turns).toBeGreaterThan(0);
  });
});
