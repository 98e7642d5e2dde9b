/**
 * Operations, end to end over a real server (createServer on 127.0.0.1, port 0): the liveness
 * and readiness probes (`/healthz`, `/readyz`, through shutdown and with Redis stores that are
 * up or unreachable), the Prometheus metrics (`/metrics`: exact counter lines after a known set
 * of requests, the histogram's shape, label escaping, the token), and the JSON request logs
 * (exact keys, request ids, levels, and that no credential, variable or query text is ever
 * written). See docs/operations.md.
 *
 * The cases against a real Redis run against REDIS_URL and are skipped, saying so, when it is
 * unset; an unreachable Redis needs none and always runs.
 */
import http from 'node:http';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import fc from 'fast-check';
import { GraphQLError } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { apiKeyAuth, createRedisPubSub, createServer, hashApiKey, makeSchema } from '../src/index.ts';
import type { ServerOptions } from '../src/index.ts';
import { sha256 } from '../src/security/trustedDocuments.ts';
import { ServerMetrics, MAX_ERROR_CODES, escapeLabelValue } from '../src/observability/metrics.ts';
import { CacheCounts } from '../src/observability/cacheCounts.ts';
import { ErrorCounts } from '../src/observability/errorCounts.ts';
import { JsonLogger, requestIdFrom } from '../src/observability/requestLog.ts';
import { demoLogLevel } from '../src/demo/config.ts';
import { json, postJson, send, startServer } from './support/httpServer.ts';
import type { SentResponse, StartedServer } from './support/httpServer.ts';
import { deadPort } from './support/rateLimitHelpers.ts';
import { RawClient, openEventStream, startRealtimeServer, within } from './support/realtime.ts';

const REDIS_URL = process.env.REDIS_URL;
const HAS_REDIS = REDIS_URL !== undefined && REDIS_URL !== '';
if (!HAS_REDIS) {
  console.log('operations.test.ts: the readiness cases against a Redis server are skipped: REDIS_URL is not set (e.g. REDIS_URL=redis://127.0.0.1:6379).');
}

const JSON_TYPE = 'application/json; charset=utf-8';
const METRICS_TYPE = 'text/plain; version=0.0.4; charset=utf-8';
const LOG_KEYS = ['time', 'level', 'msg', 'method', 'path', 'status', 'durationMs', 'operationType', 'operationName', 'requestId', 'identity'];
const GENERATED_ID = /^[0-9a-f]{12}-[0-9a-z]+$/;
const ISO_TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** Servers and other things a test started, stopped after it. */
const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

/** A test server whose log lines are kept (and never reach standard output). */
async function serve(options: Partial<ServerOptions> = {}): Promise<StartedServer & { lines: string[] }> {
  const lines: string[] = [];
  const started = await startServer({ logger: (line) => lines.push(line), ...options });
  cleanups.push(() => started.close());
  // The server's ready line (transports/http/listening.ts) comes first, at every level but silent: the tests read the lines after it.
  const ready = options.logLevel === 'silent' ? [] : [`graphql-glassbox listening on ${started.url}`];
  expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual(ready);
  lines.length = 0;
  return Object.assign(started, { lines });
}

function get(url: string, headers: Record<string, string> = {}): Promise<SentResponse> {
  return send(url, { headers });
}

/** The metrics text, checked for its status and media type. */
async function scrape(origin: string, headers: Record<string, string> = {}): Promise<string> {
  const response = await get(`${origin}/metrics`, headers);
  expect(response.status, response.text).toBe(200);
  expect(response.headers['content-type']).toBe(METRICS_TYPE);
  expect(response.headers['cache-control']).toBe('no-store');
  return response.text;
}

