/**
 * Publish/subscribe: how an event reaches the GraphQL subscriptions waiting for it. This module
 * holds the `PubSub` interface every event source of the server speaks, the in-memory
 * implementation for one process (`createPubSub`), and the local fan-out both it and the Redis
 * implementation (redisPubSub.ts) deliver through.
 *
 * The contract, for every implementation:
 *  - Delivery. Each subscriber gets each payload published to its topic after it subscribed
 *    once, in publication order; nothing from other topics. In memory the subscriber gets the
 *    published value itself, not a copy. `next()` waits while nothing is buffered; several
 *    concurrent `next()` calls resolve in the order they were made.
 *  - Cleanup is prompt. `return()` (which `break` in `for await` calls) removes the subscriber
 *    from its topic before it returns, drops what it had buffered, resolves a pending `next()`
 *    with `{ done: true }`, and every later `next()` is done too. `close()` does that for every
 *    subscriber still receiving (one that has already stopped, by overflow or a failed filter,
 *    still hands out what it holds and its error, then is done). A topic without subscribers is
 *    forgotten at once, and nothing here sets a timer.
 *  - A slow reader never grows memory without bound. A subscriber keeps at most `bufferSize`
 *    undelivered events (1,000 unless the pub/sub or `subscribe` says otherwise). When it
 *    already holds that many and another event arrives, the subscriber has overflowed: it is
 *    unsubscribed at once and gets nothing more, it keeps what it had buffered, and once those
 *    are read its `next()` rejects with a GraphQLError coded SUBSCRIPTION_OVERFLOW ("The
 *    subscriber fell more than N events behind and was closed."); after that it is done.
 *    We end the subscription rather than drop events silently: a client that missed events
 *    must know, so it can resubscribe and refetch the state it shows.
 *  - Filters. `filter` runs when the event is published. A synchronous verdict is final at once:
 *    a rejected payload never takes buffer space. A promise (an async filter) holds the event's
 *    place in the buffer until it settles, and the buffer is read in publication order, never in
 *    settling order: so verdicts may settle in any order and delivery order is still publication
 *    order, and a pending verdict counts against `bufferSize` (a filter that never settles makes
 *    the subscriber overflow instead of hanging forever). A filter that throws or rejects ends
 *    that subscriber as an overflow does: unsubscribed at once, the events before the failed
 *    one delivered, then `next()` rejects with the filter's own error, then done.
 *  - After `close()`, `publish` rejects and `subscribe` throws, both with a GraphQLError coded
 *    PUBSUB_CLOSED.
 *
 * Misuse of the API (an option or topic of the wrong kind) is a TypeError thrown at once, or a
 * rejection for `publish`, which always answers with a promise.
 */
import { GraphQLError } from 'graphql';
import { ErrorCode } from '../errors/codes.ts';
import { describe } from '../jsutils/describe.ts';
import { inspect } from '../jsutils/inspect.ts';
import { isPromiseLike } from '../jsutils/isPromiseLike.ts';
import { positiveInteger } from '../jsutils/positiveInteger.ts';

export interface PubSub {
  /** Sends payload to every current subscriber of topic (on every instance, for Redis). */
  publish(topic: string, payload: unknown): Promise<void>;
  /** The topic's payloads from now on, in publication order, as an async iterator (also iterable). */
  subscribe<T = unknown>(topic: string, options?: SubscribeOptions<T>): PubSubIterator<T>;
  /** How many subscribers of topic are live here (in this process, for Redis), for tests and metrics. */
  subscriberCount(topic: string): number;
  /** Ends every subscription (their iterators complete) and releases connections. */
  close(): Promise<void>;
}

export interface SubscribeOptions<T> {
  /** Only payloads it accepts are delivered (may be async; order is kept). */
  filter?: (payload: T) => boolean | Promise<boolean>;
  /** Undelivered events kept for this subscriber (default: the pub/sub's bufferSize, 1,000). */
  bufferSize?: number;
}

