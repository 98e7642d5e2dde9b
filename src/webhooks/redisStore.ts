/**
 * The Redis webhook store: endpoints, events and deliveries shared by every instance that uses
 * the same Redis, each delivery attempt claimed by exactly one of them.
 *
 * Keys (under `keyPrefix`, default `graphql:webhooks:`):
 *   endpoints            hash: id → endpoint (JSON)
 *   event:<id>           the event (JSON), kept `retentionSeconds` (7 days) for redelivery
 *   delivery:<id>        the delivery (JSON): status, attempts, next attempt
 *   due                  sorted set of pending deliveries by when they are due (ms)
 *   claims               hash: delivery id → the claim that holds it
 *   pending:<endpoint>   set of the endpoint's pending deliveries (parked while it is disabled)
 *   recent:<endpoint>    list of its deliveries, newest first, trimmed to `keepDeliveries`
 *
 * A claim is a lease: the claim script (one round trip, atomic) takes due deliveries, moves
 * each one's due time to now + lease and records a token for it. An instance that dies
 * mid-attempt never records its outcome, so the delivery is due again when the lease runs out,
 * and another instance takes it over: at least once, with a duplicate only then. An outcome is
 * recorded only under the token of the claim it was made under (a second script), so an
 * instance that outlived its lease cannot overwrite the attempt of the one that took over.
 *
 * Durability is Redis's: an event is acknowledged once Redis has it (MULTI/EXEC). Keeping it
 * across a Redis restart is the server's persistence setting (AOF with `appendfsync always`
 * for the same guarantee as the file store's fsync).
 */
import { randomUUID } from 'node:crypto';
import type { Redis } from 'ioredis';
import { loadIoredis } from '../server/loadIoredis.ts';
import type { AttemptOutcome, ClaimedDelivery, Delivery, WebhookEndpoint, WebhookEvent, WebhookStore } from './store.ts';

export interface RedisWebhookStoreOptions {
  /** A redis:// or rediss:// URL (default: REDIS_URL). */
  url?: string;
  keyPrefix?: string;
  /** Finished deliveries listed per endpoint (default 100). */
  keepDeliveries?: number;
  /** How long events and finished deliveries are kept (default 7 days). */
  retentionSeconds?: number;
}

const CLAIM_SCRIPT = `
local prefix = ARGV[1]
local now = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local lease = tonumber(ARGV[4])
local token = ARGV[5]
local busy = {}
for i = 6, #ARGV do busy[ARGV[i]] = true end
local ids = redis.call('ZRANGEBYSCORE', prefix .. 'due', '-inf', now, 'LIMIT', 0, limit * 4 + 16)
local out = {}
local taken = {}
local count = 0
for _, id in ipairs(ids) do
  if count >= limit then break end
  local raw = redis.call('GET', prefix .. 'delivery:' .. id)
  if not raw then
    redis.call('ZREM', prefix .. 'due', id)
  else
    local delivery = cjson.decode(raw)
    local endpoint = redis.call('HGET', prefix .. 'endpoints', delivery.endpointId)
    local event = redis.call('GET', prefix .. 'event:' .. delivery.eventId)
    if not endpoint or not event then
      redis.call('ZREM', prefix .. 'due', id)
    elseif not busy[delivery.endpointId] and not taken[delivery.endpointId] then
      redis.call('ZADD', prefix .. 'due', now + lease, id)
      redis.call('HSET', prefix .. 'claims', id, token)
      taken[delivery.endpointId] = true
      count = count + 1
      out[#out + 1] = raw
      out[#out + 1] = event
      out[#out + 1] = endpoint
    end
  end
end
return out
`;

