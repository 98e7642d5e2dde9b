/**
 * The demo's rate limits and persisted-query store, read from the environment by
 * `demoSecurity` (src/demo/config.ts): RATE_LIMIT_PER_MINUTE, COST_LIMIT_PER_MINUTE (admins get
 * ten times as much), TRUST_PROXY and REDIS_URL. Then the demo itself, started as main.ts starts
 * it (`createServer` over `demoSchema` with `...demoSecurity(env)`) on 127.0.0.1, port 0, with
 * RATE_LIMIT_PER_MINUTE=3.
 */
import { describe, expect, it } from 'vitest';
import { createServer } from '../src/index.ts';
import { demoSecurity } from '../src/demo/config.ts';
import { demoSchema } from '../src/demo/librarySchema.ts';
import { json, postJson } from './support/httpServer.ts';
import type { SentResponse } from './support/httpServer.ts';
import { serveDemo } from './support/demo.ts';

const JSON_RESPONSE = 'application/json; charset=utf-8';

describe('demoSecurity: rate limits from the environment', () => {
  it('sets no rate limit, no trustProxy and no persisted-query store when none is asked for', () => {
    const security = demoSecurity({});
    expect('rateLimit' in security).toBe(false);
    expect('trustProxy' in security).toBe(false);
    expect('persistedQueries' in security).toBe(false);
    const blank = demoSecurity({ RATE_LIMIT_PER_MINUTE: '', COST_LIMIT_PER_MINUTE: '  ', TRUST_PROXY: ' ', REDIS_URL: '' });
    expect('rateLimit' in blank).toBe(false);
    expect('trustProxy' in blank).toBe(false);
    expect('persistedQueries' in blank).toBe(false);
  });

  it('RATE_LIMIT_PER_MINUTE=600: 600 requests a minute, 6,000 for admins, in memory', () => {
    expect(demoSecurity({ RATE_LIMIT_PER_MINUTE: '600' }).rateLimit).toStrictEqual({
      requests: { limit: 600, windowSeconds: 60 },
      roles: { admin: { requests: { limit: 6000, windowSeconds: 60 } } },
      holdRefusalsMs: 1000,
    });
    expect(demoSecurity({ RATE_LIMIT_PER_MINUTE: ' 1 ' }).rateLimit).toStrictEqual({
      requests: { limit: 1, windowSeconds: 60 },
      roles: { admin: { requests: { limit: 10, windowSeconds: 60 } } },
      holdRefusalsMs: 1000,
    });
  });

  it('COST_LIMIT_PER_MINUTE alone: a cost budget only, ten times as large for admins', () => {
    expect(demoSecurity({ COST_LIMIT_PER_MINUTE: '1000' }).rateLimit).toStrictEqual({
      cost: { limit: 1000, windowSeconds: 60 },
      roles: { admin: { cost: { limit: 10000, windowSeconds: 60 } } },
      holdRefusalsMs: 1000,
    });
  });

  it('both: requests and cost, for everyone and for admins', () => {
    expect(demoSecurity({ RATE_LIMIT_PER_MINUTE: '120', COST_LIMIT_PER_MINUTE: '5000' }).rateLimit).toStrictEqual({
      requests: { limit: 120, windowSeconds: 60 },
      cost: { limit: 5000, windowSeconds: 60 },
      roles: {
        admin: {
          requests: { limit: 1200, windowSeconds: 60 },
          cost: { limit: 50000, windowSeconds: 60 },
        },
      },
      holdRefusalsMs: 1000,
    });
  });

  it('REDIS_URL: the budgets and the registered persisted queries live in Redis', () => {
    const url = 'redis://cache.internal:6379/2';
    const security = demoSecurity({ RATE_LIMIT_PER_MINUTE: '600', REDIS_URL: url });
    expect(security.rateLimit).toStrictEqual({
      requests: { limit: 600, windowSeconds: 60 },
      roles: { admin: { requests: { limit: 6000, windowSeconds: 60 } } },
      holdRefusalsMs: 1000,
      store: { type: 'redis', url },
    });
    expect(security.persistedQueries).toStrictEqual({ store: { type: 'redis', url } });
  });

  it('REDIS_URL without a rate limit: only the persisted queries in Redis', () => {
    const security = demoSecurity({ REDIS_URL: 'rediss://cache.internal:6380' });
    expect('rateLimit' in security).toBe(false);
    expect(security.persistedQueries).toStrictEqual({ store: { type: 'redis', url: 'rediss://cache.internal:6380' } });
  });

  it('TRUST_PROXY: how many proxies append to X-Forwarded-For, 0 included', () => {
    expect(demoSecurity({ TRUST_PROXY: '2' }).trustProxy).toBe(2);
    expect(demoSecurity({ TRUST_PROXY: '0' }).trustProxy).toBe(0);
    expect(demoSecurity({ TRUST_PROXY: '1', RATE_LIMIT_PER_MINUTE: '10' })).toMatchObject({
      trustProxy: 1,
      rateLimit: { requests: { limit: 10, windowSeconds: 60 }, roles: { admin: { requests: { limit: 100, windowSeconds: 60 } } } },
    });
  });

  it.each(['abc', '0', '-5', '1.5', '1e3', '0x10', '10 000', '9007199254740993'])('refuses RATE_LIMIT_PER_MINUTE=%s with a TypeError naming it', (value) => {
    expect(() => demoSecurity({ RATE_LIMIT_PER_MINUTE: value })).toThrow(
      new TypeError(`RATE_LIMIT_PER_MINUTE must be a whole number of at least 1, got "${value}".`),
    );
  });

  it.each(['abc', '0', '-5', '1.5', '1e3'])('refuses COST_LIMIT_PER_MINUTE=%s with a TypeError naming it', (value) => {
    expect(() => demoSecurity({ COST_LIMIT_PER_MINUTE: value })).toThrow(
      new TypeError(`COST_LIMIT_PER_MINUTE must be a whole number of at least 1, got "${value}".`),
    );
  });

  it('RATE_LIMIT_HOLD_MS: how long a 429 is held, 1000 ms unless set, 0 for at once', () => {
    expect(demoSecurity({ RATE_LIMIT_PER_MINUTE: '600', RATE_LIMIT_HOLD_MS: '250' }).rateLimit?.holdRefusalsMs).toBe(250);
    expect(demoSecurity({ COST_LIMIT_PER_MINUTE: '600', RATE_LIMIT_HOLD_MS: '0' }).rateLimit?.holdRefusalsMs).toBe(0);
    expect(demoSecurity({ RATE_LIMIT_PER_MINUTE: '600', RATE_LIMIT_HOLD_MS: ' ' }).rateLimit?.holdRefusalsMs).toBe(1000);
    // Without a limit there is nothing to hold.
    expect('rateLimit' in demoSecurity({ RATE_LIMIT_HOLD_MS: '250' })).toBe(false);
  });

  it.each(['abc', '-1', '1.5', '1e3'])('refuses RATE_LIMIT_HOLD_MS=%s with a TypeError naming it', (value) => {
    expect(() => demoSecurity({ RATE_LIMIT_PER_MINUTE: '600', RATE_LIMIT_HOLD_MS: value })).toThrow(
      new TypeError(`RATE_LIMIT_HOLD_MS must be a whole number, got "${value}".`),
    );
  });

  it.each(['abc', '-1', '1.5', '1e3', 'true'])('refuses TRUST_PROXY=%s with a TypeError naming it', (value) => {
    expect(() => demoSecurity({ TRUST_PROXY: value })).toThrow(new TypeError(`TRUST_PROXY must be a whole number, got "${value}".`));
  });

  it('gives createServer settings it accepts', async () => {
    const security = demoSecurity({ RATE_LIMIT_PER_MINUTE: '600', COST_LIMIT_PER_MINUTE: '5000', TRUST_PROXY: '2' });
    let server: ReturnType<typeof createServer> | undefined;
    expect(() => (server = createServer({ schema: demoSchema, ...security }))).not.toThrow();
    await expect((server as ReturnType<typeof createServer>).shutdown()).resolves.toBeUndefined();
  });
});


