/**
 * The in-memory pub/sub (src/events/pubsub.ts), rule by rule: delivery, prompt cleanup, the
 * bounded buffer and its overflow policy, filters, and every misuse message; then a property
 * over random interleavings of publish, subscribe, next and return across topics.
 *
 * Errors a user can meet are asserted by exact message and code. The property runs PUBSUB_RUNS
 * scripts (default 300); to replay a failure, set PUBSUB_SEED (and PUBSUB_PATH) to the `seed`
 * (and `path`) fast-check printed.
 */
import { setImmediate as nextMacrotask } from 'node:timers/promises';
import fc from 'fast-check';
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { PUBSUB_CLOSED, SUBSCRIPTION_OVERFLOW, createPubSub } from '../src/events/pubsub.ts';
import type { PubSubIterator } from '../src/events/pubsub.ts';
import { expectTypeError, rejectionOf } from './support/expectations.ts';

const RUNS = Number(process.env.PUBSUB_RUNS ?? 300);
const SEED = process.env.PUBSUB_SEED === undefined ? undefined : Number(process.env.PUBSUB_SEED);
const PATH = process.env.PUBSUB_PATH;

const PENDING = Symbol('pending');

/** What the promise has settled to once every microtask has run, or PENDING. */
async function settledState<T>(promise: Promise<T>): Promise<T | typeof PENDING> {
  return Promise.race([promise, nextMacrotask().then((): typeof PENDING => PENDING)]);
}

function expectOverflow(error: unknown, bufferSize: number): void {
  expect(error).toBeInstanceOf(GraphQLError);
  expect((error as GraphQLError).message).toBe(`The subscriber fell more than ${bufferSize} events behind and was closed.`);
  expect((error as GraphQLError).extensions).toEqual({ code: SUBSCRIPTION_OVERFLOW });
}

/** The next `count` values, each of which must be there already or arrive. */
async function take<T>(iterator: PubSubIterator<T>, count: number): Promise<T[]> {
  const values: T[] = [];
  for (let i = 0; i < count; i += 1) {
    const result = await iterator.next();
    if (result.done === true) throw new Error(`the iterator was done after ${i} values`);
    values.push(result.value);
  }
  return values;
}

const DONE = { value: undefined, done: true };

describe('createPubSub: delivery', () => {
  it('delivers each published payload once to every subscriber of its topic, in publication order', async () => {
    const pubsub = createPubSub();
    const first = pubsub.subscribe<number>('ticks');
    const second = pubsub.subscribe<number>('ticks');
    for (const n of [1, 2, 3]) await pubsub.publish('ticks', n);
    expect(await take(first, 3)).toEqual([1, 2, 3]);
    expect(await take(second, 3)).toEqual([1, 2, 3]);
    expect(await settledState(first.next())).toBe(PENDING);
    await pubsub.close();
  });

  it('delivers nothing to the subscribers of other topics', async () => {
    const pubsub = createPubSub();
    const other = pubsub.subscribe('other');
    await pubsub.publish('ticks', 1);
    expect(await settledState(other.next())).toBe(PENDING);
    await pubsub.close();
  });

  it('delivers only what is published after subscribe', async () => {
    const pubsub = createPubSub();
    await pubsub.publish('ticks', 'before');
    const iterator = pubsub.subscribe('ticks');
    await pubsub.publish('ticks', 'after');
    expect(await iterator.next()).toEqual({ value: 'after', done: false });
    await pubsub.close();
  });

  it('makes next() wait while nothing is buffered, and resolves it at the next publish', async () => {
    const pubsub = createPubSub();
    const iterator = pubsub.subscribe('ticks');
    const next = iterator.next();
    expect(await settledState(next)).toBe(PENDING);
    await pubsub.publish('ticks', 1);
    expect(await next).toEqual({ value: 1, done: false });
    await pubsub.close();
  });

  it('resolves several concurrent next() calls in the order they were made', async () => {
    const pubsub = createPubSub();
    const iterator = pubsub.subscribe<string>('ticks');
    const settledOrder: number[] = [];
    const calls = [0, 1, 2].map((call) => iterator.next().then((result) => (settledOrder.push(call), result)));
    for (const value of ['a', 'b', 'c']) await pubsub.publish('ticks', value);
    expect(await Promise.all(calls)).toEqual([
      { value: 'a', done: false },
      { value: 'b', done: false },
      { value: 'c', done: false },
    ]);
    expect(settledOrder).toEqual([0, 1, 2]);
    await pubsub.close();
  });

  it('hands subscribers the published value itself, not a copy', async () => {
    const pubsub = createPubSub();
    const iterator = pubsub.subscribe('ticks');
    const payload = { at: new Date(0) };
    await pubsub.publish('ticks', payload);
    expect((await iterator.next()).value).toBe(payload);
    await pubsub.close();
  });

  it('is an async iterable that for await reads', async () => {
    const pubsub = createPubSub();
    const iterator = pubsub.subscribe<number>('ticks');
    expect(iterator[Symbol.asyncIterator]()).toBe(iterator);
    for (const n of [1, 2, 3]) await pubsub.publish('ticks', n);
    const seen: number[] = [];
    for await (const n of iterator) {
      seen.push(n);
      if (n === 3) break;
    }
    expect(seen).toEqual([1, 2, 3]);
    await pubsub.close();
  });

  it('resolves ready at once, and delivers what is published after it', async () => {
    const pubsub = createPubSub();
    const iterator = pubsub.subscribe('ticks');
    expect(await settledState(iterator.ready)).toBeUndefined();
    await pubsub.publish('ticks', 1);
    expect(await iterator.next()).toEqual({ value: 1, done: false });
    await pubsub.close();
  });
});