/** The sample lines of one metric family (name, or name_bucket/_sum/_count for a histogram), in order. */
function samples(text: string, name: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `));
}

/** Resolves once `ready()` is true, or fails after `ms`. */
async function eventually(ready: () => Promise<boolean> | boolean, ms: number, what: string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await ready())) {
    if (Date.now() > deadline) throw new Error(`Timed out after ${ms} ms waiting for ${what}.`);
    await sleep(20);
  }
}

/** Whether a new TCP connection to the port is accepted. */
function connects(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('liveness and readiness', () => {
  it('answers /healthz and /readyz with 200, no-store, for GET and HEAD, whatever the query string', async () => {
    const server = await serve();
    const live = await get(`${server.origin}/healthz`);
    expect(live.status).toBe(200);
    expect(live.headers['content-type']).toBe(JSON_TYPE);
    expect(live.headers['cache-control']).toBe('no-store');
    expect(live.text).toBe('{"status":"ok"}');
    const ready = await get(`${server.origin}/readyz?verbose=1`);
    expect([ready.status, ready.headers['cache-control'], ready.text]).toEqual([200, 'no-store', '{"status":"ready"}']);
    const head = await send(`${server.origin}/healthz`, { method: 'HEAD' });
    expect([head.status, head.headers['content-length'], head.text]).toEqual([200, '15', '']);
  });

  it('refuses other methods with 405 and Allow', async () => {
    const server = await serve();
    for (const path of ['/healthz', '/readyz', '/metrics']) {
      const response = await send(`${server.origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(response.status).toBe(405);
      expect(response.headers['allow']).toBe('GET, HEAD');
      expect(response.headers['cache-control']).toBe('no-store');
      expect(json(response)).toEqual({ error: { code: 'METHOD_NOT_ALLOWED', message: `Method POST is not allowed on ${path}; use GET.` } });
    }
  });

  it('serves neither with health: false (the GraphQL handler answers 404)', async () => {
    const server = await serve({ health: false });
    const response = await get(`${server.origin}/healthz`);
    expect(response.status).toBe(404);
    expect(json(response)).toEqual({ error: { code: 'NOT_FOUND', message: 'Nothing is served at /healthz; the GraphQL endpoint is /graphql.' } });
  });

  it('during shutdown: /readyz 503 at once, /healthz and /metrics 200 while it still serves, then no new connections', async () => {
    const server = await serve({ shutdownDelayMs: 1500 });
    const started = server.probe.nextWait();
    const slow = postJson(server.url, { query: '{ wait(ms: 1000) }' });
    await started;
    const stopped = server.server.shutdown();

    const ready = await get(`${server.origin}/readyz`);
    expect(ready.status).toBe(503);
    expect(ready.headers['content-type']).toBe(JSON_TYPE);
    expect(ready.headers['cache-control']).toBe('no-store');
    expect(ready.text).toBe('{"status":"not ready","reasons":["shutting down"]}');
    const live = await get(`${server.origin}/healthz`);
    expect([live.status, live.text]).toEqual([200, '{"status":"ok"}']);
    const metrics = await scrape(server.origin);
    // The slow request is still being answered.
    expect(samples(metrics, 'graphql_executions_in_flight')).toEqual(['graphql_executions_in_flight 1']);
    // So are new GraphQL requests, until the delay is over.
    expect((await postJson(server.url, { query: '{ hello }' })).status).toBe(200);

    expect((await slow).status).toBe(200);
    await stopped;
    expect(await connects(server.port)).toBe(false);
  });

  it('without a delay, stops accepting at once and still lets the request in flight finish', async () => {
    const server = await serve();
    const started = server.probe.nextWait();
    const slow = postJson(server.url, { query: '{ wait(ms: 200) }' });
    await started;
    const stopped = server.server.shutdown();
    expect(await connects(server.port)).toBe(false);
    expect((await slow).status).toBe(200);
    await stopped;
  });

  it('is not ready while a rate-limit Redis store is unreachable, naming it', async () => {
    const port = await deadPort();
    const server = await serve({ rateLimit: { requests: { limit: 100, windowSeconds: 60 }, store: { type: 'redis', url: `redis://127.0.0.1:${port}`, timeoutMs: 200 } } });
    cleanups.push(() => server.server.shutdown());
    // The first probe starts the connection (the store makes it on first use otherwise).
    const first = await get(`${server.origin}/readyz`);
    expect([first.status, first.text]).toEqual([503, '{"status":"not ready","reasons":["rate limit store (Redis): not connected yet"]}']);
    let later = first;
    await eventually(async () => {
      later = await get(`${server.origin}/readyz`);
      return !later.text.includes('not connected yet');
    }, 3000, 'the connection to be tried');
    expect(later.status).toBe(503);
    const body = json(later) as { status: string; reasons: string[] };
    expect(body.status).toBe('not ready');
    expect(body.reasons).toHaveLength(1);
    expect(body.reasons[0]).toMatch(/^rate limit store \(Redis\): connection (connecting|connect|reconnecting|close)$/);
    // Alive all the same: restarting the process would not bring Redis back.
    expect((await get(`${server.origin}/healthz`)).status).toBe(200);
  });

  it('is not ready while a persisted-query Redis store is unreachable', async () => {
    const port = await deadPort();
    const server = await serve({ persistedQueries: { store: { type: 'redis', url: `redis://127.0.0.1:${port}` } } });
    cleanups.push(() => server.server.shutdown());
    const first = await get(`${server.origin}/readyz`);
    expect([first.status, first.text]).toEqual([503, '{"status":"not ready","reasons":["persisted query store (Redis): not connected yet"]}']);
  });

  it('reads checks given in readinessChecks; one that throws is not ready and never fails the probe', async () => {
    let databaseUp = false;
    const server = await serve({
      readinessChecks: [
        { name: 'database', ready: () => databaseUp, state: () => 'no connection in the pool' },
        {
          name: 'search',
          ready: () => {
            throw new Error('boom');
          },
        },
      ],
    });
    const down = await get(`${server.origin}/readyz`);
    expect([down.status, down.text]).toEqual([503, '{"status":"not ready","reasons":["database: no connection in the pool","search: its check failed: boom"]}']);
    databaseUp = true;
    const partly = await get(`${server.origin}/readyz`);
    expect(partly.text).toBe('{"status":"not ready","reasons":["search: its check failed: boom"]}');
  });

  it('refuses a readiness check that is not one, at start', () => {
    expect(() => createServer({ schema: makeSchema({ typeDefs: 'type Query { a: Int }' }), readinessChecks: [{ name: 'x' } as never] })).toThrow(
      new TypeError('readinessChecks: each check must be { name: string, ready(): boolean }, got [object Object].'),
    );
  });

  it.skipIf(!HAS_REDIS)('is ready once the rate-limit and persisted-query Redis stores are connected (REDIS_URL)', async () => {
    const server = await serve({
      rateLimit: { requests: { limit: 100, windowSeconds: 60 }, store: { type: 'redis', url: REDIS_URL as string, keyPrefix: `operations-test:${process.pid}:` } },
      persistedQueries: { store: { type: 'redis', url: REDIS_URL as string, keyPrefix: `operations-test-apq:${process.pid}:` } },
    });
    cleanups.push(() => server.server.shutdown());
    const first = await get(`${server.origin}/readyz`);
    expect(first.status).toBe(503);
    expect(json(first)).toEqual({ status: 'not ready', reasons: ['rate limit store (Redis): not connected yet', 'persisted query store (Redis): not connected yet'] });
    await eventually(async () => (await get(`${server.origin}/readyz`)).status === 200, 3000, '/readyz to answer 200');
    expect((await get(`${server.origin}/readyz`)).text).toBe('{"status":"ready"}');
  });

  it.skipIf(!HAS_REDIS)("a Redis pub/sub's readiness, passed in readinessChecks (REDIS_URL)", async () => {
    const pubsub = createRedisPubSub({ url: REDIS_URL as string });
    cleanups.push(() => pubsub.close());
    const server = await serve({ readinessChecks: [pubsub.readiness] });
    expect((await get(`${server.origin}/readyz`)).text).toBe('{"status":"not ready","reasons":["pub/sub (Redis): not connected yet"]}');
    await eventually(async () => (await get(`${server.origin}/readyz`)).status === 200, 3000, '/readyz to answer 200');
  });
});