const QUERY = '{ books(limit: 1) { total } }';

function ask(url: string, headers: Record<string, string> = {}): Promise<SentResponse> {
  return postJson(url, { query: QUERY }, 'application/json', headers);
}

function dataOf(response: SentResponse): unknown {
  return (json(response) as { data?: unknown }).data;
}

describe('the demo with RATE_LIMIT_PER_MINUTE=3', () => {
  const demo = serveDemo({ RATE_LIMIT_PER_MINUTE: '3' });

  it('serves an anonymous client 3 requests a minute, then answers 429 with Retry-After; demo-admin is still served', async () => {
    for (const remaining of [2, 1, 0]) {
      const response = await ask(demo.url);
      expect(response.status).toBe(200);
      expect(dataOf(response)).toEqual({ books: { total: 5 } });
      expect(response.headers['ratelimit-policy']).toBe('"requests";q=3;w=60');
      // One request comes back every 20 s: all of them once (3 - remaining) × 20 s have passed.
      expect(response.headers['ratelimit']).toBe(`"requests";r=${remaining};t=${(3 - remaining) * 20}`);
    }

    const refused = await ask(demo.url);
    expect(refused.status).toBe(429);
    expect(refused.headers['content-type']).toBe(JSON_RESPONSE);
    expect(refused.headers['retry-after']).toBe('20');
    expect(refused.headers['ratelimit-policy']).toBe('"requests";q=3;w=60');
    expect(refused.headers['ratelimit']).toBe('"requests";r=0;t=60');
    expect(json(refused)).toEqual({ error: { code: 'RATE_LIMITED', message: 'Rate limit exceeded: try again in 20 seconds.' } });

    // An admin has a budget of its own, ten times as large.
    const admin = await ask(demo.url, { 'x-api-key': 'demo-admin' });
    expect(admin.status).toBe(200);
    expect(dataOf(admin)).toEqual({ books: { total: 5 } });
    expect(admin.headers['ratelimit-policy']).toBe('"requests";q=30;w=60');
    expect(admin.headers['ratelimit']).toBe('"requests";r=29;t=2');

    // And the anonymous client is still refused.
    expect((await ask(demo.url)).status).toBe(429);
  });

  it('counts each API key apart: demo-reader has the default budget of its own', async () => {
    for (const remaining of [2, 1, 0]) {
      const response = await ask(demo.url, { 'x-api-key': 'demo-reader' });
      expect(response.status).toBe(200);
      expect(response.headers['ratelimit']).toBe(`"requests";r=${remaining};t=${(3 - remaining) * 20}`);
    }
    const refused = await ask(demo.url, { 'x-api-key': 'demo-reader' });
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('20');
  });

  it('ignores X-Forwarded-For without TRUST_PROXY: the socket peer is the client', async () => {
    const response = await ask(demo.url, { 'x-forwarded-for': '203.0.113.7' });
    expect(response.status).toBe(429);
  });
});

describe('the demo with RATE_LIMIT_PER_MINUTE=1 and TRUST_PROXY=1', () => {
  const demo = serveDemo({ RATE_LIMIT_PER_MINUTE: '1', TRUST_PROXY: '1' });

  it('counts each address the proxy reports apart', async () => {
    expect((await ask(demo.url, { 'x-forwarded-for': '203.0.113.7' })).status).toBe(200);
    expect((await ask(demo.url, { 'x-forwarded-for': '203.0.113.7' })).status).toBe(429);
    expect((await ask(demo.url, { 'x-forwarded-for': '198.51.100.20, 203.0.113.8' })).status).toBe(200);
    expect((await ask(demo.url, { 'x-forwarded-for': '203.0.113.8' })).status).toBe(429);
  });
});
