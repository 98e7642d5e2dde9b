/**
 * The rate-limit stores (src/ratelimit/memoryStore.ts, src/ratelimit/redisStore.ts) behind the
 * interface of src/ratelimit/store.ts.
 *
 * The memory store runs with an injected clock and is held to `chargeBuckets` itself; its bound
 * (maxKeys), its forgetting of idle keys and its memory per key are measured here.
 *
 * The Redis store runs against the Redis at REDIS_URL, and is skipped, saying so, when it is
 * unset. Given the same clock, it must answer exactly what the memory store answers (its Lua
 * script is the same arithmetic); with Redis's own clock, two instances on two connections share
 * one bucket. Every key of a run starts with a prefix made for it. A separate connection
 * (`admin`) reads TTLs, lists and kills connections; a TCP proxy in this file tells the store's
 * connections apart from any other, and plays a slow Redis.
 */
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import v8 from 'node:v8';
import vm from 'node:vm';
import fc from 'fast-check';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { DEFAULT_MAX_KEYS, MemoryStore } from '../src/ratelimit/memoryStore.ts';
import { RATE_LIMIT_SCRIPT, RedisStore } from '../src/ratelimit/redisStore.ts';
import type { BucketCharge, BudgetName } from '../src/ratelimit/store.ts';
import { MAX_BUCKET_UNITS, chargeBuckets } from '../src/ratelimit/tokenBucket.ts';
import type { BucketState, Budget, ChargeOutcome } from '../src/ratelimit/tokenBucket.ts';
import { expectTypeError, rejectionOf } from './support/expectations.ts';
import { amountArbitrary, deltaArbitrary } from './support/rateLimitArbitraries.ts';

const REDIS_URL = process.env.REDIS_URL;
const HAVE_REDIS = REDIS_URL !== undefined && REDIS_URL !== '';
if (!HAVE_REDIS) {
  console.log('ratelimit-stores.test.ts: the RedisStore tests against a Redis server are skipped: REDIS_URL is not set (e.g. REDIS_URL=redis://127.0.0.1:6379).');
}

/** This run's keys. */
const PREFIX = `ratelimit-test:${process.pid}:${randomUUID().slice(0, 8)}:`;

const NAMES: ReadonlyArray<BudgetName> = ['requests', 'cost'];
const THREE_PER_MINUTE: Budget = { limit: 3, windowMs: 60_000 };

/** The charges of one call: budget i is named NAMES[i]. */
function chargesOf(budgets: ReadonlyArray<Budget>, amounts: ReadonlyArray<number>): BucketCharge[] {
  return budgets.map((budget, i) => ({ name: NAMES[i] as BudgetName, budget, amount: amounts[i] as number }));
}

const one = (amount: number, budget: Budget = THREE_PER_MINUTE): BucketCharge[] => [{ name: 'requests', budget, amount }];

/** Budgets of every size: small ones, 5,000 per hour (1.8e10 units), and limit × window at or near 2^50. */
const budgetArbitrary: fc.Arbitrary<Budget> = fc.oneof(
  { weight: 4, arbitrary: fc.record({ limit: fc.integer({ min: 1, max: 1000 }), windowMs: fc.oneof(fc.integer({ min: 1, max: 50 }), fc.integer({ min: 1, max: 3_600_000 })) }) },
  { weight: 1, arbitrary: fc.constant({ limit: 5000, windowMs: 3_600_000 }) },
  { weight: 1, arbitrary: fc.constant({ limit: 2 ** 20, windowMs: 2 ** 30 }) },
  { weight: 1, arbitrary: fc.integer({ min: 1, max: 2 ** 20 }).map((limit) => ({ limit, windowMs: Math.floor(MAX_BUCKET_UNITS / limit) })) },
);

interface Step {
  readonly key: string;
  readonly delta: number;
  readonly amounts: number[];
  readonly sweep: boolean;
}

function scenarioArbitrary(keys: ReadonlyArray<string>, backwards: boolean, maxSteps: number) {
  return fc.array(budgetArbitrary, { minLength: 1, maxLength: 2 }).chain((budgets) =>
    fc.record({
      budgets: fc.constant(budgets),
      steps: fc
        .array(
          fc.record({
            key: fc.constantFrom(...keys),
            delta: deltaArbitrary(budgets, { backwards, beyond: 3 }),
            amounts: fc.tuple(...budgets.map(amountArbitrary)),
            sweep: fc.boolean(),
          }),
          { minLength: 1, maxLength: maxSteps },
        )
        // Times stay well within 2^53 (a window here is up to 2^50 ms).
        .filter((steps) => steps.reduce((sum, step) => sum + Math.abs(step.delta), 0) <= 2 ** 52) as fc.Arbitrary<Step[]>,
    }),
  );
}

