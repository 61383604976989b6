import { describe, expect, it } from 'vitest';
import { createCalibration, MAX_FACTOR, MIN_FACTOR, PRIOR_MAX_SHIFT } from './calibration.js';

describe('calibration', () => {
  it('starts at 1 and leaves estimates unchanged for unseen models', () => {
    const c = createCalibration();
    expect(c.factor('gpt-4o')).toBe(1);
    expect(c.apply('gpt-4o', 1234)).toBe(1234);
  });

  it('converges to ~1.0 for a model counted with its exact encoding', () => {
    const c = createCalibration();
    // Exact counts differ from the API by a token or two of framing at most.
    for (let i = 0; i < 50; i++) c.observe('gpt-4o', 1_000 + i * 37, 1_000 + i * 37 + (i % 3) - 1);
    expect(c.factor('gpt-4o')).toBeCloseTo(1, 2);
  });

  it('learns the bias of an estimated tokenizer and corrects estimates with it', () => {
    const c = createCalibration();
    for (let i = 0; i < 40; i++) c.observe('claude-sonnet', 2_000, 2_600);
    expect(c.factor('claude-sonnet')).toBeCloseTo(1.3, 2);
    expect(c.apply('claude-sonnet', 1_000)).toBe(1_300);
    expect(c.factor('other-model')).toBe(1);
  });

  it('moves only part of the way on one new observation', () => {
    const c = createCalibration();
    c.observe('m', 1_000, 1_000);
    c.observe('m', 1_000, 2_000);
    expect(c.factor('m')).toBeGreaterThan(1);
    expect(c.factor('m')).toBeLessThan(1.5);
  });

  it('ignores insane observations', () => {
    const c = createCalibration();
    expect(c.observe('m', 10, 12)).toBe(false); // too small to say anything
    expect(c.observe('m', 1_000, 0)).toBe(false);
    expect(c.observe('m', 1_000, 50_000)).toBe(false); // the upstream counted something else
    expect(c.observe('m', Number.NaN, 1_000)).toBe(false);
    expect(c.factor('m')).toBe(1);
  });

  it('stays within its bounds', () => {
    const c = createCalibration();
    for (let i = 0; i < 50; i++) c.observe('big', 1_000, 2_900);
    for (let i = 0; i < 50; i++) c.observe('small', 3_000, 1_001);
    expect(c.factor('big')).toBe(MAX_FACTOR);
    expect(c.factor('small')).toBe(MIN_FACTOR);
  });

  it("never moves another tenant's factor: one tenant's traffic pushing to a bound leaves the others where their own traffic put them", () => {
    const c = createCalibration();
    for (let i = 0; i < 10; i++) c.observe('est', 2_000, 2_400, 'quiet');
    const quiet = c.factor('est', 'quiet');
    expect(quiet).toBeCloseTo(1.2, 1);
    for (let i = 0; i < 30; i++) c.observe('est', 3_000, 1_001, 'hostile');
    expect(c.factor('est', 'hostile')).toBe(MIN_FACTOR);
    expect(c.factor('est', 'quiet')).toBe(quiet);
    for (let i = 0; i < 60; i++) c.observe('est', 1_000, 2_900, 'hostile');
    expect(c.factor('est', 'hostile')).toBeCloseTo(MAX_FACTOR, 5);
    expect(c.factor('est', 'quiet')).toBe(quiet);
  });

  it('bounds what one tenant contributes to the prior a new tenant starts from, however much it sends', () => {
    const c = createCalibration();
    for (let i = 0; i < 1_000; i++) c.observe('est', 1_000, 2_900, 'hostile');
    expect(c.factor('est', 'newcomer')).toBeLessThanOrEqual(PRIOR_MAX_SHIFT + 1e-9);
    expect(PRIOR_MAX_SHIFT).toBeLessThan(1.1);
    // A newcomer's own traffic takes it from there.
    for (let i = 0; i < 40; i++) c.observe('est', 2_000, 2_000, 'newcomer');
    expect(c.factor('est', 'newcomer')).toBeCloseTo(1, 2);
  });

  it('moves a factor by a bounded step on an outlier', () => {
    const c = createCalibration();
    for (let i = 0; i < 40; i++) c.observe('m', 1_000, 1_000, 't');
    c.observe('m', 1_000, 2_990, 't');
    expect(c.factor('m', 't')).toBeLessThan(1.05);
  });
});
