/**
 * `rateLimit.holdRefusalsMs`: the answer to a request refused for its client's budget (429) is
 * held that long before it is written, never longer than until the budget allows a request
 * again, so that a client sending one request at a time per connection sends about one per
 * hold. Checked on the limiter (what each refusal carries, with a clock of the test's own) and
 * end to end over HTTP: the GraphQL endpoint, a batch, a resource route, and shutdown, which
 * writes every held answer at once; over a WebSocket, whose reading pauses for the hold
 * after a refused subscribe; and the writer's bound on answers held at once.
 *
 * The HTTP tests assert that a held answer comes no sooner than its hold (a lower bound, which
 * load on the machine cannot break), and that shutdown releases an answer held for a minute
 * within the test's own timeout.
 */
import type { ServerResponse } from 'node:http';
import { buildSchema } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { RateLimiter } from '../src/ratelimit/rateLimiter.ts';
import type { Admission, RateLimitOptions } from '../src/ratelimit/rateLimiter.ts';
import { ANONYMOUS } from '../src/security/identity.ts';
import { MAX_HELD, ResponseWriter } from '../src/transports/http/responseWriter.ts';
import { json, postJson, send, startServer } from './support/httpServer.ts';
import type { SentResponse, StartedServer } from './support/httpServer.ts';
import { stopServer } from './support/rateLimitHelpers.ts';
import { RawClient, startRealtimeServer } from './support/realtime.ts';

const SCHEMA = buildSchema('type Query { a: Int }');
const ONE_PER_MINUTE = { limit: 1, windowSeconds: 60 };

/** A limiter on a clock the test moves, and the admissions of one anonymous client. */
function limiterAt(options: Omit<RateLimitOptions, 'store'>): { admit: () => Admission; advance: (ms: number) => void } {
  let now = 0;
  const limiter = new RateLimiter({ ...options, store: { type: 'memory', now: () => now } }, SCHEMA);
  const policy = limiter.policyFor(ANONYMOUS);
  return {
    admit: () => limiter.admit(policy, 'default:ip:192.0.2.1', 0) as Admission,
    advance: (ms) => {
      now += ms;
    },
  };
}

describe('what a refusal carries (holdMs)', () => {
  it('is 0 by default: the refusal is answered at once', () => {
    const { admit } = limiterAt({ requests: ONE_PER_MINUTE });
    expect('status' in admit()).toBe(false);
    expect(admit()).toMatchObject({ status: 429, retryAfter: 60, holdMs: 0 });
  });

  it('is holdRefusalsMs while the budget is further away than that', () => {
    const { admit } = limiterAt({ requests: ONE_PER_MINUTE, holdRefusalsMs: 1000 });
    admit();
    expect(admit()).toMatchObject({ status: 429, retryAfter: 60, holdMs: 1000 });
  });

  it('is no longer than until the budget allows a request again', () => {
    const { admit, advance } = limiterAt({ requests: ONE_PER_MINUTE, holdRefusalsMs: 1000 });
    admit();
    advance(59_800);
    expect(admit()).toMatchObject({ status: 429, retryAfter: 1, holdMs: 200 });
    advance(200);
    expect('status' in admit()).toBe(false);
  });

  it('is 0 for a 503: the store being away is not the client\'s doing', () => {
    const store = { charge: () => Promise.reject(new Error('down')), close: () => Promise.resolve() };
    const limiter = new RateLimiter({ requests: ONE_PER_MINUTE, holdRefusalsMs: 1000, store }, SCHEMA);
    return expect(limiter.admit(limiter.policyFor(ANONYMOUS), 'default:ip:192.0.2.1', 0)).resolves.toMatchObject({ status: 503, holdMs: 0 });
  });

  it.each([-1, 1.5, '100', Number.NaN, null])('refuses holdRefusalsMs: %s with a TypeError naming it', (value) => {
    expect(() => new RateLimiter({ requests: ONE_PER_MINUTE, holdRefusalsMs: value as number }, SCHEMA)).toThrow(
      new TypeError(`rateLimit.holdRefusalsMs must be a positive whole number, got ${typeof value === 'string' ? `"${value}"` : String(value)}.`),
    );
  });

  it('takes 0 (not held) as it takes leaving it out', () => {
    const { admit } = limiterAt({ requests: ONE_PER_MINUTE, holdRefusalsMs: 0 });
    admit();
    expect(admit()).toMatchObject({ status: 429, holdMs: 0 });
  });
});