describe('createPubSub: cleanup', () => {
  it('removes the subscriber from its topic synchronously in return(), and forgets the topic with its last subscriber', async () => {
    const pubsub = createPubSub();
    const first = pubsub.subscribe('ticks');
    const second = pubsub.subscribe('ticks');
    expect(pubsub.subscriberCount('ticks')).toBe(2);
    expect(pubsub.topicCount()).toBe(1);
    void first.return();
    expect(pubsub.subscriberCount('ticks')).toBe(1);
    void second.return();
    expect(pubsub.subscriberCount('ticks')).toBe(0);
    expect(pubsub.topicCount()).toBe(0);
  });

  it('resolves a pending next() with done on return(), and every later next() is done', async () => {
    const pubsub = createPubSub();
    const iterator = pubsub.subscribe('ticks');
    const pending = [iterator.next(), iterator.next()];
    expect(await iterator.return()).toEqual(DONE);
    expect(await Promise.all(pending)).toEqual([DONE, DONE]);
    await pubsub.publish('ticks', 1);
    expect(await iterator.next()).toEqual(DONE);
  });

  it('drops what was buffered on return()', async () => {
    const pubsub = createPubSub();
    const iterator = pubsub.subscribe('ticks');
    await pubsub.publish('ticks', 1);
    await iterator.return();
    expect(await iterator.next()).toEqual(DONE);
  });

  it('unsubscribes at once when for await is left with break', async () => {
    const pubsub = createPubSub();
    const iterator = pubsub.subscribe('ticks');
    await pubsub.publish('ticks', 1);
    for await (const _ of iterator) break;
    expect(pubsub.subscriberCount('ticks')).toBe(0);
    expect(pubsub.topicCount()).toBe(0);
  });

  it('completes every iterator on close(), pending next() calls included, and empties the topic map', async () => {
    const pubsub = createPubSub();
    const iterators = [pubsub.subscribe('a'), pubsub.subscribe('a'), pubsub.subscribe('b')];
    const pending = iterators.map((iterator) => iterator.next());
    await pubsub.close();
    expect(await Promise.all(pending)).toEqual([DONE, DONE, DONE]);
    expect(await Promise.all(iterators.map((iterator) => iterator.next()))).toEqual([DONE, DONE, DONE]);
    expect(pubsub.topicCount()).toBe(0);
  });

  it('refuses publish and subscribe after close() with PUBSUB_CLOSED', async () => {
    const pubsub = createPubSub();
    await pubsub.close();
    const rejection = await rejectionOf(pubsub.publish('ticks', 1));
    expect(rejection).toBeInstanceOf(GraphQLError);
    expect((rejection as GraphQLError).message).toBe('publish("ticks") came after close(): the pub/sub is closed.');
    expect((rejection as GraphQLError).extensions).toEqual({ code: PUBSUB_CLOSED });
    let thrown: unknown;
    try {
      pubsub.subscribe('ticks');
    } catch (error) {
      thrown = error;
    }
    expect((thrown as GraphQLError).message).toBe('subscribe("ticks") came after close(): the pub/sub is closed.');
    expect((thrown as GraphQLError).extensions).toEqual({ code: PUBSUB_CLOSED });
  });
});