const RECORD_SCRIPT = `
local prefix = ARGV[1]
local id = ARGV[2]
if redis.call('HGET', prefix .. 'claims', id) ~= ARGV[3] then return 0 end
redis.call('HDEL', prefix .. 'claims', id)
local raw = redis.call('GET', prefix .. 'delivery:' .. id)
if not raw then return 0 end
local delivery = cjson.decode(raw)
local attempts = delivery.attempts
if type(attempts) ~= 'table' or next(attempts) == nil then attempts = {} end
attempts[#attempts + 1] = cjson.decode(ARGV[4])
delivery.attempts = attempts
delivery.status = ARGV[5]
if ARGV[5] == 'pending' then
  delivery.nextAttemptAt = tonumber(ARGV[6])
  redis.call('SET', prefix .. 'delivery:' .. id, cjson.encode(delivery))
  redis.call('ZADD', prefix .. 'due', tonumber(ARGV[6]), id)
else
  delivery.nextAttemptAt = cjson.null
  redis.call('SET', prefix .. 'delivery:' .. id, cjson.encode(delivery), 'EX', tonumber(ARGV[7]))
  redis.call('ZREM', prefix .. 'due', id)
  redis.call('SREM', prefix .. 'pending:' .. delivery.endpointId, id)
end
return 1
`;

interface ScriptedRedis extends Redis {
  webhooksClaim(...args: Array<string | number>): Promise<string[]>;
  webhooksRecord(...args: Array<string | number>): Promise<number>;
}

export class RedisWebhookStore implements WebhookStore {
  private readonly url: string;
  private readonly prefix: string;
  private readonly keep: number;
  private readonly retention: number;
  private redis: ScriptedRedis | null = null;
  /** The claims this instance holds: delivery id → token. */
  private readonly claims = new Map<string, string>();

  constructor(options: RedisWebhookStoreOptions = {}) {
    const url = options.url ?? process.env['REDIS_URL'] ?? '';
    if (!URL.canParse(url) || !/^rediss?:$/.test(new URL(url).protocol)) throw new TypeError('The Redis webhook store needs a redis:// or rediss:// url (or REDIS_URL).');
    this.url = url;
    this.prefix = options.keyPrefix ?? 'graphql:webhooks:';
    this.keep = options.keepDeliveries ?? 100;
    this.retention = options.retentionSeconds ?? 7 * 86_400;
  }

  async open(): Promise<void> {
    if (this.redis !== null) return;
    const { Redis: Client } = await loadIoredis('The Redis webhook store');
    const redis = new Client(this.url, { connectionName: 'graphql-webhooks', maxRetriesPerRequest: 2, commandTimeout: 5000 }) as unknown as ScriptedRedis;
    redis.on('error', () => undefined);
    redis.defineCommand('webhooksClaim', { numberOfKeys: 0, lua: CLAIM_SCRIPT });
    redis.defineCommand('webhooksRecord', { numberOfKeys: 0, lua: RECORD_SCRIPT });
    await redis.ping();
    this.redis = redis;
  }

  async saveEndpoint(endpoint: WebhookEndpoint): Promise<void> {
    const redis = this.client();
    const key = this.prefix + 'due';
    const pending = await redis.smembers(`${this.prefix}pending:${endpoint.id}`);
    const multi = redis.multi().hset(`${this.prefix}endpoints`, endpoint.id, JSON.stringify(endpoint));
    // A disabled endpoint's pending deliveries wait outside the queue; enabled again, they are due.
    if (endpoint.disabled !== null) {
      if (pending.length > 0) multi.zrem(key, ...pending);
    } else {
      const now = Date.now();
      const claimed = pending.length === 0 ? [] : await redis.hmget(`${this.prefix}claims`, ...pending);
      for (const [index, id] of pending.entries()) if (claimed[index] == null) multi.zadd(key, 'NX', now, id);
    }
    await multi.exec();
  }

  async removeEndpoint(id: string): Promise<boolean> {
    const redis = this.client();
    const pending = await redis.smembers(`${this.prefix}pending:${id}`);
    const multi = redis.multi().hdel(`${this.prefix}endpoints`, id).del(`${this.prefix}pending:${id}`, `${this.prefix}recent:${id}`);
    if (pending.length > 0) multi.zrem(`${this.prefix}due`, ...pending);
    const results = await multi.exec();
    return Number(results?.[0]?.[1] ?? 0) > 0;
  }

  async endpoints(): Promise<WebhookEndpoint[]> {
    const all = await this.client().hgetall(`${this.prefix}endpoints`);
    return Object.values(all)
      .map((text) => JSON.parse(text) as WebhookEndpoint)
      .sort((a, b) => a.createdAt.localeCompare(b.createdAt));
  }

