/**
 * Arbitraries the rate-limit property tests share: arrival times and amounts relative to the
 * budgets they are charged against.
 */
import fc from 'fast-check';
import type { Budget } from '../../src/ratelimit/tokenBucket.ts';

/** A whole number in [min, max], beyond fc.integer's 32 bits. */
export const safeInteger = (min: number, max: number): fc.Arbitrary<number> => fc.bigInt({ min: BigInt(min), max: BigInt(max) }).map(Number);

/**
 * Time steps relative to the budgets: repeats, single milliseconds, a token's time, whole
 * windows and up to `beyond` windows past, and (with `backwards`) the clock going back.
 */
export function deltaArbitrary(budgets: ReadonlyArray<Budget>, { backwards, beyond }: { backwards: boolean; beyond: number }): fc.Arbitrary<number> {
  const longest = Math.max(...budgets.map((budget) => budget.windowMs));
  const perToken = Math.max(...budgets.map((budget) => Math.ceil(budget.windowMs / budget.limit)));
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant(0) },
    { weight: 3, arbitrary: fc.integer({ min: 1, max: 5 }) },
    { weight: 4, arbitrary: safeInteger(1, 3 * perToken) },
    { weight: 2, arbitrary: safeInteger(1, longest) },
    { weight: 1, arbitrary: safeInteger(longest + 1, beyond * longest + 1) },
    { weight: backwards ? 2 : 0, arbitrary: safeInteger(-2 * longest, -1) },
  );
}

/** Amounts for one budget: small charges, zero, the whole bucket and more, refunds. */
export function amountArbitrary(budget: Budget): fc.Arbitrary<number> {
  return fc.oneof(
    { weight: 5, arbitrary: fc.integer({ min: 1, max: Math.min(3, budget.limit) }) },
    { weight: 2, arbitrary: fc.constant(0) },
    { weight: 3, arbitrary: fc.integer({ min: 1, max: budget.limit }) },
    { weight: 1, arbitrary: fc.integer({ min: budget.limit + 1, max: 3 * budget.limit }) },
    { weight: 2, arbitrary: fc.integer({ min: -budget.limit - 2, max: -1 }) },
  );
}
