/**
 * The rate-limit arithmetic (src/ratelimit/tokenBucket.ts): `chargeBuckets` held to a reference
 * model written here in another style, and `checkBudget`'s refusals.
 *
 * The model keeps the tokens a bucket holds as an exact fraction (BigInt numerator and
 * denominator), refilled at limit/windowMs tokens per millisecond and capped at `limit`; its
 * clock is the latest time it has seen, so a clock going backwards neither refills nor drains.
 * It knows nothing of debts or units: where the implementation computes a formula, the model
 * answers from its own tokens, and the property checks the durations the implementation reports
 * by asking the model what happens at that time and one millisecond earlier.
 *
 * Durations (retryAfterMs, fullInMs) are counted from the caller's `now`; when the clock has
 * gone backwards they include the gap to the latest time the bucket has seen, from which alone
 * it refills (the last describe block shows the case by example).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_BUCKET_UNITS, chargeBuckets, checkBudget } from '../src/ratelimit/tokenBucket.ts';
import type { BucketState, Budget, ChargeOutcome } from '../src/ratelimit/tokenBucket.ts';
import { expectTypeError } from './support/expectations.ts';
import { amountArbitrary, deltaArbitrary, safeInteger } from './support/rateLimitArbitraries.ts';

// ---------------------------------------------------------------------------------------------
// The reference model: exact rationals.

/** A non-negative exact fraction. */
class Fraction {
  readonly num: bigint;
  readonly den: bigint;

  constructor(num: bigint, den: bigint = 1n) {
    if (den <= 0n) throw new Error('Fraction: the denominator must be positive');
    const divisor = gcd(num < 0n ? -num : num, den);
    this.num = num / divisor;
    this.den = den / divisor;
  }

  plus(other: Fraction): Fraction {
    return new Fraction(this.num * other.den + other.num * this.den, this.den * other.den);
  }

  minus(other: Fraction): Fraction {
    return new Fraction(this.num * other.den - other.num * this.den, this.den * other.den);
  }

  times(other: Fraction): Fraction {
    return new Fraction(this.num * other.num, this.den * other.den);
  }

  dividedBy(other: Fraction): Fraction {
    if (other.num === 0n) throw new Error('Fraction: division by zero');
    const sign = other.num < 0n ? -1n : 1n;
    return new Fraction(this.num * other.den * sign, this.den * other.num * sign);
  }

  compare(other: Fraction): number {
    const difference = this.num * other.den - other.num * this.den;
    return difference < 0n ? -1 : difference > 0n ? 1 : 0;
  }

  min(other: Fraction): Fraction {
    return this.compare(other) <= 0 ? this : other;
  }

  floor(): bigint {
    const quotient = this.num / this.den;
    return this.num < 0n && quotient * this.den !== this.num ? quotient - 1n : quotient;
  }

  ceil(): bigint {
    const quotient = this.num / this.den;
    return this.num > 0n && quotient * this.den !== this.num ? quotient + 1n : quotient;
  }
}

function gcd(a: bigint, b: bigint): bigint {
  while (b !== 0n) [a, b] = [b, a % b];
  return a === 0n ? 1n : a;
}

const whole = (n: number | bigint): Fraction => new Fraction(BigInt(n));

interface ModelBucket {
  readonly limit: bigint;
  readonly windowMs: bigint;
  tokens: Fraction;
}

interface ModelOutcome {
  readonly allowed: boolean;
  /** From the model's clock (the latest time seen) until the refused charge would pass. */
  readonly retryAfterMs: number;
  readonly buckets: Array<{ remaining: number; fullInMs: number }>;
}

/** A set of buckets charged together, with one clock: the latest time it has seen. */
class Model {
  constructor(
    readonly buckets: ModelBucket[],
    public clock: bigint,
  ) {}

  static fresh(budgets: ReadonlyArray<Budget>, start: number): Model {
    return new Model(
      budgets.map((budget) => ({ limit: BigInt(budget.limit), windowMs: BigInt(budget.windowMs), tokens: whole(budget.limit) })),
      BigInt(start),
    );
  }

