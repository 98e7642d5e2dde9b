/**
 * Where rate-limit state lives: the interface both stores implement (memoryStore.ts, the
 * default; redisStore.ts, shared by every instance). A store knows nothing of HTTP, identities
 * or policies: it charges named budgets of a key, atomically, with the arithmetic of
 * tokenBucket.ts.
 */
import type { Budget, ChargeOutcome } from './tokenBucket.ts';
import type { ReadinessCheck } from '../observability/health.ts';

/** The budgets a key is charged against: `requests` and `cost` points. */
export type BudgetName = 'requests' | 'cost';

/** One budget of a charge: how many tokens (negative: a refund). */
export interface BucketCharge {
  readonly name: BudgetName;
  readonly budget: Budget;
  readonly amount: number;
}

export interface RateLimitStore {
  /**
   * Charges every bucket of `key`, all or none. Every charge of a key names all of the key's
   * budgets (with amount 0 for those not charged), so the store knows when the whole key is
   * idle. Rejects (or throws) when the store cannot answer: the limiter's failOpen decides.
   */
  charge(key: string, charges: ReadonlyArray<BucketCharge>): ChargeOutcome | Promise<ChargeOutcome>;
  /** Releases what the store holds (timers, connections). */
  close(): Promise<void>;
  /** A store outside the process says here whether it can answer (for readiness probes). */
  readonly readiness?: ReadinessCheck;
}
