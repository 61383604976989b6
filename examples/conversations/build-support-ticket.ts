// Builds support-ticket.json, the example conversation of `recap eval` (docs/eval.md):
//   npx tsx examples/conversations/build-support-ticket.ts
// A billing support engineer works through 30 incidents with an assistant over 300 turns: each
// incident has its ticket, order, amounts, files, hosts, error codes, a tool lookup, findings, a
// decision and a closing status. Deterministic (seeded), so the file only changes with this script.
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const INCIDENTS = 30;
const TURNS_PER_INCIDENT = 10;

let seed = 0x5eed1234;
function random(): number {
  seed = (seed + 0x6d2b79f5) | 0;
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}
const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
const int = (lo: number, hi: number) => lo + Math.floor(random() * (hi - lo + 1));
const hex = (n: number) => Array.from({ length: n }, () => '0123456789abcdef'[int(0, 15)]).join('');

const CUSTOMERS = [
  'Acme Logistics',
  'Borealis Foods',
  'Cobalt Dental',
  'Dunmore Cycles',
  'Elmwood Press',
  'Fennel Labs',
  'Granite Mutual',
  'Harbor Optics',
  'Ivory Textiles',
  'Juniper Health',
  'Kestrel Air',
  'Lumen Studios',
  'Marlow Freight',
  'Northwind Pharma',
  'Orchid Hotels',
  'Pinecrest Schools',
  'Quarry Motors',
  'Riverside Clinics',
  'Saffron Kitchens',
  'Tidewater Marine',
  'Umber Architects',
  'Vantage Realty',
  'Willow Vets',
  'Xenon Robotics',
  'Yarrow Gardens',
  'Zephyr Travel',
  'Alder Insurance',
  'Beacon Tutors',
  'Cedar Breweries',
  'Delta Printworks',
];
const PRODUCTS = ['annual plan', 'seat upgrade', 'storage add-on', 'priority support', 'API overage', 'team bundle'];
const REGIONS = ['eu-west-1', 'us-east-2', 'ap-south-1', 'eu-central-1', 'us-west-2'];
const ERRORS = ['ERR_CARD_DECLINED', 'ERR_DUPLICATE_CHARGE', 'ERR_TAX_MISMATCH', 'ERR_CURRENCY_ROUNDING', 'ERR_WEBHOOK_TIMEOUT', 'ERR_PRORATION_NEGATIVE'];
const SERVICES = ['invoicer', 'ledger', 'payouts', 'tax-engine', 'dunning', 'webhooks'];
const CAUSES = [
  'a retry storm after the gateway timeout',
  'a stale exchange rate cache',
  'a proration rule that ignored trial days',
  'a webhook delivered twice',
  'a tax table that missed the new VAT rate',
  'a race between renewal and cancellation',
];
const REMEDIES = [
  'a manual credit note',
  'a partial refund',
  'a full refund',
  'a voided invoice and a reissue',
  'a goodwill discount on the next cycle',
  'a chargeback response with evidence',
];
const TOOLS_OF_CHOICE = ['Stripe', 'Chargebee', 'Zuora', 'Recurly', 'Paddle', 'Adyen'];
const CURRENCIES = ['EUR', 'USD', 'GBP'];

const tools = [
  {
    type: 'function',
    function: {
      name: 'lookup_order',
      description: 'Look up an order in the billing system',
      parameters: { type: 'object', properties: { order_id: { type: 'string' } }, required: ['order_id'] },
    },
  },
];

type Message = Record<string, unknown>;
const messages: Message[] = [
  {
    role: 'system',
    content: 'You are the billing support assistant of a SaaS company. Be precise: quote ticket numbers, order ids, amounts and file paths exactly.',
  },
];
const user = (content: string) => messages.push({ role: 'user', content });
const assistant = (content: string) => messages.push({ role: 'assistant', content });