// ---------------------------------------------------------------------------------------------
// MemoryStore

describe('MemoryStore', () => {
  let stores: MemoryStore[] = [];
  const memoryStore = (options: ConstructorParameters<typeof MemoryStore>[0]): MemoryStore => {
    const store = new MemoryStore(options);
    stores.push(store);
    return store;
  };

  afterEach(async () => {
    await Promise.all(stores.map((store) => store.close()));
    stores = [];
    vi.useRealTimers();
  });

  it('charges exactly as chargeBuckets, keeps only keys in debt, and forgets on sweep() the keys full again', () => {
    fc.assert(
      fc.property(scenarioArbitrary(['a', 'b', 'c'], false, 40), ({ budgets, steps }) => {
        let now = 1_700_000_000_000;
        const store = new MemoryStore({ now: () => now });
        try {
          // The reference: chargeBuckets on states that are never forgotten.
          const states = new Map<string, BucketState[]>();
          // When each key's buckets are all full again (absent: never charged into debt).
          const idleAt = new Map<string, number>();
          for (const [index, { key, delta, amounts, sweep }] of steps.entries()) {
            now += delta;
            const where = `step ${index} (key ${key}, now ${now}, amounts ${JSON.stringify(amounts)})`;
            let reference = states.get(key);
            if (reference === undefined) {
              reference = budgets.map(() => ({ debt: 0, at: now }));
              states.set(key, reference);
            }
            const expected = chargeBuckets(budgets, reference, amounts, now);
            expect(store.charge(key, chargesOf(budgets, amounts)), where).toEqual(expected);
            const full = Math.max(0, ...expected.buckets.map((bucket) => bucket.fullInMs));
            if (full > 0) idleAt.set(key, now + full);
            else idleAt.delete(key);
            expect(store.size, where).toBe(idleAt.size);
            if (sweep) {
              store.sweep();
              for (const [held, at] of idleAt) if (at <= now) idleAt.delete(held);
              expect(store.size, `${where}, after sweep()`).toBe(idleAt.size);
            }
          }
        } finally {
          void store.close();
        }
      }),
      { numRuns: 300 },
    );
  });

  it('keeps no key whose buckets are full: a charge of nothing, a full refund, a charge after the bucket refilled', () => {
    let now = 0;
    const store = memoryStore({ now: () => now });
    expect(store.charge('k', one(0))).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 3, fullInMs: 0 }] });
    expect(store.size).toBe(0);
    expect(store.charge('k', one(1))).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 2, fullInMs: 20_000 }] });
    expect(store.size).toBe(1);
    expect(store.charge('k', one(-1))).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 3, fullInMs: 0 }] });
    expect(store.size).toBe(0);
    expect(store.charge('k', one(2))).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 1, fullInMs: 40_000 }] });
    expect(store.size).toBe(1);
    now = 40_000;
    expect(store.charge('k', one(0))).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 3, fullInMs: 0 }] });
    expect(store.size).toBe(0);
  });

  it('forgets on sweep() exactly the keys whose buckets are full again', () => {
    let now = 0;
    const store = memoryStore({ now: () => now });
    store.charge('one', one(1)); // full at 20,000
    store.charge('two', one(2)); // full at 40,000
    store.charge('three', one(3)); // full at 60,000
    expect(store.size).toBe(3);
    now = 19_999;
    store.sweep();
    expect(store.size).toBe(3);
    now = 20_000;
    store.sweep();
    expect(store.size).toBe(2);
    now = 59_999;
    store.sweep();
    expect(store.size).toBe(1);
    // The one left still owes: one token back of three.
    expect(store.charge('three', one(0))).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 2, fullInMs: 1 }] });
    now = 60_000;
    store.sweep();
    expect(store.size).toBe(0);
  });

  it('sweeps on its own every sweepMs', () => {
    vi.useFakeTimers();
    let now = 0;
    const store = memoryStore({ now: () => now, sweepMs: 1000 });
    store.charge('k', one(1));
    now = 20_000;
    vi.advanceTimersByTime(999);
    expect(store.size).toBe(1);
    vi.advanceTimersByTime(1);
    expect(store.size).toBe(0);
  });

  it('holds at most maxKeys keys: 100,000 clients with maxKeys 10,000 leave the 10,000 most recent', () => {
    const store = memoryStore({ now: () => 0, maxKeys: 10_000 });
    for (let i = 0; i < 100_000; i++) expect(store.charge(`ip:${i}`, one(1)).allowed).toBe(true);
    expect(store.size).toBe(10_000);
    // The most recent keep their debt; an older one starts again with a full bucket.
    expect(store.charge('ip:99999', one(0)).buckets).toEqual([{ remaining: 2, fullInMs: 20_000 }]);
    expect(store.charge('ip:90000', one(0)).buckets).toEqual([{ remaining: 2, fullInMs: 20_000 }]);
    expect(store.charge('ip:89999', one(1)).buckets).toEqual([{ remaining: 2, fullInMs: 20_000 }]);
    expect(store.size).toBe(10_000);
  });

  it('drops the least recently charged key when full: a, b, a, c with maxKeys 2 drops b', () => {
    const store = memoryStore({ now: () => 0, maxKeys: 2 });
    store.charge('a', one(1));
    store.charge('b', one(1));
    store.charge('a', one(1));
    store.charge('c', one(1));
    expect(store.size).toBe(2);
    // a keeps its debt (2 tokens), c its own (1 token); reading them changes nothing else.
    expect(store.charge('a', one(0))).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 1, fullInMs: 40_000 }] });
    expect(store.charge('c', one(0))).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 2, fullInMs: 20_000 }] });
    expect(store.size).toBe(2);
    // b starts again with a full bucket: its second token leaves 2, not 1.
    expect(store.charge('b', one(1))).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 2, fullInMs: 20_000 }] });
    expect(store.size).toBe(2);
  });

  it('drops no key for a charge that leaves an unknown key idle (nothing charged, a refund, a refusal)', () => {
    // A charge whose bucket is full afterwards keeps nothing, so it needs no room: the key in
    // debt that would make room for it must keep its debt.
    for (const idle of [one(0), one(-1), one(4)]) {
      const store = memoryStore({ now: () => 0, maxKeys: 2 });
      store.charge('a', one(2));
      store.charge('b', one(1));
      expect(store.charge('unknown', idle).buckets).toEqual([{ remaining: 3, fullInMs: 0 }]);
      expect(store.size, `after ${JSON.stringify(idle)}`).toBe(2);
      expect(store.charge('a', one(0)).buckets, `after ${JSON.stringify(idle)}`).toEqual([{ remaining: 1, fullInMs: 40_000 }]);
    }
  });

  it(`holds ${DEFAULT_MAX_KEYS.toLocaleString('en')} keys by default, in a bounded amount of memory`, () => {
    expect(DEFAULT_MAX_KEYS).toBe(100_000);
    v8.setFlagsFromString('--expose-gc');
    const gc = vm.runInNewContext('gc') as () => void;
    const budgets: Budget[] = [
      { limit: 100, windowMs: 60_000 },
      { limit: 10_000, windowMs: 60_000 },
    ];
    const charges = chargesOf(budgets, [1, 25]);
    // A key as the limiter makes it: `${policy}:${identity key}`, the identity key `ip:${address}`.
    const keyOf = (i: number): string => {
      const address = `10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`;
      const identityKey = `ip:${address}`;
      return `anonymous:${identityKey}`;
    };
    // The worst case, whatever ran before in this process: V8 keeps a field as a small integer
    // until some object of its shape holds a bigger number, then as a boxed double for all. A
    // bucket's debt passes 2^30 units (a cost budget per hour), and its times pass 2^30 ms
    // after 12.4 days of performance.now().
    const warm = new MemoryStore({ now: () => 2 ** 40 });
    for (let i = 0; i < 10_000; i++) warm.charge(`warm:${i}`, chargesOf([{ limit: 100_000, windowMs: 3_600_000 }, budgets[1] as Budget], [50_000, 1]));
    void warm.close();
    /** Heap growth (bytes) for DEFAULT_MAX_KEYS keys charged once each. */
    const measure = (prebuilt: boolean): number => {
      const store = memoryStore({ now: () => 0 });
      const keys = prebuilt ? Array.from({ length: DEFAULT_MAX_KEYS }, (_, i) => keyOf(i)) : null;
      gc();
      const before = process.memoryUsage().heapUsed;
      for (let i = 0; i < DEFAULT_MAX_KEYS; i++) store.charge(keys === null ? keyOf(i) : (keys[i] as string), charges);
      gc();
      const after = process.memoryUsage().heapUsed;
      expect(store.size).toBe(DEFAULT_MAX_KEYS);
      // One more key: still the same number held.
      store.charge('anonymous:ip:192.0.2.1', charges);
      expect(store.size).toBe(DEFAULT_MAX_KEYS);
      void store.close();
      return after - before;
    };
    const total = measure(false);
    const structures = measure(true);
    console.log(
      `MemoryStore: ${DEFAULT_MAX_KEYS} keys with 2 budgets (numbers stored as doubles) took ${total} bytes of heap, ${Math.round(total / DEFAULT_MAX_KEYS)} bytes per key ` +
        `(key strings built per charge, like "${keyOf(DEFAULT_MAX_KEYS - 1)}"); the store's own structures, keys aside: ${Math.round(structures / DEFAULT_MAX_KEYS)} bytes per key.`,
    );
    expect(total).toBeLessThan(60 * 1024 * 1024);
    expect(structures).toBeLessThan(total);
  });

  it('starts a key again when its charge names a different number of budgets', () => {
    const store = memoryStore({ now: () => 0 });
    store.charge('k', one(3));
    const both = chargesOf([THREE_PER_MINUTE, { limit: 10, windowMs: 1000 }], [1, 1]);
    expect(store.charge('k', both)).toEqual({
      allowed: true,
      retryAfterMs: 0,
      buckets: [
        { remaining: 2, fullInMs: 20_000 },
        { remaining: 9, fullInMs: 100 },
      ],
    });
  });

  it('uses a whole-millisecond monotonic clock by default', () => {
    const store = memoryStore({});
    expect(store.charge('k', one(3))).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 0, fullInMs: 60_000 }] });
    const refused = store.charge('k', one(1));
    expect(refused.allowed).toBe(false);
    expect(Number.isInteger(refused.retryAfterMs)).toBe(true);
    expect(refused.retryAfterMs).toBeGreaterThan(0);
    expect(refused.retryAfterMs).toBeLessThanOrEqual(20_000);
  });

  it('forgets everything on close()', async () => {
    const store = memoryStore({ now: () => 0 });
    store.charge('k', one(1));
    await store.close();
    expect(store.size).toBe(0);
  });

  it('refuses maxKeys and sweepMs that are not positive whole numbers', () => {
    expectTypeError(() => new MemoryStore({ maxKeys: 0 }), 'rateLimit.store.maxKeys must be a positive whole number, got 0.');
    expectTypeError(() => new MemoryStore({ maxKeys: 1.5 }), 'rateLimit.store.maxKeys must be a positive whole number, got 1.5.');
    expectTypeError(() => new MemoryStore({ maxKeys: -1 }), 'rateLimit.store.maxKeys must be a positive whole number, got -1.');
    expectTypeError(() => new MemoryStore({ sweepMs: 0 }), 'rateLimit.store.sweepMs must be a positive whole number, got 0.');
    expectTypeError(() => new MemoryStore({ sweepMs: 2.5 }), 'rateLimit.store.sweepMs must be a positive whole number, got 2.5.');
  });
});