  clone(): Model {
    return new Model(
      this.buckets.map((bucket) => ({ ...bucket })),
      this.clock,
    );
  }

  /** Refills every bucket up to `now` (never backwards). */
  advance(now: number): void {
    const t = BigInt(now);
    if (t <= this.clock) return;
    const elapsed = t - this.clock;
    for (const bucket of this.buckets) {
      bucket.tokens = bucket.tokens.plus(new Fraction(elapsed * bucket.limit, bucket.windowMs)).min(whole(bucket.limit));
    }
    this.clock = t;
  }

  /** Whether every bucket has what `amounts` asks (refunds and zero always pass). */
  fits(amounts: ReadonlyArray<number>): boolean {
    return this.buckets.every((bucket, i) => (amounts[i] as number) <= 0 || bucket.tokens.compare(whole(amounts[i] as number)) >= 0);
  }

  /** Milliseconds (from the model's clock) until `bucket` holds `amount` tokens, ignoring the cap. */
  private static msUntil(bucket: ModelBucket, amount: Fraction): number {
    const missing = amount.minus(bucket.tokens);
    if (missing.compare(whole(0)) <= 0) return 0;
    return Number(missing.times(new Fraction(bucket.windowMs, bucket.limit)).ceil());
  }

  charge(amounts: ReadonlyArray<number>, now: number): ModelOutcome {
    this.advance(now);
    const allowed = this.fits(amounts);
    let retryAfterMs = 0;
    if (allowed) {
      this.buckets.forEach((bucket, i) => {
        bucket.tokens = bucket.tokens.minus(whole(amounts[i] as number)).min(whole(bucket.limit));
      });
    } else {
      this.buckets.forEach((bucket, i) => {
        const amount = amounts[i] as number;
        if (amount > 0 && bucket.tokens.compare(whole(amount)) < 0) retryAfterMs = Math.max(retryAfterMs, Model.msUntil(bucket, whole(amount)));
      });
    }
    // Durations are told on the caller's clock: from `now`, behind the model's when it went back.
    const lag = Number(this.clock) - now;
    return {
      allowed,
      retryAfterMs: retryAfterMs === 0 ? 0 : retryAfterMs + lag,
      buckets: this.buckets.map((bucket) => {
        const fullInMs = Model.msUntil(bucket, whole(bucket.limit));
        return { remaining: Number(bucket.tokens.floor()), fullInMs: fullInMs === 0 ? 0 : fullInMs + lag };
      }),
    };
  }

  /** Whether `amounts` would be allowed at `at` (the model is not changed). */
  wouldAllow(amounts: ReadonlyArray<number>, at: bigint): boolean {
    const copy = this.clone();
    copy.advance(Number(at));
    return copy.fits(amounts);
  }

  /** Whether bucket `i` would be full at `at`. */
  wouldBeFull(i: number, at: bigint): boolean {
    const copy = this.clone();
    copy.advance(Number(at));
    const bucket = copy.buckets[i] as ModelBucket;
    return bucket.tokens.compare(whole(bucket.limit)) === 0;
  }
}

// ---------------------------------------------------------------------------------------------
// The model against chargeBuckets.

const budgetArbitrary: fc.Arbitrary<Budget> = fc.record({
  limit: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 1000 })),
  windowMs: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: 3_600_000 }), fc.constantFrom(1000, 60_000, 3_600_000)),
});

interface Step {
  readonly delta: number;
  readonly amounts: number[];
}

const scenarioArbitrary = fc.array(budgetArbitrary, { minLength: 1, maxLength: 2 }).chain((budgets) =>
  fc.record({
    budgets: fc.constant(budgets),
    start: fc.oneof(fc.constant(0), safeInteger(0, 2_000_000_000_000)),
    steps: fc.array(
      fc.record({
        delta: deltaArbitrary(budgets, { backwards: true, beyond: 10 }),
        amounts: fc.tuple(...budgets.map(amountArbitrary)),
      }),
      { minLength: 1, maxLength: 40 },
    ) as fc.Arbitrary<Step[]>,
  }),
);