for (let i = 0; i < INCIDENTS; i++) {
  const ticket = `SUP-${4100 + i * 37 + int(0, 30)}`;
  const order = `ORD-2024-${String(int(1000, 9999))}`;
  const customer = CUSTOMERS[i % CUSTOMERS.length]!;
  const product = pick(PRODUCTS);
  const currency = pick(CURRENCIES);
  const amount = `${int(120, 9800)}.${String(int(0, 99)).padStart(2, '0')} ${currency}`;
  const refund = `${int(20, 900)} ${currency}`;
  const region = pick(REGIONS);
  const error = pick(ERRORS);
  const service = SERVICES[i % SERVICES.length]!;
  const host = `${service}-${int(1, 9)}.${region}.internal`;
  const log = `/var/log/billing/${service}/worker-${int(1, 12)}.log`;
  const commit = hex(10);
  const cause = pick(CAUSES);
  const remedy = pick(REMEDIES);
  const vendor = pick(TOOLS_OF_CHOICE);
  const minutes = int(3, 95);
  const invoice = `INV-${int(100000, 999999)}`;
  const call = `call_${hex(8)}`;

  user(`New case: ticket ${ticket} from ${customer}. They were billed ${amount} for the ${product} on order ${order} and say the charge is wrong. Can you look into it?`);
  messages.push({
    role: 'assistant',
    content: null,
    tool_calls: [{ id: call, type: 'function', function: { name: 'lookup_order', arguments: JSON.stringify({ order_id: order }) } }],
  });
  messages.push({
    role: 'tool',
    tool_call_id: call,
    content: JSON.stringify({ order_id: order, customer, product, amount, invoice, region, status: 'charged', last_error: error, processed_by: host }),
  });
  assistant(`Order ${order} was charged ${amount} under invoice ${invoice} in ${region}. The last attempt logged ${error} on ${host}, so the ${service} service is involved.`);
  user(`The ${service} team says the worker log is at ${log}. What does the timeline look like there?`);
  assistant(
    `The log shows the first attempt failing after ${minutes} minutes, then the charge going through on a retry. The root cause looks like ${cause}, introduced by commit ${commit}.`,
  );
  user(`How much should ${customer} get back, and how do we handle it?`);
  assistant(`The overcharge is ${refund}. For a case like this the usual remedy is ${remedy}; the approval threshold for billing agents is ${int(2, 9) * 250} ${currency}.`);
  user(`We decided to use ${vendor} to issue the ${remedy.replace(/^an? /, '')} for ${customer} instead of a manual ledger entry.`);
  assistant(`Understood: ${vendor} will issue it, and the ledger will pick up the adjustment on the next sync, which runs every ${int(10, 60)} minutes.`);
  user(`Is anything still open on ${ticket}?`);
  assistant(`Only the customer confirmation. I drafted a reply to ${customer} explaining ${cause} and the ${refund} adjustment.`);
  user(`Send it, and note in the ticket that the fix for commit ${commit} ships with release v3.${int(4, 19)}.${int(0, 9)}.`);
  assistant(`Done. ${ticket} is now marked resolved pending confirmation, with the release noted and a follow-up in ${int(2, 7)} days.`);
  for (let t = 7; t < TURNS_PER_INCIDENT; t++) {
    user(
      pick([
        `Thanks. Anything else worth checking on the ${service} side for ${customer}?`,
        `Good. Let us keep an eye on the ${service} dashboards for ${customer}.`,
        `Fine, moving on after a short check of ${customer} history.`,
      ]),
    );
    assistant(
      pick([
        `Nothing else stands out for ${customer}; the other invoices of the quarter reconcile.`,
        `The ${service} error rate is back to its baseline for ${customer}.`,
        `No other open disputes for ${customer} this quarter.`,
      ]),
    );
  }
}
user('Please give me a short overview of where we are.');

const out = fileURLToPath(new URL('./support-ticket.json', import.meta.url));
writeFileSync(out, `${JSON.stringify({ model: 'support-assistant', tools, messages }, null, 1)}\n`);
process.stdout.write(`${out}: ${messages.length} messages\n`);
