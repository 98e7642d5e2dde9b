/**
 * createRedisPubSub: the PubSub interface (pubsub.ts) across several server instances, through
 * Redis PUBLISH and SUBSCRIBE. An event published on any instance reaches the subscribers of
 * its topic on every instance, the publishing one included; each instance then hands it to its
 * own subscribers through the same local fan-out as the in-memory pub/sub, so buffers, the
 * overflow policy and filters behave exactly as documented there.
 *
 * Connections (redisConnections.ts). Each pub/sub opens at most two: one publisher and one
 * subscriber (a connection that has subscribed can run no other command), each when it is first
 * needed. ioredis, an optional dependency, is imported then too, so a server without Redis never
 * loads it. A topic is the channel `channelPrefix + topic`, and each instance SUBSCRIBEs to a channel once
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
import { inspect } from '../jsutils/inspect.ts';
import type { ReadinessCheck } from '../observability/health.ts';
import { DEFAULT_BUFFER_SIZE, Fanout, assertOpen, assertTopic, readBufferSize, readOptions } from './pubsub.ts';
import type { PubSub } from './pubsub.ts';
import { RedisConnections, ignore } from './redisConnections.ts';

export { PUBLISH_RETRIES, PUBLISH_TIMEOUT_MS, RECONNECT_CAP_MS } from './redisConnections.ts';

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

export function createRedisPubSub(options: RedisPubSubOptions): RedisPubSub {
  const read = readOptions('createRedisPubSub:', options, ['url', 'bufferSize', 'channelPrefix']);
  const url = readUrl(read['url']);
  const bufferSize = readBufferSize('createRedisPubSub:', read['bufferSize'], DEFAULT_BUFFER_SIZE);
  const channelPrefix = readChannelPrefix(read['channelPrefix']);
  let closed = false;
  let closing: Promise<void> | undefined;
  let malformedMessages = 0;

  const connections = new RedisConnections(url, (channel, message) => {
    let payload: unknown;
    try {
      payload = JSON.parse(message);
    } catch {
      malformedMessages += 1;
      return;
    }
    fanout.deliver(channel.slice(channelPrefix.length), payload);
  });
  const fanout = new Fanout({
    bufferSize,
    opened: (topic) => connections.get('subscriber').then(async (redis) => {
      await redis.subscribe(channelPrefix + topic);
    }),
    closed: (topic) => {
      // While closing, the connection is about to go, with all its subscriptions.
      if (closed) return;
      // It fails only if close() disconnects first, and then there is nothing left to undo.
      connections.get('subscriber').then((redis) => redis.unsubscribe(channelPrefix + topic)).catch(ignore);
    },
  });

  return {
    readiness: connections.readiness,
    async publish(topic, payload) {
      assertOpen(closed, 'publish', topic);
      assertTopic('publish', topic);
      const message = serialize(topic, payload);
      const redis = await connections.get('publisher');
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
      closing ??= (async () => {
        closed = true;
        fanout.endAll();
        await connections.close();
      })();
      return closing;
    },
  };
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