describe('createPubSub: bounded buffer and overflow', () => {
  it('keeps up to bufferSize undelivered events without losing any', async () => {
    const pubsub = createPubSub({ bufferSize: 3 });
    const iterator = pubsub.subscribe('ticks');
    for (const n of [1, 2, 3]) await pubsub.publish('ticks', n);
    expect(pubsub.subscriberCount('ticks')).toBe(1);
    expect(await take(iterator, 3)).toEqual([1, 2, 3]);
    await pubsub.publish('ticks', 4);
    expect(await take(iterator, 1)).toEqual([4]);
    await pubsub.close();
  });

  it('unsubscribes a subscriber at once when another event arrives while it holds bufferSize undelivered ones', async () => {
    const pubsub = createPubSub({ bufferSize: 2 });
    pubsub.subscribe('ticks');
    for (const n of [1, 2]) await pubsub.publish('ticks', n);
    expect(pubsub.subscriberCount('ticks')).toBe(1);
    await pubsub.publish('ticks', 3);
    expect(pubsub.subscriberCount('ticks')).toBe(0);
    expect(pubsub.topicCount()).toBe(0);
  });

  it('delivers what the overflowed subscriber had buffered, then rejects next() with SUBSCRIPTION_OVERFLOW, then is done', async () => {
    const pubsub = createPubSub({ bufferSize: 2 });
    const iterator = pubsub.subscribe('ticks');
    for (const n of [1, 2, 3, 4]) await pubsub.publish('ticks', n);
    expect(await take(iterator, 2)).toEqual([1, 2]);
    expectOverflow(await rejectionOf(iterator.next()), 2);
    expect(await iterator.next()).toEqual(DONE);
  });

  it('ends the concurrent next() calls after the one that gets the overflow error with done', async () => {
    const pubsub = createPubSub({ bufferSize: 1 });
    const iterator = pubsub.subscribe('ticks');
    for (const n of [1, 2]) await pubsub.publish('ticks', n);
    const [first, second, third] = [iterator.next(), iterator.next(), iterator.next()];
    expect(await first).toEqual({ value: 1, done: false });
    expectOverflow(await rejectionOf(second), 1);
    expect(await third).toEqual(DONE);
  });

  it('keeps the other subscribers of the topic receiving when one overflows', async () => {
    const pubsub = createPubSub({ bufferSize: 1 });
    const slow = pubsub.subscribe('ticks');
    const fast = pubsub.subscribe<number>('ticks');
    const seen: number[] = [];
    for (const n of [1, 2, 3]) {
      await pubsub.publish('ticks', n);
      seen.push(...(await take(fast, 1)));
    }
    expect(seen).toEqual([1, 2, 3]);
    expect(pubsub.subscriberCount('ticks')).toBe(1);
    expect(await take(slow, 1)).toEqual([1]);
    await pubsub.close();
  });

  it("takes subscribe's bufferSize over the pub/sub's", async () => {
    const pubsub = createPubSub({ bufferSize: 1 });
    const iterator = pubsub.subscribe('ticks', { bufferSize: 3 });
    for (const n of [1, 2, 3, 4]) await pubsub.publish('ticks', n);
    expect(await take(iterator, 3)).toEqual([1, 2, 3]);
    expectOverflow(await rejectionOf(iterator.next()), 3);
  });

  it('keeps 1,000 undelivered events by default', async () => {
    const pubsub = createPubSub();
    const iterator = pubsub.subscribe('ticks');
    for (let n = 0; n < 1000; n += 1) await pubsub.publish('ticks', n);
    expect(pubsub.subscriberCount('ticks')).toBe(1);
    await pubsub.publish('ticks', 1000);
    expect(pubsub.subscriberCount('ticks')).toBe(0);
    expect((await take(iterator, 1000)).at(-1)).toBe(999);
    expectOverflow(await rejectionOf(iterator.next()), 1000);
  });
});