  async enqueue(event: WebhookEvent, deliveries: ReadonlyArray<{ id: string; endpointId: string }>): Promise<void> {
    if (deliveries.length === 0) return;
    const now = Date.now();
    const multi = this.client().multi().set(`${this.prefix}event:${event.id}`, JSON.stringify(event), 'EX', this.retention);
    for (const { id, endpointId } of deliveries) {
      const delivery: Delivery = { id, eventId: event.id, endpointId, status: 'pending', attempts: [], nextAttemptAt: now };
      multi
        .set(`${this.prefix}delivery:${id}`, JSON.stringify(delivery))
        .zadd(`${this.prefix}due`, now, id)
        .sadd(`${this.prefix}pending:${endpointId}`, id)
        .lpush(`${this.prefix}recent:${endpointId}`, id)
        .ltrim(`${this.prefix}recent:${endpointId}`, 0, this.keep - 1);
    }
    const results = await multi.exec();
    const failed = results?.find(([error]) => error !== null);
    if (results === null || failed !== undefined) throw new Error(`Redis did not store the event ${event.id}: ${String(failed?.[0] ?? 'the transaction was aborted')}`);
  }

  async claimDue(now: number, limit: number, busy: ReadonlySet<string>, leaseMs: number): Promise<ClaimedDelivery[]> {
    const token = randomUUID();
    const flat = await this.client().webhooksClaim(this.prefix, now, limit, leaseMs, token, ...busy);
    const claimed: ClaimedDelivery[] = [];
    for (let i = 0; i + 2 < flat.length; i += 3) {
      const delivery = readDelivery(flat[i] as string);
      this.claims.set(delivery.id, token);
      claimed.push({ delivery, event: JSON.parse(flat[i + 1] as string) as WebhookEvent, endpoint: JSON.parse(flat[i + 2] as string) as WebhookEndpoint });
    }
    return claimed;
  }

  async recordAttempt(deliveryId: string, outcome: AttemptOutcome): Promise<void> {
    const token = this.claims.get(deliveryId) ?? '';
    this.claims.delete(deliveryId);
    const recorded = await this.client().webhooksRecord(
      this.prefix,
      deliveryId,
      token,
      JSON.stringify(outcome.attempt),
      outcome.status,
      outcome.nextAttemptAt ?? 0,
      this.retention,
    );
    // Recorded under a lease that had run out: the instance that took over decides.
    if (recorded === 1 && outcome.endpoint !== undefined) await this.saveEndpoint(outcome.endpoint);
  }

  async deliveries(endpointId: string, limit: number): Promise<Delivery[]> {
    const redis = this.client();
    const ids = await redis.lrange(`${this.prefix}recent:${endpointId}`, 0, limit - 1);
    if (ids.length === 0) return [];
    const texts = await redis.mget(...ids.map((id) => `${this.prefix}delivery:${id}`));
    return texts.filter((text): text is string => text !== null).map(readDelivery);
  }

  async event(id: string): Promise<WebhookEvent | null> {
    const text = await this.client().get(`${this.prefix}event:${id}`);
    return text === null ? null : (JSON.parse(text) as WebhookEvent);
  }

  async nextDue(): Promise<number | null> {
    const first = await this.client().zrangebyscore(`${this.prefix}due`, '-inf', '+inf', 'WITHSCORES', 'LIMIT', 0, 1);
    return first.length < 2 ? null : Number(first[1]);
  }

  async close(): Promise<void> {
    const redis = this.redis;
    this.redis = null;
    if (redis === null) return;
    await redis.quit().catch(() => undefined);
    if (redis.status !== 'end') redis.disconnect();
  }

  private client(): ScriptedRedis {
    if (this.redis === null) throw new Error('The Redis webhook store is not open.');
    return this.redis;
  }
}

/** A delivery as stored; Lua's cjson writes an empty list as an empty object. */
function readDelivery(text: string): Delivery {
  const delivery = JSON.parse(text) as Delivery & { attempts: unknown };
  return { ...delivery, attempts: Array.isArray(delivery.attempts) ? delivery.attempts : [] };
}
