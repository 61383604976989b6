// The demo's conversation: an on-call engineer working an incident with an ops assistant. Each
// exchange carries the ids, paths and numbers a real one would, so the summaries the fake
// summarizer extracts look like the real thing. Turns cycle through the script with fresh ids, so
// any number of turns stays varied and deterministic.

export interface Exchange {
  user: string;
  /** What the fake upstream answers for this turn (it plays the assistant). */
  assistant: string;
}

const SERVICES = ['checkout-api', 'billing-worker', 'search-gateway', 'auth-service', 'inventory-sync'];
const REGIONS = ['eu-west-1', 'us-east-2', 'ap-southeast-1'];

interface Ids {
  service: string;
  region: string;
  incident: string;
  ticket: string;
  commit: string;
  release: string;
  node: string;
  n: number;
}

/** Ids stay fixed for one pass through the script (one incident); numbers vary per turn. */
function idsFor(turn: number): Ids {
  const cycle = Math.floor((turn - 1) / SCRIPT.length);
  return {
    service: SERVICES[cycle % SERVICES.length]!,
    region: REGIONS[cycle % REGIONS.length]!,
    incident: `INC-${4410 + cycle}`,
    ticket: `OPS-${2217 + cycle * 31}`,
    commit: ((0x7f3a9c21 + cycle * 0x1f2e3) >>> 0).toString(16).padStart(8, '0'),
    release: `v2.${14 + cycle}.0`,
    node: `ip-10-0-${cycle % 8}-${57 + cycle * 11}`,
    n: 12 + ((turn * 7) % 20),
  };
}

/** Thirty lines of a pod log: the kind of paste that makes a conversation jump past its budget in one turn. */
function logPaste(i: Ids): string {
  const lines: string[] = [];
  for (let k = 0; k < 30; k++) {
    const ms = k % 7 === 3 ? 3000 : 140 + ((k * 37 + i.n) % 860);
    const status = ms === 3000 ? 503 : 200;
    const time = `09:${String(10 + Math.floor(k / 2)).padStart(2, '0')}:${String((k * 29) % 60).padStart(2, '0')}`;
    lines.push(
      `2024-11-14T${time}Z ${i.service}-6d9f pod=${i.node} route=/v1/orders/${88000 + k * 13} status=${status} duration_ms=${ms} upstream=payments-gw rss_mb=${310 + k * 6}`,
    );
  }
  return lines.join('\n');
}

type Step = (i: Ids) => Exchange;

