/**
 * The Redis pub/sub (src/events/redisPubSub.ts). Its options, its JSON rule and the lazy loading
 * of ioredis need no server and always run. Everything else runs against the Redis at
 * REDIS_URL, and is skipped, saying so, when it is unset.
 *
 * Two "instances" are two createRedisPubSub objects in this process: each has its own two
 * connections, as two servers would. Every channel of a run starts with a prefix made for it, so
 * parallel runs on one Redis do not see each other's events. A third connection (`admin`)
 * publishes raw messages, watches commands with MONITOR, counts subscriptions with PUBSUB NUMSUB
 * and drops connections with CLIENT KILL; a TCP proxy in this file plays a Redis that goes away
 * and comes back.
 */
import { execFile } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { promisify } from 'node:util';
import { GraphQLError } from 'graphql';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PUBSUB_CLOSED, SUBSCRIPTION_OVERFLOW } from '../src/events/pubsub.ts';
import type { PubSubIterator } from '../src/events/pubsub.ts';
import { PUBLISH_TIMEOUT_MS, createRedisPubSub } from '../src/events/redisPubSub.ts';
import type { RedisPubSub, RedisPubSubOptions } from '../src/events/redisPubSub.ts';
import { expectTypeError, rejectionOf } from './support/expectations.ts';

const REDIS_URL = process.env.REDIS_URL;
if (REDIS_URL === undefined || REDIS_URL === '') {
  console.log('pubsub-redis.test.ts: the tests against a Redis server are skipped: REDIS_URL is not set (e.g. REDIS_URL=redis://127.0.0.1:6379).');
}

/** This run's channels: `${RUN}${topic}` with the default topic names below. */
const RUN = `pubsub-test:${process.pid}:${randomUUID().slice(0, 8)}:`;
/** How long a test waits for something that must happen soon (a reconnection, a resubscription). */
const DEADLINE_MS = 10_000;

/** Runs an ES module script under tsx in a fresh node process; resolves with what it printed. */
async function runChild(script: string): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '--eval', script], {
    cwd: new URL('..', import.meta.url),
    timeout: DEADLINE_MS,
  });
  return stdout.trim();
}

const MODULE = JSON.stringify(new URL('../src/events/redisPubSub.ts', import.meta.url).href);

