/**
 * The rate limiter: which budgets a caller has, who the caller is for counting, and what a
 * charge comes to, for the operation pipeline. Transports never see it: they get an outcome
 * (refused: 429 or 503; or allowed, with the standing to report) and turn it into headers.
 *
 * Budgets (each optional, each with its own window): `requests` per window, and `cost` points
 * per window, charged the operation's requested cost (at least 1) before it executes and
 * refunded down to its actual cost after (Shopify's rule). A policy per role overrides either
 * (the first role in `roles` the caller holds, through the schema's role hierarchy, wins).
 *
 * Counted per client: the authenticated identity (`kind:id`), else the client's address
 * (clientAddress.ts, with `trustProxy`). A request whose address is unknown is counted under
 * one shared key, `unknown`, rather than not at all.
 *
 * When the store cannot answer (Redis down or slow), `failOpen: false` (the default) refuses
 * with 503 RATE_LIMIT_UNAVAILABLE: a limit that silently stops limiting is worse for the
 * services behind it than a short outage; `failOpen: true` lets the request through, unlimited.
 * For STORE_RETRY_MS after a failure the store is not asked at all, so that requests are
 * answered at once rather than each waiting out the store's timeout; then it is asked again,
 * and limiting resumes as soon as it answers.
 */
import type { GraphQLSchema } from 'graphql';
import { describe } from '../jsutils/describe.ts';
import { positiveInteger } from '../jsutils/positiveInteger.ts';
import { ErrorCode } from '../errors/codes.ts';
import { hasAnyRole } from '../security/access.ts';
import type { Identity } from '../security/identity.ts';
import { LruCache } from '../jsutils/lruCache.ts';
import { clientAddress } from './clientAddress.ts';
import { MemoryStore } from './memoryStore.ts';
import type { MemoryStoreOptions } from './memoryStore.ts';
import { RedisStore } from './redisStore.ts';
import type { RedisStoreOptions } from './redisStore.ts';
import type { BucketCharge, BudgetName, RateLimitStore } from './store.ts';
import { checkBudget } from './tokenBucket.ts';
import type { Budget, BucketReading, ChargeOutcome } from './tokenBucket.ts';

/** `limit` per `windowSeconds`: e.g. `{ limit: 600, windowSeconds: 60 }`. */
export interface BudgetOption {
  limit: number;
  windowSeconds: number;
}

export interface RateLimitOptions {
  /** Requests (operations: each of a batch counts) per window. */
  requests?: BudgetOption;
  /** Query-cost points per window. */
  cost?: BudgetOption;
  /**
   * Budgets by role, in order of precedence: the first role the caller holds decides. A budget
   * left out is the default one; `false` means none (unlimited) for that role.
   */
  roles?: Record<string, { requests?: BudgetOption | false; cost?: BudgetOption | false }>;
  /**
   * Where the buckets live: in this process (default; `{ type: 'memory', maxKeys }`), or in
   * Redis, shared by every instance (`{ type: 'redis', url }`; the url defaults to REDIS_URL),
   * or a store of your own.
   */
  store?: ({ type: 'memory' } & MemoryStoreOptions) | ({ type: 'redis' } & RedisStoreOptions) | RateLimitStore;
  /** When the store cannot answer: let requests through (true) or refuse them with 503 (false, default). */
  failOpen?: boolean;
  /** How many proxies in front of the server append to X-Forwarded-For (default 0: the socket's peer is the client). */
  trustProxy?: number;
  /** IPv6 clients are counted per prefix of this many bits (default 56). */
  ipv6Subnet?: number;
  /**
   * How long the answer to a request refused for being over budget (429) is held before it is
   * written, in milliseconds (default 0: at once), and never longer than until the client's
   * budget allows a request again. A client that sends its next request when it has its answer
   * (one request at a time per connection, as HTTP/1.1 clients do) then sends about one per
   * hold per connection, where otherwise each refusal, answered in microseconds, invites the
   * next. HTTP transports hold the answer (the GraphQL endpoint, event streams, resource
   * routes); a WebSocket, whose client need not wait for an answer, stops reading the socket
   * for as long after a refused subscribe.
   */
  holdRefusalsMs?: number;
}