const SCRIPT: Step[] = [
  (i) => ({
    user: `I'm on call for ${i.incident}: ${i.service} in ${i.region} has p99 latency at 2.4 s since release ${i.release} (commit ${i.commit}). Goal: find the cause and decide whether to roll back. Where do I start?`,
    assistant: `Start by confirming the timing: compare the p99 panel for ${i.service} with the deploy marker of ${i.release}. If the spike starts within minutes of the rollout, diff ${i.commit} against the previous release and check the pods' restart counts and CPU throttling in ${i.region}.`,
  }),
  (i) => ({
    user: `The spike starts 4 minutes after the rollout of ${i.release}. The diff touches src/payments/client.ts and config/timeouts.yaml; the payments client timeout went from 800 ms to 3000 ms.`,
    assistant: `That timeout change is the prime suspect: with 3000 ms, slow payments-gw calls now hold request slots for up to 3 s instead of failing fast at 800 ms, which shows up as p99 latency. Check the payments-gw latency and the ${i.service} connection pool saturation for the same window.`,
  }),
  (i) => ({
    user: `payments-gw p95 is 1.1 s in ${i.region} (normal is 300 ms). The pool metric http_client_pool_pending for ${i.service} sits at ${i.n} pending requests. Ticket ${i.ticket} tracks payments-gw.`,
    assistant: `So payments-gw is slow and ${i.service} now waits on it longer, queueing ${i.n} requests in its pool. Two levers: restore the 800 ms timeout (fast failure plus retry budget) or raise the pool size. Restoring the timeout is the smaller change and matches the pre-release behaviour.`,
  }),
  (i) => ({
    user: `We decided to go with restoring the 800 ms timeout instead of a full rollback. I need the exact change for config/timeouts.yaml and the command to roll it out to ${i.region} only.`,
    assistant: `Set payments.client.timeout_ms: 800 in config/timeouts.yaml, commit it as a hotfix on top of ${i.release}, then run: kubectl -n prod set env deploy/${i.service} PAYMENTS_TIMEOUT_MS=800 --context ${i.region}. Watch the rollout with kubectl rollout status deploy/${i.service} -n prod.`,
  }),
  (i) => ({
    user: `Rollout done at 10:42. p99 is down to 950 ms but the 504 rate is 2.1% (it was 0.3% before ${i.release}). Should we be worried?`,
    assistant: `Some 504s are expected now: calls that used to wait up to 3 s fail at 800 ms. 2.1% is high, though. Check whether retries are enabled for idempotent payment lookups; a single retry with jitter usually brings the visible error rate back under 0.5%.`,
  }),
  (i) => ({
    user: `Retries are off. The client is in src/payments/client.ts line ${100 + i.n}, it uses undici with maxRetries: 0. Which calls are safe to retry?`,
    assistant: `Only idempotent ones: GET /payments/{id} and the status lookups. Never retry POST /payments/charge without an idempotency key. Enable one retry with 50-150 ms jitter for the GET routes in src/payments/client.ts and leave the charge call as it is.`,
  }),
  (i) => ({
    user: `Node ${i.node} shows 3 OOMKilled restarts of ${i.service} in the last day, memory limit 512Mi, working set peaks at 498Mi. Related?`,
    assistant: `Probably a second, separate issue: queued requests during the latency spike hold buffers, so memory peaked near the 512Mi limit. With the timeout restored the queue should drain. Keep an eye on it; if the working set stays above 450Mi, raise the limit to 768Mi in deploy/${i.service}/values.yaml.`,
  }),
  (i) => ({
    user: `Here are the logs of that pod since its last restart (kubectl logs ${i.service}-6d9f -n prod | tail -30):\n${logPaste(i)}\nWhat stands out?`,
    assistant: `rss_mb climbs steadily from 310 to 484 while requests wait on payments-gw, and every 503 is a call that hit the 3000 ms ceiling. That supports the queueing explanation: memory follows the backlog, so the restored 800 ms timeout should stop both the 503s and the OOMKills on ${i.node}.`,
  }),
  (i) => ({
    user: `Please draft the status page update for ${i.incident}: impact, cause, mitigation, next update time.`,
    assistant: `${i.incident} update: Between 09:10 and 10:42 UTC some requests to ${i.service} in ${i.region} were slow or failed. Cause: a configuration change increased a timeout to a slow payment dependency. Mitigation: the timeout was restored at 10:42 and latency is recovering. Next update at 11:30 UTC.`,
  }),
  (i) => ({
    user: `Error budget check: SLO is 99.9% over 30 days for ${i.service}, we burned ${i.n} minutes of errors today. How much budget is left?`,
    assistant: `99.9% over 30 days allows 43.2 minutes of errors. With ${i.n} minutes burned today you have ${(43.2 - i.n).toFixed(1)} minutes left for the rest of the window, so freeze risky deploys of ${i.service} until the budget recovers.`,
  }),
  (i) => ({
    user: `For the postmortem: which alerts should have fired earlier? We only have an alert on 5xx rate > 5% for 10 minutes (alerts/${i.service}.yaml).`,
    assistant: `Add a latency alert on p99 > 1.5 s for 5 minutes and a saturation alert on http_client_pool_pending > 20 for 5 minutes in alerts/${i.service}.yaml. Both would have fired about 15 minutes before the 5xx alert.`,
  }),
  (i) => ({
    user: `Next steps: write ${i.ticket} follow-ups. We will add a config review rule for timeouts and a canary stage in ${i.region}. Anything else?`,
    assistant: `Add a load test for the payments client with a slow payments-gw stub, and record the decision to keep 800 ms plus one retry in docs/adr/0042-payments-timeouts.md so the next change to config/timeouts.yaml sees the reasoning.`,
  }),
];

/** The exchange of a 1-based turn. */
export function exchangeFor(turn: number): Exchange {
  return SCRIPT[(turn - 1) % SCRIPT.length]!(idsFor(turn));
}

export const SYSTEM_PROMPT = 'You are an SRE assistant for the platform team. Answer with concrete commands, file paths and numbers; keep answers short.';