describe('createPubSub: filter', () => {
  it('runs a synchronous filter at publish time, and a rejected payload never takes buffer space', async () => {
    const pubsub = createPubSub({ bufferSize: 2 });
    const calls: number[] = [];
    const iterator = pubsub.subscribe<number>('ticks', {
      filter: (n) => {
        calls.push(n);
        return n % 2 === 0;
      },
    });
    for (let n = 1; n <= 5; n += 1) await pubsub.publish('ticks', n);
    expect(calls).toEqual([1, 2, 3, 4, 5]);
    expect(pubsub.subscriberCount('ticks')).toBe(1);
    expect(await take(iterator, 2)).toEqual([2, 4]);
    await pubsub.close();
  });

  it('delivers in publication order through an async filter whose later verdicts settle first', async () => {
    const pubsub = createPubSub();
    const verdicts = new Map<number, (accepted: boolean) => void>();
    const iterator = pubsub.subscribe<number>('ticks', {
      filter: (n) => new Promise<boolean>((resolve) => verdicts.set(n, resolve)),
    });
    for (const n of [1, 2, 3, 4]) await pubsub.publish('ticks', n);
    const results = [iterator.next(), iterator.next(), iterator.next()];
    verdicts.get(4)!(true);
    verdicts.get(3)!(true);
    verdicts.get(2)!(false);
    expect(await settledState(results[0]!)).toBe(PENDING);
    verdicts.get(1)!(true);
    expect(await Promise.all(results)).toEqual([
      { value: 1, done: false },
      { value: 3, done: false },
      { value: 4, done: false },
    ]);
    await pubsub.close();
  });

  it('counts events whose async verdict is pending against bufferSize', async () => {
    const pubsub = createPubSub({ bufferSize: 2 });
    const iterator = pubsub.subscribe('ticks', { filter: () => new Promise<boolean>(() => {}) });
    for (const n of [1, 2, 3]) await pubsub.publish('ticks', n);
    expect(pubsub.subscriberCount('ticks')).toBe(0);
    expect(await settledState(iterator.next())).toBe(PENDING);
    await iterator.return();
  });

  it('rejects next() with the error a synchronous filter threw, after the payloads before it, then is done; the subscriber leaves at once', async () => {
    const pubsub = createPubSub();
    const failure = new Error('no third tick');
    const iterator = pubsub.subscribe<number>('ticks', {
      filter: (n) => {
        if (n === 3) throw failure;
        return true;
      },
    });
    for (const n of [1, 2, 3]) await pubsub.publish('ticks', n);
    expect(pubsub.subscriberCount('ticks')).toBe(0);
    await pubsub.publish('ticks', 4);
    expect(await take(iterator, 2)).toEqual([1, 2]);
    expect(await rejectionOf(iterator.next())).toBe(failure);
    expect(await iterator.next()).toEqual(DONE);
  });

  it('rejects next() with the error an async filter rejected with, in publication order, and drops the events after it', async () => {
    const pubsub = createPubSub();
    const failure = new Error('no second tick');
    const iterator = pubsub.subscribe<number>('ticks', {
      filter: async (n) => {
        await nextMacrotask();
        if (n === 2) throw failure;
        return true;
      },
    });
    for (const n of [1, 2, 3]) await pubsub.publish('ticks', n);
    expect(await take(iterator, 1)).toEqual([1]);
    expect(await rejectionOf(iterator.next())).toBe(failure);
    expect(await iterator.next()).toEqual(DONE);
    expect(pubsub.subscriberCount('ticks')).toBe(0);
  });
});

describe('createPubSub: options and misuse', () => {
  it.each([
    ['0', 0],
    ['-1', -1],
    ['1.5', 1.5],
    ['NaN', Number.NaN],
    ['Infinity', Number.POSITIVE_INFINITY],
    ['"10"', '10'],
    ['null', null],
  ])('refuses bufferSize %s in createPubSub and in subscribe', (shown, bufferSize) => {
    expectTypeError(
      () => createPubSub({ bufferSize: bufferSize as number }),
      `createPubSub: bufferSize must be a positive whole number, got ${shown}.`,
    );
    expectTypeError(
      () => createPubSub().subscribe('ticks', { bufferSize: bufferSize as number }),
      `subscribe("ticks"): bufferSize must be a positive whole number, got ${shown}.`,
    );
  });

  it('refuses unknown options and options that are not an object', () => {
    expectTypeError(() => createPubSub({ size: 3 } as never), 'createPubSub: unknown option "size"; expected bufferSize.');
    expectTypeError(() => createPubSub(3 as never), 'createPubSub: options must be an object, got a number.');
    expectTypeError(
      () => createPubSub().subscribe('ticks', { filters: [] } as never),
      'subscribe("ticks"): unknown option "filters"; expected filter or bufferSize.',
    );
  });

  it('refuses a filter that is not a function', () => {
    expectTypeError(
      () => createPubSub().subscribe('ticks', { filter: 'even' as never }),
      'subscribe("ticks"): filter must be a function, got a string.',
    );
  });

  it('refuses a topic that is not a string: subscribe throws, publish rejects', async () => {
    const pubsub = createPubSub();
    expectTypeError(() => pubsub.subscribe(42 as never), 'subscribe: topic must be a string, got a number.');
    const rejection = await rejectionOf(pubsub.publish(undefined as never, 1));
    expect(rejection).toBeInstanceOf(TypeError);
    expect((rejection as TypeError).message).toBe('publish: topic must be a string, got undefined.');
  });
});