export interface PubSubIterator<T> extends AsyncIterableIterator<T> {
  /** Resolves once the subscription is live everywhere (immediately in memory; after Redis confirms SUBSCRIBE). Events published after it resolves are delivered. */
  readonly ready: Promise<void>;
  return(): Promise<IteratorResult<T, undefined>>;
}

/** The in-memory pub/sub, with one more figure for tests and metrics. */
export interface MemoryPubSub extends PubSub {
  /** Topics with at least one subscriber: the size of the topic map, 0 once everyone has left. */
  topicCount(): number;
}

export interface PubSubOptions {
  /** Undelivered events kept per subscriber unless `subscribe` says otherwise (a positive whole number; default 1,000). */
  bufferSize?: number;
}

/** `extensions.code` of the error a subscriber that fell more than bufferSize events behind gets. */
export const SUBSCRIPTION_OVERFLOW = ErrorCode.SubscriptionOverflow;
/** `extensions.code` of the error publish and subscribe give after close(). */
export const PUBSUB_CLOSED = ErrorCode.PubSubClosed;
export const DEFAULT_BUFFER_SIZE = 1000;

/** The error of a subscriber that fell more than bufferSize events behind (also used by shared subscriptions). */
export function overflowError(bufferSize: number): GraphQLError {
  return new GraphQLError(`The subscriber fell more than ${bufferSize} events behind and was closed.`, {
    extensions: { code: SUBSCRIPTION_OVERFLOW },
  });
}

/** The pub/sub for one process: publish delivers synchronously to the subscribers of the topic. */
export function createPubSub(options?: PubSubOptions): MemoryPubSub {
  const read = readOptions('createPubSub:', options, ['bufferSize']);
  const fanout = new Fanout({ bufferSize: readBufferSize('createPubSub:', read['bufferSize'], DEFAULT_BUFFER_SIZE) });
  let closed = false;
  return {
    async publish(topic, payload) {
      assertOpen(closed, 'publish', topic);
      assertTopic('publish', topic);
      fanout.deliver(topic, payload);
    },
    subscribe(topic, subscribeOptions) {
      assertOpen(closed, 'subscribe', topic);
      return fanout.subscribe(topic, subscribeOptions);
    },
    subscriberCount: (topic) => fanout.subscriberCount(topic),
    topicCount: () => fanout.topicCount(),
    async close() {
      closed = true;
      fanout.endAll();
    },
  };
}

/**
 * What an implementation tells the fan-out about the topics it listens to elsewhere (Redis).
 * In memory there is nowhere else, and every subscription is ready at once.
 */
export interface FanoutOptions {
  bufferSize: number;
  /** The first local subscriber of topic arrived: start listening; resolves once that is live. */
  opened?: (topic: string) => Promise<void>;
  /** The last local subscriber of topic left. */
  closed?: (topic: string) => void;
}

interface Topic {
  readonly subscribers: Set<Subscription<unknown>>;
  readonly ready: Promise<void>;
}

const RESOLVED: Promise<void> = Promise.resolve();
const DONE: IteratorResult<never, undefined> = Object.freeze({ value: undefined, done: true });

/**
 * The local fan-out: topics to their subscribers, and each subscriber's buffer. Both
 * implementations deliver through it; it is not part of the public API.
 */
export class Fanout {
  private readonly topics = new Map<string, Topic>();
  private readonly options: FanoutOptions;

  constructor(options: FanoutOptions) {
    this.options = options;
  }

  subscribe<T>(topic: string, options: SubscribeOptions<T> | undefined): PubSubIterator<T> {
    assertTopic('subscribe', topic);
    const prefix = `subscribe(${inspect(topic)}):`;
    const { filter, bufferSize } = readOptions(prefix, options, ['filter', 'bufferSize']);
    if (filter !== undefined && typeof filter !== 'function') {
      throw new TypeError(`${prefix} filter must be a function, got ${describe(filter)}.`);
    }
    const entry = this.topics.get(topic) ?? this.open(topic);
    // The filter is declared over T, but nothing checks payloads at run time: T is the subscriber's
    // promise about what is published to its topic, and the buffer holds them as they came.
    const subscription = new Subscription<T>({
      ready: entry.ready,
      bufferSize: readBufferSize(prefix, bufferSize, this.options.bufferSize),
      filter: filter as ((payload: unknown) => boolean | Promise<boolean>) | undefined,
      leave: (left) => this.remove(topic, entry, left),
    });
    entry.subscribers.add(subscription);
    return subscription;
  }

