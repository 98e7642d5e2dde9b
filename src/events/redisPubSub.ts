/**
 * createRedisPubSub: the PubSub interface (pubsub.ts) across several server instances, through
 * Redis PUBLISH and SUBSCRIBE. An event published on any instance reaches the subscribers of
 * its topic on every instance, the publishing one included; each instance then hands it to its
 * own subscribers through the same local fan-out as the in-memory pub/sub, so buffers, the
 * overflow policy and filters behave exactly as documented there.
 *
 * Connections. Each pub/sub opens at most two: one publisher and one subscriber (a connection
 * that has subscribed can run no other command), each when it is first needed. ioredis, an
 * optional dependency, is imported then too, so a server without Redis never loads it.
 * A topic is the channel `channelPrefix + topic`, and each instance SUBSCRIBEs to a channel once
 * however many local subscribers its topic has, and UNSUBSCRIBEs when the last one leaves. The
 * commands go out in the order subscribers come and go, on one connection, so Redis ends up
 * subscribed exactly to the topics that have local subscribers. `ready` resolves when Redis has
 * confirmed the SUBSCRIBE.
 *
 * Messages are JSON. A payload must be something JSON can represent: publish rejects with a
 * TypeError for undefined, a function, a BigInt or a cycle, and what arrives is
 * JSON.parse(JSON.stringify(payload)): a Date becomes its ISO string, undefined members
 * disappear. Each instance parses a message once, and its subscribers share that copy (as in
 * memory they share the published value). A message on our channels that is not valid JSON
 * (written by something else) is dropped and counted in `malformedMessages`; it never reaches a
 * subscriber nor throws.
 *
 * Delivery is at most once, as Redis pub/sub is: there is no replay.
 *
 * When Redis goes away:
 *  - Both connections reconnect by themselves, after 100 ms, then twice as long each time, at
 *    most RECONNECT_CAP_MS between attempts. The subscriber connection SUBSCRIBEs again to the
 *    channels it had (ioredis's autoResubscribe); subscriptions stay open and receive again
 *    once it has, and events published meanwhile are lost for them.
 *  - publish: ioredis keeps the PUBLISH in its offline queue and sends it once reconnected. If
 *    it cannot be sent within PUBLISH_RETRIES reconnection attempts, or has no reply after
 *    PUBLISH_TIMEOUT_MS, publish rejects: it never hangs. A publish that rejected on the timeout
 *    may still be sent later, from the queue, as any timed-out network call may have happened.
 *  - subscribe: the SUBSCRIBE waits for the connection, as long as it takes, and `ready` with it.
 *    (Nothing can be published meanwhile either.)
 * Connection errors themselves are not reported: their effects reach callers as above.
 */
import type { Redis, RedisOptions } from 'ioredis';
import { inspect } from '../jsutils/inspect.ts';
import { loadIoredis } from '../redis/loadIoredis.ts';
import type { ReadinessCheck } from '../observability/health.ts';
import { DEFAULT_BUFFER_SIZE, Fanout, assertOpen, assertTopic, readBufferSize, readOptions } from './pubsub.ts';
import type { PubSub } from './pubsub.ts';

export interface RedisPubSubOptions {
  /** Where Redis is: a redis:// or rediss:// (TLS) URL, credentials and database number included. */
  url: string;
  /** Undelivered events kept per local subscriber unless `subscribe` says otherwise (default 1,000). */
  bufferSize?: number;
  /** Prepended to every topic to make its channel, so several applications can share a Redis (default 'graphql:'). */
  channelPrefix?: string;
}

/** The Redis pub/sub, with figures for tests and metrics. */
export interface RedisPubSub extends PubSub {
  /** Topics with at least one local subscriber: the channels this instance is subscribed to. */
  topicCount(): number;
  /** Messages received on our channels and dropped because they were not valid JSON. */
  readonly malformedMessages: number;
  /**
   * Ready while every connection made is (for a server's `readinessChecks`); a probe before any
   * was needed makes the publisher's.
   */
  readonly readiness: ReadinessCheck;
}

export const DEFAULT_CHANNEL_PREFIX = 'graphql:';
/** Longest wait between two reconnection attempts. */
export const RECONNECT_CAP_MS = 2000;
/** Reconnection attempts a queued PUBLISH waits through before publish rejects. */
export const PUBLISH_RETRIES = 2;
/** Longest a publish waits for Redis's reply. */
export const PUBLISH_TIMEOUT_MS = 5000;
const CONNECT_TIMEOUT_MS = 5000;
const DISCONNECT_TIMEOUT_MS = 200;

type Role = 'publisher' | 'subscriber';