describe('createRedisPubSub: options and misuse', () => {
  it.each([
    ['undefined', undefined],
    ['42', 42],
    ['"localhost:6379"', 'localhost:6379'],
    ['"http://localhost:6379"', 'http://localhost:6379'],
    ['"http://user:***@localhost:6379"', 'http://user:secret@localhost:6379'],
  ])('refuses the url %s, saying that a redis:// or rediss:// URL is needed (with any password hidden)', (shown, url) => {
    expectTypeError(() => createRedisPubSub({ url: url as string }), `createRedisPubSub: url must be a redis:// or rediss:// URL, got ${shown}.`);
  });

  it('accepts redis:// and rediss:// URLs, credentials and database included, without connecting', async () => {
    for (const url of ['redis://127.0.0.1:6379', 'rediss://user:secret@redis.example:6380/2']) await createRedisPubSub({ url }).close();
  });

  it('refuses a bufferSize that is not a positive whole number, a channelPrefix that is not a string, and unknown options', () => {
    const url = 'redis://127.0.0.1:6379';
    expectTypeError(() => createRedisPubSub({ url, bufferSize: 0 }), 'createRedisPubSub: bufferSize must be a positive whole number, got 0.');
    expectTypeError(() => createRedisPubSub({ url, channelPrefix: 7 as never }), 'createRedisPubSub: channelPrefix must be a string, got 7.');
    expectTypeError(
      () => createRedisPubSub({ url, prefix: 'x' } as never),
      'createRedisPubSub: unknown option "prefix"; expected url, bufferSize or channelPrefix.',
    );
    expectTypeError(() => createRedisPubSub('redis://127.0.0.1:6379' as never), 'createRedisPubSub: options must be an object, got a string.');
  });

  it('rejects publish with a TypeError, before connecting, when JSON cannot represent the payload', async () => {
    const pubsub = createRedisPubSub({ url: 'redis://127.0.0.1:1' });
    const rule = 'publish("t"): the payload must be JSON-serializable (it travels through Redis as JSON)';
    const circular: Record<string, unknown> = {};
    circular['self'] = circular;
    const cases: Array<[unknown, string]> = [
      [undefined, `${rule}, got undefined.`],
      [() => 1, `${rule}, got [function].`],
      [10n, `${rule}, but JSON.stringify threw: Do not know how to serialize a BigInt`],
      [circular, `${rule}, but JSON.stringify threw: Converting circular structure to JSON`],
    ];
    for (const [payload, message] of cases) {
      const rejection = await rejectionOf(pubsub.publish('t', payload));
      expect(rejection).toBeInstanceOf(TypeError);
      expect((rejection as TypeError).message.startsWith(message)).toBe(true);
    }
    await pubsub.close();
  });

  it('refuses publish and subscribe after close() with PUBSUB_CLOSED', async () => {
    const pubsub = createRedisPubSub({ url: 'redis://127.0.0.1:1' });
    await pubsub.close();
    const rejection = await rejectionOf(pubsub.publish('t', 1));
    expect((rejection as GraphQLError).message).toBe('publish("t") came after close(): the pub/sub is closed.');
    expect((rejection as GraphQLError).extensions).toEqual({ code: PUBSUB_CLOSED });
    expect(() => pubsub.subscribe('t')).toThrow('subscribe("t") came after close(): the pub/sub is closed.');
  });

  it('loads ioredis at its first use, not when the module is imported or the pub/sub created', async () => {
    // A fresh process, so that nothing else has loaded ioredis. Port 1 refuses connections: the
    // publish rejects after its retries, by which time ioredis has been imported.
    const printed = await runChild(`
      import { createRequire } from 'node:module';
      const { createRedisPubSub } = await import(${MODULE});
      const loaded = () => Object.keys(createRequire(import.meta.url).cache).some((path) => path.includes('/node_modules/ioredis/'));
      const pubsub = createRedisPubSub({ url: 'redis://127.0.0.1:1' });
      const before = loaded();
      await pubsub.publish('t', 1).catch(() => {});
      console.log(JSON.stringify({ before, after: loaded() }));
      await pubsub.close();
    `);
    expect(JSON.parse(printed)).toEqual({ before: false, after: true });
  });
});

describe('createRedisPubSub: when no Redis answers', () => {
  it('rejects publish after its reconnection attempts when connections are refused', async () => {
    const pubsub = createRedisPubSub({ url: 'redis://127.0.0.1:1' });
    const started = performance.now();
    const rejection = await rejectionOf(pubsub.publish('t', 1));
    expect((rejection as Error).message).toBe(
      'Reached the max retries per request limit (which is 2). Refer to "maxRetriesPerRequest" option for details.',
    );
    expect(performance.now() - started).toBeLessThan(PUBLISH_TIMEOUT_MS);
    await pubsub.close();
  });

  it(`rejects publish after ${PUBLISH_TIMEOUT_MS} ms when the server accepts the connection and never answers`, async () => {
    const silent = net.createServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const pubsub = createRedisPubSub({ url: `redis://127.0.0.1:${(silent.address() as net.AddressInfo).port}` });
    try {
      const started = performance.now();
      const rejection = await rejectionOf(pubsub.publish('t', 1));
      expect((rejection as Error).message).toBe('Command timed out');
      expect(performance.now() - started).toBeLessThan(PUBLISH_TIMEOUT_MS + 1000);
    } finally {
      await pubsub.close();
      silent.close();
    }
  });
});

/** A TCP proxy to Redis, which a test can cut (Redis is gone) and restore (it is back). */
interface Proxy {
  readonly url: string;
  cut(): Promise<void>;
  restore(): Promise<void>;
}

async function startProxy(redisUrl: string): Promise<Proxy> {
  const target = new URL(redisUrl);
  const sockets = new Set<net.Socket>();
  let server: net.Server;
  const listen = (port: number): Promise<number> =>
    new Promise((resolve, reject) => {
      server = net.createServer((client) => {
        const upstream = net.connect(Number(target.port || 6379), target.hostname);
        for (const socket of [client, upstream]) {
          sockets.add(socket);
          socket.on('close', () => sockets.delete(socket));
          socket.on('error', () => {
            client.destroy();
            upstream.destroy();
          });
        }
        client.pipe(upstream).pipe(client);
      });
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve((server.address() as net.AddressInfo).port));
    });
  const port = await listen(0);
  const url = new URL(redisUrl);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    url: url.href,
    cut: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        for (const socket of sockets) socket.destroy();
      }),
    restore: async () => {
      await listen(port);
    },
  };
}