const KEY = 'ops-test-key-0123456789abcdef';
const KEY_HEADERS = { 'x-api-key': KEY };

describe('metrics', () => {
  it('count a known set of requests exactly: types, statuses, errors, caches, refusals', async () => {
    const server = await serve({
      rateLimit: { requests: { limit: 5, windowSeconds: 60 } },
      authenticate: [apiKeyAuth({ keys: [{ id: 'ci-bot', hash: hashApiKey(KEY), roles: [] }] })],
    });
    const graphql = 'application/graphql-response+json';
    // Anonymous (counted by address): five allowed, then refused.
    expect((await postJson(server.url, { query: '{ hello }' })).status).toBe(200);
    expect((await postJson(server.url, { query: 'mutation { increment }' })).status).toBe(200);
    expect((await postJson(server.url, { query: '{ nope }' }, graphql)).status).toBe(400);
    expect((await postJson(server.url, { query: '{ hello }' })).status).toBe(200);
    expect((await postJson(server.url, { query: '{ hello }' })).status).toBe(200);
    expect((await postJson(server.url, { query: '{ hello }' })).status).toBe(429);
    // With the API key (a budget of its own): a known request, then a persisted query's round.
    const apqQuery = '{ hello(name: "apq") }';
    const persisted = { persistedQuery: { version: 1, sha256Hash: sha256(apqQuery) } };
    expect((await postJson(server.url, { query: '{ hello }' }, 'application/json', KEY_HEADERS)).status).toBe(200);
    const notFound = await postJson(server.url, { extensions: persisted }, 'application/json', KEY_HEADERS);
    expect(json(notFound)).toEqual({ errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] });
    expect((await postJson(server.url, { query: apqQuery, extensions: persisted }, 'application/json', KEY_HEADERS)).status).toBe(200);
    for (let i = 0; i < 2; i++) {
      const hit = await postJson(server.url, { extensions: persisted }, 'application/json', KEY_HEADERS);
      expect(json(hit)).toEqual({ data: { hello: 'Hello, apq!' }, extensions: { cost: { requested: 0, actual: 0, limit: 1000 } } });
    }
    // Neither probes nor scrapes are GraphQL requests.
    await get(`${server.origin}/healthz`);
    await scrape(server.origin);

    const text = await scrape(server.origin);
    // Request lines are off (the default level): the refusal is only counted. Its caller is known all the same.
    expect(server.lines).toEqual([]);
    expect(samples(text, 'graphql_requests_total')).toEqual([
      'graphql_requests_total{operation="query",status="200"} 7',
      'graphql_requests_total{operation="mutation",status="200"} 1',
      'graphql_requests_total{operation="unknown",status="200"} 1',
      'graphql_requests_total{operation="unknown",status="400"} 1',
      'graphql_requests_total{operation="unknown",status="429"} 1',
    ]);
    expect(samples(text, 'graphql_errors_total')).toEqual([
      'graphql_errors_total{code="GRAPHQL_VALIDATION_FAILED"} 1',
      'graphql_errors_total{code="RATE_LIMITED"} 1',
      'graphql_errors_total{code="PERSISTED_QUERY_NOT_FOUND"} 1',
    ]);
    // Parsed: hello, increment, nope, the persisted query's text; not parsed again: every repeat.
    expect(samples(text, 'graphql_cache_requests_total')).toEqual([
      'graphql_cache_requests_total{cache="document",result="hit"} 5',
      'graphql_cache_requests_total{cache="document",result="miss"} 4',
      'graphql_cache_requests_total{cache="apq",result="hit"} 2',
      'graphql_cache_requests_total{cache="apq",result="miss"} 1',
    ]);
    // Four documents validated, each short enough to be validated in the event loop's thread.
    expect(samples(text, 'graphql_validations_total')).toEqual(['graphql_validations_total{thread="main"} 4', 'graphql_validations_total{thread="worker"} 0']);
    expect(samples(text, 'graphql_rate_limited_total')).toEqual(['graphql_rate_limited_total 1']);
    expect(samples(text, 'graphql_executions_in_flight')).toEqual(['graphql_executions_in_flight 0']);
    expect(samples(text, 'graphql_subscriptions_open')).toEqual(['graphql_subscriptions_open{transport="websocket"} 0', 'graphql_subscriptions_open{transport="sse"} 0']);
    expect(samples(text, 'graphql_log_lines_dropped_total')).toEqual(['graphql_log_lines_dropped_total 0']);

    // The histogram: per type, cumulative buckets ending in +Inf, whose count is the type's requests.
    for (const [operation, count] of [['query', 7], ['mutation', 1], ['unknown', 3]] as const) {
      const buckets = samples(text, 'graphql_request_duration_seconds_bucket').filter((line) => line.includes(`operation="${operation}"`));
      expect(buckets.map((line) => /le="([^"]+)"/.exec(line)?.[1])).toEqual(['0.0005', '0.001', '0.0025', '0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '+Inf']);
      const values = buckets.map((line) => Number(line.slice(line.lastIndexOf(' ') + 1)));
      for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThanOrEqual(values[i - 1] as number);
      expect(values.at(-1)).toBe(count);
      expect(samples(text, 'graphql_request_duration_seconds_count')).toContain(`graphql_request_duration_seconds_count{operation="${operation}"} ${count}`);
      const sum = samples(text, 'graphql_request_duration_seconds_sum').find((line) => line.includes(`"${operation}"`)) as string;
      expect(Number(sum.slice(sum.lastIndexOf(' ') + 1))).toBeGreaterThan(0);
    }
    expect(samples(text, 'graphql_request_duration_seconds_count')).toHaveLength(3);
  });

  it('have a HELP and a TYPE line for every family, and the process basics', async () => {
    const server = await serve();
    const text = await scrape(server.origin);
    const types = text.split('\n').filter((line) => line.startsWith('# TYPE '));
    expect(types).toEqual([
      '# TYPE graphql_requests_total counter',
      '# TYPE graphql_request_duration_seconds histogram',
      '# TYPE graphql_errors_total counter',
      '# TYPE graphql_executions_in_flight gauge',
      '# TYPE graphql_subscriptions_open gauge',
      '# TYPE graphql_cache_requests_total counter',
      '# TYPE graphql_validations_total counter',
      '# TYPE graphql_document_cache_bytes gauge',
      '# TYPE graphql_rate_limited_total counter',
      '# TYPE graphql_log_lines_dropped_total counter',
      '# TYPE process_start_time_seconds gauge',
      '# TYPE process_cpu_user_seconds_total counter',
      '# TYPE process_cpu_system_seconds_total counter',
      '# TYPE process_resident_memory_bytes gauge',
      '# TYPE nodejs_heap_size_total_bytes gauge',
      '# TYPE nodejs_heap_size_used_bytes gauge',
      '# TYPE nodejs_external_memory_bytes gauge',
    ]);
    const helps = text.split('\n').filter((line) => line.startsWith('# HELP '));
    expect(helps.map((line) => line.split(' ')[2])).toEqual(types.map((line) => line.split(' ')[2]));
    const start = Number(samples(text, 'process_start_time_seconds')[0]?.split(' ')[1]);
    expect(Math.abs(start - performance.timeOrigin / 1000)).toBeLessThan(1);
    expect(Number(samples(text, 'nodejs_heap_size_used_bytes')[0]?.split(' ')[1])).toBeGreaterThan(0);
    expect(text.endsWith('\n')).toBe(true);
    // Every sample line is `name{labels} value` or `name value`, as the format wants.
    for (const line of text.split('\n').filter((each) => each !== '' && !each.startsWith('#'))) {
      expect(line).toMatch(/^[a-z_]+(\{([a-z_]+="(?:[^"\\\n]|\\[\\"n])*",?)+\})? -?[0-9.e+-]+$/);
    }
  });

  it('escape label values: a code with a quote, a backslash and a line break', async () => {
    const schema = makeSchema({
      typeDefs: 'type Query { weird: String }',
      resolvers: {
        Query: {
          weird: () => {
            throw new GraphQLError('Weird.', { extensions: { code: 'WE"IRD\\CODE\nLINE' } });
          },
        },
      },
    });
    const server = await serve({ schema });
    const response = await postJson(server.url, { query: '{ weird }' });
    expect(response.status).toBe(200);
    const text = await scrape(server.origin);
    expect(samples(text, 'graphql_errors_total')).toEqual(['graphql_errors_total{code="WE\\"IRD\\\\CODE\\nLINE"} 1']);
    expect(escapeLabelValue('plain')).toBe('plain');
  });

  it(`keep at most ${MAX_ERROR_CODES} error codes, counting the rest as OTHER`, () => {
    const metrics = new ServerMetrics();
    const errorCounts = new ErrorCounts();
    // An error without a code; a list with a hole in it; a body that is no refusal.
    errorCounts.addErrors([{ extensions: {} }, null]);
    metrics.countRefusal('{"data":{"errors":"not an error list"}}');
    for (let i = 0; i < MAX_ERROR_CODES + 5; i++) errorCounts.add(`CODE_${i}`);
    errorCounts.add('CODE_0');
    metrics.countRefusal('{"error":{"code":"CODE_0","message":"again"}}');
    const lines = samples(metrics.render({ cacheCounts: new CacheCounts(), errorCounts, rateLimited: null, websocketSubscriptions: 0, sseSubscriptions: 0, logLinesDropped: 0 }), 'graphql_errors_total');
    expect(lines).toHaveLength(MAX_ERROR_CODES + 1);
    expect(lines.slice(0, 2)).toEqual(['graphql_errors_total{code="UNKNOWN"} 2', 'graphql_errors_total{code="CODE_0"} 3']);
    // UNKNOWN and CODE_0 to CODE_98 are the 100 kept; CODE_99 to CODE_104 are OTHER.
    expect(lines.at(-1)).toBe('graphql_errors_total{code="OTHER"} 6');
  });

  it('count resource routes as requests, by their operation', async () => {
    const server = await serve({ resources: { version: 'v1', routes: { 'GET /greetings': 'query Greeting { hello }' } } });
    expect((await get(`${server.origin}/api/v1/greetings`)).status).toBe(200);
    expect((await get(`${server.origin}/api/v1/nothing`)).status).toBe(404);
    const text = await scrape(server.origin);
    expect(samples(text, 'graphql_requests_total')).toEqual([
      'graphql_requests_total{operation="query",status="200"} 1',
      'graphql_requests_total{operation="unknown",status="404"} 1',
    ]);
  });

  it('gauge open subscriptions by transport, WebSocket and Server-Sent Events', async () => {
    const realtime = await startRealtimeServer({ logger: () => undefined });
    cleanups.push(() => realtime.close());
    const subscriptions = async () => samples(await scrape(realtime.origin), 'graphql_subscriptions_open');
    const client = await RawClient.open(realtime.wsUrl);
    await client.init();
    client.send({ id: '1', type: 'subscribe', payload: { query: 'subscription { ticks(topic: "t") }' } });
    const stream = await openEventStream(realtime.url, { query: 'subscription { ticks(topic: "t") }' });
    await eventually(() => realtime.subscribers('t') === 2, 2000, 'both subscriptions');
    expect(await subscriptions()).toEqual(['graphql_subscriptions_open{transport="websocket"} 1', 'graphql_subscriptions_open{transport="sse"} 1']);
    client.send({ id: '1', type: 'complete' });
    stream.abort();
    await eventually(() => realtime.subscribers('t') === 0, 2000, 'both subscriptions to end');
    await eventually(async () => (await subscriptions()).join() === 'graphql_subscriptions_open{transport="websocket"} 0,graphql_subscriptions_open{transport="sse"} 0', 2000, 'the gauges to fall');
    await client.close();
  });

  it('can move, require a bearer token, or be turned off', async () => {
    const token = 'scrape-token-0123456789';
    const guarded = await serve({ metrics: { path: '/internal/metrics', token } });
    expect((await get(`${guarded.origin}/metrics`)).status).toBe(404);
    for (const headers of [{}, { authorization: 'Bearer wrong-token-0123456789' }, { authorization: token }] as Array<Record<string, string>>) {
      const refused = await get(`${guarded.origin}/internal/metrics`, headers);
      expect(refused.status).toBe(401);
      expect(refused.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      expect(refused.headers['cache-control']).toBe('no-store');
      expect(json(refused)).toEqual({ error: { code: 'UNAUTHENTICATED', message: 'The metrics need Authorization: Bearer <token>.' } });
    }
    const allowed = await get(`${guarded.origin}/internal/metrics`, { authorization: `Bearer ${token}` });
    expect([allowed.status, allowed.headers['content-type']]).toEqual([200, METRICS_TYPE]);
    expect(allowed.text).toContain('# TYPE graphql_requests_total counter');

    const off = await serve({ metrics: false });
    expect((await get(`${off.origin}/metrics`)).status).toBe(404);
    expect((await get(`${off.origin}/healthz`)).status).toBe(200);

    const schema = makeSchema({ typeDefs: 'type Query { a: Int }' });
    expect(() => createServer({ schema, metrics: { token: 'short' } })).toThrow(new TypeError('metrics.token must be a string of at least 16 characters without spaces.'));
    expect(() => createServer({ schema, metrics: { path: 'metrics' } })).toThrow(new TypeError('metrics.path must be a path such as /metrics, got metrics.'));
  });
});