/** The budgets that apply to a caller. */
export interface RatePolicy {
  /** `default`, or the role whose budgets these are. */
  readonly name: string;
  readonly requests: Budget | null;
  readonly cost: Budget | null;
  /** requests then cost, those that are set: the order of a charge's buckets. */
  readonly budgets: ReadonlyArray<{ readonly name: BudgetName; readonly budget: Budget }>;
  /** The RateLimit-Policy header value. */
  readonly header: string;
  /** The charge of one request costing one point, made once (frozen: the memory store remembers its parts). */
  readonly unitCharges: ReadonlyArray<BucketCharge>;
}

/** Where a caller stands after an allowed charge. */
export interface RateStanding {
  readonly policy: RatePolicy;
  readonly buckets: ReadonlyArray<BucketReading>;
}

/** A refused operation: over budget (429), or the store could not answer (503). */
export interface RateRefusal {
  readonly status: 429 | 503;
  readonly code: typeof ErrorCode.RateLimited | typeof ErrorCode.RateLimitUnavailable;
  readonly message: string;
  /** Seconds until it may be tried again. */
  readonly retryAfter: number;
  /** The standing to report (none when the store could not answer). */
  readonly standing: RateStanding | null;
  /** How long a transport that answers requests one at a time holds the answer (RateLimitOptions.holdRefusalsMs); 0: not at all. */
  readonly holdMs: number;
}

export type Admission = RateStanding | RateRefusal;

/** After the store fails, how long requests are answered without asking it (failOpen decides how). */
export const STORE_RETRY_MS = 1000;

/** How the client is known to the transport. */
export interface ClientInfo {
  /** The socket's peer address. */
  readonly remoteAddress?: string | undefined;
  /** The X-Forwarded-For header, as received. */
  readonly forwardedFor?: string | ReadonlyArray<string> | undefined;
}

export class RateLimiter {
  readonly store: RateLimitStore;
  readonly failOpen: boolean;
  readonly trustProxy: number;
  /** Whether any caller has a cost budget (the cost must then be measured). */
  readonly hasCostBudget: boolean;
  /** Operations refused for being over budget (429), for metrics. */
  refused = 0;
  private readonly ipv6Subnet: number;
  private readonly holdRefusalsMs: number;
  private readonly defaultPolicy: RatePolicy;
  private readonly rolePolicies: ReadonlyArray<[role: string, policy: RatePolicy]>;
  private readonly schema: GraphQLSchema;
  /** Keys of peer addresses seen lately (when X-Forwarded-For is not read). */
  private readonly addressKeys = new LruCache<string, string>(4096);
  /** Until when (Date.now()) the store is not asked, after it failed; 0 when it is. */
  private storeDownUntil = 0;
  /** Identities are frozen and cached per credential: each one's policy is looked up once. */
  private readonly policies = new WeakMap<Identity, RatePolicy>();
  private readonly identityKeys = new WeakMap<Identity, string>();