describe('chargeBuckets against an exact model', () => {
  it('agrees with the model on every step: allowed, retryAfterMs, remaining and fullInMs, all or nothing', () => {
    fc.assert(
      fc.property(scenarioArbitrary, ({ budgets, start, steps }) => {
        const model = Model.fresh(budgets, start);
        const states: BucketState[] = budgets.map(() => ({ debt: 0, at: start }));
        let now = start;
        for (const [index, { delta, amounts }] of steps.entries()) {
          now += delta;
          const where = `step ${index} (now ${now}, amounts ${JSON.stringify(amounts)})`;
          const before = states.map((state) => ({ ...state }));
          const modelBefore = model.clone();
          const outcome: ChargeOutcome = chargeBuckets(budgets, states, amounts, now);
          const expected = model.charge(amounts, now);

          expect(outcome, where).toEqual(expected);

          // The state stays whole numbers within the bucket, and its time never goes back.
          states.forEach((state, i) => {
            const budget = budgets[i] as Budget;
            expect(Number.isInteger(state.debt), where).toBe(true);
            expect(state.debt, where).toBeGreaterThanOrEqual(0);
            expect(state.debt, where).toBeLessThanOrEqual(budget.limit * budget.windowMs);
            expect(state.at, where).toBe(Math.max(before[i]!.at, now));
          });

          if (!outcome.allowed) {
            // All or nothing: a refusal spends (and refunds) nothing in any budget: each bucket
            // holds what it held, refilled to now.
            const refilled = modelBefore.clone();
            refilled.advance(now);
            refilled.buckets.forEach((bucket, i) => {
              const budget = budgets[i] as Budget;
              expect(outcome.buckets[i]!.remaining, where).toBe(Number(bucket.tokens.floor()));
              expect(states[i]!.debt, where).toBe(Number(whole(budget.limit).minus(bucket.tokens).times(whole(budget.windowMs)).ceil()));
            });
            // retryAfterMs is the first whole millisecond at which the same charge passes.
            expect(outcome.retryAfterMs, where).toBeGreaterThan(0);
            const fitsAlone = amounts.every((amount, i) => amount <= (budgets[i] as Budget).limit);
            if (fitsAlone) {
              expect(model.wouldAllow(amounts, BigInt(now) + BigInt(outcome.retryAfterMs)), `${where}: allowed after retryAfterMs`).toBe(true);
              expect(model.wouldAllow(amounts, BigInt(now) + BigInt(outcome.retryAfterMs) - 1n), `${where}: refused 1 ms before retryAfterMs`).toBe(false);
            }
          } else {
            expect(outcome.retryAfterMs, where).toBe(0);
          }

          // fullInMs is the first whole millisecond at which the bucket is full again.
          outcome.buckets.forEach((bucket, i) => {
            expect(model.wouldBeFull(i, BigInt(now) + BigInt(bucket.fullInMs)), `${where}: bucket ${i} full after fullInMs`).toBe(true);
            if (bucket.fullInMs > 0) {
              expect(model.wouldBeFull(i, BigInt(now) + BigInt(bucket.fullInMs) - 1n), `${where}: bucket ${i} not full 1 ms before fullInMs`).toBe(false);
            }
          });
        }
      }),
      { numRuns: 1500 },
    );
  });

  it('keeps big buckets exact: 5,000 per hour (1.8e10 units) and limit × window at 2^50', () => {
    const bigBudget = fc.oneof(
      fc.constant({ limit: 5000, windowMs: 3_600_000 }),
      fc.constant({ limit: 2 ** 20, windowMs: 2 ** 30 }),
      fc.integer({ min: 1, max: 2 ** 20 }).map((limit) => ({ limit, windowMs: Math.floor(MAX_BUCKET_UNITS / limit) })),
    );
    fc.assert(
      fc.property(
        fc.array(bigBudget, { minLength: 1, maxLength: 2 }).chain((budgets) =>
          fc.record({
            budgets: fc.constant(budgets),
            // Times stay well within 2^53 (a window here is up to 2^50 ms).
            steps: fc
              .array(fc.record({ delta: deltaArbitrary(budgets, { backwards: true, beyond: 10 }), amounts: fc.tuple(...budgets.map(amountArbitrary)) }), { minLength: 1, maxLength: 30 })
              .filter((steps) => steps.reduce((sum, step) => sum + Math.abs(step.delta), 0) <= 2 ** 52),
          }),
        ),
        ({ budgets, steps }) => {
          for (const budget of budgets) expect(budget.limit * budget.windowMs).toBeLessThanOrEqual(MAX_BUCKET_UNITS);
          const start = 1_700_000_000_000;
          const model = Model.fresh(budgets, start);
          const states: BucketState[] = budgets.map(() => ({ debt: 0, at: start }));
          let now = start;
          for (const [index, { delta, amounts }] of steps.entries()) {
            now += delta;
            expect(chargeBuckets(budgets, states, amounts, now), `step ${index} (now ${now}, amounts ${JSON.stringify(amounts)})`).toEqual(model.charge(amounts, now));
          }
        },
      ),
      { numRuns: 400 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Examples with exact numbers.

describe('chargeBuckets by example', () => {
  const three = { limit: 3, windowMs: 60_000 };

  it('allows 3 per 60 s at once, refuses the 4th for 20,000 ms, and allows it at 20,000 ms', () => {
    const states: BucketState[] = [{ debt: 0, at: 0 }];
    expect(chargeBuckets([three], states, [1], 0)).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 2, fullInMs: 20_000 }] });
    expect(chargeBuckets([three], states, [1], 0)).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 1, fullInMs: 40_000 }] });
    expect(chargeBuckets([three], states, [1], 0)).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 0, fullInMs: 60_000 }] });
    expect(states).toEqual([{ debt: 180_000, at: 0 }]);
    expect(chargeBuckets([three], states, [1], 0)).toEqual({ allowed: false, retryAfterMs: 20_000, buckets: [{ remaining: 0, fullInMs: 60_000 }] });
    expect(chargeBuckets([three], states, [1], 19_999)).toEqual({ allowed: false, retryAfterMs: 1, buckets: [{ remaining: 0, fullInMs: 40_001 }] });
    expect(chargeBuckets([three], states, [1], 20_000)).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 0, fullInMs: 60_000 }] });
    expect(states).toEqual([{ debt: 180_000, at: 20_000 }]);
  });

  it('refuses more than the bucket holds with the time the whole amount would take, and spends nothing', () => {
    const states: BucketState[] = [{ debt: 0, at: 0 }];
    expect(chargeBuckets([three], states, [4], 0)).toEqual({ allowed: false, retryAfterMs: 20_000, buckets: [{ remaining: 3, fullInMs: 0 }] });
    expect(states).toEqual([{ debt: 0, at: 0 }]);
    expect(chargeBuckets([three], states, [0], 0)).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 3, fullInMs: 0 }] });
  });

  it('restores refunded tokens, never above the capacity', () => {
    const states: BucketState[] = [{ debt: 0, at: 0 }];
    chargeBuckets([three], states, [3], 0);
    expect(chargeBuckets([three], states, [-1], 0)).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 1, fullInMs: 40_000 }] });
    expect(chargeBuckets([three], states, [-10], 0)).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 3, fullInMs: 0 }] });
    expect(states).toEqual([{ debt: 0, at: 0 }]);
    // A refund to a full bucket adds nothing: 3 more pass, the 4th does not.
    expect(chargeBuckets([three], states, [-5], 0)).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 3, fullInMs: 0 }] });
    expect(chargeBuckets([three], states, [3], 0).allowed).toBe(true);
    expect(chargeBuckets([three], states, [1], 0)).toEqual({ allowed: false, retryAfterMs: 20_000, buckets: [{ remaining: 0, fullInMs: 60_000 }] });
  });

  it('restores nothing when the clock goes backwards, and keeps the latest time', () => {
    const states: BucketState[] = [{ debt: 0, at: 60_000 }];
    chargeBuckets([three], states, [3], 60_000);
    const outcome = chargeBuckets([three], states, [1], 0);
    expect(outcome.allowed).toBe(false);
    // Full again 60 s after the latest time, 60,000: 120 s after this caller's 0.
    expect(outcome.buckets).toEqual([{ remaining: 0, fullInMs: 120_000 }]);
    expect(states).toEqual([{ debt: 180_000, at: 60_000 }]);
    // Back at the latest time, still nothing; 20 s after it, one token.
    expect(chargeBuckets([three], states, [1], 60_000).allowed).toBe(false);
    expect(chargeBuckets([three], states, [1], 80_000)).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 0, fullInMs: 60_000 }] });
  });

  it('charges several budgets all or none: a refusal by one spends nothing from the other', () => {
    const requests = { limit: 10, windowMs: 1000 };
    const cost = { limit: 100, windowMs: 1000 };
    const states: BucketState[] = [
      { debt: 0, at: 0 },
      { debt: 0, at: 0 },
    ];
    expect(chargeBuckets([requests, cost], states, [1, 60], 0)).toEqual({
      allowed: true,
      retryAfterMs: 0,
      buckets: [
        { remaining: 9, fullInMs: 100 },
        { remaining: 40, fullInMs: 600 },
      ],
    });
    // 60 more cost points: 20 missing, 200 ms at 100 per second.
    expect(chargeBuckets([requests, cost], states, [1, 60], 0)).toEqual({
      allowed: false,
      retryAfterMs: 200,
      buckets: [
        { remaining: 9, fullInMs: 100 },
        { remaining: 40, fullInMs: 600 },
      ],
    });
    expect(states).toEqual([
      { debt: 1000, at: 0 },
      { debt: 60_000, at: 0 },
    ]);
    // A refund paired with a refused charge is not made either.
    expect(chargeBuckets([requests, cost], states, [11, -60], 0).allowed).toBe(false);
    expect(states).toEqual([
      { debt: 1000, at: 0 },
      { debt: 60_000, at: 0 },
    ]);
    // Both refused: the later of the two times.
    expect(chargeBuckets([requests, cost], states, [10, 70], 0).retryAfterMs).toBe(300);
  });
});