describe.skipIf(REDIS_URL === undefined || REDIS_URL === '')(
  REDIS_URL ? 'createRedisPubSub against the Redis at REDIS_URL' : 'createRedisPubSub against Redis (skipped: REDIS_URL is not set)',
  () => {
    const url = REDIS_URL!;
    let admin: Redis;
    let made: RedisPubSub[] = [];
    let topicNumber = 0;

    /** A new instance on this run's channels. */
    const instance = (options: Partial<RedisPubSubOptions> = {}): RedisPubSub => {
      const pubsub = createRedisPubSub({ url, channelPrefix: RUN, ...options });
      made.push(pubsub);
      return pubsub;
    };
    /** A topic no other test uses. */
    const newTopic = (): string => `topic-${(topicNumber += 1)}`;

    /** Publishes on `publisher` until `iterator` receives something, or fails at the deadline. */
    async function publishUntilDelivered<T>(publisher: RedisPubSub, topic: string, iterator: PubSubIterator<T>, payload: (attempt: number) => unknown): Promise<T> {
      let delivered: IteratorResult<T, undefined> | undefined;
      const next = iterator.next().then((result) => (delivered = result));
      const deadline = Date.now() + DEADLINE_MS;
      for (let attempt = 0; delivered === undefined; attempt += 1) {
        if (Date.now() > deadline) throw new Error(`nothing arrived on "${topic}" within ${DEADLINE_MS} ms`);
        // While Redis is unreachable, publish rejects: try again.
        await publisher.publish(topic, payload(attempt)).catch(() => {});
        await Promise.race([next, sleep(100)]);
      }
      if (delivered.done === true) throw new Error('the iterator ended');
      return delivered.value;
    }

    async function numsub(channel: string): Promise<number> {
      const reply = (await admin.call('PUBSUB', 'NUMSUB', channel)) as [string, number];
      return Number(reply[1]);
    }

    beforeAll(async () => {
      const { Redis } = await import('ioredis');
      admin = new Redis(url);
    });

    afterEach(async () => {
      await Promise.all(made.map((pubsub) => pubsub.close()));
      made = [];
    });

    afterAll(async () => {
      await admin.quit();
    });

    it('delivers an event published on one instance to the subscribers of its topic on every instance, the publishing one included', async () => {
      const [a, b] = [instance(), instance()];
      const topic = newTopic();
      const onA = a.subscribe(topic);
      const onB = [b.subscribe(topic), b.subscribe(topic)];
      await Promise.all([onA.ready, ...onB.map((iterator) => iterator.ready)]);
      await a.publish(topic, { n: 1 });
      expect(await onA.next()).toEqual({ value: { n: 1 }, done: false });
      for (const iterator of onB) expect(await iterator.next()).toEqual({ value: { n: 1 }, done: false });
    });

    it('keeps publication order from one instance to the subscribers of another', async () => {
      const [a, b] = [instance(), instance()];
      const topic = newTopic();
      const iterator = b.subscribe<number>(topic);
      await iterator.ready;
      const numbers = Array.from({ length: 200 }, (_, n) => n);
      await Promise.all(numbers.map((n) => a.publish(topic, n)));
      const received: number[] = [];
      for (const _ of numbers) received.push((await iterator.next()).value as number);
      expect(received).toEqual(numbers);
    });

    it('delivers nothing to the subscribers of other topics, nor to instances with another channel prefix', async () => {
      const a = instance();
      const elsewhere = instance({ channelPrefix: `${RUN}elsewhere:` });
      const [topic, other] = [newTopic(), newTopic()];
      const onOther = a.subscribe(other);
      const onElsewhere = elsewhere.subscribe(topic);
      await Promise.all([onOther.ready, onElsewhere.ready]);
      await a.publish(topic, 'not for you');
      await a.publish(other, 'for other');
      await elsewhere.publish(topic, 'for elsewhere');
      expect(await onOther.next()).toEqual({ value: 'for other', done: false });
      expect(await onElsewhere.next()).toEqual({ value: 'for elsewhere', done: false });
    });

    it('sends one SUBSCRIBE per topic however many local subscribers it has, and UNSUBSCRIBE when the last one leaves', async () => {
      const monitor = await admin.duplicate().monitor();
      const seen: string[] = [];
      monitor.on('monitor', (_time: string, args: string[]) => {
        if (args.some((arg) => arg.startsWith(RUN))) seen.push(args.join(' ').toLowerCase());
      });
      try {
        const a = instance();
        const [topic, barrier] = [newTopic(), newTopic()];
        const channel = RUN + topic;
        const iterators = [a.subscribe(topic), a.subscribe(topic), a.subscribe(topic)];
        await Promise.all(iterators.map((iterator) => iterator.ready));
        expect(a.subscriberCount(topic)).toBe(3);
        expect(await numsub(channel)).toBe(1);
        await iterators[0]!.return();
        await iterators[1]!.return();
        // Commands on the subscriber connection run in order: once this SUBSCRIBE is confirmed,
        // an UNSUBSCRIBE sent by the two returns would have run too.
        await a.subscribe(barrier).ready;
        expect(await numsub(channel)).toBe(1);
        await iterators[2]!.return();
        expect(a.subscriberCount(topic)).toBe(0);
        await expect.poll(() => numsub(channel), { timeout: DEADLINE_MS }).toBe(0);
        await expect.poll(() => seen.filter((command) => command === `unsubscribe ${channel}`).length, { timeout: DEADLINE_MS }).toBe(1);
        expect(seen.filter((command) => command === `subscribe ${channel}`)).toHaveLength(1);
      } finally {
        monitor.disconnect();
      }
    });

    it('stays subscribed exactly while a topic has local subscribers, through quick cycles of subscribe and return', async () => {
      const [a, b] = [instance(), instance()];
      const topic = newTopic();
      const returned: PubSubIterator<unknown>[] = [];
      for (let cycle = 0; cycle < 20; cycle += 1) {
        const iterator = a.subscribe(topic);
        void iterator.return();
        returned.push(iterator);
      }
      await Promise.all(returned.map((iterator) => iterator.ready));
      await expect.poll(() => numsub(RUN + topic), { timeout: DEADLINE_MS }).toBe(0);
      const kept = a.subscribe(topic);
      void a.subscribe(topic).return();
      await kept.ready;
      expect(await numsub(RUN + topic)).toBe(1);
      await b.publish(topic, 'kept');
      expect(await kept.next()).toEqual({ value: 'kept', done: false });
      await kept.return();
      await expect.poll(() => numsub(RUN + topic), { timeout: DEADLINE_MS }).toBe(0);
    });

    it('resolves ready once Redis has confirmed the SUBSCRIBE, so an event published right after it arrives', async () => {
      const a = instance();
      const topic = newTopic();
      const iterator = a.subscribe(topic);
      await iterator.ready;
      expect(await numsub(RUN + topic)).toBe(1);
      expect(await admin.publish(RUN + topic, JSON.stringify('raw'))).toBe(1);
      expect(await iterator.next()).toEqual({ value: 'raw', done: false });
    });

    it('sends payloads as JSON: a Date arrives as its ISO string, and the subscribers of one instance share one parsed copy', async () => {
      const [a, b] = [instance(), instance()];
      const topic = newTopic();
      const [first, second, onB] = [a.subscribe(topic), a.subscribe(topic), b.subscribe(topic)];
      await Promise.all([first.ready, onB.ready]);
      const payload = { at: new Date(0), missing: undefined, list: [1, 'two', null] };
      await a.publish(topic, payload);
      const [one, two, three] = [(await first.next()).value, (await second.next()).value, (await onB.next()).value];
      expect(one).toStrictEqual({ at: '1970-01-01T00:00:00.000Z', list: [1, 'two', null] });
      expect(two).toBe(one);
      expect(three).toStrictEqual(one);
      expect(three).not.toBe(one);
    });

    it('drops and counts a message that is not valid JSON, and keeps delivering', async () => {
      const a = instance();
      const topic = newTopic();
      const iterator = a.subscribe(topic);
      await iterator.ready;
      await admin.publish(RUN + topic, '{not json');
      await a.publish(topic, 'valid');
      expect(await iterator.next()).toEqual({ value: 'valid', done: false });
      expect(a.malformedMessages).toBe(1);
    });

    it('applies the overflow policy to a slow reader on each instance', async () => {
      const a = instance({ bufferSize: 2 });
      const topic = newTopic();
      const iterator = a.subscribe(topic);
      await iterator.ready;
      for (const n of [1, 2, 3]) await a.publish(topic, n);
      await expect.poll(() => a.subscriberCount(topic), { timeout: DEADLINE_MS }).toBe(0);
      expect([(await iterator.next()).value, (await iterator.next()).value]).toEqual([1, 2]);
      const overflow = await rejectionOf(iterator.next());
      expect((overflow as GraphQLError).message).toBe('The subscriber fell more than 2 events behind and was closed.');
      expect((overflow as GraphQLError).extensions).toEqual({ code: SUBSCRIPTION_OVERFLOW });
    });

    it('resubscribes after Redis drops the subscriber connection (CLIENT KILL TYPE pubsub), so an event published afterwards still arrives', async () => {
      const [a, b] = [instance(), instance()];
      const topic = newTopic();
      const iterator = a.subscribe<{ attempt: number }>(topic);
      await iterator.ready;
      expect(Number(await admin.call('CLIENT', 'KILL', 'TYPE', 'pubsub'))).toBeGreaterThanOrEqual(1);
      const received = await publishUntilDelivered(b, topic, iterator, (attempt) => ({ attempt }));
      expect(received).toHaveProperty('attempt');
      expect(a.subscriberCount(topic)).toBe(1);
      expect(await numsub(RUN + topic)).toBe(1);
    });

    it(`settles publish within ${PUBLISH_TIMEOUT_MS} ms while Redis is unreachable, and delivers again once it is back`, async () => {
      const proxy = await startProxy(url);
      const a = instance({ url: proxy.url });
      const topic = newTopic();
      const iterator = a.subscribe<string>(topic);
      await iterator.ready;
      await a.publish(topic, 'before');
      expect(await iterator.next()).toEqual({ value: 'before', done: false });

      await proxy.cut();
      const started = performance.now();
      const rejection = await rejectionOf(a.publish(topic, 'while Redis is gone'));
      expect(rejection).toBeInstanceOf(Error);
      expect(performance.now() - started).toBeLessThan(PUBLISH_TIMEOUT_MS + 500);

      await proxy.restore();
      expect(await publishUntilDelivered(a, topic, iterator, (attempt) => `after ${attempt}`)).toMatch(/^after \d+$/);
    });

    it('ends every iterator on close(), and leaves Redis subscribed to none of its channels', async () => {
      const a = instance();
      const [topic, other] = [newTopic(), newTopic()];
      const iterators = [a.subscribe(topic), a.subscribe(topic), a.subscribe(other)];
      await Promise.all(iterators.map((iterator) => iterator.ready));
      const pending = iterators.map((iterator) => iterator.next());
      await a.close();
      expect(await Promise.all(pending)).toEqual(iterators.map(() => ({ value: undefined, done: true })));
      expect(a.topicCount()).toBe(0);
      await expect.poll(async () => (await numsub(RUN + topic)) + (await numsub(RUN + other)), { timeout: DEADLINE_MS }).toBe(0);
    });

    it('leaves no connection, timer or listener behind: a process that subscribes, receives and closes exits by itself', async () => {
      const printed = await runChild(`
        const { createRedisPubSub } = await import(${MODULE});
        const [a, b] = [createRedisPubSub(${JSON.stringify({ url, channelPrefix: RUN })}), createRedisPubSub(${JSON.stringify({ url, channelPrefix: RUN })})];
        const iterator = b.subscribe('exit');
        await iterator.ready;
        await a.publish('exit', 'bye');
        const { value } = await iterator.next();
        await Promise.all([a.close(), b.close()]);
        console.log(value);
      `);
      expect(printed).toBe('bye');
    });
  },
);
