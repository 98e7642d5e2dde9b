/**
 * The Redis rate-limit store: buckets shared by every instance that uses the same Redis.
 *
 * One round trip per charge: a Lua script (EVALSHA, loaded once) runs tokenBucket.ts's
 * arithmetic on the key's hash (fields `<budget>:d` for the debt, `<budget>:t` for the time)
 * atomically, with Redis's own clock (TIME), so instances with skewed clocks still agree. The
 * key expires when its buckets are full again (PEXPIRE), so Redis holds only clients in debt.
 * Numbers are written with `%.0f`: Lua's tostring keeps 14 digits, and a bucket has up to 16.
 *
 * When Redis cannot answer, a charge rejects after at most `timeoutMs`: the wait for a
 * connection that is (re)connecting, and for the script's answer (a slow Redis), are bounded,
 * and nothing queues behind a connection that is down; the limiter's failOpen decides what
 * the client gets. The connection reconnects by itself, with backoff, and the next charge after
 * that is served as usual.
 */
import type { Redis } from 'ioredis';
import { asRedis, loadIoredis } from '../redis/loadIoredis.ts';
import type { IoredisClient } from '../redis/ioredisClient.ts';
import { redisReadiness } from '../observability/health.ts';
import type { ReadinessCheck } from '../observability/health.ts';
import type { BucketCharge, RateLimitStore } from './store.ts';
import type { BucketReading, ChargeOutcome } from './tokenBucket.ts';
import { positiveInteger } from '../jsutils/positiveInteger.ts';

export interface RedisStoreOptions {
  /** A redis:// or rediss:// URL (default: the REDIS_URL environment variable). */
  url?: string;
  /** Or a connected ioredis client of your own (not closed by the store). */
  client?: IoredisClient;
  /** Prefix of the store's keys (default `graphql:ratelimit:`). */
  keyPrefix?: string;
  /** Longest wait for Redis's answer (default 1,000 ms); past it the charge fails. */
  timeoutMs?: number;
  /** For tests: the clock (ms) the script uses instead of Redis's TIME. */
  now?: () => number;
}

export const RATE_LIMIT_SCRIPT = `
local now
if ARGV[1] == '' then
  local t = redis.call('TIME')
  now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
else
  now = tonumber(ARGV[1])
end
local count = (#ARGV - 1) / 4
local fields = {}
for i = 1, count do
  local name = ARGV[2 + (i - 1) * 4]
  fields[#fields + 1] = name .. ':d'
  fields[#fields + 1] = name .. ':t'
end
local stored = redis.call('HMGET', KEYS[1], unpack(fields))
local allowed = true
local retry = 0
local owed = {}
local at = {}
for i = 1, count do
  local base = 2 + (i - 1) * 4
  local limit = tonumber(ARGV[base + 1])
  local window = tonumber(ARGV[base + 2])
  local amount = tonumber(ARGV[base + 3])
  local debt = tonumber(stored[i * 2 - 1]) or 0
  local last = tonumber(stored[i * 2]) or now
  local elapsed = math.min(math.max(now - last, 0), window)
  debt = math.max(debt - elapsed * limit, 0)
  owed[i] = debt
  at[i] = math.max(last, now)
  local asked = amount * window
  local over = debt + asked - limit * window
  if asked > 0 and over > 0 then
    allowed = false
    retry = math.max(retry, math.ceil(over / limit) + at[i] - now)
  end
end
local reply = { allowed and 1 or 0, retry }
local idle = 0
local values = {}
for i = 1, count do
  local base = 2 + (i - 1) * 4
  local name = ARGV[base]
  local limit = tonumber(ARGV[base + 1])
  local window = tonumber(ARGV[base + 2])
  local debt = owed[i]
  if allowed then debt = math.max(debt + tonumber(ARGV[base + 3]) * window, 0) end
  local full = 0
  if debt > 0 then full = math.ceil(debt / limit) + at[i] - now end
  idle = math.max(idle, full)
  values[#values + 1] = name .. ':d'
  values[#values + 1] = string.format('%.0f', debt)
  values[#values + 1] = name .. ':t'
  values[#values + 1] = string.format('%.0f', at[i])
  reply[#reply + 1] = math.floor((limit * window - debt) / window)
  reply[#reply + 1] = full
end
if idle > 0 then
  redis.call('HSET', KEYS[1], unpack(values))
  redis.call('PEXPIRE', KEYS[1], idle)
else
  redis.call('DEL', KEYS[1])
end
return reply
`;

interface ScriptedRedis extends Redis {
  graphqlRateLimit(key: string, ...args: Array<string | number>): Promise<number[]>;
}

export class RedisStore implements RateLimitStore {
  private readonly prefix: string;
  private readonly now: (() => number) | null;
  private readonly owned: boolean;
  private connection: Promise<ScriptedRedis> | null = null;
  private readonly url: string | null;
  private readonly given: Redis | null;
  private readonly timeoutMs: number;
  private closed = false;
  /** The connection once made. */
  private connected: ScriptedRedis | null = null;
  /** Resolves when the connection is next ready (while it is not). */
  private ready: Promise<void> | null = null;
  /** Ready while the connection is; a probe before the first charge makes the connection. */
  readonly readiness: ReadinessCheck = redisReadiness(
    'rate limit store (Redis)',
    () => this.connected ?? (this.closed ? { status: 'end' } : null),
    () => void this.redis().catch(() => undefined),
  );

