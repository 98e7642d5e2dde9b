/**
 * Verified credentials, by their text: a token seen before costs a map lookup, not a signature
 * check (tens of microseconds for RS256) or a round trip to an introspection endpoint.
 *
 * - Bounded (LruCache), so a stream of distinct tokens cannot grow it.
 * - An entry is never served past the credential's own expiry, nor past the cache's `maxAgeMs`
 *   (which bounds how long a revoked API key or introspected token keeps working).
 * - Only successes are kept. A failure costs its check again next time; what limits a client
 *   that keeps sending bad credentials is the rate limiter, not a cache it could fill.
 * - Concurrent first uses of one credential (a client opening 32 connections at once) share one
 *   check instead of making 32.
 */
import { LruCache } from '../jsutils/lruCache.ts';
import type { AuthError } from './authError.ts';
import type { Identity } from './identity.ts';

interface Entry {
  readonly identity: Identity;
  /** Milliseconds since the epoch after which the entry is stale. */
  readonly until: number;
}

export class CredentialCache {
  private readonly entries: LruCache<string, Entry>;
  private readonly checking = new Map<string, Promise<Identity | AuthError>>();
  private readonly maxAgeMs: number;
  private readonly maxAgeWithoutExpiryMs: number;

  /**
   * `maxAgeMs` bounds every entry's life; `maxAgeWithoutExpiryMs` that of an identity whose
   * credential states no expiry.
   */
  constructor(capacity: number, maxAgeMs: number = Infinity, maxAgeWithoutExpiryMs: number = maxAgeMs) {
    this.entries = new LruCache(capacity);
    this.maxAgeMs = maxAgeMs;
    this.maxAgeWithoutExpiryMs = maxAgeWithoutExpiryMs;
  }

  /**
   * The identity a credential was verified as, unless stale. An entry kept until its identity's
   * own expiry (or forever) is not timed here: the authentication chain refuses an expired
   * identity anyway (authenticate.ts `admit`), and reading the clock twice per request shows in
   * a small request's cost. Only an entry the cache's own maximum age ends early is timed.
   */
  get(credential: string): Identity | undefined {
    const entry = this.entries.get(credential);
    if (entry === undefined) return undefined;
    if (entry.until !== Infinity && entry.until !== entry.identity.expiresAt && entry.until <= Date.now()) {
      this.entries.delete(credential);
      return undefined;
    }
    return entry.identity;
  }

  /**
   * The cached identity, or else the outcome of `check`, run once however many requests ask at
   * the same time; an identity it yields is remembered.
   */
  verify(credential: string, check: () => Promise<Identity | AuthError>): Identity | Promise<Identity | AuthError> {
    const cached = this.get(credential);
    if (cached !== undefined) return cached;
    let pending = this.checking.get(credential);
    if (pending === undefined) {
      pending = check().then(
        (outcome) => {
          this.checking.delete(credential);
          if (!(outcome instanceof Error)) this.remember(credential, outcome);
          return outcome;
        },
        (error: unknown) => {
          this.checking.delete(credential);
          throw error;
        },
      );
      this.checking.set(credential, pending);
    }
    return pending;
  }

  remember(credential: string, identity: Identity): void {
    const now = Date.now();
    const until = identity.expiresAt === null ? now + this.maxAgeWithoutExpiryMs : Math.min(identity.expiresAt, now + this.maxAgeMs);
    this.entries.set(credential, { identity, until });
  }
}
