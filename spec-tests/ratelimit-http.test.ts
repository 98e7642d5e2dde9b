/**
 * Rate limits over HTTP and WebSocket, end to end: createServer on 127.0.0.1 with `rateLimit`,
 * driven by a strict HTTP client (support/httpServer.ts) and a raw graphql-transport-ws client
 * (support/realtime.ts). Every status, body and header value is checked exactly.
 *
 * The numbers follow from the token bucket (src/ratelimit/tokenBucket.ts): a budget of `limit`
 * per W ms holds limit·W units; a charge of n adds n·W units of debt; time pays back `limit`
 * units per ms. So with a burst that takes less than a second (true of every burst here):
 *   - after the k-th of N per 60 s: r = N − k, t = ⌈(60,000·k/N) / 1000⌉ s;
 *   - refused once empty: Retry-After = ⌈(60,000/N) / 1000⌉ s (e.g. 3 s for 20 per 60 s).
 *
 * The tests against Redis (the `redis` store shared by instances, the store slow or dropped)
 * run against REDIS_URL and are skipped, saying so, when it is unset. The store that cannot be
 * reached at all needs no Redis and always runs.
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { WebSocket } from 'ws';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { apiKeyAuth, createServer, hashApiKey } from '../src/index.ts';
import type { GraphQLServer, ServerOptions } from '../src/index.ts';
import { Probe, json, postJson, send, startServer, testSchema } from './support/httpServer.ts';
import type { SentResponse, StartedServer } from './support/httpServer.ts';
import { RawClient, startRealtimeServer } from './support/realtime.ts';
import type { RealtimeServer, ServerMessage } from './support/realtime.ts';
import { expectTypeError } from './support/expectations.ts';
import {
  UNAVAILABLE_BODY,
  clientIdsNamed,
  deadPort,
  rateLimitItems,
  rateLimitedBody,
  rateLimitedMessage,
  tcpProxy,
  stopServer,
} from './support/rateLimitHelpers.ts';
import type { TcpProxy } from './support/rateLimitHelpers.ts';

const REDIS_URL = process.env.REDIS_URL;
const HAS_REDIS = REDIS_URL !== undefined && REDIS_URL !== '';
if (!HAS_REDIS) {
  console.log('ratelimit-http.test.ts: the tests against a Redis server are skipped: REDIS_URL is not set (e.g. REDIS_URL=redis://127.0.0.1:6379).');
}

/** This run's Redis keys all start with it: parallel runs on one Redis do not meet. */
const RUN_PREFIX = `ratelimit-http-test:${process.pid}:${randomUUID().slice(0, 8)}:`;
let prefixes = 0;
/** A key prefix of its own for one store. */
function freshPrefix(): string {
  prefixes += 1;
  return `${RUN_PREFIX}${prefixes}:`;
}

const JSON_TYPE = 'application/json; charset=utf-8';
const GRAPHQL_RESPONSE = 'application/graphql-response+json';
const HELLO = '{"data":{"hello":"Hello, world!"}}';

/** Everything started by a test, stopped after it (servers with their stores, proxies, sockets). */
const cleanups: Array<() => Promise<void> | void> = [];
afterEach(async () => {
  const pending = cleanups.splice(0).reverse();
  for (const cleanup of pending) await cleanup();
});

/** A server on the test schema (support/httpServer.ts), stopped with its stores after the test. */
async function serve(options: Partial<ServerOptions>): Promise<StartedServer> {
  const started = await startServer(options);
  cleanups.push(() => stopServer(started.server));
  return started;
}

/** `{ hello }` POSTed as application/json, with extra headers. */
function hello(url: string, headers: Record<string, string> = {}): Promise<SentResponse> {
  return postJson(url, { query: '{ hello }' }, 'application/json', headers);
}

/** The statuses of requests sent one after another. */
async function statuses(requests: ReadonlyArray<() => Promise<SentResponse>>): Promise<number[]> {
  const seen: number[] = [];
  for (const request of requests) seen.push((await request()).status);
  return seen;
}

/** [19, 18, ..., 0] for 20. */
function countdownFrom(limit: number): number[] {
  return Array.from({ length: limit }, (_, index) => limit - 1 - index);
}

/**
 * 3N requests at once, each on its own connection, to `urls` in turn, against a budget of N = 20
 * per 60 s shared by all of them: exactly N get through, and every answer is exact.
 */
async function burstAgainst(urls: ReadonlyArray<string>): Promise<void> {
  const limit = 20;
  const responses = await Promise.all(Array.from({ length: 3 * limit }, (_, index) => hello(urls[index % urls.length] as string)));
  const passed = responses.filter((response) => response.status === 200);
  const refused = responses.filter((response) => response.status === 429);
  expect({ passed: passed.length, refused: refused.length }).toEqual({ passed: limit, refused: 2 * limit });

  for (const response of passed) {
    expect(response.text).toBe(HELLO);
    expect(response.headers['ratelimit-policy']).toBe('"requests";q=20;w=60');
    expect(response.headers['retry-after']).toBeUndefined();
  }
  // Each success took one token: the remaining counts are 19, 18, ..., 0, each once, and the
  // bucket is full again 3 s per token spent later.
  const readings = passed.map((response) => rateLimitItems(response));
  for (const items of readings) expect(items.map(({ name }) => name)).toEqual(['requests']);
  const remaining = readings.map((items) => (items[0] as { r: number }).r).sort((a, b) => b - a);
  expect(remaining).toEqual(countdownFrom(limit));
  for (const [item] of readings) expect(item?.t).toBe(3 * (limit - (item?.r ?? 0)));

  for (const response of refused) {
    const seconds = Number(response.headers['retry-after']);
    // One token comes back every 60 s / 20 = 3 s.
    expect(response.headers['retry-after']).toBe('3');
    expect(response.text).toBe(rateLimitedBody(seconds));
    expect(response.text).toBe('{"error":{"code":"RATE_LIMITED","message":"Rate limit exceeded: try again in 3 seconds."}}');
    expect(response.headers['content-type']).toBe(JSON_TYPE);
    expect(response.headers['ratelimit-policy']).toBe('"requests";q=20;w=60');
    expect(response.headers['ratelimit']).toBe('"requests";r=0;t=60');
  }
}

