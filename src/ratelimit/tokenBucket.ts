/**
 * The rate-limit algorithm: a token bucket kept as its debt, in whole numbers, O(1) per key.
 *
 * A budget is `limit` tokens per window of W milliseconds: a full bucket holds `limit` tokens,
 * and it refills continuously at limit/W tokens per millisecond, so an idle client can spend
 * `limit` at once and then `limit` per window. (This is GCRA, the generic cell-rate algorithm,
 * written with the bucket's debt in place of GCRA's "theoretical arrival time": the two are the
 * same state shifted by the clock.)
 *
 * To stay exact, one token is W units, so the bucket holds C = limit·W units and refills
 * `limit` units per millisecond: every quantity is an integer. The state of a key is its debt D
 * (units spent and not yet restored, 0 ≤ D ≤ C) and the time of its last update `at` (ms).
 * Charging n tokens at time `now`:
 *
 *     elapsed = min(max(now − at, 0), W)            a clock going backwards restores nothing
 *     D₀      = max(D − elapsed·limit, 0)           what is still owed now
 *     allowed ⇔ D₀ + n·W ≤ C                        the bucket has n tokens left
 *     D₁      = D₀ + n·W  (if allowed; else D₀)     `at` becomes max(at, now)
 *     remaining   = ⌊(C − D₁) / W⌋                  tokens left
 *     retry after = ⌈(D₀ + n·W − C) / limit⌉ ms     when n tokens will be there (refused only)
 *     full after  = ⌈D₁ / limit⌉ ms                 when the bucket is full again
 *
 * (Both from `at`: when the clock has gone back, `at − now` later than the caller's now.)
 *
 * A refund is a charge of −n: D₁ = max(D₀ − n·W, 0), always allowed (the bucket never holds more
 * than full). Several budgets charged together (requests and cost points) are all charged or
 * none: a request refused by one budget spends nothing from the other.
 *
 * The memory store (memoryStore.ts) runs `chargeBuckets` itself; the Redis store
 * (redisStore.ts) runs the same arithmetic in a Lua script, and the property tests hold both
 * to a reference model.
 */
import { positiveInteger } from '../jsutils/positiveInteger.ts';

/** One budget: `limit` tokens per `windowMs` milliseconds. */
export interface Budget {
  readonly limit: number;
  readonly windowMs: number;
}

/** The state of one budget for one key. */
export interface BucketState {
  /** Units owed (one token is windowMs units). */
  debt: number;
  /** When the state was last updated (ms, the store's clock). */
  at: number;
}

export interface BucketReading {
  /** Tokens left after this charge. */
  readonly remaining: number;
  /** Milliseconds until the bucket is full again. */
  readonly fullInMs: number;
}

export interface ChargeOutcome {
  readonly allowed: boolean;
  /** When refused: milliseconds until every refused budget has what was asked (else 0). */
  readonly retryAfterMs: number;
  /** Each budget after the charge (unchanged when refused), in the order given. */
  readonly buckets: ReadonlyArray<BucketReading>;
}

/** Largest bucket in units: products and sums stay exact in a double (2^53) and in Lua. */
export const MAX_BUCKET_UNITS = 2 ** 50;

/** Checks a budget's numbers; throws a TypeError naming `name`. */
export function checkBudget(value: unknown, name: string): Budget {
  if (value === null || typeof value !== 'object') throw new TypeError(`${name} must be { limit, windowSeconds }, got ${String(value)}.`);
  const { windowSeconds } = value as { windowSeconds?: unknown };
  const limit = positiveInteger((value as { limit?: unknown }).limit, `${name}.limit`);
  if (typeof windowSeconds !== 'number' || !Number.isFinite(windowSeconds) || windowSeconds <= 0) {
    throw new TypeError(`${name}.windowSeconds must be a positive number of seconds, got ${String(windowSeconds)}.`);
  }
  const windowMs = Math.round(windowSeconds * 1000);
  if (windowMs < 1 || Math.abs(windowMs - windowSeconds * 1000) > 1e-6) {
    throw new TypeError(`${name}.windowSeconds must be a whole number of milliseconds, got ${windowSeconds}.`);
  }
  if (limit * windowMs > MAX_BUCKET_UNITS) {
    throw new TypeError(`${name}: limit × window in ms must be at most 2^50, got ${limit} × ${windowMs}.`);
  }
  return { limit, windowMs };
}

/**
 * Charges `amounts[i]` tokens of `budgets[i]` to `states[i]` at `now`, all or none (negative
 * amounts refund). The states are updated in place.
 */
export function chargeBuckets(
  budgets: ReadonlyArray<Budget>,
  states: BucketState[],
  amounts: ReadonlyArray<number>,
  now: number,
): ChargeOutcome {
  let allowed = true;
  let retryAfterMs = 0;
  // First what is still owed now (kept: refused or not, that is the state at `now`), and
  // whether every budget has room; then, all or none, the charge.
  for (let i = 0; i < budgets.length; i++) {
    const { limit, windowMs } = budgets[i] as Budget;
    const state = states[i] as BucketState;
    const elapsed = Math.min(Math.max(now - state.at, 0), windowMs);
    const debt = Math.max(state.debt - elapsed * limit, 0);
    state.debt = debt;
    state.at = Math.max(state.at, now);
    const asked = (amounts[i] as number) * windowMs;
    const over = debt + asked - limit * windowMs;
    if (asked > 0 && over > 0) {
      allowed = false;
      // Counted from the bucket's time, which a clock gone back has not reached yet.
      retryAfterMs = Math.max(retryAfterMs, Math.ceil(over / limit) + state.at - now);
    }
  }
  const buckets: BucketReading[] = [];
  for (let i = 0; i < budgets.length; i++) {
    const { limit, windowMs } = budgets[i] as Budget;
    const state = states[i] as BucketState;
    if (allowed) state.debt = Math.max(state.debt + (amounts[i] as number) * windowMs, 0);
    const fullInMs = state.debt === 0 ? 0 : Math.ceil(state.debt / limit) + state.at - now;
    buckets.push({ remaining: Math.floor((limit * windowMs - state.debt) / windowMs), fullInMs });
  }
  return { allowed, retryAfterMs, buckets };
}
