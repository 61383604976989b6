import { describe, expect, it } from 'vitest';
import type { ModelConfig } from '../config/config.js';
import type { CountedItems, ItemCounters, ParsedRequest, WireFormat } from '../wire/format.js';
import { countOnce, exactBound } from './count-once.js';

// reuse-first.ts and prepare.ts ask for one request's count: it is made once per tenant and model.

function countingFormat(): { format: WireFormat<object, ParsedRequest>; asked: string[] } {
  const asked: string[] = [];
  const format = {
    count: async (counters: ItemCounters & { tenant: string }, _parsed: ParsedRequest, model: ModelConfig | undefined) => {
      asked.push(`${counters.tenant}/${model?.match}`);
      return { rawOut: (view: unknown[] | null) => (view ? 1 : 120), rawTools: 20 } as unknown as CountedItems<object>;
    },
  } as unknown as WireFormat<object, ParsedRequest>;
  return { format, asked };
}

const tokens = { forTenant: (tenant: string | null) => ({ tenant }) as never };
const model = (match: string) => ({ match }) as ModelConfig;

describe('a request counted once', () => {
  it('counts on the first ask and answers every later ask for that tenant and model with the same count', async () => {
    const { format, asked } = countingFormat();
    const count = countOnce(format, {} as ParsedRequest, tokens);
    const m = model('m');
    const first = count('t', m);
    expect(count('t', m)).toBe(first);
    expect(exactBound(await first)).toEqual({ messages: 100, definitions: 20 });
    expect(asked).toEqual(['t/m']);
  });

  it("counts again for another tenant's counters or another model", async () => {
    const { format, asked } = countingFormat();
    const count = countOnce(format, {} as ParsedRequest, tokens);
    await count('t', model('m'));
    await count('u', model('m'));
    await count('u', model('n'));
    expect(asked).toEqual(['t/m', 'u/m', 'u/n']);
  });
});