describe('the writer of held answers', () => {
  /** Just what ResponseWriter writes a short text body to; records whether it was answered. */
  type FakeResponse = ServerResponse & { answered: boolean };
  function fakeResponse(): FakeResponse {
    const res = { headersSent: false, destroyed: false, answered: false, writeHead: () => res, end: () => ((res.answered = true), res) };
    return res as unknown as FakeResponse;
  }

  it(`holds at most ${MAX_HELD} answers at once, writes the one past that at once, and writes every held one on release`, () => {
    const writer = new ResponseWriter(null, () => undefined, () => undefined);
    const responses = Array.from({ length: MAX_HELD + 1 }, () => fakeResponse());
    for (const res of responses) writer.hold(60_000, res, 429, {}, '{}', null);
    expect(responses.filter((res) => res.answered)).toEqual([responses[MAX_HELD]]);
    writer.releaseHeld();
    expect(responses.every((res) => res.answered)).toBe(true);
  });

  it('writes at once once the server shuts down', () => {
    const writer = new ResponseWriter(null, () => undefined, () => undefined);
    writer.closing = true;
    const res = fakeResponse();
    writer.hold(60_000, res, 429, {}, '{}', null);
    expect(res.answered).toBe(true);
  });
});

describe('held answers over HTTP', () => {
  const HOLD_MS = 400;
  let started: StartedServer | null = null;
  afterEach(async () => {
    if (started !== null) await stopServer(started.server);
    started = null;
  });

  async function serve(holdRefusalsMs: number): Promise<StartedServer> {
    started = await startServer({ reportCost: false, rateLimit: { requests: ONE_PER_MINUTE, holdRefusalsMs } });
    return started;
  }

  /** A request, and how long its whole answer took to come. */
  async function timed(request: () => Promise<SentResponse>): Promise<{ response: SentResponse; ms: number }> {
    const start = performance.now();
    const response = await request();
    return { response, ms: performance.now() - start };
  }

  it('answers the request over budget with the same 429, no sooner than the hold', async () => {
    const { url } = await serve(HOLD_MS);
    const first = await timed(() => postJson(url, { query: '{ hello }' }));
    expect(first.response.status).toBe(200);
    const refused = await timed(() => postJson(url, { query: '{ hello }' }));
    expect(refused.response.status).toBe(429);
    expect(refused.response.headers['retry-after']).toBe('60');
    expect(refused.response.headers['ratelimit']).toBe('"requests";r=0;t=60');
    expect(json(refused.response)).toEqual({ error: { code: 'RATE_LIMITED', message: 'Rate limit exceeded: try again in 60 seconds.' } });
    expect(refused.ms).toBeGreaterThanOrEqual(HOLD_MS - 5);
  });

  it('holds a batch in which an operation was refused for the budget', async () => {
    const { url } = await serve(HOLD_MS);
    const batch = await timed(() => postJson(url, [{ query: '{ hello }' }, { query: '{ hello }' }]));
    expect(batch.response.status).toBe(200);
    expect(json(batch.response)).toEqual([
      { data: { hello: 'Hello, world!' } },
      { errors: [{ message: 'Rate limit exceeded: try again in 60 seconds.', extensions: { code: 'RATE_LIMITED', retryAfter: 60 } }] },
    ]);
    expect(batch.ms).toBeGreaterThanOrEqual(HOLD_MS - 5);
  });

  it('holds a refusal of a resource route too', async () => {
    started = await startServer({
      reportCost: false,
      rateLimit: { requests: ONE_PER_MINUTE, holdRefusalsMs: HOLD_MS },
      resources: { version: 'v1', routes: { 'GET /greetings': 'query Hello { hello }' } },
    });
    const url = `${started.origin}/api/v1/greetings`;
    expect((await send(url)).status).toBe(200);
    const refused = await timed(() => send(url));
    expect(refused.response.status).toBe(429);
    expect(json(refused.response)).toEqual({ error: { code: 'RATE_LIMITED', message: 'Rate limit exceeded: try again in 60 seconds.' } });
    expect(refused.ms).toBeGreaterThanOrEqual(HOLD_MS - 5);
  });

  it('writes every held answer at once when the server shuts down, closing its connection', async () => {
    const { url, server } = await serve(60_000);
    expect((await postJson(url, { query: '{ hello }' })).status).toBe(200);
    const refused = postJson(url, { query: '{ hello }' });
    await new Promise((resolve) => setTimeout(resolve, 200));
    const stopped = server.shutdown();
    // Held for a minute, it would fail the test's timeout: shutdown wrote it.
    const response = await refused;
    expect(response.status).toBe(429);
    expect(response.headers['connection']).toBe('close');
    await stopped;
    started = null;
  });
});