// ---------------------------------------------------------------------------------------------
// RedisStore: options

describe('RedisStore: options', () => {
  it('refuses a url that is not redis:// or rediss://, hiding any password', () => {
    expectTypeError(
      () => new RedisStore({ url: 'http://x' }),
      'rateLimit.store: the Redis store needs a redis:// or rediss:// url (or REDIS_URL), got "http://x".',
    );
    expectTypeError(
      () => new RedisStore({ url: 'http://user:secret@x:6379' }),
      'rateLimit.store: the Redis store needs a redis:// or rediss:// url (or REDIS_URL), got "http://user:***@x:6379".',
    );
    expectTypeError(
      () => new RedisStore({ url: 'localhost:6379' }),
      'rateLimit.store: the Redis store needs a redis:// or rediss:// url (or REDIS_URL), got "localhost:6379".',
    );
  });

  it('refuses to start with no url and no REDIS_URL', () => {
    const saved = process.env.REDIS_URL;
    delete process.env.REDIS_URL;
    try {
      expectTypeError(() => new RedisStore({}), 'rateLimit.store: the Redis store needs a redis:// or rediss:// url (or REDIS_URL), got none.');
      expectTypeError(() => new RedisStore(), 'rateLimit.store: the Redis store needs a redis:// or rediss:// url (or REDIS_URL), got none.');
    } finally {
      if (saved !== undefined) process.env.REDIS_URL = saved;
    }
  });

  it('refuses a timeoutMs that is not a positive whole number', () => {
    expectTypeError(() => new RedisStore({ url: 'redis://127.0.0.1:6379', timeoutMs: 0 }), 'rateLimit.store.timeoutMs must be a positive whole number, got 0.');
    expectTypeError(() => new RedisStore({ url: 'redis://127.0.0.1:6379', timeoutMs: 1.5 }), 'rateLimit.store.timeoutMs must be a positive whole number, got 1.5.');
  });

  it('accepts redis:// and rediss:// urls without connecting', async () => {
    // A listener that counts connections stands where the store would connect.
    let connections = 0;
    const listener = net.createServer((socket) => {
      connections++;
      socket.destroy();
    });
    await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve));
    const port = (listener.address() as net.AddressInfo).port;
    try {
      for (const url of [`redis://127.0.0.1:${port}`, `rediss://user:secret@127.0.0.1:${port}/2`]) {
        const store = new RedisStore({ url });
        await sleep(50);
        await expect(store.close()).resolves.toBeUndefined();
      }
      expect(connections).toBe(0);
    } finally {
      await new Promise<void>((resolve) => listener.close(() => resolve()));
    }
  });

  it('rejects a charge within timeoutMs (and a margin) when nothing listens at its port', async () => {
    // A port that was just free: nothing listens there now.
    const probe = net.createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    const port = (probe.address() as net.AddressInfo).port;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
    const store = new RedisStore({ url: `redis://127.0.0.1:${port}`, timeoutMs: 300 });
    try {
      for (let attempt = 0; attempt < 3; attempt++) {
        const started = performance.now();
        const rejection = await rejectionOf(store.charge('k', one(1)));
        expect(performance.now() - started).toBeLessThan(300 + 700);
        expect((rejection as Error).message).toMatch(/^Redis is not connected \((connecting|reconnecting|connect|close)\)\.$/);
      }
    } finally {
      await store.close();
    }
  });
});