  constructor(options: RateLimitOptions, schema: GraphQLSchema) {
    if (options === null || typeof options !== 'object') throw new TypeError(`rateLimit must be an object, got ${describe(options)}.`);
    this.schema = schema;
    const requests = options.requests === undefined ? null : checkBudget(options.requests, 'rateLimit.requests');
    const cost = options.cost === undefined ? null : checkBudget(options.cost, 'rateLimit.cost');
    this.defaultPolicy = makePolicy('default', requests, cost);
    const roles = options.roles ?? {};
    if (roles === null || typeof roles !== 'object') throw new TypeError(`rateLimit.roles must be an object of role names, got ${describe(roles)}.`);
    this.rolePolicies = Object.entries(roles).map(([role, override]) => {
      if (override === null || typeof override !== 'object') throw new TypeError(`rateLimit.roles.${role} must be { requests?, cost? }, got ${describe(override)}.`);
      const pick = (name: BudgetName, fallback: Budget | null): Budget | null => {
        const value = override[name];
        if (value === undefined) return fallback;
        if (value === false) return null;
        return checkBudget(value, `rateLimit.roles.${role}.${name}`);
      };
      return [role, makePolicy(role, pick('requests', requests), pick('cost', cost))];
    });
    if (this.defaultPolicy.budgets.length === 0 && this.rolePolicies.every(([, policy]) => policy.budgets.length === 0)) {
      throw new TypeError('rateLimit needs a requests or a cost budget (e.g. { requests: { limit: 600, windowSeconds: 60 } }).');
    }
    this.hasCostBudget = this.defaultPolicy.cost !== null || this.rolePolicies.some(([, policy]) => policy.cost !== null);
    this.failOpen = options.failOpen ?? false;
    if (typeof this.failOpen !== 'boolean') throw new TypeError(`rateLimit.failOpen must be true or false, got ${describe(options.failOpen)}.`);
    this.trustProxy = readTrustProxy(options.trustProxy ?? 0, 'rateLimit.trustProxy');
    this.ipv6Subnet = options.ipv6Subnet ?? 56;
    if (!Number.isInteger(this.ipv6Subnet) || this.ipv6Subnet < 1 || this.ipv6Subnet > 128) {
      throw new TypeError(`rateLimit.ipv6Subnet must be a whole number from 1 to 128, got ${describe(options.ipv6Subnet)}.`);
    }
    this.holdRefusalsMs = options.holdRefusalsMs === undefined || options.holdRefusalsMs === 0 ? 0 : positiveInteger(options.holdRefusalsMs, 'rateLimit.holdRefusalsMs');
    this.store = makeStore(options.store);
  }

  /** The budgets that apply to a caller. */
  policyFor(identity: Identity): RatePolicy {
    if (this.rolePolicies.length === 0 || identity.roles.length === 0) return this.defaultPolicy;
    let policy = this.policies.get(identity);
    if (policy === undefined) {
      policy = this.defaultPolicy;
      for (const [role, rolePolicy] of this.rolePolicies) {
        if (hasAnyRole(this.schema, identity, [role])) {
          policy = rolePolicy;
          break;
        }
      }
      this.policies.set(identity, policy);
    }
    return policy;
  }

  /**
   * The key a caller is counted under in the store: its policy's name, then the identity
   * (`default:apiKey:key-1`), or for an anonymous caller the client's address (`default:ip:192.0.2.1`).
   * Remembered per identity and per peer address: a string made anew would be hashed anew by
   * every map it is looked up in.
   */
  keyFor(identity: Identity, client: ClientInfo): string {
    if (identity.kind !== 'anonymous') {
      let key = this.identityKeys.get(identity);
      if (key === undefined) {
        key = `${this.policyFor(identity).name}:${identity.kind}:${identity.id}`;
        this.identityKeys.set(identity, key);
      }
      return key;
    }
    // Anonymous callers have no roles: the default policy is theirs.
    const forwardedFor = this.trustProxy === 0 ? undefined : client.forwardedFor;
    const peer = client.remoteAddress;
    const seen = forwardedFor === undefined && peer !== undefined ? this.addressKeys.get(peer) : undefined;
    if (seen !== undefined) return seen;
    const key = `default:ip:${clientAddress(peer, forwardedFor, this.trustProxy, this.ipv6Subnet) ?? 'unknown'}`;
    if (forwardedFor === undefined && peer !== undefined) this.addressKeys.set(peer, key);
    return key;
  }

  /**
   * Charges one operation: `requests` requests (1, or more for the work of validating a large
   * document), and `cost` points (at least 1) when the policy has a cost budget. Synchronous with
   * the memory store.
   */
  admit(policy: RatePolicy, key: string, cost: number, requests = 1): Admission | Promise<Admission> {
    if (policy.budgets.length === 0) return { policy, buckets: [] };
    const charges =
      cost <= 1 && requests === 1
        ? policy.unitCharges
        : policy.budgets.map(({ name, budget }) => ({ name, budget, amount: name === 'requests' ? requestsOf(requests, budget) : Math.max(cost, 1) }));
    return this.charge(policy, key, charges);
  }