describe('a held refusal over a WebSocket', () => {
  const HOLD_MS = 500;

  /** A socket of a server whose budget is `limit` requests a minute, its first subscribe served; `test` runs, then both are let go. */
  async function afterOneServed(limit: number, test: (raw: RawClient) => Promise<void>): Promise<void> {
    const server = await startRealtimeServer({ rateLimit: { requests: { limit, windowSeconds: 60 }, holdRefusalsMs: HOLD_MS } });
    const raw = await RawClient.open(server.wsUrl);
    try {
      await raw.init();
      raw.send({ id: 'q1', type: 'subscribe', payload: { query: '{ hello }' } });
      expect(await raw.next()).toEqual({ id: 'q1', type: 'next', payload: { data: { hello: 'Hello, world!' } } });
      expect(await raw.next()).toEqual({ id: 'q1', type: 'complete' });
      await test(raw);
    } finally {
      raw.terminate();
      await server.close();
      await server.server.shutdown();
    }
  }

  it('reads none of the client\'s messages for the hold after its subscribe was refused, then serves it on the same connection', () =>
    afterOneServed(1, async (raw) => {
      raw.send({ id: 'q2', type: 'subscribe', payload: { query: '{ hello }' } });
      expect(await raw.next()).toEqual({
        id: 'q2',
        type: 'error',
        payload: [{ message: 'Rate limit exceeded: try again in 60 seconds.', extensions: { retryAfter: 60, code: 'RATE_LIMITED' } }],
      });
      // Sent as soon as the refusal came: answered only once the hold is over.
      const sent = performance.now();
      raw.send({ type: 'ping' });
      expect(await raw.next()).toEqual({ type: 'pong' });
      expect(performance.now() - sent).toBeGreaterThanOrEqual(HOLD_MS - 100);
    }));

  it('holds the socket after a refused large message (one handled in its client\'s turn) as after a small one, and a message read with it waits the hold out', () =>
    afterOneServed(2, async (raw) => {
      // 70,000 characters of variables: eight requests' worth, counted as the whole budget of two (one is left).
      const sent = performance.now();
      raw.send({ id: 'q2', type: 'subscribe', payload: { query: '{ hello }', variables: { pad: 'p'.repeat(70_000) } } });
      raw.send({ type: 'ping' });
      expect(await raw.next()).toEqual({
        id: 'q2',
        type: 'error',
        payload: [{ message: 'Rate limit exceeded: try again in 30 seconds.', extensions: { retryAfter: 30, code: 'RATE_LIMITED' } }],
      });
      expect(await raw.next()).toEqual({ type: 'pong' });
      expect(performance.now() - sent).toBeGreaterThanOrEqual(HOLD_MS - 100);
    }));
});