  /** Offers payload to the topic's subscribers of this moment. */
  deliver(topic: string, payload: unknown): void {
    const entry = this.topics.get(topic);
    if (entry === undefined) return;
    // A copy: a subscriber that overflows leaves the set while we walk it.
    for (const subscription of [...entry.subscribers]) subscription.offer(payload);
  }

  subscriberCount(topic: string): number {
    return this.topics.get(topic)?.subscribers.size ?? 0;
  }

  topicCount(): number {
    return this.topics.size;
  }

  /** Completes every subscriber's iterator. */
  endAll(): void {
    for (const entry of [...this.topics.values()]) {
      for (const subscription of [...entry.subscribers]) void subscription.return();
    }
  }

  private open(topic: string): Topic {
    const { opened } = this.options;
    const entry: Topic = { subscribers: new Set(), ready: opened === undefined ? RESOLVED : opened(topic) };
    this.topics.set(topic, entry);
    // Listening failed (Redis could not be loaded, or closed before it confirmed): the topic's
    // subscribers end with that error. Attaching this handler also keeps a rejected `ready`
    // that nobody awaits from being an unhandled rejection.
    if (opened !== undefined) {
      entry.ready.catch((error: unknown) => {
        for (const subscription of [...entry.subscribers]) subscription.fail(error);
      });
    }
    return entry;
  }

  private remove(topic: string, entry: Topic, subscription: Subscription<unknown>): void {
    entry.subscribers.delete(subscription);
    if (entry.subscribers.size > 0 || this.topics.get(topic) !== entry) return;
    this.topics.delete(topic);
    this.options.closed?.(topic);
  }
}

/** An event in a subscriber's buffer, with the filter's verdict on it so far. */
interface BufferedEvent {
  readonly payload: unknown;
  verdict: 'pending' | 'accepted' | 'rejected' | 'failed';
  error?: unknown;
}

interface Waiter<T> {
  resolve(result: IteratorResult<T, undefined>): void;
  reject(error: unknown): void;
}

interface SubscriptionConfig {
  ready: Promise<void>;
  bufferSize: number;
  filter: ((payload: unknown) => boolean | Promise<boolean>) | undefined;
  /** Takes the subscription out of its topic. */
  leave: (subscription: Subscription<unknown>) => void;
}

/** One subscriber: its buffer, its pending `next()` calls, and how it ends. */
class Subscription<T> implements PubSubIterator<T> {
  readonly ready: Promise<void>;
  private readonly config: SubscriptionConfig;
  private readonly buffer: BufferedEvent[] = [];
  private readonly waiters: Waiter<T>[] = [];
  /** In its topic, receiving. */
  private live = true;
  /** Every `next()` from now on is done. */
  private finished = false;
  /** The error `next()` rejects with once the buffer is read (overflow, a failed filter). */
  private ending: { error: unknown } | null = null;

