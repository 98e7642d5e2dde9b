/**
 * The in-memory rate-limit store: one instance's buckets, in a bounded map.
 *
 * Bounded: at most `maxKeys` keys (default 100,000; the memory each takes is in
 * docs/benchmarks.md). A key whose buckets are all full again holds nothing a fresh key would
 * not, so it is forgotten: on a sweep every `sweepMs` (an unref'd timer). When the
 * map is full, the first key of the map is dropped (idle, or else it starts again with a full
 * bucket: in the client's favour, never against it). The map keeps keys in about the order of
 * their last charge (a key is moved to the end once it has fallen into the older half), so
 * that one is among the least recently charged. A key that is idle after a charge is not kept.
 *
 * The clock is monotonic (performance.now), so a change of the system time neither refills
 * nor drains a bucket. Charges are synchronous: a request limited in memory is answered in the
 * same turn of the event loop.
 */
import type { BucketCharge, RateLimitStore } from './store.ts';
import { chargeBuckets } from './tokenBucket.ts';
import type { Budget, BucketState, ChargeOutcome } from './tokenBucket.ts';
import { positiveInteger } from '../jsutils/positiveInteger.ts';

export interface MemoryStoreOptions {
  /** Most keys kept at once (default 100,000). */
  maxKeys?: number;
  /** How often keys whose buckets are full again are forgotten (default 60,000 ms). */
  sweepMs?: number;
  /** The clock in whole milliseconds (default: monotonic, from performance.now). */
  now?: () => number;
}

interface Entry {
  readonly states: BucketState[];
  /** When every bucket is full again (ms): from then on the entry is equivalent to none. */
  idleAt: number;
  /** The charge count when the entry was last put at the end of the map. */
  sequence: number;
}

export const DEFAULT_MAX_KEYS = 100_000;

export class MemoryStore implements RateLimitStore {
  private readonly entries = new Map<string, Entry>();
  /** Counts charges: how recently each entry was put at the end of the map. */
  private sequence = 0;
  private readonly splits = new WeakMap<ReadonlyArray<BucketCharge>, { budgets: Budget[]; amounts: number[] }>();
  private lastCharges: ReadonlyArray<BucketCharge> | null = null;
  private lastSplit: { budgets: Budget[]; amounts: number[] } | null = null;
  private readonly maxKeys: number;
  private readonly now: () => number;
  private timer: ReturnType<typeof setInterval> | null;

  constructor(options: MemoryStoreOptions = {}) {
    this.maxKeys = positiveInteger(options.maxKeys ?? DEFAULT_MAX_KEYS, 'rateLimit.store.maxKeys');
    const sweepMs = positiveInteger(options.sweepMs ?? 60_000, 'rateLimit.store.sweepMs');
    this.now = options.now ?? (() => Math.floor(performance.now()));
    this.timer = setInterval(() => this.sweep(), sweepMs);
    this.timer.unref();
  }

  /** Keys held now. */
  get size(): number {
    return this.entries.size;
  }

  charge(key: string, charges: ReadonlyArray<BucketCharge>): ChargeOutcome {
    const now = this.now();
    const sequence = ++this.sequence;
    let entry = this.entries.get(key);
    if (entry !== undefined && entry.states.length !== charges.length) entry = undefined;
    const fresh = entry === undefined;
    if (entry === undefined) {
      entry = { states: charges.map(() => ({ debt: 0, at: now })), idleAt: now, sequence };
    } else if (sequence - entry.sequence > this.maxKeys >> 1) {
      // Moved to the end, so that the map stays in about the order of last charge: not on
      // every charge (a delete and a set cost more than the charge itself), only once the key
      // has fallen into the older half.
      this.entries.delete(key);
      this.entries.set(key, entry);
      entry.sequence = sequence;
    }
    const { budgets, amounts } = this.split(charges);
    const outcome = chargeBuckets(budgets, entry.states, amounts, now);
    let idleAt = now;
    for (const bucket of outcome.buckets) idleAt = Math.max(idleAt, now + bucket.fullInMs);
    entry.idleAt = idleAt;
    if (idleAt <= now) {
      if (!fresh) this.entries.delete(key);
    } else if (fresh) {
      // Only a key that holds something takes a place (and may push another out).
      if (this.entries.size >= this.maxKeys) this.makeRoom();
      this.entries.set(key, entry);
    }
    return outcome;
  }

  /** The charges as chargeBuckets takes them; remembered for the limiter's charges made once per policy. */
  private split(charges: ReadonlyArray<BucketCharge>): { budgets: Budget[]; amounts: number[] } {
    // Most charges are the one the last charge was.
    if (charges === this.lastCharges) return this.lastSplit as { budgets: Budget[]; amounts: number[] };
    let split = this.splits.get(charges);
    if (split === undefined) {
      split = { budgets: charges.map((charge) => charge.budget), amounts: charges.map((charge) => charge.amount) };
      if (!Object.isFrozen(charges)) return split;
      this.splits.set(charges, split);
    }
    this.lastCharges = charges;
    this.lastSplit = split;
    return split;
  }

  /** Forgets every key whose buckets are full again. */
  sweep(): void {
    const now = this.now();
    for (const [key, entry] of this.entries) if (entry.idleAt <= now) this.entries.delete(key);
  }

  close(): Promise<void> {
    if (this.timer !== null) clearInterval(this.timer);
    this.timer = null;
    this.entries.clear();
    return Promise.resolve();
  }

  /**
   * The map is full: its first key, among the least recently charged, goes (idle or not; idle keys also go on
   * the sweep). O(1), so a flood of new keys costs each request the same.
   */
  private makeRoom(): void {
    const oldest = this.entries.keys().next();
    if (oldest.done !== true) this.entries.delete(oldest.value);
  }
}