// ---------------------------------------------------------------------------------------------
// The law, over random interleavings. A script creates subscribers (on one of three topics, with
// a small bufferSize and maybe a filter), publishes the next whole number to a topic, calls next()
// without awaiting it, and returns subscribers. At the end each subscriber reads what it still
// holds and is returned. A model that knows only the contract says what every next() call must
// settle to.

type Op =
  | { kind: 'subscribe'; topic: number; bufferSize: number; modulo: number | null }
  | { kind: 'publish'; topic: number }
  | { kind: 'next'; subscriber: number }
  | { kind: 'return'; subscriber: number };

const arbitraryOp: fc.Arbitrary<Op> = fc.oneof(
  fc.record({
    kind: fc.constant('subscribe' as const),
    topic: fc.integer({ min: 0, max: 2 }),
    bufferSize: fc.integer({ min: 1, max: 3 }),
    modulo: fc.constantFrom(null, 2, 3),
  }),
  { arbitrary: fc.record({ kind: fc.constant('publish' as const), topic: fc.integer({ min: 0, max: 2 }) }), weight: 3 },
  { arbitrary: fc.record({ kind: fc.constant('next' as const), subscriber: fc.nat() }), weight: 3 },
  fc.record({ kind: fc.constant('return' as const), subscriber: fc.nat() }),
);

type Outcome = { value: number } | 'done' | 'overflow';

/** A subscriber as the contract describes it. */
interface ModelSubscriber {
  topic: string;
  bufferSize: number;
  accepts: (n: number) => boolean;
  live: boolean;
  finished: boolean;
  overflowed: boolean;
  buffered: number[];
  /** Indices of next() calls waiting for an event. */
  waiting: number[];
  /** Payloads published to its topic, accepted by its filter, while it was subscribed. */
  window: number[];
  /** Indices of its next() calls, in call order. */
  calls: number[];
  /** return() was called before the end of the script. */
  returned: boolean;
}

function nextOutcome(subscriber: ModelSubscriber, call: number, expected: Outcome[]): void {
  subscriber.calls.push(call);
  if (subscriber.finished) {
    expected[call] = 'done';
  } else if (subscriber.buffered.length > 0) {
    expected[call] = { value: subscriber.buffered.shift()! };
  } else if (subscriber.live) {
    subscriber.waiting.push(call);
  } else {
    subscriber.finished = true;
    expected[call] = subscriber.overflowed ? 'overflow' : 'done';
  }
}