  /**
   * Charges requests alone, no cost points: the work a request brings beyond what it was
   * admitted for, found once its document is parsed (the work of validating it). Allowed at
   * once when the policy has no requests budget.
   */
  admitRequests(policy: RatePolicy, key: string, requests: number): Admission | Promise<Admission> {
    if (policy.requests === null) return { policy, buckets: [] };
    return this.charge(policy, key, policy.budgets.map(({ name, budget }) => ({ name, budget, amount: name === 'requests' ? requestsOf(requests, budget) : 0 })));
  }

  private charge(policy: RatePolicy, key: string, charges: ReadonlyArray<BucketCharge>): Admission | Promise<Admission> {
    // The store failed a moment ago: answered at once, rather than each request waiting for it.
    if (this.storeDownUntil !== 0) {
      if (Date.now() < this.storeDownUntil) return this.unavailable(policy);
      this.storeDownUntil = 0;
    }
    let outcome: ChargeOutcome | Promise<ChargeOutcome>;
    try {
      outcome = this.store.charge(key, charges);
    } catch {
      return this.storeFailed(policy);
    }
    if (outcome instanceof Promise) {
      return outcome.then(
        (settled) => this.admission(policy, settled),
        () => this.storeFailed(policy),
      );
    }
    return this.admission(policy, outcome);
  }

  private admission(policy: RatePolicy, outcome: ChargeOutcome): Admission {
    if (!outcome.allowed) this.refused++;
    return admission(policy, outcome, this.holdRefusalsMs);
  }

  /**
   * Gives back cost points charged and not spent (requested − actual). The standing reported
   * is the charge's plus the refund; the store is told without waiting (a refund that fails
   * only leaves the client with less than it could have had).
   */
  refund(standing: RateStanding, key: string, points: number): RateStanding {
    const policy = standing.policy;
    if (points <= 0 || policy.cost === null) return standing;
    const charges: BucketCharge[] = policy.budgets.map(({ name, budget }) => ({ name, budget, amount: name === 'cost' ? -points : 0 }));
    try {
      const outcome = this.store.charge(key, charges);
      if (!(outcome instanceof Promise)) return { policy, buckets: outcome.buckets };
      outcome.catch(() => undefined);
    } catch {
      // As above: the client keeps the charge.
    }
    // The store's answer is on its way: the standing is the charge's, with the refund applied as the store applies it.
    const cost = policy.cost;
    const costIndex = policy.budgets.findIndex(({ name }) => name === 'cost');
    const buckets = standing.buckets.map((bucket, index) =>
      index === costIndex
        ? { remaining: Math.min(bucket.remaining + points, cost.limit), fullInMs: Math.max(bucket.fullInMs - Math.floor((points * cost.windowMs) / cost.limit), 0) }
        : bucket,
    );
    return { policy, buckets };
  }

  close(): Promise<void> {
    return this.store.close();
  }

  /** The store could not answer: it is left alone for STORE_RETRY_MS, then asked again. */
  private storeFailed(policy: RatePolicy): Admission {
    this.storeDownUntil = Date.now() + STORE_RETRY_MS;
    return this.unavailable(policy);
  }

  private unavailable(policy: RatePolicy): Admission {
    if (this.failOpen) return { policy, buckets: [] };
    return {
      status: 503,
      code: ErrorCode.RateLimitUnavailable,
      message: 'The rate limiter cannot reach its store; try again shortly.',
      retryAfter: 1,
      standing: null,
      // The store's outage is not the client's doing: answered at once.
      holdMs: 0,
    };
  }
}

/** A request never counts as more than a whole budget of requests: it can always be served once the bucket is full. */
function requestsOf(requests: number, budget: Budget): number {
  return Math.min(requests, budget.limit);
}