describe('request logs', () => {
  it('write one JSON line per request, with exactly these keys, the id echoed in x-request-id', async () => {
    const server = await serve({ logLevel: 'info' });
    const before = Date.now();
    const response = await postJson(server.url, { query: 'query Greeting { hello }' });
    expect(response.status).toBe(200);
    expect(server.lines).toHaveLength(1);
    const line = JSON.parse(server.lines[0] as string) as Record<string, unknown>;
    expect(Object.keys(line)).toEqual(LOG_KEYS);
    expect(line).toEqual({
      time: expect.stringMatching(ISO_TIME),
      level: 'info',
      msg: 'request',
      method: 'POST',
      path: '/graphql',
      status: 200,
      durationMs: expect.any(Number),
      operationType: 'query',
      operationName: 'Greeting',
      requestId: response.headers['x-request-id'],
      identity: 'anonymous',
    });
    expect(response.headers['x-request-id']).toMatch(GENERATED_ID);
    expect(Math.abs(Date.parse(line['time'] as string) - before)).toBeLessThan(5000);
    // Three decimals, as written.
    expect(server.lines[0]).toMatch(/"durationMs":\d+\.\d{3},/);
  });

  it('leave the query string out of the path, and log refusals without an operation', async () => {
    const server = await serve({ logLevel: 'info' });
    // The GETs carry the header CSRF prevention (on by default) asks for.
    await get(`${server.url}?query=${encodeURIComponent('{ hello(name: "in-the-url") }')}&variables=%7B%7D`, { accept: 'application/json', 'x-graphql-csrf': '1' });
    await send(server.url, { method: 'PUT' });
    await send(`${server.url}?query=${encodeURIComponent('{ nope }')}`, { headers: { accept: 'application/json', 'x-graphql-csrf': '1' } });
    const [getLine, putLine, invalidLine] = server.lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(getLine).toMatchObject({ method: 'GET', path: '/graphql', status: 200, operationType: 'query', operationName: null, identity: 'anonymous' });
    expect(putLine).toMatchObject({ method: 'PUT', path: '/graphql', status: 405, operationType: null, operationName: null, identity: null });
    // Refused before an operation was chosen (and with no rate limit to count the caller): no operation, no identity.
    expect(invalidLine).toMatchObject({ method: 'GET', status: 200, operationType: null, identity: null });
    expect(server.lines.join('\n')).not.toContain('in-the-url');
  });

  it('name the caller of a request the rate limiter refused', async () => {
    const server = await serve({ logLevel: 'info', rateLimit: { requests: { limit: 1, windowSeconds: 60 } } });
    expect((await postJson(server.url, { query: '{ hello }' })).status).toBe(200);
    expect((await postJson(server.url, { query: '{ hello }' })).status).toBe(429);
    expect(server.lines.map((line) => JSON.parse(line) as Record<string, unknown>)).toMatchObject([
      { status: 200, operationType: 'query', identity: 'anonymous' },
      { status: 429, operationType: null, identity: 'anonymous' },
    ]);
  });

  it('keep a sane X-Request-ID and replace any other', async () => {
    const server = await serve({ logLevel: 'info' });
    const sane = 'req-42.a:b_C';
    const kept = await postJson(server.url, { query: '{ hello }' }, 'application/json', { 'x-request-id': sane });
    expect(kept.headers['x-request-id']).toBe(sane);
    const longest = 'a'.repeat(128);
    expect((await postJson(server.url, { query: '{ hello }' }, 'application/json', { 'x-request-id': longest })).headers['x-request-id']).toBe(longest);
    const ids: string[] = [];
    for (const insane of ['a'.repeat(129), 'has space', 'semi;colon', 'quote"d', 'é']) {
      const replaced = await postJson(server.url, { query: '{ hello }' }, 'application/json', { 'x-request-id': insane });
      expect(replaced.headers['x-request-id']).toMatch(GENERATED_ID);
      ids.push(replaced.headers['x-request-id'] as string);
    }
    ids.push((await postJson(server.url, { query: '{ hello }' })).headers['x-request-id'] as string);
    expect(new Set(ids).size).toBe(ids.length);
    const logged = server.lines.map((line) => (JSON.parse(line) as { requestId: string }).requestId);
    expect(logged).toEqual([sane, longest, ...ids]);
    expect(requestIdFrom(['a', 'b'])).toMatch(GENERATED_ID);
  });

  it('never write a credential, a variable or the query text (random secrets, in every place a request carries them)', async () => {
    const server = await serve({
      logLevel: 'debug',
      authenticate: [apiKeyAuth({ keys: [{ id: 'ci-bot', hash: hashApiKey(KEY), roles: [] }] })],
    });
    const secret = fc.stringMatching(/^[A-Za-z0-9]{20,40}$/);
    await fc.assert(
      fc.asyncProperty(secret, secret, secret, secret, async (inQuery, inVariables, inToken, inUrl) => {
        server.lines.splice(0);
        await postJson(server.url, { query: `{ hello(name: "${inQuery}") }` }, 'application/json', KEY_HEADERS);
        await postJson(server.url, { query: 'query Q($n: String) { hello(name: $n) }', variables: { n: inVariables } }, 'application/json', KEY_HEADERS);
        await postJson(server.url, { query: '{ hello }' }, 'application/json', { authorization: `Bearer ${inToken}` });
        await postJson(server.url, { query: '{ hello }' }, 'application/json', { 'x-api-key': inToken });
        await get(`${server.url}?query=${encodeURIComponent(`{ hello(name: "${inUrl}") }`)}`, { accept: 'application/json', 'x-api-key': KEY, 'x-graphql-csrf': '1' });
        await get(`${server.origin}/healthz?token=${inUrl}`);
        const written = server.lines.join('\n');
        expect(server.lines).toHaveLength(6);
        for (const leaked of [inQuery, inVariables, inToken, inUrl, KEY, 'hello(']) expect(written).not.toContain(leaked);
        expect(server.lines.map((line) => (JSON.parse(line) as { identity: string | null }).identity)).toEqual(['ci-bot', 'ci-bot', null, null, 'ci-bot', null]);
      }),
      { numRuns: 15 },
    );
  });

  it("at 'warn': no request lines, but a resolver's fault as an error line with its message and stack", async () => {
    const server = await serve({ logLevel: 'warn', production: true });
    const response = await postJson(server.url, { query: '{ fail }' });
    expect(response.headers['x-request-id']).toBeUndefined();
    const requestId = (json(response) as { errors: Array<{ extensions: { requestId: string } }> }).errors[0]?.extensions.requestId;
    await eventually(() => server.lines.length === 1, 1000, 'the error line');
    const line = JSON.parse(server.lines[0] as string) as Record<string, unknown>;
    expect(Object.keys(line)).toEqual(['time', 'level', 'msg', 'requestId', 'err']);
    expect(line).toMatchObject({ level: 'error', msg: 'Unexpected error in a resolver: db password leaked', requestId });
    expect(line['err']).toEqual({ message: 'db password leaked', stack: expect.stringContaining('Error: db password leaked\n    at ') });
  });

  it("give a masked error the request's id: its request line's, its error line's and x-request-id", async () => {
    const server = await serve({ logLevel: 'info', production: true });
    type Masked = { errors: Array<{ message: string; extensions: { code: string; requestId: string } }> };
    for (const headers of [{}, { 'x-request-id': 'trace-7' }] as Array<Record<string, string>>) {
      server.lines.length = 0;
      const response = await postJson(server.url, { query: '{ fail }' }, 'application/json', headers);
      const id = response.headers['x-request-id'] as string;
      expect(id).toMatch('x-request-id' in headers ? /^trace-7$/ : GENERATED_ID);
      const [error] = (json(response) as Masked).errors;
      expect(error).toMatchObject({ message: 'Unexpected error.', extensions: { code: 'INTERNAL_SERVER_ERROR', requestId: id } });
      await eventually(() => server.lines.length === 2, 1000, 'the error line and the request line');
      const logged = server.lines.map((line) => JSON.parse(line) as { msg: string; requestId: string });
      expect(logged.map((line) => [line.msg, line.requestId])).toEqual([
        ['Unexpected error in a resolver: db password leaked', id],
        ['request', id],
      ]);
    }
  });

  it("at 'silent': nothing at all; at 'debug': probes too", async () => {
    const silent = await serve({ logLevel: 'silent', production: true });
    await postJson(silent.url, { query: '{ fail }' });
    await get(`${silent.origin}/healthz`);
    await sleep(50);
    expect(silent.lines).toEqual([]);

    const debug = await serve({ logLevel: 'debug' });
    const probe = await get(`${debug.origin}/readyz`);
    expect(debug.lines).toHaveLength(1);
    expect(JSON.parse(debug.lines[0] as string)).toMatchObject({ level: 'debug', method: 'GET', path: '/readyz', status: 200, operationType: null, requestId: probe.headers['x-request-id'] });
  });

  it("go to the server's `log` instead when one is given, and to a stream line by line", async () => {
    const entries: unknown[] = [];
    const withLog = await serve({ logLevel: 'info', production: true, log: (entry) => entries.push(entry) });
    await postJson(withLog.url, { query: '{ fail }' });
    expect(withLog.lines).toHaveLength(1);
    expect(JSON.parse(withLog.lines[0] as string)).toMatchObject({ msg: 'request', status: 200 });
    expect(entries).toHaveLength(1);

    const chunks: string[] = [];
    const streamed = await startServer({ logLevel: 'info', logger: { write: (chunk: string) => chunks.push(chunk) } });
    cleanups.push(() => streamed.close());
    await postJson(streamed.url, { query: '{ hello }' });
    // The ready line, then the request's.
    expect(chunks).toHaveLength(2);
    expect(chunks[0]).toMatch(/^\{"time":.*"msg":"graphql-glassbox listening on .*\}\n$/);
    expect(chunks[1]).toMatch(/^\{"time":.*"msg":"request".*\}\n$/);
  });

  it('log a client that left before its answer as 499', async () => {
    const server = await serve({ logLevel: 'info' });
    const started = server.probe.nextWait();
    const request = http.request(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, agent: false });
    request.on('error', () => undefined);
    request.end(JSON.stringify({ query: '{ wait(ms: 200) }' }));
    await started;
    request.destroy();
    await eventually(() => server.lines.length === 1, 2000, 'the request line');
    expect(JSON.parse(server.lines[0] as string)).toMatchObject({ status: 499, operationType: 'query' });
    const text = await scrape(server.origin);
    expect(samples(text, 'graphql_requests_total')).toEqual(['graphql_requests_total{operation="query",status="499"} 1']);
  });

  it('refuse a log level that is not one, at start; the demo reads LOG_LEVEL (default info)', () => {
    const schema = makeSchema({ typeDefs: 'type Query { a: Int }' });
    expect(() => createServer({ schema, logLevel: 'verbose' as never })).toThrow(new TypeError('logLevel must be one of debug, info, warn, error, silent; got "verbose".'));
    expect(() => new JsonLogger('info', 42 as never)).toThrow(TypeError);
    expect(demoLogLevel({})).toBe('info');
    expect(demoLogLevel({ LOG_LEVEL: ' WARN ' })).toBe('warn');
    expect(() => demoLogLevel({ LOG_LEVEL: 'loud' })).toThrow(new TypeError('LOG_LEVEL must be one of debug, info, warn, error, silent; got "loud".'));
  });
});

describe('the default destination', () => {
  it('writes whole lines to a file descriptor, asynchronously, and flushes on shutdown', async () => {
    const { mkdtempSync, openSync, readFileSync, closeSync } = await import('node:fs');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = mkdtempSync(join(tmpdir(), 'operations-log-'));
    const fd = openSync(join(dir, 'log.jsonl'), 'w');
    const server = await startServer({ logLevel: 'info', logger: { fd } });
    cleanups.push(() => server.close());
    for (let i = 0; i < 20; i++) await postJson(server.url, { query: '{ hello }' });
    await within(server.server.shutdown(), 5000, 'shutdown');
    closeSync(fd);
    const lines = readFileSync(join(dir, 'log.jsonl'), 'utf8').split('\n');
    expect(lines.at(-1)).toBe('');
    // The ready line, then one per request.
    expect((JSON.parse(lines[0] as string) as { msg: string }).msg).toBe(`graphql-glassbox listening on ${server.url}`);
    expect(lines.slice(1, -1).map((line) => (JSON.parse(line) as { status: number }).status)).toEqual(Array(20).fill(200));
  });
});