// ---------------------------------------------------------------------------------------------
// RedisStore against Redis

/**
 * A TCP proxy to Redis. It holds Redis's replies back `delayMs` (changeable; in order), and
 * tells which of Redis's clients are its own: each connection through it is one client of Redis,
 * at the local port of the proxy's upstream socket. So a test finds its store's connection
 * without relying on names that other stores (other test files running at the same time) share.
 */
interface Proxy {
  readonly url: string;
  delayMs: number;
  /** Connections open through the proxy now. */
  open(): number;
  /** The local ports of the proxy's connections to Redis (Redis's CLIENT LIST shows them in `addr`). */
  upstreamPorts(): number[];
  close(): Promise<void>;
}

async function startProxy(redisUrl: string, delayMs: number): Promise<Proxy> {
  const target = new URL(redisUrl);
  const sockets = new Set<net.Socket>();
  const upstreams = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(target.port || 6379), target.hostname);
    upstreams.add(upstream);
    upstream.on('close', () => upstreams.delete(upstream));
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.on('close', () => {
        sockets.delete(socket);
        client.destroy();
        upstream.destroy();
      });
      socket.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream);
    // Replies leave in the order they came, each no earlier than delayMs after it came.
    let queue = Promise.resolve();
    upstream.on('data', (chunk: Buffer) => {
      const due = performance.now() + proxy.delayMs;
      queue = queue
        .then(() => sleep(Math.max(0, due - performance.now())))
        .then(() => {
          if (!client.destroyed) client.write(chunk);
        });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = new URL(redisUrl);
  url.hostname = '127.0.0.1';
  url.port = String((server.address() as net.AddressInfo).port);
  const proxy: Proxy = {
    url: url.href,
    delayMs,
    open: () => [...upstreams].filter((socket) => !socket.destroyed).length,
    upstreamPorts: () => [...upstreams].filter((socket) => !socket.destroyed && socket.localPort !== undefined).map((socket) => socket.localPort as number),
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
  };
  return proxy;
}

describe.skipIf(!HAVE_REDIS)(HAVE_REDIS ? 'RedisStore against the Redis at REDIS_URL' : 'RedisStore against Redis (skipped: REDIS_URL is not set)', () => {
  const url = REDIS_URL as string;
  let RedisClient: typeof Redis;
  let admin: Redis;
  let stores: RedisStore[] = [];
  let clients: Redis[] = [];
  let proxies: Proxy[] = [];
  let keyNumber = 0;

  const newKey = (): string => `key-${(keyNumber += 1)}`;
  const redisStore = (options: ConstructorParameters<typeof RedisStore>[0]): RedisStore => {
    const store = new RedisStore({ url, keyPrefix: PREFIX, ...options });
    stores.push(store);
    return store;
  };
  const newClient = (): Redis => {
    const client = new RedisClient(url);
    clients.push(client);
    return client;
  };

  /** Redis's ids of the clients connected through `proxy`, with their names. */
  async function clientsThrough(proxy: Proxy): Promise<Array<{ id: string; name: string }>> {
    const ports = new Set(proxy.upstreamPorts().map(String));
    const list = (await admin.call('CLIENT', 'LIST')) as string;
    return list
      .split('\n')
      .map((line) => ({ id: /^id=(\d+) /.exec(line)?.[1], port: / addr=\S+:(\d+) /.exec(line)?.[1], name: / name=(\S*) /.exec(line)?.[1] ?? '' }))
      .filter((client): client is { id: string; port: string; name: string } => client.id !== undefined && client.port !== undefined && ports.has(client.port))
      .map(({ id, name }) => ({ id, name }));
  }

  /** A proxy with no delay, to tell the store's connections apart. */
  const newProxy = async (delayMs = 0): Promise<Proxy> => {
    const proxy = await startProxy(url, delayMs);
    proxies.push(proxy);
    return proxy;
  };

  beforeAll(async () => {
    ({ Redis: RedisClient } = await import('ioredis'));
    admin = new RedisClient(url);
  });

  afterEach(async () => {
    await Promise.all(stores.map((store) => store.close()));
    await Promise.all(clients.map((client) => client.quit().catch(() => client.disconnect())));
    await Promise.all(proxies.map((proxy) => proxy.close()));
    stores = [];
    clients = [];
    proxies = [];
  });

  afterAll(async () => {
    const keys = await admin.keys(`${PREFIX}*`);
    if (keys.length > 0) await admin.del(...keys);
    await admin.quit();
  });

  it('answers exactly as the memory store given the same clock and charges (the Lua script is the TypeScript arithmetic), expiring each key when it is full again', async () => {
    // The store's script (RATE_LIMIT_SCRIPT, word for word) runs as a function inside a script
    // of the test's own, on a client of the test's own, where `redis` is a stand-in that passes
    // every command on but PEXPIRE, which it records instead: this simulated clock outruns
    // Redis's (a bucket may be full again in 1 ms of it), and a real expiry would let Redis
    // forget a key between two steps. So only the script decides what is kept and what is
    // deleted, and the test sees the expiry it asked for. (The test after this one checks a real
    // expiry.)
    const wrapped = [
      'local real = redis',
      'local expiry = -1',
      'local redis = setmetatable({',
      '  call = function(command, ...)',
      "    if command == 'PEXPIRE' then",
      '      expiry = tonumber((select(2, ...)))',
      '      return 1',
      '    end',
      '    return real.call(command, ...)',
      '  end,',
      '}, { __index = real })',
      'local function rateLimit()',
      RATE_LIMIT_SCRIPT,
      'end',
      'local reply = rateLimit()',
      'reply[#reply + 1] = expiry',
      "reply[#reply + 1] = real.call('EXISTS', KEYS[1])",
      'return reply',
    ].join('\n');
    const scripted = newClient();
    let expiry: number | null = null;
    let exists: number | null = null;
    (scripted as unknown as { graphqlRateLimit: unknown }).graphqlRateLimit = async (key: string, ...args: Array<string | number>): Promise<number[]> => {
      const reply = (await scripted.eval(wrapped, 1, key, ...args)) as number[];
      exists = reply.pop() as number;
      expiry = reply.pop() as number;
      return reply;
    };
    let now = 0;
    const store = redisStore({ client: scripted, now: () => now });

    await fc.assert(
      fc.asyncProperty(scenarioArbitrary(['k'], true, 25), async ({ budgets, steps }) => {
        const key = newKey();
        now = 1_700_000_000_000;
        const memory = new MemoryStore({ now: () => now });
        try {
          for (const [index, { delta, amounts }] of steps.entries()) {
            now += delta;
            const where = `step ${index} (now ${now}, amounts ${JSON.stringify(amounts)})`;
            const charges = chargesOf(budgets, amounts);
            expiry = null;
            exists = null;
            const fromRedis = await store.charge(key, charges);
            const fromMemory = memory.charge(key, charges);
            expect(fromRedis, where).toEqual(fromMemory);
            const full = Math.max(0, ...fromRedis.buckets.map((bucket) => bucket.fullInMs));
            if (full > 0) {
              // Kept, to expire when its last bucket is full again.
              expect(exists, where).toBe(1);
              expect(expiry, where).toBe(full);
            } else {
              expect(exists, `${where}: a key full again is deleted`).toBe(0);
              expect(expiry, `${where}: a deleted key has no expiry`).toBe(-1);
            }
          }
        } finally {
          await memory.close();
          await admin.del(PREFIX + key);
        }
      }),
      { numRuns: 30 },
    );
  });

  it('keeps the state in a hash under keyPrefix: the debt in units, the time from Redis TIME', async () => {
    const store = redisStore({});
    const key = newKey();
    const redisNow = async (): Promise<number> => {
      const [seconds = 0, micros = 0] = (await admin.time()).map(Number);
      return seconds * 1000 + Math.floor(micros / 1000);
    };
    const before = await redisNow();
    expect(await store.charge(key, one(1))).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 2, fullInMs: 20_000 }] });
    const after = await redisNow();
    const hash = await admin.hgetall(PREFIX + key);
    expect(Object.keys(hash).sort()).toEqual(['requests:d', 'requests:t']);
    expect(hash['requests:d']).toBe('60000');
    expect(Number(hash['requests:t'])).toBeGreaterThanOrEqual(before);
    expect(Number(hash['requests:t'])).toBeLessThanOrEqual(after);
  });

  it('expires a key when its buckets are full again, and deletes it on a full refund', async () => {
    const store = redisStore({});
    const key = newKey();
    const charged = await store.charge(key, one(1));
    expect(charged.buckets).toEqual([{ remaining: 2, fullInMs: 20_000 }]);
    const ttl = await admin.pttl(PREFIX + key);
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(charged.buckets[0]!.fullInMs);
    expect(await store.charge(key, one(-1))).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 3, fullInMs: 0 }] });
    expect(await admin.exists(PREFIX + key)).toBe(0);
    // A charge of nothing to an unknown key writes nothing either.
    expect(await store.charge(key, one(0))).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 3, fullInMs: 0 }] });
    expect(await admin.exists(PREFIX + key)).toBe(0);
  });

  it('shares one bucket between two instances: 300 concurrent charges against a limit of 100 allow exactly 100', async () => {
    const proxy = await newProxy();
    const [a, b] = [redisStore({ url: proxy.url }), redisStore({ url: proxy.url })];
    const key = newKey();
    const budget = { limit: 100, windowMs: 3_600_000 };
    const outcomes = await Promise.all(Array.from({ length: 300 }, (_, i) => (i % 2 === 0 ? a : b).charge(key, one(1, budget))));
    const allowed = outcomes.filter((outcome) => outcome.allowed);
    expect(allowed.length).toBe(100);
    expect(allowed.map((outcome) => outcome.buckets[0]!.remaining).sort((x, y) => x - y)).toEqual(Array.from({ length: 100 }, (_, i) => i));
    for (const outcome of outcomes.filter((outcome) => !outcome.allowed)) {
      expect(outcome.buckets[0]!.remaining).toBe(0);
      expect(outcome.retryAfterMs).toBeGreaterThan(0);
      expect(outcome.retryAfterMs).toBeLessThanOrEqual(36_000);
    }
    // Two connections did it, named as the store names them.
    expect(proxy.open()).toBe(2);
    expect((await clientsThrough(proxy)).map((client) => client.name)).toEqual(['graphql-ratelimit', 'graphql-ratelimit']);
  });

  it('holds no connection open after close(), even when a charge comes after it', async () => {
    const proxy = await newProxy();
    const store = redisStore({ url: proxy.url });
    expect((await store.charge(newKey(), one(1))).allowed).toBe(true);
    expect(proxy.open()).toBe(1);
    await store.close();
    await expect.poll(() => proxy.open(), { timeout: 2000 }).toBe(0);
    // A late request (one in flight while the server shuts down) charges after close().
    await store.charge(newKey(), one(1)).catch(() => undefined);
    await sleep(200);
    expect(proxy.open()).toBe(0);
  });

  it('leaves a client of the caller open on close()', async () => {
    const client = newClient();
    const store = new RedisStore({ client, keyPrefix: PREFIX });
    expect((await store.charge(newKey(), one(1))).allowed).toBe(true);
    await store.close();
    expect(client.status).toBe('ready');
    expect(await client.ping()).toBe('PONG');
  });

  it('rejects charges when Redis drops its connection (CLIENT KILL ID), then serves them again once it has reconnected by itself', async () => {
    const timeoutMs = 50;
    const proxy = await newProxy();
    const store = redisStore({ url: proxy.url, timeoutMs });
    const key = newKey();
    expect((await store.charge(key, one(1))).allowed).toBe(true);
    const mine = await clientsThrough(proxy);
    expect(mine).toEqual([{ id: expect.stringMatching(/^\d+$/), name: 'graphql-ratelimit' }]);
    expect(await admin.call('CLIENT', 'KILL', 'ID', mine[0]!.id)).toBe(1);

    const started = performance.now();
    const rejection = await rejectionOf(store.charge(key, one(1)));
    expect(performance.now() - started).toBeLessThan(timeoutMs + 1000);
    // Which of these depends on how far ioredis has got with the dropped connection.
    expect((rejection as Error).message).toMatch(
      /^(Reached the max retries per request limit \(which is 0\)\. Refer to "maxRetriesPerRequest" option for details\.|Stream isn't writeable and enableOfflineQueue options is false|Redis is not connected \((reconnecting|connecting|connect)\)\.|Command timed out|Redis did not answer within 50 ms\.)$/,
    );

    const deadline = performance.now() + 5000;
    let outcome: ChargeOutcome | undefined;
    while (outcome === undefined) {
      if (performance.now() > deadline) throw new Error('the store did not serve a charge within 5 s of the connection being killed');
      const attempt = performance.now();
      outcome = await store.charge(key, one(0)).catch(() => undefined);
      expect(performance.now() - attempt).toBeLessThan(timeoutMs + 1000);
      if (outcome === undefined) await sleep(50);
    }
    // The first charge is still owed (the refused one spent nothing, unless Redis ran it).
    expect(outcome.allowed).toBe(true);
    expect([1, 2]).toContain(3 - outcome.buckets[0]!.remaining);
    const reconnected = await clientsThrough(proxy);
    expect(reconnected).toEqual([{ id: expect.stringMatching(/^\d+$/), name: 'graphql-ratelimit' }]);
    expect(reconnected[0]!.id).not.toBe(mine[0]!.id);
  });

  it('rejects a charge within timeoutMs when Redis is slow to answer, and gives the late answer to no later charge', async () => {
    const proxy = await newProxy(0);
    let now = 1_000_000;
    const store = redisStore({ url: proxy.url, timeoutMs: 300, now: () => now });
    const key = newKey();
    expect(await store.charge(key, one(1))).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 2, fullInMs: 20_000 }] });

    proxy.delayMs = 2000;
    const started = performance.now();
    const rejection = await rejectionOf(store.charge(key, one(1)));
    expect(performance.now() - started).toBeLessThan(1500);
    expect((rejection as Error).message).toMatch(/^(Command timed out|Redis did not answer within 300 ms\.)$/);

    // Once the held-back answer has gone by, the next charge gets its own answer: Redis did run
    // the timed-out charge (its answer came too late), so this third token is the last.
    proxy.delayMs = 0;
    await sleep(2200);
    expect(await store.charge(key, one(1))).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 0, fullInMs: 60_000 }] });
    expect(await store.charge(key, one(1))).toEqual({ allowed: false, retryAfterMs: 20_000, buckets: [{ remaining: 0, fullInMs: 60_000 }] });
    now += 20_000;
    expect(await store.charge(key, one(1))).toEqual({ allowed: true, retryAfterMs: 0, buckets: [{ remaining: 0, fullInMs: 60_000 }] });
  });

  it('rejects a charge within timeoutMs when a slow Redis has not finished connecting', async () => {
    const proxy = await newProxy(2000);
    const store = redisStore({ url: proxy.url, timeoutMs: 300 });
    const started = performance.now();
    const rejection = await rejectionOf(store.charge(newKey(), one(1)));
    expect(performance.now() - started).toBeLessThan(1500);
    expect((rejection as Error).message).toMatch(/^(Redis is not connected \((connect|connecting)\)\.|Command timed out|Redis did not answer within 300 ms\.)$/);
  });
});