/** Limit 2 per 2 s: the third request is refused for 1 s, and a request after that wait gets through. */
async function retryAfterIsHonoured(url: string): Promise<void> {
  const first = await hello(url);
  const second = await hello(url);
  expect([first.status, second.status]).toEqual([200, 200]);
  expect(first.headers['ratelimit']).toBe('"requests";r=1;t=1');
  expect(second.headers['ratelimit']).toBe('"requests";r=0;t=2');

  const refused = await hello(url);
  expect(refused.status).toBe(429);
  expect(refused.headers['retry-after']).toBe('1');
  expect(refused.text).toBe('{"error":{"code":"RATE_LIMITED","message":"Rate limit exceeded: try again in 1 second."}}');
  expect(refused.headers['ratelimit-policy']).toBe('"requests";q=2;w=2');
  expect(refused.headers['ratelimit']).toBe('"requests";r=0;t=2');

  await sleep(Number(refused.headers['retry-after']) * 1000 + 50);
  const afterWait = await hello(url);
  expect(afterWait.status).toBe(200);
  expect(afterWait.text).toBe(HELLO);
  // The token that came back is spent: none left, and the bucket is full again within 2 s.
  expect(afterWait.headers['ratelimit']).toBe('"requests";r=0;t=2');
  const again = await hello(url);
  expect(again.status).toBe(429);
  expect(again.headers['retry-after']).toBe('1');
}

// ---------------------------------------------------------------------------------------------
// 1. Exactness, memory store
// ---------------------------------------------------------------------------------------------

describe('a requests budget in memory', () => {
  it('lets exactly 20 of 60 concurrent requests through (20 per 60 s), and answers the other 40 with an exact 429', async () => {
    const { url, probe } = await serve({ reportCost: false, rateLimit: { requests: { limit: 20, windowSeconds: 60 } } });
    await burstAgainst([url]);
    // A refused request runs nothing.
    expect(probe.calls).toEqual(Array<string>(20).fill('Query.hello'));
  });

  it('honours its Retry-After: refused for 1 s at 2 per 2 s, then served again', async () => {
    const { url } = await serve({ reportCost: false, rateLimit: { requests: { limit: 2, windowSeconds: 2 } } });
    await retryAfterIsHonoured(url);
  });
});

// ---------------------------------------------------------------------------------------------
// 4. Who is counted: addresses (trustProxy, IPv6, IPv4-mapped) and identities
// ---------------------------------------------------------------------------------------------

describe('per-client budgets', () => {
  const ONE_PER_MINUTE = { requests: { limit: 1, windowSeconds: 60 } };

  /** `{ hello }` with the given X-Forwarded-For (none when undefined). */
  const from = (url: string, forwardedFor?: string) => () => hello(url, forwardedFor === undefined ? {} : { 'x-forwarded-for': forwardedFor });

  it('with trustProxy: 1, counts each X-Forwarded-For address on its own', async () => {
    const { url } = await serve({ reportCost: false, trustProxy: 1, rateLimit: ONE_PER_MINUTE });
    expect(await statuses([from(url, '1.1.1.1'), from(url, '2.2.2.2'), from(url, '1.1.1.1'), from(url, '2.2.2.2'), from(url, '3.3.3.3')])).toEqual([
      200, 200, 429, 429, 200,
    ]);
  });

  it('with trustProxy: 1, takes the rightmost entry: a forged chain ending in 1.2.3.4 is 1.2.3.4', async () => {
    const { url } = await serve({ reportCost: false, rateLimit: { ...ONE_PER_MINUTE, trustProxy: 1 } });
    expect(await statuses([from(url, '6.6.6.6, 7.7.7.7, 1.2.3.4'), from(url, '1.2.3.4'), from(url, '9.9.9.9,1.2.3.4'), from(url, '1.2.3.4, 6.6.6.6')])).toEqual([
      200, 429, 429, 200,
    ]);
  });

  it('with trustProxy: 1, falls back to the peer when there is no header or its last entry is not an address', async () => {
    const { url } = await serve({ reportCost: false, trustProxy: 1, rateLimit: ONE_PER_MINUTE });
    expect(await statuses([from(url), from(url, 'garbage'), from(url, '1.2.3.4, unknown'), from(url, '1.2.3.4')])).toEqual([200, 429, 429, 200]);
  });

  it('with trustProxy: 2, takes the second entry from the right', async () => {
    const { url } = await serve({ reportCost: false, trustProxy: 2, rateLimit: ONE_PER_MINUTE });
    expect(
      await statuses([from(url, '6.6.6.6, 1.1.1.1, 10.0.0.1'), from(url, '1.1.1.1, 10.0.0.2'), from(url, '7.7.7.7, 1.1.1.1, 10.0.0.3'), from(url, '10.0.0.1, 1.1.1.1')]),
    ).toEqual([200, 429, 429, 200]);
  });

  it('with trustProxy 0 (the default), ignores X-Forwarded-For: every request from 127.0.0.1 shares one budget', async () => {
    const { url } = await serve({ reportCost: false, rateLimit: ONE_PER_MINUTE });
    expect(await statuses([from(url, '1.1.1.1'), from(url, '2.2.2.2'), from(url), from(url, '3.3.3.3, 4.4.4.4')])).toEqual([200, 429, 429, 429]);
  });

  it('counts one IPv6 client whatever its spelling, per /56 by default', async () => {
    const { url } = await serve({ reportCost: false, trustProxy: 1, rateLimit: ONE_PER_MINUTE });
    expect(
      await statuses([
        from(url, '2001:db8::1'),
        from(url, '2001:0DB8:0:0:0:0:0:1'),
        from(url, '[2001:db8::1]:443'),
        from(url, '2001:db8::2'),
        from(url, '2001:db8:0:ff::1'),
        from(url, '2001:db8:0:100::1'),
      ]),
    ).toEqual([200, 429, 429, 429, 429, 200]);
  });

  it('counts IPv6 addresses one by one with ipv6Subnet: 128', async () => {
    const { url } = await serve({ reportCost: false, trustProxy: 1, rateLimit: { ...ONE_PER_MINUTE, ipv6Subnet: 128 } });
    expect(await statuses([from(url, '2001:db8::1'), from(url, '2001:db8::2'), from(url, '2001:0db8:0000::0001'), from(url, '2001:db8::2')])).toEqual([
      200, 200, 429, 429,
    ]);
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 address', async () => {
    const { url } = await serve({ reportCost: false, trustProxy: 1, rateLimit: ONE_PER_MINUTE });
    expect(await statuses([from(url, '::ffff:1.2.3.4'), from(url, '1.2.3.4'), from(url, '::ffff:102:304'), from(url, '1.2.3.4:8080'), from(url, '1.2.3.5')])).toEqual([
      200, 429, 429, 429, 200,
    ]);
  });

  it('counts authenticated callers by identity: two keys from one address have a budget each, apart from anonymous callers', async () => {
    const { url } = await serve({
      reportCost: false,
      trustProxy: 1,
      rateLimit: ONE_PER_MINUTE,
      authenticate: [apiKeyAuth({ keys: [{ id: 'alice', hash: hashApiKey('alice-key') }, { id: 'bob', hash: hashApiKey('bob-key') }] })],
    });
    const as = (key: string, forwardedFor = '1.1.1.1') => () => hello(url, { 'x-api-key': key, 'x-forwarded-for': forwardedFor });
    expect(
      await statuses([
        as('alice-key'),
        as('bob-key'),
        // The identity is counted, wherever it calls from.
        as('alice-key', '2.2.2.2'),
        as('bob-key'),
        from(url, '1.1.1.1'),
        from(url, '1.1.1.1'),
      ]),
    ).toEqual([200, 200, 429, 429, 200, 429]);
  });
});

