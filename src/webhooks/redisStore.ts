/**
 * The Redis webhook store: endpoints, events and deliveries shared by every instance that uses
 * the same Redis, each delivery attempt claimed by exactly one of them.
 *
 * Keys (under `keyPrefix`, default `graphql:webhooks:`):
 *   endpoints            hash: id → endpoint (JSON)
 *   event:<id>           the event (JSON), kept `retentionSeconds` (7 days) for redelivery
 *   delivery:<id>        the delivery (JSON): status, attempts, next attempt
 *   due:<endpoint>       sorted set of the endpoint's pending deliveries by when they are due (ms)
 *   endpointsDue         sorted set of enabled endpoints by their earliest due delivery
 *   claims               hash: delivery id → the claim that holds it
 *   recent:<endpoint>    list of its deliveries, newest first, trimmed to `keepDeliveries`
 *
 * Queues per endpoint, so that one endpoint's backlog never hides another's due deliveries: a
 * claim walks the endpoints that have something due, earliest first, and takes the first due
 * delivery of each one not busy. A disabled endpoint leaves `endpointsDue` (its deliveries
 * wait in its queue) and comes back when enabled.
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
import { loadIoredis } from '../redis/loadIoredis.ts';
import { redisReadiness } from '../observability/health.ts';
import type { ReadinessCheck } from '../observability/health.ts';
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

/** Lua shared by the scripts: puts an endpoint in endpointsDue at its earliest due time (or takes it out). */
const RESCORE = `
local function rescore(prefix, endpointId)
  local first = redis.call('ZRANGE', prefix .. 'due:' .. endpointId, 0, 0, 'WITHSCORES')
  local endpoint = redis.call('HGET', prefix .. 'endpoints', endpointId)
  if #first == 0 or not endpoint or cjson.decode(endpoint).disabled ~= cjson.null then
    redis.call('ZREM', prefix .. 'endpointsDue', endpointId)
  else
    redis.call('ZADD', prefix .. 'endpointsDue', first[2], endpointId)
  end
end
`;

const CLAIM_SCRIPT = `${RESCORE}
local prefix = ARGV[1]
local now = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local lease = tonumber(ARGV[4])
local token = ARGV[5]
local busy = {}
for i = 6, #ARGV do busy[ARGV[i]] = true end
local out = {}
local count = 0
for _, endpointId in ipairs(redis.call('ZRANGEBYSCORE', prefix .. 'endpointsDue', '-inf', now)) do
  if count >= limit then break end
  if not busy[endpointId] then
    local first = redis.call('ZRANGEBYSCORE', prefix .. 'due:' .. endpointId, '-inf', now, 'LIMIT', 0, 1)
    local id = first[1]
    if id then
      local raw = redis.call('GET', prefix .. 'delivery:' .. id)
      local endpoint = redis.call('HGET', prefix .. 'endpoints', endpointId)
      local event = raw and redis.call('GET', prefix .. 'event:' .. cjson.decode(raw).eventId)
      if not raw or not endpoint or not event then
        redis.call('ZREM', prefix .. 'due:' .. endpointId, id)
      else
        redis.call('ZADD', prefix .. 'due:' .. endpointId, now + lease, id)
        redis.call('HSET', prefix .. 'claims', id, token)
        count = count + 1
        out[#out + 1] = raw
        out[#out + 1] = event
        out[#out + 1] = endpoint
      end
    end
    rescore(prefix, endpointId)
  end
end
return out
`;