  constructor(options: RedisStoreOptions = {}) {
    this.prefix = options.keyPrefix ?? 'graphql:ratelimit:';
    this.now = options.now ?? null;
    this.given = options.client === undefined ? null : asRedis(options.client);
    this.owned = this.given === null;
    this.timeoutMs = positiveInteger(options.timeoutMs ?? 1000, 'rateLimit.store.timeoutMs');
    const url = options.url ?? process.env['REDIS_URL'];
    if (this.given === null) {
      if (url === undefined || url === '' || !URL.canParse(url) || !/^rediss?:$/.test(new URL(url).protocol)) {
        throw new TypeError(`rateLimit.store: the Redis store needs a redis:// or rediss:// url (or REDIS_URL), got ${url === undefined ? 'none' : JSON.stringify(url.replace(/:[^:@/]*@/, ':***@'))}.`);
      }
    }
    this.url = this.given === null ? (url as string) : null;
  }

  charge(key: string, charges: ReadonlyArray<BucketCharge>): Promise<ChargeOutcome> {
    if (this.closed) return Promise.reject(new Error('The Redis rate-limit store is closed.'));
    const args: Array<string | number> = [this.now === null ? '' : this.now()];
    for (const { name, budget, amount } of charges) args.push(name, budget.limit, budget.windowMs, amount);
    const connected = this.connected;
    // The usual case, with nothing in between: our own connection, ready (its commandTimeout bounds the wait).
    if (connected !== null && this.owned && connected.status === 'ready') return connected.graphqlRateLimit(this.prefix + key, ...args).then(readReply);
    return this.redis()
      .then((redis) => (redis.status === 'ready' ? redis : this.whenReady(redis)))
      .then((redis) => withTimeout(redis.graphqlRateLimit(this.prefix + key, ...args), this.timeoutMs))
      .then(readReply);
  }

  async close(): Promise<void> {
    this.closed = true;
    this.connected = null;
    const connection = this.connection;
    this.connection = null;
    if (connection === null || !this.owned) return;
    const redis = await connection.catch(() => null);
    if (redis === null) return;
    if (redis.status === 'ready') await redis.quit().catch(() => undefined);
    if (redis.status !== 'end') redis.disconnect();
  }

  /**
   * A connection on its way (first connect, or reconnecting): waited for, at most timeoutMs.
   * Every charge meanwhile waits on one listener of the connection's `ready`.
   */
  private whenReady(redis: ScriptedRedis): Promise<ScriptedRedis> {
    if (redis.status === 'end') return Promise.reject(new Error('The Redis connection is closed.'));
    this.ready ??= new Promise<void>((resolve) => {
      redis.once('ready', () => {
        this.ready = null;
        resolve();
      });
    });
    return withTimeout(
      this.ready.then(() => redis),
      this.timeoutMs,
      `Redis is not connected (${redis.status}).`,
    );
  }

  private redis(): Promise<ScriptedRedis> {
    this.connection ??= (async () => {
      let redis: Redis;
      if (this.given !== null) {
        redis = this.given;
      } else {
        const { Redis: Client } = await loadIoredis('The Redis rate-limit store');
        redis = new Client(this.url as string, {
          connectionName: 'graphql-ratelimit',
          // Charges issued in the same turn of the event loop go out in one write (still one round trip each).
          enableAutoPipelining: true,
          connectTimeout: this.timeoutMs * 5,
          // A charge while Redis is away fails at once rather than waiting for a reconnection.
          enableOfflineQueue: false,
          maxRetriesPerRequest: 0,
          commandTimeout: this.timeoutMs,
          disconnectTimeout: 200,
          retryStrategy: (attempt) => Math.min(100 * 2 ** (attempt - 1), 2000) + Math.floor(Math.random() * 50),
        });
        // Failures reach the charges that meet them; the connection retries by itself.
        redis.on('error', () => undefined);
      }
      if ((redis as unknown as Partial<ScriptedRedis>).graphqlRateLimit === undefined) {
        redis.defineCommand('graphqlRateLimit', { numberOfKeys: 1, lua: RATE_LIMIT_SCRIPT });
      }
      this.connected = redis as unknown as ScriptedRedis;
      return this.connected;
    })();
    this.connection.catch(() => {
      // ioredis could not be loaded: try again on the next charge.
      this.connection = null;
    });
    return this.connection;
  }
}

function readReply(reply: number[]): ChargeOutcome {
  const buckets: BucketReading[] = [];
  for (let i = 2; i < reply.length; i += 2) buckets.push({ remaining: Number(reply[i]), fullInMs: Number(reply[i + 1]) });
  return { allowed: Number(reply[0]) === 1, retryAfterMs: Number(reply[1]), buckets };
}

/** ioredis's commandTimeout covers its own connections; a client of the user's may have none. */
function withTimeout<T>(promise: Promise<T>, ms: number, message = `Redis did not answer within ${ms} ms.`): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
