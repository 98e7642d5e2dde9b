/**
 * Shared subscriptions (src/server/sharedSubscriptions.ts): subscribers of the same operation
 * with the same variables and identity share one source stream and one execution per event.
 * Through the pipeline (createPipeline().run with streams), and the groups on their own for
 * what only they can show (buffers, overflow, ends).
 */
import type { ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ANONYMOUS, apiKeyAuth, createPipeline, createPubSub, hashApiKey, makeSchema } from '../src/index.ts';
import type { Identity, OperationOutcome, OperationRequest } from '../src/index.ts';
import { SubscriptionGroups } from '../src/server/sharedSubscriptions.ts';
import type { Started } from '../src/server/sharedSubscriptions.ts';

/** A schema whose subscription counts its subscribe calls and its per-event executions. */
function countingSetup(shareSubscriptions?: boolean) {
  const events = createPubSub();
  const counts = { subscribed: 0, executed: 0 };
  const schema = makeSchema({
    typeDefs: 'type Query { ok: Boolean } type Subscription { tick(room: String!): Int! }',
    resolvers: {
      Subscription: {
        tick: {
          subscribe: (_: unknown, { room }: { room: string }) => {
            counts.subscribed += 1;
            return events.subscribe(`tick:${room}`);
          },
          resolve: (value: number) => {
            counts.executed += 1;
            return value;
          },
        },
      },
    },
  });
  const keys = ['key-a', 'key-b'].map((key) => ({ id: key, hash: hashApiKey(key) }));
  const pipeline = createPipeline({ schema, reportCost: false, shareSubscriptions, authenticate: [apiKeyAuth({ keys })] });
  return { events, counts, pipeline };
}

function request(room: string, identity: Identity = ANONYMOUS): OperationRequest<null> {
  return {
    params: { query: 'subscription ($room: String!) { tick(room: $room) }', operationName: null, variables: { room } },
    identity,
    raw: null,
    readOnly: false,
    streams: true,
  };
}

async function streamOf(outcome: OperationOutcome | Promise<OperationOutcome>): Promise<AsyncGenerator<ExecutionResult, void, void>> {
  const settled = await outcome;
  if (settled.kind !== 'stream') throw new Error(`Expected a stream, got ${JSON.stringify(settled)}`);
  return settled.stream;
}

describe('shared subscriptions through the pipeline', () => {
  it('gives subscribers of one operation, variables and identity one source and one execution per event, and every one the same result', async () => {
    const { events, counts, pipeline } = countingSetup();
    const streams = await Promise.all([1, 2, 3].map(() => streamOf(pipeline.run(request('lobby')))));
    expect(counts.subscribed).toBe(1);
    expect(events.subscriberCount('tick:lobby')).toBe(1);
    await events.publish('tick:lobby', 7);
    const results = await Promise.all(streams.map((stream) => stream.next()));
    expect(results.map((step) => step.value)).toEqual([1, 2, 3].map(() => ({ data: { tick: 7 } })));
    expect(results[1]?.value).toBe(results[0]?.value);
    expect(counts.executed).toBe(1);
  });

  it('gives subscribers with other variables, or another identity, sources of their own', async () => {
    const { events, counts, pipeline } = countingSetup();
    const a = (await pipeline.authenticate({ 'x-api-key': 'key-a' })) as Identity;
    const b = (await pipeline.authenticate({ 'x-api-key': 'key-b' })) as Identity;
    await Promise.all([request('lobby'), request('attic'), request('lobby', a), request('lobby', b)].map((each) => streamOf(pipeline.run(each))));
    expect(counts.subscribed).toBe(4);
    expect(events.subscriberCount('tick:lobby')).toBe(3);
    expect(events.subscriberCount('tick:attic')).toBe(1);
  });

  it('keeps the source while any member remains, and closes it when the last one leaves', async () => {
    const { events, pipeline } = countingSetup();
    const [first, second] = await Promise.all([1, 2].map(() => streamOf(pipeline.run(request('lobby')))));
    await first?.return();
    expect(events.subscriberCount('tick:lobby')).toBe(1);
    await events.publish('tick:lobby', 1);
    expect(await second?.next()).toEqual({ value: { data: { tick: 1 } }, done: false });
    await second?.return();
    expect(events.subscriberCount('tick:lobby')).toBe(0);
  });

  it('starts a new source for a subscriber who comes after the last member left', async () => {
    const { counts, events, pipeline } = countingSetup();
    const first = await streamOf(pipeline.run(request('lobby')));
    await first.return();
    const again = await streamOf(pipeline.run(request('lobby')));
    expect(counts.subscribed).toBe(2);
    await events.publish('tick:lobby', 3);
    expect(await again.next()).toEqual({ value: { data: { tick: 3 } }, done: false });
  });

  it('gives every subscriber a source of its own with shareSubscriptions: false', async () => {
    const { counts, events, pipeline } = countingSetup(false);
    await Promise.all([1, 2, 3].map(() => streamOf(pipeline.run(request('lobby')))));
    expect(counts.subscribed).toBe(3);
    expect(events.subscriberCount('tick:lobby')).toBe(3);
  });
});

