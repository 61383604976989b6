import { postJson, type Reply } from './ask.js';
import { passes } from './grade.js';
import type { Answer } from './report.js';
import type { EvalBody, EvalRoute } from './routes.js';

// One probe asked of one view: the request sent as any client sends it, its answer graded, and
// what the answer cost: the upstream's usage (summed over recall hops by recap), the time the
// client waited, and the recap_recall calls recap answered for it (x-recap-recalls).

export interface Asking {
  what: string;
  url: string;
  body: EvalBody;
  headers: Record<string, string>;
  route: EvalRoute;
  expected: readonly string[];
  /** Prompt tokens to report for the answer, from the reply's headers (recap's count) or given. */
  promptTokens: (reply: Reply) => number;
}

export async function askProbe(a: Asking): Promise<{ answer: Answer; reply: Reply }> {
  const started = performance.now();
  const reply = await postJson(a.what, a.url, a.body, a.headers);
  const latencyMs = performance.now() - started;
  const text = a.route.answerText(reply.json);
  const recalls = reply.headers.get('x-recap-recalls');
  return {
    reply,
    answer: {
      text,
      passed: passes(text, a.expected),
      promptTokens: a.promptTokens(reply),
      upstreamTokens: a.route.usageTokens(reply.json),
      latencyMs,
      recalls: recalls === null ? 0 : Number(recalls),
    },
  };
}