async function runScript(ops: Op[]): Promise<string | undefined> {
  const pubsub = createPubSub();
  const iterators: PubSubIterator<number>[] = [];
  const model: ModelSubscriber[] = [];
  const calls: Promise<IteratorResult<number, undefined>>[] = [];
  const expected: Outcome[] = [];
  /** For each subscriber, its next() calls in the order they settled. */
  const settledOrder: number[][] = [];
  let published = 0;

  const callNext = (index: number): void => {
    const call = calls.length;
    const promise = iterators[index]!.next();
    promise.then(
      () => settledOrder[index]!.push(call),
      () => settledOrder[index]!.push(call),
    );
    calls.push(promise);
    nextOutcome(model[index]!, call, expected);
  };

  for (const op of ops) {
    if (op.kind === 'subscribe') {
      const accepts = op.modulo === null ? () => true : (n: number) => n % op.modulo! !== 0;
      iterators.push(pubsub.subscribe<number>(`t${op.topic}`, { bufferSize: op.bufferSize, filter: accepts }));
      settledOrder.push([]);
      model.push({
        topic: `t${op.topic}`,
        bufferSize: op.bufferSize,
        accepts,
        live: true,
        finished: false,
        overflowed: false,
        buffered: [],
        waiting: [],
        window: [],
        calls: [],
        returned: false,
      });
    } else if (op.kind === 'publish') {
      const payload = (published += 1);
      await pubsub.publish(`t${op.topic}`, payload);
      for (const subscriber of model) {
        if (!subscriber.live || subscriber.topic !== `t${op.topic}` || !subscriber.accepts(payload)) continue;
        if (subscriber.waiting.length > 0) {
          expected[subscriber.waiting.shift()!] = { value: payload };
        } else if (subscriber.buffered.length < subscriber.bufferSize) {
          subscriber.buffered.push(payload);
        } else {
          subscriber.live = false;
          subscriber.overflowed = true;
          continue;
        }
        subscriber.window.push(payload);
      }
    } else if (model.length > 0) {
      const index = op.subscriber % model.length;
      if (op.kind === 'next') {
        callNext(index);
      } else {
        void iterators[index]!.return();
        const subscriber = model[index]!;
        subscriber.returned = true;
        if (!subscriber.finished) {
          subscriber.live = false;
          subscriber.finished = true;
          subscriber.buffered = [];
          for (const call of subscriber.waiting.splice(0)) expected[call] = 'done';
        }
      }
    }
    for (const topic of ['t0', 't1', 't2']) {
      const live = model.filter((subscriber) => subscriber.live && subscriber.topic === topic).length;
      if (pubsub.subscriberCount(topic) !== live) return `subscriberCount("${topic}") is ${pubsub.subscriberCount(topic)}, expected ${live}`;
    }
  }

  // Drain: every subscriber reads what it still holds, and its ending if it has one.
  model.forEach((subscriber, index) => {
    while (subscriber.buffered.length > 0 || (!subscriber.live && !subscriber.finished)) callNext(index);
  });
  for (const iterator of iterators) await iterator.return();
  for (const subscriber of model) for (const call of subscriber.waiting.splice(0)) expected[call] = 'done';
  if (pubsub.topicCount() !== 0) return `${pubsub.topicCount()} topics left after every subscriber returned`;

  const outcomes = await Promise.allSettled(calls);
  for (let call = 0; call < calls.length; call += 1) {
    const outcome = outcomes[call]!;
    const actual: Outcome | string =
      outcome.status === 'rejected'
        ? (outcome.reason as GraphQLError).extensions?.['code'] === SUBSCRIPTION_OVERFLOW
          ? 'overflow'
          : `a rejection: ${String(outcome.reason)}`
        : outcome.value.done === true
          ? 'done'
          : { value: outcome.value.value };
    if (JSON.stringify(actual) !== JSON.stringify(expected[call])) {
      return `next() call #${call} settled to ${JSON.stringify(actual)}, expected ${JSON.stringify(expected[call])}`;
    }
  }
  for (const [index, subscriber] of model.entries()) {
    // The law itself: what a subscriber received is what was published to its topic while it
    // was subscribed, in order, and all of it unless it returned early or overflowed.
    const received = subscriber.calls.flatMap((call) => {
      const outcome = outcomes[call]!;
      return outcome.status === 'fulfilled' && outcome.value.done !== true ? [outcome.value.value] : [];
    });
    if (JSON.stringify(received) !== JSON.stringify(subscriber.window.slice(0, received.length))) {
      return `subscriber #${index} received ${JSON.stringify(received)}, not a prefix of ${JSON.stringify(subscriber.window)}`;
    }
    if (!subscriber.returned && received.length !== subscriber.window.length) {
      return `subscriber #${index} lost events: received ${JSON.stringify(received)} of ${JSON.stringify(subscriber.window)}`;
    }
    const order = settledOrder[index]!;
    if (JSON.stringify(order) !== JSON.stringify([...order].sort((a, b) => a - b))) {
      return `subscriber #${index}'s next() calls settled in the order ${JSON.stringify(order)}`;
    }
  }
  return undefined;
}

describe('createPubSub: the law', () => {
  it('gives every subscriber exactly the payloads published to its topic while it was subscribed, in order, none lost unless it overflowed, for random interleavings', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(arbitraryOp, { maxLength: 80, size: 'max' }), async (ops) => {
        const failure = await runScript(ops);
        if (failure !== undefined) throw new Error(failure);
      }),
      {
        numRuns: RUNS,
        ...(SEED === undefined ? {} : { seed: SEED }),
        ...(PATH === undefined ? {} : { path: PATH }),
      },
    );
  });
});