/** A controllable source: results are pushed by the test; it records being closed. */
function source() {
  const pending: Array<(step: IteratorResult<ExecutionResult, void>) => void> = [];
  const failures: Array<(error: unknown) => void> = [];
  let closed = 0;
  const stream = {
    next: () =>
      new Promise<IteratorResult<ExecutionResult, void>>((resolve, reject) => {
        pending.push(resolve);
        failures.push(reject);
      }),
    return: () => {
      closed += 1;
      pending.shift()?.({ value: undefined, done: true });
      return Promise.resolve({ value: undefined, done: true as const });
    },
    [Symbol.asyncIterator]() {
      return stream;
    },
  } as unknown as AsyncGenerator<ExecutionResult, void, void>;
  const settle = async () => {
    for (let i = 0; i < 5; i++) await Promise.resolve();
  };
  return {
    stream,
    get closed() {
      return closed;
    },
    async emit(value: number) {
      await settle();
      failures.shift();
      pending.shift()?.({ value: { data: { n: value } }, done: false });
      await settle();
    },
    async end() {
      await settle();
      failures.shift();
      pending.shift()?.({ value: undefined, done: true });
      await settle();
    },
    async fail(error: unknown) {
      await settle();
      pending.shift();
      failures.shift()?.(error);
      await settle();
    },
  };
}

async function joined(groups: SubscriptionGroups, start: () => Promise<Started>): Promise<AsyncGenerator<ExecutionResult, void, void>> {
  const started = await groups.join(PLAN, ANONYMOUS, '', start);
  if (started.kind !== 'stream') throw new Error('Expected a stream.');
  return started.stream;
}

const PLAN = {};

describe('subscription groups', () => {
  it('starts a group once for subscribers who join before it has started', async () => {
    const groups = new SubscriptionGroups(10);
    const feed = source();
    let starts = 0;
    const start = async () => {
      starts += 1;
      return { kind: 'stream' as const, stream: feed.stream };
    };
    const [a, b] = await Promise.all([joined(groups, start), joined(groups, start)]);
    expect(starts).toBe(1);
    await feed.emit(1);
    expect(await a.next()).toEqual({ value: { data: { n: 1 } }, done: false });
    expect(await b.next()).toEqual({ value: { data: { n: 1 } }, done: false });
  });

  it('hands every waiting subscriber the errors a start gave, and lets the next subscriber start again', async () => {
    const groups = new SubscriptionGroups(10);
    let starts = 0;
    const refused = { kind: 'result' as const, result: { errors: [] }, requestError: true };
    const start = async () => {
      starts += 1;
      return refused;
    };
    const answers = await Promise.all([groups.join(PLAN, ANONYMOUS, '', start), groups.join(PLAN, ANONYMOUS, '', start)]);
    expect(answers).toEqual([refused, refused]);
    await groups.join(PLAN, ANONYMOUS, '', start);
    expect(starts).toBe(2);
  });

  it('completes every member, after what each holds, when the source ends', async () => {
    const groups = new SubscriptionGroups(10);
    const feed = source();
    const start = async () => ({ kind: 'stream' as const, stream: feed.stream });
    const [a, b] = await Promise.all([joined(groups, start), joined(groups, start)]);
    await feed.emit(1);
    await feed.end();
    expect(await a.next()).toEqual({ value: { data: { n: 1 } }, done: false });
    expect(await a.next()).toEqual({ value: undefined, done: true });
    expect(await b.next()).toEqual({ value: { data: { n: 1 } }, done: false });
    expect(await b.next()).toEqual({ value: undefined, done: true });
  });

  it("gives every member the source's error after what it holds, then done", async () => {
    const groups = new SubscriptionGroups(10);
    const feed = source();
    const start = async () => ({ kind: 'stream' as const, stream: feed.stream });
    const [a, b] = await Promise.all([joined(groups, start), joined(groups, start)]);
    const broken = new Error('The feed broke.');
    await feed.emit(1);
    await feed.fail(broken);
    for (const member of [a, b]) {
      expect(await member.next()).toEqual({ value: { data: { n: 1 } }, done: false });
      await expect(member.next()).rejects.toBe(broken);
      expect(await member.next()).toEqual({ value: undefined, done: true });
    }
  });

  it('ends a member that falls more than bufferSize results behind with SUBSCRIPTION_OVERFLOW, after what it holds, and keeps the others', async () => {
    const groups = new SubscriptionGroups(2);
    const feed = source();
    const start = async () => ({ kind: 'stream' as const, stream: feed.stream });
    const [slow, quick] = await Promise.all([joined(groups, start), joined(groups, start)]);
    for (const n of [1, 2, 3]) {
      await feed.emit(n);
      expect(await quick.next()).toEqual({ value: { data: { n } }, done: false });
    }
    expect(await slow.next()).toEqual({ value: { data: { n: 1 } }, done: false });
    expect(await slow.next()).toEqual({ value: { data: { n: 2 } }, done: false });
    await expect(slow.next()).rejects.toMatchObject({
      message: 'The subscriber fell more than 2 events behind and was closed.',
      extensions: { code: 'SUBSCRIPTION_OVERFLOW' },
    });
    expect(await slow.next()).toEqual({ value: undefined, done: true });
    await feed.emit(4);
    expect(await quick.next()).toEqual({ value: { data: { n: 4 } }, done: false });
    expect(feed.closed).toBe(0);
  });

  it('closes the source once its last member has left, and resolves a waiting next() with done', async () => {
    const groups = new SubscriptionGroups(10);
    const feed = source();
    const start = async () => ({ kind: 'stream' as const, stream: feed.stream });
    const [a, b] = await Promise.all([joined(groups, start), joined(groups, start)]);
    const waiting = a.next();
    await a.return();
    expect(await waiting).toEqual({ value: undefined, done: true });
    expect(feed.closed).toBe(0);
    await b.return();
    expect(feed.closed).toBe(1);
  });
});