  constructor(config: SubscriptionConfig) {
    this.config = config;
    this.ready = config.ready;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  next(): Promise<IteratorResult<T, undefined>> {
    if (this.finished) return Promise.resolve(DONE);
    return new Promise((resolve, reject) => {
      this.waiters.push({ resolve, reject });
      this.drain();
    });
  }

  return(): Promise<IteratorResult<T, undefined>> {
    this.leave();
    this.finished = true;
    this.buffer.length = 0;
    this.ending = null;
    for (const waiter of this.waiters.splice(0)) waiter.resolve(DONE);
    return Promise.resolve(DONE);
  }

  /** A payload published to the topic. */
  offer(payload: unknown): void {
    if (!this.live) return;
    let verdict: boolean | PromiseLike<boolean> = true;
    if (this.config.filter !== undefined) {
      try {
        verdict = this.config.filter(payload);
      } catch (error) {
        this.fail(error);
        return;
      }
    }
    if (!isPromiseLike(verdict) && !verdict) return;
    if (this.buffer.length >= this.config.bufferSize) {
      this.stop({ error: overflowError(this.config.bufferSize) });
      return;
    }
    const event: BufferedEvent = { payload, verdict: isPromiseLike(verdict) ? 'pending' : 'accepted' };
    this.buffer.push(event);
    if (isPromiseLike(verdict)) {
      verdict.then(
        (accepted) => {
          event.verdict = accepted ? 'accepted' : 'rejected';
          this.drain();
        },
        (error: unknown) => {
          event.verdict = 'failed';
          event.error = error;
          // Stop receiving now; the error itself waits for its turn in the buffer.
          this.stop(null);
        },
      );
    }
    this.drain();
  }

  /** Ends the subscription with error after what it has buffered. */
  fail(error: unknown): void {
    this.stop({ error });
  }

  /** Stops receiving; `ending`, unless one is set already, is what `next()` meets after the buffer. */
  private stop(ending: { error: unknown } | null): void {
    if (this.finished) return;
    this.leave();
    if (ending !== null && this.ending === null) this.ending = ending;
    this.drain();
  }

  private leave(): void {
    if (!this.live) return;
    this.live = false;
    this.config.leave(this as Subscription<unknown>);
  }

  /**
   * Hands buffered events to waiting `next()` calls, first in first out on both sides, so
   * delivery follows publication order and concurrent calls resolve in the order they were made.
   * A pending verdict at the head stops it: its settling calls drain again.
   */
  private drain(): void {
    while (this.waiters.length > 0) {
      const head = this.buffer[0];
      if (head === undefined) {
        if (this.live) return;
        this.finish(this.waiters.shift()!);
        continue;
      }
      if (head.verdict === 'pending') return;
      this.buffer.shift();
      if (head.verdict === 'accepted') {
        this.waiters.shift()!.resolve({ value: head.payload as T, done: false });
      } else if (head.verdict === 'failed') {
        // The first failure in publication order wins; the events after it are not delivered.
        this.buffer.length = 0;
        this.ending = { error: head.error };
      }
    }
  }

  /** The buffer is read and the subscription has left its topic: the ending error once, then done. */
  private finish(waiter: Waiter<T>): void {
    this.finished = true;
    const { ending } = this;
    this.ending = null;
    if (ending === null) waiter.resolve(DONE);
    else waiter.reject(ending.error);
  }
}

/** An options object's members, after checking it is an object whose every key is known. */
export function readOptions(prefix: string, options: unknown, known: ReadonlyArray<string>): Readonly<Record<string, unknown>> {
  if (options === undefined) return {};
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`${prefix} options must be an object, got ${describe(options)}.`);
  }
  for (const key of Object.keys(options)) {
    if (!known.includes(key)) throw new TypeError(`${prefix} unknown option "${key}"; expected ${listOr(known)}.`);
  }
  return options as Record<string, unknown>;
}

/** A bufferSize option: a positive whole number, or undefined for the fallback. */
export function readBufferSize(prefix: string, value: unknown, fallback: number): number {
  return value === undefined ? fallback : positiveInteger(value, `${prefix} bufferSize`);
}

function listOr(names: ReadonlyArray<string>): string {
  return names.length === 1 ? names[0]! : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}

export function assertTopic(method: string, topic: unknown): asserts topic is string {
  if (typeof topic !== 'string') throw new TypeError(`${method}: topic must be a string, got ${describe(topic)}.`);
}

export function assertOpen(closed: boolean, method: string, topic: unknown): void {
  if (!closed) return;
  const call = typeof topic === 'string' ? `${method}(${inspect(topic)})` : `${method}()`;
  throw new GraphQLError(`${call} came after close(): the pub/sub is closed.`, { extensions: { code: PUBSUB_CLOSED } });
}