// ---------------------------------------------------------------------------------------------
// The durations after the clock went backwards.

describe('chargeBuckets after the clock went backwards', () => {
  // ChargeOutcome documents retryAfterMs as "milliseconds until every refused budget has what
  // was asked" and fullInMs as "milliseconds until the bucket is full again", both counted on the
  // caller's clock. When `now` is behind the bucket's latest time, the bucket refills only from
  // that latest time, so both must include the gap.
  const three = { limit: 3, windowMs: 60_000 };

  it('gives a retryAfterMs after which the charge is allowed, counted from the caller\'s now', () => {
    const states: BucketState[] = [{ debt: 0, at: 10_000 }];
    chargeBuckets([three], states, [3], 10_000);
    const refused = chargeBuckets([three], states, [1], 5000);
    expect(refused.allowed).toBe(false);
    // One token is there at 10,000 + 20,000: 25,000 ms after 5,000.
    expect(refused.retryAfterMs).toBe(25_000);
    expect(refused.buckets).toEqual([{ remaining: 0, fullInMs: 65_000 }]);
    expect(chargeBuckets([three], states, [1], 5000 + refused.retryAfterMs).allowed).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// checkBudget.

describe('checkBudget', () => {
  const name = 'rateLimit.anonymous.requests';

  it('turns seconds into whole milliseconds', () => {
    expect(checkBudget({ limit: 3, windowSeconds: 60 }, name)).toEqual({ limit: 3, windowMs: 60_000 });
    expect(checkBudget({ limit: 1, windowSeconds: 0.001 }, name)).toEqual({ limit: 1, windowMs: 1 });
    expect(checkBudget({ limit: 5000, windowSeconds: 3600 }, name)).toEqual({ limit: 5000, windowMs: 3_600_000 });
    expect(checkBudget({ limit: 7, windowSeconds: 1.5 }, name)).toEqual({ limit: 7, windowMs: 1500 });
  });

  it('accepts limit × window of exactly 2^50 units', () => {
    expect(MAX_BUCKET_UNITS).toBe(2 ** 50);
    expect(checkBudget({ limit: 2 ** 20, windowSeconds: 2 ** 30 / 1000 }, name)).toEqual({ limit: 2 ** 20, windowMs: 2 ** 30 });
  });

  it.each([
    [0, 'rateLimit.anonymous.requests.limit must be a positive whole number, got 0.'],
    [1.5, 'rateLimit.anonymous.requests.limit must be a positive whole number, got 1.5.'],
    [-1, 'rateLimit.anonymous.requests.limit must be a positive whole number, got -1.'],
    [Number.NaN, 'rateLimit.anonymous.requests.limit must be a positive whole number, got NaN.'],
    ['3', 'rateLimit.anonymous.requests.limit must be a positive whole number, got "3".'],
    [undefined, 'rateLimit.anonymous.requests.limit must be a positive whole number, got undefined.'],
  ])('refuses limit %s', (limit, message) => {
    expectTypeError(() => checkBudget({ limit, windowSeconds: 60 }, name), message);
  });

  it.each([
    [0, 'rateLimit.anonymous.requests.windowSeconds must be a positive number of seconds, got 0.'],
    [-60, 'rateLimit.anonymous.requests.windowSeconds must be a positive number of seconds, got -60.'],
    [Number.NaN, 'rateLimit.anonymous.requests.windowSeconds must be a positive number of seconds, got NaN.'],
    [Number.POSITIVE_INFINITY, 'rateLimit.anonymous.requests.windowSeconds must be a positive number of seconds, got Infinity.'],
    ['60', 'rateLimit.anonymous.requests.windowSeconds must be a positive number of seconds, got 60.'],
    [0.0001, 'rateLimit.anonymous.requests.windowSeconds must be a whole number of milliseconds, got 0.0001.'],
    [0.0015, 'rateLimit.anonymous.requests.windowSeconds must be a whole number of milliseconds, got 0.0015.'],
    [1.0005, 'rateLimit.anonymous.requests.windowSeconds must be a whole number of milliseconds, got 1.0005.'],
  ])('refuses windowSeconds %s', (windowSeconds, message) => {
    expectTypeError(() => checkBudget({ limit: 3, windowSeconds }, name), message);
  });

  it('refuses limit × window in ms above 2^50', () => {
    expectTypeError(
      () => checkBudget({ limit: 1_000_000, windowSeconds: 1_200_000 }, name),
      'rateLimit.anonymous.requests: limit × window in ms must be at most 2^50, got 1000000 × 1200000000.',
    );
    expectTypeError(
      () => checkBudget({ limit: 2 ** 20 + 1, windowSeconds: 2 ** 30 / 1000 }, name),
      'rateLimit.anonymous.requests: limit × window in ms must be at most 2^50, got 1048577 × 1073741824.',
    );
  });

  it('refuses what is not an object', () => {
    expectTypeError(() => checkBudget(null, name), 'rateLimit.anonymous.requests must be { limit, windowSeconds }, got null.');
    expectTypeError(() => checkBudget(100, name), 'rateLimit.anonymous.requests must be { limit, windowSeconds }, got 100.');
    expectTypeError(() => checkBudget(undefined, name), 'rateLimit.anonymous.requests must be { limit, windowSeconds }, got undefined.');
  });
});