// ---------------------------------------------------------------------------------------------
// 5. Budgets per role
// ---------------------------------------------------------------------------------------------

describe('budgets per role', () => {
  const keys = apiKeyAuth({
    keys: [
      { id: 'root', hash: hashApiKey('admin-key'), roles: ['admin'] },
      { id: 'plain', hash: hashApiKey('plain-key') },
    ],
  });

  it('gives the admin role its own limit (5) and everyone else the default one (2)', async () => {
    const { url } = await serve({
      reportCost: false,
      authenticate: [keys],
      rateLimit: { requests: { limit: 2, windowSeconds: 60 }, roles: { admin: { requests: { limit: 5, windowSeconds: 60 } } } },
    });
    const admin: SentResponse[] = [];
    for (let i = 0; i < 6; i++) admin.push(await hello(url, { 'x-api-key': 'admin-key' }));
    expect(admin.map(({ status }) => status)).toEqual([200, 200, 200, 200, 200, 429]);
    expect(admin.map((response) => response.headers['ratelimit-policy'])).toEqual(Array<string>(6).fill('"requests";q=5;w=60'));
    expect(admin.map((response) => rateLimitItems(response)[0]?.r)).toEqual([4, 3, 2, 1, 0, 0]);
    // One token per 12 s.
    expect(admin[5]?.headers['retry-after']).toBe('12');
    expect(admin[5]?.text).toBe(rateLimitedBody(12));

    const plain: SentResponse[] = [];
    for (let i = 0; i < 3; i++) plain.push(await hello(url, { 'x-api-key': 'plain-key' }));
    expect(plain.map(({ status }) => status)).toEqual([200, 200, 429]);
    expect(plain.map((response) => response.headers['ratelimit-policy'])).toEqual(Array<string>(3).fill('"requests";q=2;w=60'));
    expect(plain.map((response) => response.headers['ratelimit'])).toEqual(['"requests";r=1;t=30', '"requests";r=0;t=60', '"requests";r=0;t=60']);
    expect(plain[2]?.headers['retry-after']).toBe('30');
  });

  it('leaves the admin role unlimited with requests: false, and sends it no RateLimit headers', async () => {
    const { url } = await serve({
      reportCost: false,
      authenticate: [keys],
      rateLimit: { requests: { limit: 2, windowSeconds: 60 }, roles: { admin: { requests: false } } },
    });
    for (let i = 0; i < 8; i++) {
      const response = await hello(url, { 'x-api-key': 'admin-key' });
      expect(response.status).toBe(200);
      expect(response.text).toBe(HELLO);
      expect(response.headers['ratelimit-policy']).toBeUndefined();
      expect(response.headers['ratelimit']).toBeUndefined();
    }
    expect(await statuses([() => hello(url, { 'x-api-key': 'plain-key' }), () => hello(url, { 'x-api-key': 'plain-key' }), () => hello(url, { 'x-api-key': 'plain-key' })])).toEqual([
      200, 200, 429,
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// 6. A cost budget
// ---------------------------------------------------------------------------------------------

describe('a cost budget (100 points per 100 s: 1 point back per second)', () => {
  const COST_BUDGET = { limit: 100, windowSeconds: 100 };
  /** Requested 1 + n (the list, then a child object per item); actual 1 + 3 (at most three items resolve). */
  const itemsQuery = (count: number) => `{ items(count: ${count}) { child { id } } }`;
  const THREE_ITEMS = { items: [{ child: { id: '1.1' } }, { child: { id: '2.1' } }, { child: { id: '3.1' } }] };

  it('charges the requested cost, refunds the unspent part, and reports the standing in extensions.cost.throttleStatus and RateLimit', async () => {
    const { url } = await serve({ rateLimit: { cost: COST_BUDGET } });
    const response = await postJson(url, { query: itemsQuery(29) }, GRAPHQL_RESPONSE);
    expect(response.status).toBe(200);
    const body = json(response) as { extensions: { cost: { requested: number; actual: number } } };
    expect(body).toEqual({
      data: THREE_ITEMS,
      extensions: {
        cost: {
          requested: 30,
          actual: 4,
          limit: 1000,
          // 30 charged, 30 − 4 given back.
          throttleStatus: { maximumAvailable: 100, currentlyAvailable: 100 - Math.max(body.extensions.cost.actual, 1), restoreRate: 1 },
        },
      },
    });
    expect(body.extensions.cost.actual).toBeLessThan(body.extensions.cost.requested);
    expect(response.headers['ratelimit-policy']).toBe('"cost";q=100;w=100;qu="cost-points"');
    // 4 points spent, back in 4 s.
    expect(response.headers['ratelimit']).toBe('"cost";r=96;t=4');
  });

  it('refunds a deferred operation with its last payload, which reports the standing in extensions.cost.throttleStatus', async () => {
    const { url } = await serve({ rateLimit: { cost: COST_BUDGET } });
    const response = await postJson(url, { query: `{ items(count: 29) { ... @defer { child { id } } } }` }, 'multipart/mixed; incrementalSpec=v0.2');
    expect(response.status).toBe(200);
    // The first part goes before the actual cost is known: its RateLimit header is the charge's.
    expect(response.headers['ratelimit']).toBe('"cost";r=70;t=30');
    const payloads = response.text
      .split('\r\n---')
      .map((part) => part.split('\r\n\r\n')[1])
      .filter((body): body is string => body !== undefined)
      .map((body) => JSON.parse(body) as { hasNext: boolean; extensions?: unknown });
    expect(payloads.map((payload) => payload.hasNext)).toEqual([true, false]);
    // 30 charged, 30 − 4 given back once the last payload says 4 were spent.
    expect(payloads[1]?.extensions).toEqual({
      cost: { requested: 30, actual: 4, limit: 1000, throttleStatus: { maximumAvailable: 100, currentlyAvailable: 96, restoreRate: 1 } },
    });
    const next = await postJson(url, { query: '{ __typename }' }, GRAPHQL_RESPONSE);
    expect(next.headers['ratelimit']).toMatch(/^"cost";r=9[56];t=[45]$/);
  });

  it('refuses a query whose requested cost is over the whole budget as a request error (400 COST_LIMIT_EXCEEDED), not a 429, and charges it 1 point', async () => {
    const { url, probe } = await serve({ rateLimit: { cost: COST_BUDGET } });
    const response = await postJson(url, { query: itemsQuery(150) }, GRAPHQL_RESPONSE);
    expect(response.status).toBe(400);
    expect(response.headers['retry-after']).toBeUndefined();
    expect(json(response)).toEqual({
      errors: [
        {
          message: 'Query cost 151 exceeds the rate-limit budget of 100 points per 100 s.',
          extensions: { code: 'COST_LIMIT_EXCEEDED', measured: 151, limit: 100 },
        },
      ],
    });
    expect(response.headers['ratelimit']).toBe('"cost";r=99;t=1');
    expect(probe.calls).toEqual([]);

    const next = await postJson(url, { query: '{ hello }' }, GRAPHQL_RESPONSE);
    expect(json(next)).toEqual({
      data: { hello: 'Hello, world!' },
      extensions: { cost: { requested: 0, actual: 0, limit: 1000, throttleStatus: { maximumAvailable: 100, currentlyAvailable: 98, restoreRate: 1 } } },
    });
  });

  it('answers 429 when fewer points remain than a query requests, though the requests budget has room, and runs nothing', async () => {
    const { url, probe } = await serve({ rateLimit: { requests: { limit: 10, windowSeconds: 60 }, cost: COST_BUDGET } });
    const first = await postJson(url, { query: itemsQuery(29) }, GRAPHQL_RESPONSE);
    expect(first.status).toBe(200);
    expect(first.headers['ratelimit-policy']).toBe('"requests";q=10;w=60, "cost";q=100;w=100;qu="cost-points"');
    expect(first.headers['ratelimit']).toBe('"requests";r=9;t=6, "cost";r=96;t=4');
    const callsBefore = probe.calls.length;

    // Requested 98, 96 left: short by 2 points, 2 s of restore.
    const refused = await postJson(url, { query: itemsQuery(97) }, GRAPHQL_RESPONSE);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('2');
    expect(refused.text).toBe(rateLimitedBody(2));
    // Nothing charged: neither the request nor the points.
    expect(refused.headers['ratelimit']).toBe('"requests";r=9;t=6, "cost";r=96;t=4');
    expect(probe.calls.length).toBe(callsBefore);

    const small = await postJson(url, { query: '{ hello }' }, GRAPHQL_RESPONSE);
    expect(small.status).toBe(200);
    expect((json(small) as { extensions: { cost: { throttleStatus: unknown } } }).extensions.cost.throttleStatus).toEqual({
      maximumAvailable: 100,
      currentlyAvailable: 95,
      restoreRate: 1,
    });
    expect(small.headers['ratelimit']).toBe('"requests";r=8;t=12, "cost";r=95;t=5');
  });

  it('charges a request that does not parse 1 point', async () => {
    const { url } = await serve({ rateLimit: { cost: COST_BUDGET } });
    const broken = await postJson(url, { query: '{ hello' }, GRAPHQL_RESPONSE);
    expect(broken.status).toBe(400);
    expect((json(broken) as { errors: Array<{ extensions: unknown }> }).errors.map((error) => error.extensions)).toEqual([{ code: 'GRAPHQL_PARSE_FAILED' }]);
    expect(broken.headers['ratelimit']).toBe('"cost";r=99;t=1');
    const next = await postJson(url, { query: '{ hello }' }, GRAPHQL_RESPONSE);
    expect((json(next) as { extensions: { cost: { throttleStatus: unknown } } }).extensions.cost.throttleStatus).toEqual({
      maximumAvailable: 100,
      currentlyAvailable: 98,
      restoreRate: 1,
    });
  });
});

// ---------------------------------------------------------------------------------------------
// 7. Batches
// ---------------------------------------------------------------------------------------------

describe('a batch', () => {
  it('counts each operation: with 3 left, a batch of 5 gets 3 results and 2 RATE_LIMITED errors in their places, with status 200', async () => {
    const { url, probe } = await serve({ reportCost: false, rateLimit: { requests: { limit: 3, windowSeconds: 60 } } });
    const batch = Array.from({ length: 5 }, () => ({ query: '{ hello }' }));
    const response = await postJson(url, batch);
    expect(response.status).toBe(200);
    const refusal = { errors: [{ message: rateLimitedMessage(20), extensions: { retryAfter: 20, code: 'RATE_LIMITED' } }] };
    expect(json(response)).toEqual([{ data: { hello: 'Hello, world!' } }, { data: { hello: 'Hello, world!' } }, { data: { hello: 'Hello, world!' } }, refusal, refusal]);
    expect(refusal.errors[0]?.message).toBe('Rate limit exceeded: try again in 20 seconds.');
    expect(response.headers['retry-after']).toBeUndefined();
    expect(response.headers['ratelimit-policy']).toBe('"requests";q=3;w=60');
    expect(response.headers['ratelimit']).toBe('"requests";r=0;t=60');
    expect(probe.calls).toEqual(['Query.hello', 'Query.hello', 'Query.hello']);

    // And the budget is spent for a single request too.
    const single = await hello(url);
    expect(single.status).toBe(429);
    expect(single.headers['retry-after']).toBe('20');
  });

  it('shares its budget with single requests: after 2 of 3 were spent, only the first of a batch of 2 runs', async () => {
    const { url } = await serve({ reportCost: false, rateLimit: { requests: { limit: 3, windowSeconds: 60 } } });
    expect(await statuses([() => hello(url), () => hello(url)])).toEqual([200, 200]);
    const response = await postJson(url, [{ query: '{ hello }' }, { query: '{ hello(name: "B") }' }]);
    expect(response.status).toBe(200);
    expect(json(response)).toEqual([
      { data: { hello: 'Hello, world!' } },
      { errors: [{ message: 'Rate limit exceeded: try again in 20 seconds.', extensions: { retryAfter: 20, code: 'RATE_LIMITED' } }] },
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// 8. GET
// ---------------------------------------------------------------------------------------------

describe('GET requests', () => {
  // With the header CSRF prevention (on by default) asks of a GET.
  const get = (url: string, query: string) => send(`${url}?query=${encodeURIComponent(query)}`, { headers: { accept: 'application/json', 'x-graphql-csrf': '1' } });
  const METHOD_NOT_ALLOWED = '{"error":{"code":"METHOD_NOT_ALLOWED","message":"A mutation cannot be sent with GET; use POST."}}';

  it('are limited like POSTs; a mutation over GET is still a 405, charged as a request (requests-only budgets charge before parsing)', async () => {
    const { url, probe } = await serve({ reportCost: false, rateLimit: { requests: { limit: 2, windowSeconds: 60 } } });
    const mutation = await get(url, 'mutation { increment }');
    expect(mutation.status).toBe(405);
    expect(mutation.headers['allow']).toBe('POST');
    expect(mutation.text).toBe(METHOD_NOT_ALLOWED);

    const query = await get(url, '{ hello }');
    expect(query.status).toBe(200);
    expect(query.text).toBe(HELLO);
    expect(query.headers['ratelimit-policy']).toBe('"requests";q=2;w=60');
    // The 405 took the first of the two tokens.
    expect(query.headers['ratelimit']).toBe('"requests";r=0;t=60');

    const refused = await get(url, '{ hello }');
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('30');
    expect(refused.text).toBe(rateLimitedBody(30));
    // Over the limit, the budget answers before the method rule does.
    const refusedMutation = await get(url, 'mutation { increment }');
    expect(refusedMutation.status).toBe(429);
    expect(refusedMutation.text).toBe(rateLimitedBody(30));
    expect(probe.calls).toEqual(['Query.hello']);
  });

  it('with a cost budget, a mutation over GET gets 405 and is charged 1 point', async () => {
    const { url, probe } = await serve({ rateLimit: { cost: { limit: 100, windowSeconds: 100 } } });
    const mutation = await get(url, 'mutation { increment }');
    expect(mutation.status).toBe(405);
    expect(mutation.text).toBe(METHOD_NOT_ALLOWED);
    const query = await get(url, '{ hello }');
    expect(query.status).toBe(200);
    expect((json(query) as { extensions: { cost: { throttleStatus: unknown } } }).extensions.cost.throttleStatus).toEqual({
      maximumAvailable: 100,
      currentlyAvailable: 98,
      restoreRate: 1,
    });
    expect(query.headers['ratelimit']).toBe('"cost";r=98;t=2');
    expect(probe.calls).toEqual(['Query.hello']);
  });
});

// ---------------------------------------------------------------------------------------------
// 9. A store that cannot answer (no Redis needed)
// ---------------------------------------------------------------------------------------------

describe('a Redis store that cannot be reached', () => {
  it('answers 503 RATE_LIMIT_UNAVAILABLE with Retry-After: 1 within about timeoutMs (failOpen false, the default), never 500', async () => {
    const port = await deadPort();
    const { url, probe } = await serve({
      reportCost: false,
      rateLimit: { requests: { limit: 10, windowSeconds: 60 }, store: { type: 'redis', url: `redis://127.0.0.1:${port}`, timeoutMs: 200 } },
    });
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const response = await hello(url);
      const elapsed = performance.now() - started;
      expect(response.status).toBe(503);
      expect(response.text).toBe(UNAVAILABLE_BODY);
      expect(response.headers['retry-after']).toBe('1');
      expect(response.headers['content-type']).toBe(JSON_TYPE);
      expect(response.headers['ratelimit']).toBeUndefined();
      expect(response.headers['ratelimit-policy']).toBeUndefined();
      expect(elapsed).toBeLessThan(2000);
    }
    expect(probe.calls).toEqual([]);
  });

  it('with failOpen: true, lets requests through unlimited and without RateLimit headers', async () => {
    const port = await deadPort();
    const { url, probe } = await serve({
      reportCost: false,
      rateLimit: { requests: { limit: 1, windowSeconds: 60 }, failOpen: true, store: { type: 'redis', url: `redis://127.0.0.1:${port}`, timeoutMs: 200 } },
    });
    for (let i = 0; i < 3; i++) {
      const started = performance.now();
      const response = await hello(url);
      expect(performance.now() - started).toBeLessThan(2000);
      expect(response.status).toBe(200);
      expect(response.text).toBe(HELLO);
      expect(response.headers['ratelimit']).toBeUndefined();
      expect(response.headers['ratelimit-policy']).toBeUndefined();
    }
    expect(probe.calls).toEqual(['Query.hello', 'Query.hello', 'Query.hello']);
  });

  it('in a batch, puts RATE_LIMIT_UNAVAILABLE (retryAfter 1) in each operation\'s place, status 200, no RateLimit headers', async () => {
    const port = await deadPort();
    const { url, probe } = await serve({
      reportCost: false,
      rateLimit: { requests: { limit: 10, windowSeconds: 60 }, store: { type: 'redis', url: `redis://127.0.0.1:${port}`, timeoutMs: 200 } },
    });
    const response = await postJson(url, [{ query: '{ hello }' }, { query: '{ hello }' }]);
    expect(response.status).toBe(200);
    const unavailable = {
      errors: [{ message: 'The rate limiter cannot reach its store; try again shortly.', extensions: { retryAfter: 1, code: 'RATE_LIMIT_UNAVAILABLE' } }],
    };
    expect(json(response)).toEqual([unavailable, unavailable]);
    expect(response.headers['ratelimit']).toBeUndefined();
    expect(probe.calls).toEqual([]);
  });

  it('with a cost budget too: 503, nothing runs', async () => {
    const port = await deadPort();
    const { url, probe } = await serve({
      rateLimit: { cost: { limit: 100, windowSeconds: 100 }, store: { type: 'redis', url: `redis://127.0.0.1:${port}`, timeoutMs: 200 } },
    });
    const response = await postJson(url, { query: '{ items(count: 2) { id } }' }, GRAPHQL_RESPONSE);
    expect(response.status).toBe(503);
    expect(response.text).toBe(UNAVAILABLE_BODY);
    expect(response.headers['retry-after']).toBe('1');
    expect(probe.calls).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// 2, 3, 9. Against Redis
// ---------------------------------------------------------------------------------------------

describe.skipIf(!HAS_REDIS)(HAS_REDIS ? 'the Redis store, against the Redis at REDIS_URL' : 'the Redis store (skipped: REDIS_URL is not set)', () => {
  const url = REDIS_URL as string;
  let admin: Redis;

  beforeAll(async () => {
    // ioredis is an optional dependency: loaded only when these tests run.
    const { Redis: Client } = await import('ioredis');
    admin = new Client(url, { lazyConnect: true, maxRetriesPerRequest: 1 });
    await admin.connect();
  });

  afterAll(async () => {
    // The run's keys expire by themselves once their buckets are full; these go now.
    let cursor = '0';
    do {
      const [next, keys] = await admin.scan(cursor, 'MATCH', `${RUN_PREFIX}*`, 'COUNT', 1000);
      if (keys.length > 0) await admin.del(...keys);
      cursor = next;
    } while (cursor !== '0');
    await admin.quit();
  });

  const redisStore = (extra: { timeoutMs?: number; url?: string } = {}) => ({ type: 'redis' as const, url, keyPrefix: freshPrefix(), ...extra });

  it('shares one budget between two servers: of 60 concurrent requests alternating between them, exactly 20 get through', async () => {
    const store = redisStore();
    const rateLimit = { requests: { limit: 20, windowSeconds: 60 }, store };
    const first = await serve({ reportCost: false, rateLimit });
    const second = await serve({ reportCost: false, rateLimit: { ...rateLimit, store: { ...store } } });
    expect(first.port).not.toBe(second.port);
    await burstAgainst([first.url, second.url]);
    expect(first.probe.calls.length + second.probe.calls.length).toBe(20);
    // The bucket is in Redis, under the prefix: the client's address key of the default policy.
    expect(await admin.exists(`${store.keyPrefix}default:ip:127.0.0.1`)).toBe(1);
  });

  it('honours its Retry-After: refused for 1 s at 2 per 2 s, then served again', async () => {
    const { url: endpoint } = await serve({ reportCost: false, rateLimit: { requests: { limit: 2, windowSeconds: 2 }, store: redisStore() } });
    await retryAfterIsHonoured(endpoint);
  });

  it('refunds the unspent cost in Redis: the next request sees it', async () => {
    const { url: endpoint } = await serve({ rateLimit: { cost: { limit: 100, windowSeconds: 100 }, store: redisStore() } });
    const first = await postJson(endpoint, { query: '{ items(count: 29) { child { id } } }' }, GRAPHQL_RESPONSE);
    expect((json(first) as { extensions: unknown }).extensions).toEqual({
      cost: { requested: 30, actual: 4, limit: 1000, throttleStatus: { maximumAvailable: 100, currentlyAvailable: 96, restoreRate: 1 } },
    });
    // The refund is sent without waiting; the next charge comes after it on the same connection.
    const second = await postJson(endpoint, { query: '{ hello }' }, GRAPHQL_RESPONSE);
    expect((json(second) as { extensions: { cost: { throttleStatus: unknown } } }).extensions.cost.throttleStatus).toEqual({
      maximumAvailable: 100,
      currentlyAvailable: 95,
      restoreRate: 1,
    });
    expect(rateLimitItems(second).map(({ name, r }) => ({ name, r }))).toEqual([{ name: 'cost', r: 95 }]);
  });

  it('reports the refunded standing in RateLimit as the memory store does: 4 points spent are back in t=4 s', async () => {
    const { url: endpoint } = await serve({ rateLimit: { cost: { limit: 100, windowSeconds: 100 }, store: redisStore() } });
    const first = await postJson(endpoint, { query: '{ items(count: 29) { child { id } } }' }, GRAPHQL_RESPONSE);
    expect(first.status).toBe(200);
    // 30 charged (full in 30 s), 26 given back: 4 points owed, 1 point per second.
    expect(first.headers['ratelimit']).toBe('"cost";r=96;t=4');
  });

  describe('slow or dropped', () => {
    let proxy: TcpProxy | null = null;
    afterEach(async () => {
      await proxy?.close();
      proxy = null;
    });

    /** The Redis at REDIS_URL, reached through a proxy of this test's (delaying each chunk by delayMs). */
    async function proxied(delayMs: number): Promise<string> {
      const target = new URL(url);
      proxy = await tcpProxy({ host: target.hostname, port: Number(target.port === '' ? 6379 : target.port) }, delayMs);
      const viaProxy = new URL(url);
      viaProxy.hostname = '127.0.0.1';
      viaProxy.port = String(proxy.port);
      return viaProxy.href;
    }

    interface Answer {
      readonly status: number;
      readonly ms: number;
      /** When it was sent, in ms from the start of the run. */
      readonly at: number;
      readonly text: string;
    }

    /** Requests one after another for `ms`, calling `during(elapsed)` between them; every answer recorded. */
    async function sustainedRun(endpoint: string, ms: number, during: (elapsed: number) => Promise<void> | void): Promise<Answer[]> {
      const answers: Answer[] = [];
      const start = performance.now();
      while (performance.now() - start < ms) {
        await during(performance.now() - start);
        const sent = performance.now();
        const response = await hello(endpoint);
        answers.push({ status: response.status, ms: performance.now() - sent, at: sent - start, text: response.text });
      }
      return answers;
    }

    /** Every answer is a 200, 429 or an exact 503, within 2 s: never a 500, never a hang. */
    function expectOnlyLimiterAnswers(answers: ReadonlyArray<Answer>): void {
      for (const answer of answers) {
        expect([200, 429, 503]).toContain(answer.status);
        if (answer.status === 503) expect(answer.text).toBe(UNAVAILABLE_BODY);
        if (answer.status === 200) expect(answer.text).toBe(HELLO);
        expect(answer.ms).toBeLessThan(2000);
      }
    }

    it('answers 503 quickly, never 500 and never hanging, when Redis answers 3 s late (timeoutMs 300)', async () => {
      const { url: endpoint, probe } = await serve({
        reportCost: false,
        rateLimit: { requests: { limit: 10, windowSeconds: 60 }, store: redisStore({ url: await proxied(3000), timeoutMs: 300 }) },
      });
      const sequential: Array<{ status: number; ms: number; text: string; retryAfter: unknown }> = [];
      for (let i = 0; i < 3; i++) {
        const started = performance.now();
        const response = await hello(endpoint);
        sequential.push({ status: response.status, ms: performance.now() - started, text: response.text, retryAfter: response.headers['retry-after'] });
      }
      const started = performance.now();
      const concurrent = await Promise.all(Array.from({ length: 5 }, () => hello(endpoint)));
      const concurrentMs = performance.now() - started;
      for (const answer of sequential) {
        expect(answer).toEqual({ status: 503, ms: answer.ms, text: UNAVAILABLE_BODY, retryAfter: '1' });
        expect(answer.ms).toBeLessThan(2000);
      }
      expect(concurrent.map(({ status }) => status)).toEqual([503, 503, 503, 503, 503]);
      expect(concurrentMs).toBeLessThan(2000);
      expect(probe.calls).toEqual([]);
    });

    it('recovers by itself when its connection is killed (CLIENT KILL): every answer is 200, 429 or 503 within 2 s, then 200 again', { timeout: 15_000 }, async () => {
      const before = new Set(await clientIdsNamed(admin, 'graphql-ratelimit'));
      const { url: endpoint } = await serve({
        reportCost: false,
        rateLimit: { requests: { limit: 10_000, windowSeconds: 60 }, store: redisStore({ timeoutMs: 300 }) },
      });
      expect((await hello(endpoint)).status).toBe(200);
      const ours = (await clientIdsNamed(admin, 'graphql-ratelimit')).filter((id) => !before.has(id));
      expect(ours).toHaveLength(1);
      const killed = ours[0] as string;

      const kill = { at: -1 };
      const answers = await sustainedRun(endpoint, 2000, async (elapsed) => {
        if (kill.at < 0 && elapsed >= 500) {
          expect(await admin.call('CLIENT', 'KILL', 'ID', killed)).toBe(1);
          kill.at = elapsed;
        }
      });
      expect(kill.at).toBeGreaterThanOrEqual(500);
      expectOnlyLimiterAnswers(answers);
      const afterKill = answers.filter(({ at }) => at >= kill.at);
      expect(afterKill.length).toBeGreaterThan(0);
      // Served again within a second of the kill, and to the end of the run.
      expect(afterKill.find(({ status }) => status === 200)?.at).toBeLessThan(kill.at + 1000);
      expect(answers.slice(-10).map(({ status }) => status)).toEqual(Array<number>(10).fill(200));
      // By a new connection of the limiter's, not the one killed.
      const now = (await clientIdsNamed(admin, 'graphql-ratelimit')).filter((id) => !before.has(id));
      expect(now).toHaveLength(1);
      expect(now[0]).not.toBe(killed);
    });

    it('answers 503 while Redis is away (for 1 s) and 200 again within a few seconds of its return', { timeout: 15_000 }, async () => {
      const { url: endpoint } = await serve({
        reportCost: false,
        rateLimit: { requests: { limit: 10_000, windowSeconds: 60 }, store: redisStore({ url: await proxied(0), timeoutMs: 300 }) },
      });
      expect((await hello(endpoint)).status).toBe(200);
      const live = proxy as TcpProxy;
      const marks = { down: -1, up: -1 };
      const answers = await sustainedRun(endpoint, 5000, (elapsed) => {
        if (marks.down < 0 && elapsed >= 300) {
          live.setDown(true);
          marks.down = elapsed;
        } else if (marks.down >= 0 && marks.up < 0 && elapsed >= marks.down + 1000) {
          live.setDown(false);
          marks.up = elapsed;
        }
      });
      expect(marks.up).toBeGreaterThanOrEqual(1300);
      expectOnlyLimiterAnswers(answers);
      // Sent while it was away, and timed out (300 ms) before it was back: each an exact 503.
      const whileDown = answers.filter(({ at }) => at >= marks.down && at + 300 < marks.up);
      expect(whileDown.length).toBeGreaterThan(0);
      expect(whileDown.map(({ status }) => status)).toEqual(Array<number>(whileDown.length).fill(503));
      // Reconnected with backoff (at most about 2 s between attempts): served again well before the end.
      const back = answers.find(({ at, status }) => at > marks.up && status === 200);
      expect(back?.at).toBeLessThan(marks.up + 3000);
      expect(answers.slice(-5).map(({ status }) => status)).toEqual([200, 200, 200, 200, 200]);
    });
  });
});

// ---------------------------------------------------------------------------------------------
// 10. WebSocket
// ---------------------------------------------------------------------------------------------

describe('over WebSocket (graphql-transport-ws)', () => {
  /** The real-time test schema's server with these limits; it and its sockets are closed after the test. */
  async function realtime(options: Partial<ServerOptions>): Promise<RealtimeServer> {
    const server = await startRealtimeServer(options);
    cleanups.push(async () => {
      await server.close();
      await server.server.shutdown();
    });
    return server;
  }

  async function client(server: RealtimeServer): Promise<RawClient> {
    const raw = await RawClient.open(server.wsUrl);
    cleanups.push(() => raw.terminate());
    await raw.init();
    return raw;
  }

  const countdown = (id: string) => ({ id, type: 'subscribe', payload: { query: 'subscription { countdown(from: 2) }' } });
  const delivered = (id: string): ServerMessage[] => [
    { id, type: 'next', payload: { data: { countdown: 2 } } },
    { id, type: 'next', payload: { data: { countdown: 1 } } },
    { id, type: 'complete' },
  ];

  it('refuses the subscribe over the limit with an error message (RATE_LIMITED, retryAfter), keeps the connection, and serves it again after the wait', async () => {
    const server = await realtime({ rateLimit: { requests: { limit: 2, windowSeconds: 2 } } });
    const raw = await client(server);
    raw.send(countdown('1'));
    raw.send(countdown('2'));
    raw.send(countdown('3'));
    await sleep(100);
    const messages = await raw.settle();
    const byId = (id: string) => messages.filter((message) => message.id === id);
    expect(byId('1')).toEqual(delivered('1'));
    expect(byId('2')).toEqual(delivered('2'));
    expect(byId('3')).toEqual([
      { id: '3', type: 'error', payload: [{ message: 'Rate limit exceeded: try again in 1 second.', extensions: { retryAfter: 1, code: 'RATE_LIMITED' } }] },
    ]);
    expect(messages).toHaveLength(7);
    expect(raw.socket.readyState).toBe(WebSocket.OPEN);

    await sleep(1000 + 50);
    raw.send(countdown('4'));
    await sleep(50);
    expect(await raw.settle()).toEqual(delivered('4'));
    expect(raw.socket.readyState).toBe(WebSocket.OPEN);
  });

  it('counts a query sent over the socket like any other request, and shares the budget with HTTP', async () => {
    const server = await realtime({ rateLimit: { requests: { limit: 2, windowSeconds: 60 } } });
    const raw = await client(server);
    raw.send({ id: 'q1', type: 'subscribe', payload: { query: '{ hello }' } });
    expect(await raw.next()).toEqual({ id: 'q1', type: 'next', payload: { data: { hello: 'Hello, world!' } } });
    expect(await raw.next()).toEqual({ id: 'q1', type: 'complete' });
    const overHttp = await hello(server.url);
    expect(overHttp.status).toBe(200);
    expect(overHttp.headers['ratelimit']).toBe('"requests";r=0;t=60');
    raw.send({ id: 'q2', type: 'subscribe', payload: { query: '{ hello }' } });
    expect(await raw.next()).toEqual({
      id: 'q2',
      type: 'error',
      payload: [{ message: 'Rate limit exceeded: try again in 30 seconds.', extensions: { retryAfter: 30, code: 'RATE_LIMITED' } }],
    });
    expect(raw.socket.readyState).toBe(WebSocket.OPEN);
  });
});

// ---------------------------------------------------------------------------------------------
// 11. Options
// ---------------------------------------------------------------------------------------------

describe('rateLimit options', () => {
  const schema = testSchema(new Probe());
  const create = (options: Partial<ServerOptions>) => (): GraphQLServer => createServer({ schema, ...options });
  const PROXIES = 'must be the number of proxies in front of the server (a whole number from 0 to 32), got';

  it.each<[string, Partial<ServerOptions>, string]>([
    ['no budget at all', { rateLimit: {} }, 'rateLimit needs a requests or a cost budget (e.g. { requests: { limit: 600, windowSeconds: 60 } }).'],
    ['only roles without budgets', { rateLimit: { roles: { admin: {} } } }, 'rateLimit needs a requests or a cost budget (e.g. { requests: { limit: 600, windowSeconds: 60 } }).'],
    ['a limit of 0', { rateLimit: { requests: { limit: 0, windowSeconds: 60 } } }, 'rateLimit.requests.limit must be a positive whole number, got 0.'],
    ['a fractional limit', { rateLimit: { cost: { limit: 1.5, windowSeconds: 60 } } }, 'rateLimit.cost.limit must be a positive whole number, got 1.5.'],
    ['a negative window', { rateLimit: { requests: { limit: 10, windowSeconds: -1 } } }, 'rateLimit.requests.windowSeconds must be a positive number of seconds, got -1.'],
    ['a window of a fraction of a millisecond', { rateLimit: { requests: { limit: 10, windowSeconds: 0.0005 } } }, 'rateLimit.requests.windowSeconds must be a whole number of milliseconds, got 0.0005.'],
    ['a budget that is not an object', { rateLimit: { requests: 5 as never } }, 'rateLimit.requests must be { limit, windowSeconds }, got 5.'],
    ['a bad role budget', { rateLimit: { requests: { limit: 1, windowSeconds: 1 }, roles: { admin: { requests: { limit: -2, windowSeconds: 1 } } } } }, 'rateLimit.roles.admin.requests.limit must be a positive whole number, got -2.'],
    ['trustProxy set twice, differently', { trustProxy: 1, rateLimit: { requests: { limit: 1, windowSeconds: 1 }, trustProxy: 2 } }, 'trustProxy (1) and rateLimit.trustProxy (2) differ; set one.'],
    ['trustProxy: -1', { trustProxy: -1, rateLimit: { requests: { limit: 1, windowSeconds: 1 } } }, `trustProxy ${PROXIES} a number.`],
    ['rateLimit.trustProxy: 33', { rateLimit: { requests: { limit: 1, windowSeconds: 1 }, trustProxy: 33 } }, `rateLimit.trustProxy ${PROXIES} a number.`],
    ['ipv6Subnet: 0', { rateLimit: { requests: { limit: 1, windowSeconds: 1 }, ipv6Subnet: 0 } }, 'rateLimit.ipv6Subnet must be a whole number from 1 to 128, got a number.'],
    ['failOpen: "yes"', { rateLimit: { requests: { limit: 1, windowSeconds: 1 }, failOpen: 'yes' as never } }, 'rateLimit.failOpen must be true or false, got a string.'],
    ['store type mongo', { rateLimit: { requests: { limit: 1, windowSeconds: 1 }, store: { type: 'mongo' } as never } }, "rateLimit.store.type must be 'memory' or 'redis', got a string."],
    ['a Redis store with an http url', { rateLimit: { requests: { limit: 1, windowSeconds: 1 }, store: { type: 'redis', url: 'http://user:pw@localhost:6379' } } }, 'rateLimit.store: the Redis store needs a redis:// or rediss:// url (or REDIS_URL), got "http://user:***@localhost:6379".'],
    ['a Redis store timeout of 0', { rateLimit: { requests: { limit: 1, windowSeconds: 1 }, store: { type: 'redis', url: 'redis://127.0.0.1:1', timeoutMs: 0 } } }, 'rateLimit.store.timeoutMs must be a positive whole number, got 0.'],
  ])('refuses %s with a TypeError that says what is wrong', (_name, options, message) => {
    expectTypeError(create(options), message);
  });

  it('accepts trustProxy given twice with the same value', () => {
    const server = create({ trustProxy: 1, rateLimit: { requests: { limit: 1, windowSeconds: 1 }, trustProxy: 1 } })();
    expect(server.listening).toBe(false);
    return server.shutdown().catch(() => undefined);
  });
});