export function createRedisPubSub(options: RedisPubSubOptions): RedisPubSub {
  const read = readOptions('createRedisPubSub:', options, ['url', 'bufferSize', 'channelPrefix']);
  const url = readUrl(read['url']);
  const bufferSize = readBufferSize('createRedisPubSub:', read['bufferSize'], DEFAULT_BUFFER_SIZE);
  const channelPrefix = readChannelPrefix(read['channelPrefix']);

  const connections = new Map<Role, Promise<Redis>>();
  /** The connections once made, for readiness to read their status. */
  const live = new Map<Role, Redis>();
  let closed = false;
  let closing: Promise<void> | undefined;
  let malformedMessages = 0;

  /**
   * The connection for role, made on first use. Every command is issued in a `then` of this one
   * promise, and `then` callbacks run in the order they were attached: so commands reach Redis
   * in the order they were asked for, even those asked for while ioredis was still loading.
   */
  function connection(role: Role): Promise<Redis> {
    let made = connections.get(role);
    if (made === undefined) {
      made = loadIoredis('createRedisPubSub').then(({ Redis }) => {
        const redis = new Redis(url, connectionOptions(role));
        // Without a listener ioredis prints every failed reconnection attempt to the console.
        redis.on('error', ignore);
        if (role === 'subscriber') redis.on('message', receive);
        live.set(role, redis);
        return redis;
      });
      connections.set(role, made);
    }
    return made;
  }

  function receive(channel: string, message: string): void {
    let payload: unknown;
    try {
      payload = JSON.parse(message);
    } catch {
      malformedMessages += 1;
      return;
    }
    fanout.deliver(channel.slice(channelPrefix.length), payload);
  }

  const fanout = new Fanout({
    bufferSize,
    opened: (topic) => connection('subscriber').then(async (redis) => {
      await redis.subscribe(channelPrefix + topic);
    }),
    closed: (topic) => {
      // While closing, the connection is about to go, with all its subscriptions.
      if (closed) return;
      // It fails only if close() disconnects first, and then there is nothing left to undo.
      connection('subscriber').then((redis) => redis.unsubscribe(channelPrefix + topic)).catch(ignore);
    },
  });

  async function close(): Promise<void> {
    closed = true;
    fanout.endAll();
    await Promise.all([...connections].map(([role, made]) => made.then((redis) => disconnect(redis, role), ignore)));
  }

  const readiness: ReadinessCheck = {
    name: 'pub/sub (Redis)',
    ready() {
      if (live.size === 0) {
        if (!closed) connection('publisher').catch(ignore);
        return false;
      }
      for (const redis of live.values()) if (redis.status !== 'ready') return false;
      return true;
    },
    state() {
      if (live.size === 0) return 'not connected yet';
      return [...live].map(([role, redis]) => `${role} connection ${redis.status}`).join(', ');
    },
  };

  return {
    readiness,
    async publish(topic, payload) {
      assertOpen(closed, 'publish', topic);
      assertTopic('publish', topic);
      const message = serialize(topic, payload);
      const redis = await connection('publisher');
      await redis.publish(channelPrefix + topic, message);
    },
    subscribe(topic, subscribeOptions) {
      assertOpen(closed, 'subscribe', topic);
      return fanout.subscribe(topic, subscribeOptions);
    },
    subscriberCount: (topic) => fanout.subscriberCount(topic),
    topicCount: () => fanout.topicCount(),
    get malformedMessages() {
      return malformedMessages;
    },
    close() {
      closing ??= close();
      return closing;
    },
  };
}

/** How each connection behaves when Redis goes away (see the module comment). */
function connectionOptions(role: Role): RedisOptions {
  return {
    connectionName: `graphql-pubsub-${role}`,
    connectTimeout: CONNECT_TIMEOUT_MS,
    // How long disconnect() lets a socket close politely before destroying it. ioredis arms this
    // timer even for a socket that is already gone (closing while Redis is down), and it keeps
    // the process alive: so it is short.
    disconnectTimeout: DISCONNECT_TIMEOUT_MS,
    // Exponential backoff with a little jitter, so the instances of a cluster do not all
    // reconnect in the same millisecond after Redis restarts.
    retryStrategy: (attempt) => Math.min(100 * 2 ** (attempt - 1), RECONNECT_CAP_MS) + Math.floor(Math.random() * 50),
    ...(role === 'publisher'
      ? { maxRetriesPerRequest: PUBLISH_RETRIES, commandTimeout: PUBLISH_TIMEOUT_MS }
      : { maxRetriesPerRequest: null }),
  };
}

/**
 * The publisher QUITs, so that the publishes still in flight get their replies (it waits at most
 * PUBLISH_TIMEOUT_MS, its command timeout); the subscriber, and a connection that is down, are
 * closed at once.
 */
async function disconnect(redis: Redis, role: Role): Promise<void> {
  if (role === 'publisher' && redis.status === 'ready') await redis.quit().catch(ignore);
  if (redis.status !== 'end') redis.disconnect();
}

function serialize(topic: string, payload: unknown): string {
  const rule = `publish(${inspect(topic)}): the payload must be JSON-serializable (it travels through Redis as JSON)`;
  let message: string | undefined;
  try {
    message = JSON.stringify(payload);
  } catch (error) {
    throw new TypeError(`${rule}, but JSON.stringify threw: ${error instanceof Error ? error.message : String(error)}`);
  }
  if (message === undefined) throw new TypeError(`${rule}, got ${inspect(payload)}.`);
  return message;
}

function readUrl(value: unknown): string {
  const parsed = typeof value === 'string' && URL.canParse(value) ? new URL(value) : null;
  if (parsed === null || (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')) {
    // A URL's password is hidden, so the message can be logged.
    const shown = parsed !== null && parsed.password !== '' ? (value as string).replace(`:${parsed.password}@`, ':***@') : value;
    throw new TypeError(`createRedisPubSub: url must be a redis:// or rediss:// URL, got ${inspect(shown)}.`);
  }
  return value as string;
}

function readChannelPrefix(value: unknown): string {
  if (value === undefined) return DEFAULT_CHANNEL_PREFIX;
  if (typeof value !== 'string') throw new TypeError(`createRedisPubSub: channelPrefix must be a string, got ${inspect(value)}.`);
  return value;
}

function ignore(): void {}