/** Whether an admission refused the operation. */
export function isRefusal(admission: Admission): admission is RateRefusal {
  return 'status' in admission;
}

/** The cost budget's standing in Shopify's shape (null when the policy has none). */
export function throttleStatus(standing: RateStanding): { maximumAvailable: number; currentlyAvailable: number; restoreRate: number } | null {
  const { policy } = standing;
  if (policy.cost === null) return null;
  const index = policy.budgets.findIndex(({ name }) => name === 'cost');
  const bucket = standing.buckets[index];
  if (bucket === undefined) return null;
  return {
    maximumAvailable: policy.cost.limit,
    currentlyAvailable: bucket.remaining,
    restoreRate: (policy.cost.limit * 1000) / policy.cost.windowMs,
  };
}

/**
 * The IETF RateLimit header (draft-ietf-httpapi-ratelimit-headers): each budget's remaining
 * tokens and the seconds until they are all back. Null when there is nothing to report (a
 * request let through while the store was away).
 */
export function rateLimitHeader(standing: RateStanding): string | null {
  const { buckets } = standing;
  if (buckets.length === 0) return null;
  const { budgets } = standing.policy;
  let header = '';
  for (let index = 0; index < buckets.length; index++) {
    const bucket = buckets[index] as BucketReading;
    if (index > 0) header += ', ';
    header += `"${(budgets[index] as RatePolicy['budgets'][number]).name}";r=${bucket.remaining};t=${Math.ceil(bucket.fullInMs / 1000)}`;
  }
  return header;
}

function admission(policy: RatePolicy, outcome: ChargeOutcome, holdRefusalsMs: number): Admission {
  const standing: RateStanding = { policy, buckets: outcome.buckets };
  if (outcome.allowed) return standing;
  const retryAfter = Math.max(1, Math.ceil(outcome.retryAfterMs / 1000));
  return {
    status: 429,
    code: ErrorCode.RateLimited,
    message: `Rate limit exceeded: try again in ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`,
    retryAfter,
    standing,
    holdMs: Math.min(holdRefusalsMs, Math.max(0, Math.ceil(outcome.retryAfterMs))),
  };
}

function makePolicy(name: string, requests: Budget | null, cost: Budget | null): RatePolicy {
  const budgets: Array<{ name: BudgetName; budget: Budget }> = [];
  if (requests !== null) budgets.push({ name: 'requests', budget: requests });
  if (cost !== null) budgets.push({ name: 'cost', budget: cost });
  // RateLimit-Policy: each budget's quota and window; cost points are not a registered quota unit.
  const header = budgets
    .map(({ name: budgetName, budget }) => `"${budgetName}";q=${budget.limit};w=${budget.windowMs / 1000}${budgetName === 'cost' ? ';qu="cost-points"' : ''}`)
    .join(', ');
  const unitCharges = Object.freeze(budgets.map(({ name: budgetName, budget }) => Object.freeze({ name: budgetName, budget, amount: 1 })));
  return { name, requests, cost, budgets, header, unitCharges };
}

function makeStore(option: RateLimitOptions['store']): RateLimitStore {
  if (option === undefined) return new MemoryStore();
  if (option === null || typeof option !== 'object') throw new TypeError(`rateLimit.store must be { type: 'memory' | 'redis', ... } or a store, got ${describe(option)}.`);
  if ('charge' in option && typeof option.charge === 'function') return option as RateLimitStore;
  const { type, ...rest } = option as { type?: unknown };
  if (type === 'memory') return new MemoryStore(rest as MemoryStoreOptions);
  if (type === 'redis') return new RedisStore(rest as RedisStoreOptions);
  throw new TypeError(`rateLimit.store.type must be 'memory' or 'redis', got ${describe(type)}.`);
}

/** `trustProxy`: how many hops of X-Forwarded-For to trust. */
export function readTrustProxy(value: unknown, name: string): number {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 0 || value > 32) {
    throw new TypeError(`${name} must be the number of proxies in front of the server (a whole number from 0 to 32), got ${describe(value)}.`);
  }
  return value;
}
