/**
 * The timing loop: how many times per second each contender can run one operation.
 *
 * Contenders are measured side by side rather than one after the other. After a warm-up, the
 * measuring time is cut into rounds and every round runs each contender once, in an order that
 * rotates from round to round. Whatever drifts during a run (CPU frequency, other processes,
 * the heap filling up) then touches every contender much alike, and the median of the rounds
 * shrugs off the odd round that a garbage collection or a burst of other work spoiled. Shorter
 * rounds interleave more finely; each must still be long enough to hold many calls.
 */

/** One unit of work. It may return a Promise, which is awaited before the next call. */
export type Operation = () => unknown;

export interface Contender {
  name: string;
  run: Operation;
}

export interface MeasureOptions {
  /** How long each contender runs untimed first, so V8 has optimized its code. */
  warmupMs: number;
  /** How long each contender is timed in total, across all rounds. */
  timeMs: number;
  /** How many rounds the timed part is cut into. */
  rounds: number;
}

export interface Measurement {
  name: string;
  /** The median of the rounds' rates. */
  opsPerSecond: number;
  /** Half-width of the 95% confidence interval of the mean rate, as a fraction of the mean. */
  relativeMargin: number;
  /** The rate measured in each round, in the order the rounds ran. */
  samples: number[];
}

/**
 * Reading the clock costs tens of nanoseconds, a sizeable fraction of a trivial query on a
 * fast engine, so the loop reads it once per batch of calls instead of once per call. During the
 * warm-up the batch doubles until one batch takes at least this long; from then on the clock
 * adds well under 0.1% to what is measured.
 */
const TARGET_BATCH_MS = 1;

/** Warms up, then times, every contender; answers one measurement per contender, in order. */
export async function measure(contenders: readonly Contender[], options: MeasureOptions): Promise<Measurement[]> {
  const batchSizes: number[] = [];
  for (const contender of contenders) {
    batchSizes.push(await warmUp(contender.run, options.warmupMs));
  }

  const samples: number[][] = contenders.map(() => []);
  const roundMs = options.timeMs / options.rounds;
  for (let round = 0; round < options.rounds; round++) {
    for (let turn = 0; turn < contenders.length; turn++) {
      const index = (round + turn) % contenders.length;
      samples[index].push(await timeRate(contenders[index].run, batchSizes[index], roundMs));
    }
  }

  return contenders.map((contender, index) => ({
    name: contender.name,
    opsPerSecond: median(samples[index]),
    relativeMargin: relativeMarginOfError(samples[index]),
    samples: samples[index],
  }));
}

/** Runs `run` untimed for `ms`, and returns the batch size the timed rounds should use. */
async function warmUp(run: Operation, ms: number): Promise<number> {
  let batchSize = 1;
  const start = performance.now();
  while (performance.now() - start < ms) {
    const batchStart = performance.now();
    await runBatch(run, batchSize);
    if (performance.now() - batchStart < TARGET_BATCH_MS) batchSize *= 2;
  }
  return batchSize;
}

/**
 * Runs whole batches until at least `ms` have passed, and returns calls per second. The last
 * batch may overrun `ms`; that is harmless, because the rate divides by the time really taken.
 */
async function timeRate(run: Operation, batchSize: number, ms: number): Promise<number> {
  let calls = 0;
  let elapsed = 0;
  const start = performance.now();
  do {
    await runBatch(run, batchSize);
    calls += batchSize;
    elapsed = performance.now() - start;
  } while (elapsed < ms);
  return calls / (elapsed / 1000);
}

/**
 * Calls `run` `count` times, one call at a time. A Promise is awaited only when one is
 * returned, so a synchronous engine is not charged a microtask per call for the async
 * engines' sake; an async engine is measured as the latency of one request after another.
 */
async function runBatch(run: Operation, count: number): Promise<void> {
  for (let i = 0; i < count; i++) {
    const result = run();
    if (isPromiseLike(result)) await result;
  }
}

function isPromiseLike(value: unknown): value is PromiseLike<unknown> {
  return typeof (value as PromiseLike<unknown> | null)?.then === 'function';
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * Two-sided 95% critical values of Student's t distribution by degrees of freedom (1 to 30);
 * with more samples than that the normal distribution's 1.96 is close enough. A handful of
 * rounds is far too few to use 1.96 directly: with 10 rounds it would understate the margin
 * by about 13%.
 */
const T_95 = [
  12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.16, 2.145, 2.131, 2.12,
  2.11, 2.101, 2.093, 2.086, 2.08, 2.074, 2.069, 2.064, 2.06, 2.056, 2.052, 2.048, 2.045, 2.042,
];

function relativeMarginOfError(values: readonly number[]): number {
  const n = values.length;
  if (n < 2) return Number.NaN;
  const mean = values.reduce((sum, value) => sum + value, 0) / n;
  const variance = values.reduce((sum, value) => sum + (value - mean) ** 2, 0) / (n - 1);
  const standardError = Math.sqrt(variance / n);
  return ((T_95[n - 2] ?? 1.96) * standardError) / mean;
}
