import { describe, expect, it } from 'vitest';
import { namedModels } from './named-models.js';

describe('namedModels', () => {
  it('finds every string `model`, in any letter case, at any depth, in objects and arrays', () => {
    const body = {
      model: 'a',
      Model: 'b',
      session: { MODEL: 'c' },
      tools: [{ type: 'image_generation', model: 'd' }, [{ model: 'e' }]],
      meta: { model: { type: 'string' }, models: 'f' },
    };
    expect(namedModels(body).sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('leaves out the top-level members it is told to, and walks 100,000 levels without recursion', () => {
    expect(namedModels({ model: 'a', messages: [{ model: 'x' }] }, new Set(['messages']))).toEqual(['a']);
    let deep: unknown = { model: 'bottom' };
    for (let i = 0; i < 100_000; i++) deep = { a: [deep] };
    expect(namedModels(deep)).toEqual(['bottom']);
  });
});