const RECORD_SCRIPT = `${RESCORE}
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
local queue = prefix .. 'due:' .. delivery.endpointId
if ARGV[5] == 'pending' then
  delivery.nextAttemptAt = tonumber(ARGV[6])
  redis.call('SET', prefix .. 'delivery:' .. id, cjson.encode(delivery))
  redis.call('ZADD', queue, tonumber(ARGV[6]), id)
else
  delivery.nextAttemptAt = cjson.null
  redis.call('SET', prefix .. 'delivery:' .. id, cjson.encode(delivery), 'EX', tonumber(ARGV[7]))
  redis.call('ZREM', queue, id)
end
-- The effect on the endpoint as it is now (applyEffect in store.ts); a removed one stays removed.
local raw = redis.call('HGET', prefix .. 'endpoints', delivery.endpointId)
if raw then
  local endpoint = cjson.decode(raw)
  local kind = ARGV[8]
  local changed = false
  if kind == 'delivered' and endpoint.consecutiveFailures > 0 then
    endpoint.consecutiveFailures = 0
    changed = true
  elseif kind == 'gone' and endpoint.disabled == cjson.null then
    endpoint.disabled = { reason = 'The endpoint answered 410 Gone.', at = ARGV[10] }
    changed = true
  elseif kind == 'failed' then
    endpoint.consecutiveFailures = endpoint.consecutiveFailures + 1
    if endpoint.disabled == cjson.null and endpoint.consecutiveFailures >= tonumber(ARGV[9]) then
      endpoint.disabled = { reason = string.format('%d deliveries in a row failed.', endpoint.consecutiveFailures), at = ARGV[10] }
    end
    changed = true
  end
  if changed then redis.call('HSET', prefix .. 'endpoints', delivery.endpointId, cjson.encode(endpoint)) end
end
rescore(prefix, delivery.endpointId)
return 1
`;

/** An endpoint saved: rescored (out of endpointsDue while disabled, back in when enabled). */
const SAVE_ENDPOINT_SCRIPT = `${RESCORE}
redis.call('HSET', ARGV[1] .. 'endpoints', ARGV[2], ARGV[3])
rescore(ARGV[1], ARGV[2])
return 1
`;

interface ScriptedRedis extends Redis {
  webhooksClaim(...args: Array<string | number>): Promise<string[]>;
  webhooksRecord(...args: Array<string | number>): Promise<number>;
  webhooksSaveEndpoint(...args: Array<string | number>): Promise<number>;
}

export class RedisWebhookStore implements WebhookStore {
  private readonly url: string;
  private readonly prefix: string;
  private readonly keep: number;
  private readonly retention: number;
  private redis: ScriptedRedis | null = null;
  /** The claims this instance holds: delivery id → token. */
  private readonly claims = new Map<string, string>();
  /** Ready while its connection is, once open() has made it (for a server's `readinessChecks`). */
  readonly readiness: ReadinessCheck = redisReadiness('webhook store (Redis)', () => this.redis);

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
    redis.defineCommand('webhooksSaveEndpoint', { numberOfKeys: 0, lua: SAVE_ENDPOINT_SCRIPT });
    await redis.ping();
    this.redis = redis;
  }

  async saveEndpoint(endpoint: WebhookEndpoint): Promise<void> {
    await this.client().webhooksSaveEndpoint(this.prefix, endpoint.id, JSON.stringify(endpoint));
  }

  async removeEndpoint(id: string): Promise<boolean> {
    const results = await this.client()
      .multi()
      .hdel(`${this.prefix}endpoints`, id)
      .zrem(`${this.prefix}endpointsDue`, id)
      .del(`${this.prefix}due:${id}`, `${this.prefix}recent:${id}`)
      .exec();
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
        .zadd(`${this.prefix}due:${endpointId}`, now, id)
        // LT: an endpoint already due earlier stays so (new members are added).
        .zadd(`${this.prefix}endpointsDue`, 'LT', now, endpointId)
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
    // The script answers 0 when the lease had run out: the instance that took the delivery over records it.
    await this.client().webhooksRecord(
      this.prefix,
      deliveryId,
      token,
      JSON.stringify(outcome.attempt),
      outcome.status,
      outcome.nextAttemptAt ?? 0,
      this.retention,
      outcome.effect.kind,
      outcome.effect.disableAfter,
      outcome.effect.at,
    );
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
    const first = await this.client().zrangebyscore(`${this.prefix}endpointsDue`, '-inf', '+inf', 'WITHSCORES', 'LIMIT', 0, 1);
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
