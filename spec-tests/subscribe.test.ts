/**
 * subscribe and createSourceEventStream (spec 6.2.3 "Subscription") against the installed
 * graphql-js's (16 or 17), on the same schema, the same document and the same sequence of events.
 *
 * Each case runs under both engines and compares what a subscriber sees, step by step: what
 * `subscribe` settled to (a stream, an ExecutionResult, a rejection), then every `next()` of the
 * stream (each result as it goes over the wire: data, and every error's message, locations, path
 * and extensions, in order), up to `done`. Most cases also pin graphql-js's answer down, so that a
 * reader sees what the behaviour is and not only that the two agree.
 *
 * Where the two engines deliberately differ (variables are coerced once per subscription here,
 * once more per event there) the test says so in its name.
 */
import * as graphqlJs from 'graphql';
import {
  GraphQLError,
  GraphQLScalarType,
  createSourceEventStream as graphqlJsCreate,
  parse,
  subscribe as graphqlJsSubscribe,
} from 'graphql';
import type { DocumentNode, ExecutionResult, GraphQLResolveInfo } from 'graphql';
import { describe, expect, it } from 'vitest';
import { ANONYMOUS, accessFor, createSourceEventStream, execute, makeIdentity, makeSchema, subscribe } from '../src/index.ts';
import type { SubscribeArgs } from '../src/index.ts';
import { isAsyncIterable, thrown, transcript as pullAll, wire } from './support/transcript.ts';
import type { Step, SubscribeFn, Thrown, WireResult } from './support/transcript.ts';
import { GRAPHQL_MAJOR, byMajor } from './support/graphqlMajor.ts';
import { OperationPlan, planOperation } from '../src/execution/plan.ts';
import { subscribePlan } from '../src/execution/subscribe.ts';

// ---------------------------------------------------------------------------------------------
// Running one subscription under both engines
// ---------------------------------------------------------------------------------------------

type CreateFn = (args: SubscribeArgs) => Promise<AsyncIterable<unknown> | ExecutionResult>;

interface Engine {
  readonly name: 'graphql-js' | 'ours';
  readonly subscribe: SubscribeFn;
  readonly createSourceEventStream: CreateFn;
}

/**
 * graphql-js's createSourceEventStream, given subscribe's arguments: graphql 16 takes them as
 * they are; graphql 17 takes what its validateSubscriptionArgs makes of them (or its errors).
 */
const graphqlJsCreateFromArguments: CreateFn = byMajor<CreateFn>({
  16: graphqlJsCreate as unknown as CreateFn,
  17: async (args) => {
    const { validateSubscriptionArgs } = graphqlJs as unknown as { validateSubscriptionArgs: (args: SubscribeArgs) => ReadonlyArray<GraphQLError> | object };
    const validated = validateSubscriptionArgs(args);
    return Array.isArray(validated) ? { errors: validated } : (graphqlJsCreate as unknown as (validated: object) => Promise<AsyncIterable<unknown> | ExecutionResult>)(validated);
  },
});

const GRAPHQL_JS: Engine = { name: 'graphql-js', subscribe: graphqlJsSubscribe as unknown as SubscribeFn, createSourceEventStream: graphqlJsCreateFromArguments };
const OURS: Engine = { name: 'ours', subscribe, createSourceEventStream };

/** More steps than any case here takes: a stream that does not end is cut off, not waited on forever. */
const MAX_STEPS = 20;

/** Subscribes with the engine, then pulls every event (see support/transcript.ts). */
function transcript(engine: Engine, args: SubscribeArgs): Promise<Step[]> {
  return pullAll(engine.subscribe, args, MAX_STEPS);
}

/**
 * The same subscription under graphql-js and under ours. `makeArgs` is called once per engine,
 * so each gets fresh event sources and counters.
 */
async function bothTranscripts(makeArgs: () => SubscribeArgs): Promise<{ expected: Step[]; actual: Step[] }> {
  const expected = await transcript(GRAPHQL_JS, makeArgs());
  const actual = await transcript(OURS, makeArgs());
  return { expected, actual };
}

/** Runs a scenario under each engine; what it returns is compared by the caller. */
async function onBoth<T>(scenario: (engine: Engine) => Promise<T>): Promise<{ expected: T; actual: T }> {
  const expected = await scenario(GRAPHQL_JS);
  const actual = await scenario(OURS);
  return { expected, actual };
}

// ---------------------------------------------------------------------------------------------
// The schema and its event sources
// ---------------------------------------------------------------------------------------------

interface EventRecord {
  id: string;
  text?: string | null;
  required?: string | null;
}

/**
 * A source of events, the way a publisher hands them out: the payloads in order, then the end
 * (or `failure`, once). Closing it (`return()`, `throw()`, or reaching the end) runs its clean-up
 * once, as unsubscribing from a topic would, and `cleanups` counts that.
 */
class Feed implements AsyncIterableIterator<unknown> {
  readonly payloads: ReadonlyArray<unknown>;
  /** How many times the source was cleaned up (at most once). */
  cleanups = 0;
  /** How many payloads it has handed out. */
  pulled = 0;
  /** How many times its `return()` was called. */
  returnCalls = 0;
  /** What `throw()` passed in, when it was called. */
  thrownIn: unknown = undefined;
  /** An error the source rejects with once the payloads are out; none: the source just ends. */
  readonly failure: Error | undefined;
  private closed = false;

  constructor(payloads: ReadonlyArray<unknown>, failure?: Error) {
    this.payloads = payloads;
    this.failure = failure;
  }

  async next(): Promise<IteratorResult<unknown>> {
    if (this.closed) return { value: undefined, done: true };
    if (this.pulled < this.payloads.length) return { value: this.payloads[this.pulled++], done: false };
    this.close();
    if (this.failure !== undefined) throw this.failure;
    return { value: undefined, done: true };
  }

  async return(): Promise<IteratorResult<unknown>> {
    this.returnCalls += 1;
    this.close();
    return { value: undefined, done: true };
  }

  async throw(error: unknown): Promise<IteratorResult<unknown>> {
    this.thrownIn = error;
    this.close();
    throw error;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }

  private close(): void {
    if (this.closed) return;
    this.closed = true;
    this.cleanups += 1;
  }
}

interface Context {
  feed: Feed;
  /** How many times a resolver of Event.secret ran (the access test). */
  secretReads?: number;
}

/** Counts the calls of Stamp's parseValue, the custom scalar that shows when variables are coerced. */
let stampParses = 0;

const Stamp = new GraphQLScalarType({
  name: 'Stamp',
  serialize: (value) => value,
  parseValue: (value) => {
    stampParses += 1;
    if (typeof value !== 'string') throw new TypeError(`Stamp expects a string, got ${typeof value}.`);
    return `stamp:${value}`;
  },
});

const typeDefs = /* GraphQL */ `
  scalar Stamp

  input Filter {
    topic: String!
    minimum: Int = 0
  }

  type Query {
    noop: String
  }

  type Event {
    id: ID!
    text: String
    "Throws, naming the event."
    failing: String
    "Rejects, naming the event."
    rejecting: String
    "Resolves, after a few microtasks, to the text."
    later: String
    "The payload's own \`required\`: null makes the whole event null."
    required: String!
  }

  type Subscription {
    "The payload's \`event\`, through a resolver."
    events(topic: String): Event
    "The payload's \`event\`, through a resolver that returns a promise of it."
    asyncEvents: Event
    "Read off the payload by the default resolver (the field has no resolve)."
    plain: Event
    "A non-null root field: an event without one makes data null."
    required: Event!
    "The payload times n."
    count(n: Int!): Int
    "The payload, stamped with the variable's coerced value."
    stamped(at: Stamp!): String
    "Filtered by an input object."
    filtered(filter: Filter!): String
    "Adds the payload to the filter's minimum, in the arguments object it was given, and returns the sum."
    tally(filter: Filter!): Int
    "Has neither subscribe nor resolve: subscribeFieldResolver (or the default resolver on the root value) makes its stream."
    greeting: String
    "The subscribe resolver misbehaves as told."
    broken(how: String!): String
    "Its subscribe resolver records the arguments and info it was called with."
    inspected(limit: Int): String
  }
`;

/** What `Subscription.inspected`'s subscribe resolver saw, per engine. */
let inspectedCall: { rootValue: unknown; args: unknown; contextIsTheContext: boolean; infoKeys: string[]; path: string; fieldName: string; variableValues: unknown } | undefined;

const feedOf = (_root: unknown, _args: unknown, context: Context) => context.feed;

const schema = makeSchema({
  typeDefs,
  resolvers: {
    Stamp,
    Event: {
      failing: (event: EventRecord) => {
        throw new Error(`Event ${event.id} fails.`);
      },
      rejecting: (event: EventRecord) => Promise.reject(new Error(`Event ${event.id} rejects.`)),
      later: async (event: EventRecord) => {
        await Promise.resolve();
        await Promise.resolve();
        return event.text;
      },
    },
    Subscription: {
      events: { subscribe: feedOf, resolve: (payload: { event: EventRecord }) => payload.event },
      asyncEvents: { subscribe: feedOf, resolve: (payload: { event: EventRecord }) => Promise.resolve(payload.event) },
      plain: { subscribe: feedOf },
      required: { subscribe: feedOf, resolve: (payload: { event: EventRecord | null }) => payload.event },
      count: { subscribe: feedOf, resolve: (payload: number, args: { n: number }) => payload * args.n },
      stamped: { subscribe: feedOf, resolve: (payload: string, args: { at: string }) => `${payload} (${args.at})` },
      filtered: {
        subscribe: feedOf,
        resolve: (payload: string, args: { filter: { topic: string; minimum: number } }) =>
          `${args.filter.topic}>=${args.filter.minimum}: ${payload}`,
      },
      tally: {
        subscribe: feedOf,
        resolve: (payload: number, args: { filter: { minimum: number } }) => {
          args.filter.minimum += payload;
          return args.filter.minimum;
        },
      },
      broken: {
        subscribe: (_root: unknown, args: { how: string }) => brokenStream(args.how),
      },
      inspected: {
        subscribe: (rootValue: unknown, args: unknown, context: Context, info: GraphQLResolveInfo) => {
          inspectedCall = {
            rootValue,
            args: { ...(args as object) },
            contextIsTheContext: context !== undefined && context.feed instanceof Feed,
            infoKeys: Object.keys(info),
            path: JSON.stringify(info.path),
            fieldName: info.fieldName,
            variableValues: info.variableValues,
          };
          return context.feed;
        },
        resolve: (payload: string) => payload,
      },
    },
  },
});

/** What `Subscription.broken`'s subscribe resolver does for each `how`. */
function brokenStream(how: string): unknown {
  switch (how) {
    case 'throws':
      throw new Error('The source could not be reached.');
    case 'throwsGraphQLError':
      throw new GraphQLError('The topic is closed.', { extensions: { code: 'TOPIC_CLOSED' } });
    case 'throwsString':
      throw 'not an Error';
    case 'rejects':
      return Promise.reject(new Error('The source refused the subscription.'));
    case 'returnsError':
      return new Error('The source answered with an error.');
    case 'returnsObject':
      return { events: [] };
    case 'returnsString':
      return 'events';
    case 'returnsUndefined':
      return undefined;
    case 'returnsArray':
      return [1, 2];
    case 'resolvesToObject':
      return Promise.resolve({ not: 'iterable' });
    default:
      throw new TypeError(`brokenStream: unknown how "${how}".`);
  }
}

function context(payloads: ReadonlyArray<unknown>, failure?: Error): Context {
  return { feed: new Feed(payloads, failure) };
}

const event = (id: string, text: string | null = `text ${id}`, required: string | null = `required ${id}`): EventRecord => ({
  id,
  text,
  required,
});

// ---------------------------------------------------------------------------------------------
// The tests
// ---------------------------------------------------------------------------------------------

describe('subscribe: a subscription streams one result per event, as graphql-js does', () => {
  it("applies the root field's resolve to each payload of the stream its subscribe resolver returns", async () => {
    const document = parse('subscription { events { id text } }');
    const payloads = [{ event: event('1') }, { event: event('2', null) }, { event: event('3') }];
    const { expected, actual } = await bothTranscripts(() => ({ schema, document, contextValue: context(payloads) }));
    expect(actual).toEqual(expected);
    expect(expected).toEqual([
      { subscribed: 'stream' },
      { next: { data: { events: { id: '1', text: 'text 1' } } } },
      { next: { data: { events: { id: '2', text: null } } } },
      { next: { data: { events: { id: '3', text: 'text 3' } } } },
      { done: true },
    ]);
  });

  it('reads the root field off each payload with the default resolver when the field has no resolve', async () => {
    const document = parse('subscription { plain { id text } }');
    const payloads = [{ plain: event('1') }, { plain: null }, {}, { plain: () => event('4') }];
    const { expected, actual } = await bothTranscripts(() => ({ schema, document, contextValue: context(payloads) }));
    expect(actual).toEqual(expected);
    expect(expected).toEqual([
      { subscribed: 'stream' },
      { next: { data: { plain: { id: '1', text: 'text 1' } } } },
      { next: { data: { plain: null } } },
      { next: { data: { plain: null } } },
      { next: { data: { plain: { id: '4', text: 'text 4' } } } },
      { done: true },
    ]);
  });

  it('ends with done at once when the source has no events', async () => {
    const document = parse('subscription { events { id } }');
    const { expected, actual } = await bothTranscripts(() => ({ schema, document, contextValue: context([]) }));
    expect(actual).toEqual(expected);
    expect(expected).toEqual([{ subscribed: 'stream' }, { done: true }]);
  });

  it('executes aliases, fragments and __typename of the subscription for every event', async () => {
    const document = parse(`
      subscription Watch {
        latest: events(topic: "news") { ...EventParts ... on Event { again: id } __typename }
      }
      fragment EventParts on Event { id text }
    `);
    const payloads = [{ event: event('1') }, { event: event('2') }];
    const { expected, actual } = await bothTranscripts(() => ({ schema, document, contextValue: context(payloads) }));
    expect(actual).toEqual(expected);
    expect(expected[1]).toEqual({ next: { data: { latest: { id: '1', text: 'text 1', again: '1', __typename: 'Event' } } } });
  });

  it("gives the subscribe resolver the root value, the coerced arguments, the context and graphql-js's info", async () => {
    const document = parse('subscription Inspect($limit: Int) { watched: inspected(limit: $limit) }');
    const { expected, actual } = await onBoth(async (engine) => {
      inspectedCall = undefined;
      await engine.subscribe({ schema, document, rootValue: { root: true }, contextValue: context([]), variableValues: { limit: 3 } });
      return inspectedCall;
    });
    expect(actual).toEqual(expected);
    expect(expected).toEqual({
      rootValue: { root: true },
      args: { limit: 3 },
      contextIsTheContext: true,
      infoKeys: [
        ...['fieldName', 'fieldNodes', 'returnType', 'parentType', 'path', 'schema', 'fragments', 'rootValue', 'operation', 'variableValues'],
        ...byMajor({ 16: [], 17: ['getAbortSignal', 'getAsyncHelpers'] }),
      ],
      path: JSON.stringify({ key: 'watched', typename: 'Subscription' }),
      fieldName: 'inspected',
      variableValues: byMajor<unknown>({ 16: { limit: 3 }, 17: { sources: { limit: expect.objectContaining({ value: 3 }) }, coerced: { limit: 3 } } }),
    });
  });
});

describe('subscribe: subscribeFieldResolver', () => {
  it('calls subscribeFieldResolver for a root field that has no subscribe resolver of its own', async () => {
    const document = parse('subscription { greeting }');
    const calls: string[] = [];
    const { expected, actual } = await bothTranscripts(() => {
      const feed = new Feed([{ greeting: 'hello' }, { greeting: 'bonjour' }]);
      return {
        schema,
        document,
        subscribeFieldResolver: (_root, _args, _context, info) => {
          calls.push(info.fieldName);
          return feed;
        },
      };
    });
    expect(actual).toEqual(expected);
    expect(calls).toEqual(['greeting', 'greeting']);
    expect(expected).toEqual([
      { subscribed: 'stream' },
      { next: { data: { greeting: 'hello' } } },
      { next: { data: { greeting: 'bonjour' } } },
      { done: true },
    ]);
  });

  it("ignores subscribeFieldResolver for a root field that has its own subscribe resolver", async () => {
    const document = parse('subscription { events { id } }');
    let calls = 0;
    const { expected, actual } = await bothTranscripts(() => ({
      schema,
      document,
      contextValue: context([{ event: event('1') }]),
      subscribeFieldResolver: () => {
        calls += 1;
        return new Feed([]);
      },
    }));
    expect(actual).toEqual(expected);
    expect(calls).toBe(0);
    expect(expected).toEqual([{ subscribed: 'stream' }, { next: { data: { events: { id: '1' } } } }, { done: true }]);
  });

  it('uses the default resolver on the root value when there is no subscribeFieldResolver', async () => {
    const document = parse('subscription { greeting }');
    const { expected, actual } = await bothTranscripts(() => {
      const feed = new Feed([{ greeting: 'hi' }]);
      return { schema, document, rootValue: { greeting: () => feed } };
    });
    expect(actual).toEqual(expected);
    expect(expected).toEqual([{ subscribed: 'stream' }, { next: { data: { greeting: 'hi' } } }, { done: true }]);
  });
});

describe('subscribe: variables', () => {
  it('coerces variables and passes them to the root field and to every event', async () => {
    const document = parse(`
      subscription ($n: Int!, $topic: String = "defaulted") {
        count(n: $n)
        events(topic: $topic) { id }
      }
    `);
    const { expected, actual } = await bothTranscripts(() => ({
      schema,
      document,
      contextValue: context([2, 5]),
      variableValues: { n: 3 },
    }));
    expect(actual).toEqual(expected);
    expect(expected[1]).toEqual({ next: { data: { count: 6, events: null } } });
  });

  it('coerces an input object variable, defaults of its fields included', async () => {
    const document = parse('subscription ($filter: Filter!) { filtered(filter: $filter) }');
    const { expected, actual } = await bothTranscripts(() => ({
      schema,
      document,
      contextValue: context(['a', 'b']),
      variableValues: { filter: { topic: 'news' } },
    }));
    expect(actual).toEqual(expected);
    expect(expected).toEqual([
      { subscribed: 'stream' },
      { next: { data: { filtered: 'news>=0: a' } } },
      { next: { data: { filtered: 'news>=0: b' } } },
      { done: true },
    ]);
  });

  it("answers invalid variables with graphql-js's request errors, and no stream", async () => {
    const document = parse('subscription ($n: Int!, $filter: Filter!) { count(n: $n) }');
    const { expected, actual } = await bothTranscripts(() => ({
      schema,
      document,
      contextValue: context([1]),
      variableValues: { n: 'three', filter: { minimum: 1.5 } },
    }));
    expect(actual).toEqual(expected);
    expect(expected).toEqual([
      {
        subscribed: 'result',
        result: {
          errors: [
            {
              message: byMajor({
                16: 'Variable "$n" got invalid value "three"; Int cannot represent non-integer value: "three"',
                17: 'Variable "$n" has invalid value: Int cannot represent non-integer value: "three"',
              }),
              locations: [{ line: 1, column: 15 }],
            },
            {
              message: byMajor({
                16: 'Variable "$filter" got invalid value { minimum: 1.5 }; Field "topic" of required type "String!" was not provided.',
                17: 'Variable "$filter" has invalid value: Expected value of type "Filter" to include required field "topic", found: { minimum: 1.5 }.',
              }),
              locations: [{ line: 1, column: 25 }],
            },
            {
              message: byMajor({
                16: 'Variable "$filter" got invalid value 1.5 at "filter.minimum"; Int cannot represent non-integer value: 1.5',
                17: 'Variable "$filter" has invalid value at .minimum: Int cannot represent non-integer value: 1.5',
              }),
              locations: [{ line: 1, column: 25 }],
            },
          ],
        },
      },
    ]);
  });

  it('answers a missing non-null variable with a request error', async () => {
    const document = parse('subscription ($n: Int!) { count(n: $n) }');
    const { expected, actual } = await bothTranscripts(() => ({ schema, document, contextValue: context([1]) }));
    expect(actual).toEqual(expected);
    expect(expected).toEqual([
      {
        subscribed: 'result',
        result: {
          errors: [
            {
              message: byMajor({
                16: 'Variable "$n" of required type "Int!" was not provided.',
                17: 'Variable "$n" has invalid value: Expected a value of non-null type "Int!" to be provided.',
              }),
              locations: [{ line: 1, column: 15 }],
            },
          ],
        },
      },
    ]);
  });

  it("stops at options.maxCoercionErrors errors, then adds graphql-js's 'error limit reached' error", async () => {
    const document = parse('subscription ($a: Int!, $b: Int!, $c: Int!, $n: Int!) { count(n: $n) }');
    const { expected, actual } = await bothTranscripts(() => ({
      schema,
      document,
      contextValue: context([1]),
      variableValues: { a: 'x', b: 'y', c: 'z', n: 'w' },
      options: { maxCoercionErrors: 2 },
    }));
    expect(actual).toEqual(expected);
    expect(expected[0]).toMatchObject({ subscribed: 'result' });
    const messages = (expected[0] as { result: WireResult }).result.errors?.map((error) => error.message);
    expect(messages).toEqual([
      ...byMajor({
        16: [
          'Variable "$a" got invalid value "x"; Int cannot represent non-integer value: "x"',
          'Variable "$b" got invalid value "y"; Int cannot represent non-integer value: "y"',
        ],
        17: ['Variable "$a" has invalid value: Int cannot represent non-integer value: "x"', 'Variable "$b" has invalid value: Int cannot represent non-integer value: "y"'],
      }),
      'Too many errors processing variables, error limit reached. Execution aborted.',
    ]);
  });

  it(
    "coerces variables as graphql-js does: under graphql 16 when the subscription starts and again for every event (a custom scalar's parseValue runs four times for three events), under 17 once",
    async () => {
      const document = parse('subscription ($at: Stamp!) { stamped(at: $at) }');
      const { expected, actual } = await onBoth(async (engine) => {
        stampParses = 0;
        const steps = await transcript(engine, { schema, document, contextValue: context(['a', 'b', 'c']), variableValues: { at: 'noon' } });
        return { steps, parses: stampParses };
      });
      expect(actual.steps).toEqual(expected.steps);
      expect(expected.steps).toEqual([
        { subscribed: 'stream' },
        { next: { data: { stamped: 'a (stamp:noon)' } } },
        { next: { data: { stamped: 'b (stamp:noon)' } } },
        { next: { data: { stamped: 'c (stamp:noon)' } } },
        { done: true },
      ]);
      expect(expected.parses).toBe(byMajor({ 16: 4, 17: 1 }));
      expect(actual.parses).toBe(expected.parses);
    },
  );
  it("gives every event the input object arguments graphql-js gives: its own under graphql 16 (a resolver that mutates it does not change the next event's), under 17 one from a variable shared by all", async () => {
    const documents = [
      { document: parse('subscription ($filter: Filter!) { tally(filter: $filter) }'), variableValues: { filter: { topic: 't' } } },
      { document: parse('subscription { tally(filter: { topic: "t" }) }'), variableValues: undefined },
    ];
    const runs = [];
    for (const { document, variableValues } of documents) {
      runs.push(await bothTranscripts(() => ({ schema, document, contextValue: context([1, 1, 1]), variableValues })));
    }
    const tallies = (values: number[]) => [{ subscribed: 'stream' }, ...values.map((tally) => ({ next: { data: { tally } } })), { done: true }];
    const once = tallies([1, 1, 1]);
    expect(runs.map((run) => run.expected)).toEqual([byMajor({ 16: once, 17: tallies([1, 2, 3]) }), once]);
    expect(runs.map((run) => run.actual)).toEqual(runs.map((run) => run.expected));
  });
});

describe('subscribe: choosing the operation', () => {
  it("answers a document without an operation with 'Must provide an operation.'", async () => {
    const document = parse('fragment F on Subscription { count(n: 1) }');
    const { expected, actual } = await bothTranscripts(() => ({ schema, document, contextValue: context([1]) }));
    expect(actual).toEqual(expected);
    expect(expected).toEqual([{ subscribed: 'result', result: { errors: [{ message: 'Must provide an operation.' }] } }]);
  });

  it('answers an operation name the document does not define with an error naming it', async () => {
    const document = parse('subscription Known { count(n: 1) }');
    const { expected, actual } = await bothTranscripts(() => ({ schema, document, contextValue: context([1]), operationName: 'Unknown' }));
    expect(actual).toEqual(expected);
    expect(expected).toEqual([{ subscribed: 'result', result: { errors: [{ message: 'Unknown operation named "Unknown".' }] } }]);
  });

  it('asks for an operation name when the document has several operations and none is named', async () => {
    const document = parse('subscription A { count(n: 1) } subscription B { count(n: 2) }');
    const { expected, actual } = await bothTranscripts(() => ({ schema, document, contextValue: context([1]) }));
    expect(actual).toEqual(expected);
    expect(expected).toEqual([
      { subscribed: 'result', result: { errors: [{ message: 'Must provide operation name if query contains multiple operations.' }] } },
    ]);
  });

  it('runs the named operation among several', async () => {
    const document = parse('subscription A { count(n: 1) } subscription B { count(n: 2) } query C { noop }');
    const { expected, actual } = await bothTranscripts(() => ({ schema, document, contextValue: context([5]), operationName: 'B' }));
    expect(actual).toEqual(expected);
    expect(expected).toEqual([{ subscribed: 'stream' }, { next: { data: { count: 10 } } }, { done: true }]);
  });

  it("takes the stream from the subscription type even for a query operation, and runs each event as that query, as graphql-js 16 does; refuses it at once as 17 does", async () => {
    const twoRoots = makeSchema({ typeDefs: 'type Query { greeting: String } type Subscription { greeting: String }' });
    const document = parse('query { greeting }');
    const { expected, actual } = await bothTranscripts(() => {
      const feed = new Feed([{ greeting: 'first' }, { greeting: 'second' }]);
      return { schema: twoRoots, document, subscribeFieldResolver: () => feed };
    });
    expect(actual).toEqual(expected);
    expect(expected).toEqual(
      byMajor<Step[]>({
        16: [{ subscribed: 'stream' }, { next: { data: { greeting: 'first' } } }, { next: { data: { greeting: 'second' } } }, { done: true }],
        17: [{ subscribeRejected: { name: 'GraphQLError', message: 'Expected subscription operation.' } }],
      }),
    );
  });
});

describe('subscribe: errors before the stream exists', () => {
  it("answers a schema without a subscription type with 'Schema is not configured to execute subscription operation.'", async () => {
    const querySchema = makeSchema({ typeDefs: 'type Query { noop: String }' });
    const document = parse('subscription { noop }');
    const { expected, actual } = await bothTranscripts(() => ({ schema: querySchema, document }));
    expect(actual).toEqual(expected);
    expect(expected).toEqual([
      {
        subscribed: 'result',
        result: { errors: [{ message: 'Schema is not configured to execute subscription operation.', locations: [{ line: 1, column: 1 }] }] },
      },
    ]);
  });

  it('answers an unknown root field with an error at that field', async () => {
    const document = parse('subscription { unknownField }');
    const { expected, actual } = await bothTranscripts(() => ({ schema, document, contextValue: context([1]) }));
    expect(actual).toEqual(expected);
    expect(expected).toEqual([
      {
        subscribed: 'result',
        result: { errors: [{ message: 'The subscription field "unknownField" is not defined.', locations: [{ line: 1, column: 16 }] }] },
      },
    ]);
  });

  /** What graphql-js makes of a subscribe resolver's answer that is not a stream: 16 rejects; 17 answers with a field error. */
  const notAStream = (received: string): Step[] => {
    const message = `Subscription field must return Async Iterable. Received: ${received}.`;
    return byMajor<Step[]>({
      16: [{ subscribeRejected: { name: 'Error', message } }],
      17: [{ subscribed: 'result', result: { errors: [{ message, locations: [{ line: 1, column: 16 }], path: ['broken'] }] } }],
    });
  };

  const subscribeResolverFailures: Array<[string, string, Step[]]> = [
    [
      'throws an Error: a field error located at the root field',
      'throws',
      [{ subscribed: 'result', result: { errors: [{ message: 'The source could not be reached.', locations: [{ line: 1, column: 16 }], path: ['broken'] }] } }],
    ],
    [
      'throws a GraphQLError: its extensions are kept',
      'throwsGraphQLError',
      [
        {
          subscribed: 'result',
          result: {
            errors: [{ message: 'The topic is closed.', locations: [{ line: 1, column: 16 }], path: ['broken'], extensions: { code: 'TOPIC_CLOSED' } }],
          },
        },
      ],
    ],
    [
      'throws something that is not an Error',
      'throwsString',
      [{ subscribed: 'result', result: { errors: [{ message: 'Unexpected error value: "not an Error"', locations: [{ line: 1, column: 16 }], path: ['broken'] }] } }],
    ],
    [
      'rejects',
      'rejects',
      [{ subscribed: 'result', result: { errors: [{ message: 'The source refused the subscription.', locations: [{ line: 1, column: 16 }], path: ['broken'] }] } }],
    ],
    [
      'returns an Error',
      'returnsError',
      [{ subscribed: 'result', result: { errors: [{ message: 'The source answered with an error.', locations: [{ line: 1, column: 16 }], path: ['broken'] }] } }],
    ],
    [
      'returns an object that is not async iterable: subscribe rejects (16), or answers with an error at the root field (17)',
      'returnsObject',
      notAStream('{ events: [] }'),
    ],
    [
      'returns a string: subscribe rejects (16), or answers with an error at the root field (17)',
      'returnsString',
      notAStream('"events"'),
    ],
    [
      'returns undefined: subscribe rejects (16), or answers with an error at the root field (17)',
      'returnsUndefined',
      notAStream('undefined'),
    ],
    [
      'returns an array (iterable, but not async iterable): subscribe rejects (16), or answers with an error at the root field (17)',
      'returnsArray',
      notAStream('[1, 2]'),
    ],
    [
      'resolves to something not async iterable: subscribe rejects (16), or answers with an error at the root field (17)',
      'resolvesToObject',
      notAStream('{ not: "iterable" }'),
    ],
  ];

  for (const [what, how, expectedSteps] of subscribeResolverFailures) {
    it(`answers as graphql-js does when the subscribe resolver ${what}`, async () => {
      const document = parse(`subscription { broken(how: "${how}") }`);
      const { expected, actual } = await bothTranscripts(() => ({ schema, document }));
      expect(actual).toEqual(expected);
      expect(expected).toEqual(expectedSteps);
    });
  }

  it('answers an argument that fails coercion on the root field with a field error, and calls no subscribe resolver', async () => {
    const document = parse('subscription ($n: Int = 1) { count(n: $n) }');
    const { expected, actual } = await onBoth(async (engine) => {
      const contextValue = context([1]);
      const steps = await transcript(engine, { schema, document, contextValue, variableValues: { n: null } });
      return { steps, pulled: contextValue.feed.pulled, cleanups: contextValue.feed.cleanups };
    });
    expect(actual).toEqual(expected);
    expect(expected).toEqual({
      steps: [
        {
          subscribed: 'result',
          result: {
            errors: [
              {
                message: byMajor({
                  16: 'Argument "n" of non-null type "Int!" must not be null.',
                  17: 'Argument "Subscription.count(n:)" has invalid value: Expected variable "$n" provided to non-null type "Int!" not to be null.',
                }),
                locations: [{ line: 1, column: 39 }],
                path: ['count'],
              },
            ],
          },
        },
      ],
      pulled: 0,
      cleanups: 0,
    });
  });

  it('answers an invalid literal argument on the root field with a field error', async () => {
    const document = parse('subscription { count(n: "three") }');
    const { expected, actual } = await bothTranscripts(() => ({ schema, document, contextValue: context([1]) }));
    expect(actual).toEqual(expected);
    expect(expected).toEqual([
      {
        subscribed: 'result',
        result: {
          errors: [
            {
              message: byMajor({
                16: 'Argument "n" has invalid value "three".',
                17: 'Argument "Subscription.count(n:)" has invalid value: Int cannot represent non-integer value: "three"',
              }),
              locations: [{ line: 1, column: 25 }],
              path: ['count'],
            },
          ],
        },
      },
    ]);
  });
});

describe('subscribe: @skip and @include on root fields', () => {
  const document = parse(`
    subscription ($skipCount: Boolean!, $withEvents: Boolean!) {
      count(n: 2) @skip(if: $skipCount)
      events @include(if: $withEvents) { id }
    }
  `);

  it('takes the stream from the first root field left, and executes every field left for each event', async () => {
    const { expected, actual } = await bothTranscripts(() => ({
      schema,
      document,
      contextValue: context([3]),
      variableValues: { skipCount: false, withEvents: true },
    }));
    expect(actual).toEqual(expected);
    expect(expected).toEqual([{ subscribed: 'stream' }, { next: { data: { count: 6, events: null } } }, { done: true }]);
  });

  it('skips a root field: the stream comes from the next one', async () => {
    const { expected, actual } = await bothTranscripts(() => ({
      schema,
      document,
      contextValue: context([{ event: event('1') }]),
      variableValues: { skipCount: true, withEvents: true },
    }));
    expect(actual).toEqual(expected);
    expect(expected).toEqual([{ subscribed: 'stream' }, { next: { data: { events: { id: '1' } } } }, { done: true }]);
  });

  it('fails as graphql-js does when the directives leave no root field: 16 rejects with a TypeError, 17 answers with its message', async () => {
    const { expected, actual } = await bothTranscripts(() => ({
      schema,
      document,
      contextValue: context([1]),
      variableValues: { skipCount: true, withEvents: false },
    }));
    expect(actual).toEqual(expected);
    expect(expected).toEqual(
      byMajor<Step[]>({
        16: [{ subscribeRejected: { name: 'TypeError', message: 'undefined is not iterable (cannot read property Symbol(Symbol.iterator))' } }],
        17: [{ subscribed: 'result', result: { errors: [{ message: 'firstRootField is not iterable' }] } }],
      }),
    );
  });
});

describe('subscribe: errors in events', () => {
  it('reports field errors of an event in that event, and nulls what they propagate to', async () => {
    const document = parse('subscription { events { id text failing required } }');
    const payloads = [{ event: event('1') }, { event: event('2', 'two', null) }, { event: null }, { event: event('4') }];
    const { expected, actual } = await bothTranscripts(() => ({ schema, document, contextValue: context(payloads) }));
    expect(actual).toEqual(expected);
    expect(expected).toEqual([
      { subscribed: 'stream' },
      {
        next: {
          data: { events: { id: '1', text: 'text 1', failing: null, required: 'required 1' } },
          errors: [{ message: 'Event 1 fails.', locations: [{ line: 1, column: 33 }], path: ['events', 'failing'] }],
        },
      },
      {
        next: {
          data: { events: null },
          errors: [
            { message: 'Event 2 fails.', locations: [{ line: 1, column: 33 }], path: ['events', 'failing'] },
            { message: 'Cannot return null for non-nullable field Event.required.', locations: [{ line: 1, column: 41 }], path: ['events', 'required'] },
          ],
        },
      },
      { next: { data: { events: null } } },
      {
        next: {
          data: { events: { id: '4', text: 'text 4', failing: null, required: 'required 4' } },
          errors: [{ message: 'Event 4 fails.', locations: [{ line: 1, column: 33 }], path: ['events', 'failing'] }],
        },
      },
      { done: true },
    ]);
  });

  it('makes data null when a non-null root field is null for an event, and goes on with the next event', async () => {
    const document = parse('subscription { required { id } }');
    const payloads = [{ event: null }, { event: event('2') }];
    const { expected, actual } = await bothTranscripts(() => ({ schema, document, contextValue: context(payloads) }));
    expect(actual).toEqual(expected);
    expect(expected).toEqual([
      { subscribed: 'stream' },
      {
        next: {
          data: null,
          errors: [{ message: 'Cannot return null for non-nullable field Subscription.required.', locations: [{ line: 1, column: 16 }], path: ['required'] }],
        },
      },
      { next: { data: { required: { id: '2' } } } },
      { done: true },
    ]);
  });

  it('awaits a root resolve that returns a promise, and asynchronous fields beneath it, in event order', async () => {
    const document = parse('subscription { asyncEvents { id later rejecting } }');
    const payloads = [{ event: event('1') }, { event: event('2', null) }];
    const { expected, actual } = await bothTranscripts(() => ({ schema, document, contextValue: context(payloads) }));
    expect(actual).toEqual(expected);
    expect(expected).toEqual([
      { subscribed: 'stream' },
      {
        next: {
          data: { asyncEvents: { id: '1', later: 'text 1', rejecting: null } },
          errors: [{ message: 'Event 1 rejects.', locations: [{ line: 1, column: 39 }], path: ['asyncEvents', 'rejecting'] }],
        },
      },
      {
        next: {
          data: { asyncEvents: { id: '2', later: null, rejecting: null } },
          errors: [{ message: 'Event 2 rejects.', locations: [{ line: 1, column: 39 }], path: ['asyncEvents', 'rejecting'] }],
        },
      },
      { done: true },
    ]);
  });

  it('reports an error the root resolve throws for one event in that event only', async () => {
    const document = parse('subscription { count(n: 2) }');
    const payloads = [1, 'not a number', 3];
    const { expected, actual } = await bothTranscripts(() => ({ schema, document, contextValue: context(payloads) }));
    expect(actual).toEqual(expected);
    expect(expected).toEqual([
      { subscribed: 'stream' },
      { next: { data: { count: 2 } } },
      { next: { data: { count: null }, errors: [{ message: 'Int cannot represent non-integer value: NaN', locations: [{ line: 1, column: 16 }], path: ['count'] }] } },
      { next: { data: { count: 6 } } },
      { done: true },
    ]);
  });

  it('ends the stream as graphql-js does when the source throws: that rejection, then done', async () => {
    const document = parse('subscription { count(n: 1) }');
    const { expected, actual } = await onBoth(async (engine) => {
      const contextValue = context([1, 2], new Error('The source broke.'));
      const steps = await transcript(engine, { schema, document, contextValue });
      return { steps, cleanups: contextValue.feed.cleanups };
    });
    expect(actual).toEqual(expected);
    expect(expected).toEqual({
      steps: [
        { subscribed: 'stream' },
        { next: { data: { count: 1 } } },
        { next: { data: { count: 2 } } },
        { nextRejected: { name: 'Error', message: 'The source broke.' } },
        { done: true },
      ],
      cleanups: 1,
    });
  });
});

describe('subscribe: closing the stream', () => {
  /** Subscribes to `count`, pulls `before` events, calls return(), then pulls once more. */
  async function closeAfter(engine: Engine, before: number): Promise<unknown> {
    const contextValue = context([1, 2, 3]);
    const stream = (await engine.subscribe({ schema, document: parse('subscription { count(n: 1) }'), contextValue })) as AsyncGenerator<ExecutionResult>;
    const seen: unknown[] = [];
    for (let i = 0; i < before; i++) seen.push(wire((await stream.next()).value as ExecutionResult));
    const returned = await stream.return(undefined);
    const after = await stream.next();
    const { returnCalls, cleanups, pulled } = contextValue.feed;
    return { seen, returned, after, returnCalls, cleanups, pulled };
  }

  it("reaches the source's return() when the subscriber returns before any event: the source is cleaned up once", async () => {
    const { expected, actual } = await onBoth((engine) => closeAfter(engine, 0));
    expect(actual).toEqual(expected);
    expect(expected).toEqual({ seen: [], returned: { value: undefined, done: true }, after: { value: undefined, done: true }, returnCalls: 1, cleanups: 1, pulled: 0 });
  });

  it("reaches the source's return() when the subscriber returns mid-stream: the source is cleaned up once, no further event is pulled", async () => {
    const { expected, actual } = await onBoth((engine) => closeAfter(engine, 2));
    // graphql 17 calls the source's return() twice (once to end a pending next(), once more as
    // its generator closes); ours calls it once, as 16 does. The source is cleaned up once either way.
    expect(actual).toEqual({ ...(expected as object), returnCalls: 1 });
    expect(expected).toEqual({
      seen: [{ data: { count: 1 } }, { data: { count: 2 } }],
      returned: { value: undefined, done: true },
      after: { value: undefined, done: true },
      returnCalls: byMajor({ 16: 1, 17: 2 }),
      cleanups: 1,
      pulled: 2,
    });
  });

  it('returns done without calling anything when the source has no return()', async () => {
    const { expected, actual } = await onBoth(async (engine) => {
      let nexts = 0;
      const source: AsyncIterable<unknown> = {
        [Symbol.asyncIterator]: () => ({ next: async () => ({ value: { greeting: `event ${nexts++}` }, done: false }) }),
      };
      const stream = (await engine.subscribe({ schema, document: parse('subscription { greeting }'), subscribeFieldResolver: () => source })) as AsyncGenerator<ExecutionResult>;
      const first = wire((await stream.next()).value as ExecutionResult);
      const returned = await stream.return(undefined);
      return { first, returned, nexts };
    });
    expect(actual).toEqual(expected);
    expect(expected).toEqual({ first: { data: { greeting: 'event 0' } }, returned: { value: undefined, done: true }, nexts: 1 });
  });

  it("forwards throw() to the source, which ends the stream with that error", async () => {
    const { expected, actual } = await onBoth(async (engine) => {
      const contextValue = context([1, 2, 3]);
      const stream = (await engine.subscribe({ schema, document: parse('subscription { count(n: 1) }'), contextValue })) as AsyncGenerator<ExecutionResult>;
      const first = wire((await stream.next()).value as ExecutionResult);
      const problem = new Error('The subscriber gave up.');
      let threw: Thrown | undefined;
      try {
        await stream.throw(problem);
      } catch (error) {
        threw = thrown(error);
      }
      const after = await stream.next();
      return { first, threw, thrownIn: thrown(contextValue.feed.thrownIn), after, cleanups: contextValue.feed.cleanups };
    });
    expect(actual).toEqual(expected);
    expect(expected).toEqual({
      first: { data: { count: 1 } },
      threw: { name: 'Error', message: 'The subscriber gave up.' },
      thrownIn: { name: 'Error', message: 'The subscriber gave up.' },
      after: { value: undefined, done: true },
      cleanups: 1,
    });
  });

  it('closes the source and rethrows when throw() is called on a stream whose source has no throw()', async () => {
    const { expected, actual } = await onBoth(async (engine) => {
      let returns = 0;
      const source: AsyncIterable<unknown> = {
        [Symbol.asyncIterator]: () => ({
          next: async () => ({ value: 1, done: false }),
          return: async () => {
            returns += 1;
            return { value: undefined, done: true };
          },
        }),
      };
      const stream = (await engine.subscribe({ schema, document: parse('subscription { greeting }'), subscribeFieldResolver: () => source })) as AsyncGenerator<ExecutionResult>;
      let threw: Thrown | undefined;
      try {
        await stream.throw(new Error('stop'));
      } catch (error) {
        threw = thrown(error);
      }
      return { threw, returns };
    });
    expect(actual).toEqual(expected);
    expect(expected).toEqual({ threw: { name: 'Error', message: 'stop' }, returns: 1 });
  });

  it('is its own async iterator, as graphql-js\'s is', async () => {
    const { expected, actual } = await onBoth(async (engine) => {
      const stream = (await engine.subscribe({ schema, document: parse('subscription { count(n: 1) }'), contextValue: context([1]) })) as AsyncGenerator<ExecutionResult>;
      const isSelf = stream[Symbol.asyncIterator]() === stream;
      await stream.return(undefined);
      return isSelf;
    });
    expect(actual).toBe(expected);
    expect(expected).toBe(true);
  });
});

describe('subscribe: the API', () => {
  it("rejects positional arguments with graphql-js's message", async () => {
    const document = parse('subscription { count(n: 1) }');
    const { expected, actual } = await onBoth(async (engine) => {
      const positional = engine.subscribe as unknown as (...args: unknown[]) => Promise<unknown>;
      try {
        await positional(schema, document);
        return 'resolved';
      } catch (error) {
        return thrown(error);
      }
    });
    expect(actual).toEqual(expected);
    expect(expected).toEqual(
      byMajor({
        16: { name: 'Error', message: 'graphql@16 dropped long-deprecated support for positional arguments, please pass an object instead.' },
        17: { name: 'Error', message: 'Expected undefined to be a GraphQL schema.' },
      }),
    );
  });

  it("accepts createSourceEventStream in graphql 16's positional form (and still under 17, which has none), and gives the source stream itself", async () => {
    const document = parse('subscription Pick($n: Int!) { count(n: $n) }');
    const positionally = async (engine: Engine) => {
      const contextValue = context(['raw 1', 'raw 2']);
      const positional = engine.createSourceEventStream as unknown as (...args: unknown[]) => Promise<AsyncIterable<unknown> | ExecutionResult>;
      const source = await positional(schema, document, undefined, contextValue, { n: 2 }, 'Pick');
      const events: unknown[] = [];
      if (isAsyncIterable(source)) for await (const payload of source) events.push(payload);
      return { events, isTheFeed: isAsyncIterable(source) };
    };
    const actual = await positionally(OURS);
    expect(actual).toEqual({ events: ['raw 1', 'raw 2'], isTheFeed: true });
    if (GRAPHQL_MAJOR < 17) expect(await positionally(GRAPHQL_JS)).toEqual(actual);
  });

  it('answers createSourceEventStream with the same request errors as subscribe', async () => {
    const document = parse('subscription ($n: Int!) { count(n: $n) }');
    const { expected, actual } = await onBoth(async (engine) => {
      const result = await engine.createSourceEventStream({ schema, document, contextValue: context([]) });
      return isAsyncIterable<unknown>(result) ? 'stream' : wire(result);
    });
    expect(actual).toEqual(expected);
    expect(expected).toEqual({
      errors: [
        {
          message: byMajor({
            16: 'Variable "$n" of required type "Int!" was not provided.',
            17: 'Variable "$n" has invalid value: Expected a value of non-null type "Int!" to be provided.',
          }),
          locations: [{ line: 1, column: 15 }],
        },
      ],
    });
  });

  it('rejects, as graphql-js does, when no document is given', async () => {
    const { expected, actual } = await onBoth(async (engine) => {
      try {
        await engine.subscribe({ schema, document: undefined as unknown as DocumentNode });
        return 'resolved';
      } catch (error) {
        return thrown(error);
      }
    });
    expect(actual).toEqual(expected);
    expect(expected).toEqual(
      byMajor({
        16: { name: 'Error', message: 'Must provide document.' },
        17: { name: 'TypeError', message: "Cannot read properties of undefined (reading 'definitions')" },
      }),
    );
  });

  it('rejects, as graphql-js 16 does, when the variables are not an object; takes them as given, as 17 does', async () => {
    const { expected, actual } = await onBoth(async (engine) => {
      try {
        await engine.createSourceEventStream({ schema, document: parse('subscription { count(n: 1) }'), variableValues: '{}' as never });
        return 'resolved';
      } catch (error) {
        return thrown(error);
      }
    });
    expect(actual).toEqual(expected);
    expect(expected).toEqual(
      byMajor<unknown>({
        16: {
          name: 'Error',
          message:
            'Variables must be provided as an Object where each property is a variable value. Perhaps look to see if an unparsed JSON string was provided.',
        },
        17: 'resolved',
      }),
    );
  });
});

/** How a subscribe call answers: at once (a value), with a promise (settled here, whatever it settles to), or by throwing. */
async function answerKind(call: () => unknown): Promise<'at once' | 'a promise' | 'throws'> {
  let answer: unknown;
  try {
    answer = call();
  } catch {
    return 'throws';
  }
  if (!(answer instanceof Promise)) return 'at once';
  await answer.then(
    () => undefined,
    () => undefined,
  );
  return 'a promise';
}

/** Subscriptions that answer at once under graphql 17 and those that do not, each with what its subscribe resolver does. */
const ANSWER_CASES: ReadonlyArray<{ name: string; query: string; variables?: Record<string, unknown>; async?: true; at17: 'at once' | 'a promise' }> = [
  { name: 'the resolver answers with its stream', query: 'subscription { events { id } }', at17: 'at once' },
  { name: 'the resolver answers with a promise of its stream', query: 'subscription { greeting }', async: true, at17: 'a promise' },
  { name: 'the resolver throws', query: 'subscription { broken(how: "throws") }', at17: 'at once' },
  { name: 'the resolver answers with an Error', query: 'subscription { broken(how: "returnsError") }', at17: 'at once' },
  { name: 'the resolver answers with something not a stream', query: 'subscription { broken(how: "returnsString") }', at17: 'at once' },
  { name: 'the resolver rejects', query: 'subscription { broken(how: "rejects") }', at17: 'a promise' },
  { name: 'the resolver resolves to something not a stream', query: 'subscription { broken(how: "resolvesToObject") }', at17: 'a promise' },
  { name: 'the variables cannot be coerced', query: 'subscription ($n: Int!) { count(n: $n) }', variables: { n: 'two' }, at17: 'at once' },
  { name: 'the root field is not defined', query: 'subscription { nope }', at17: 'at once' },
];

describe('subscribe: answering at once or with a promise', () => {
  const argsOf = (testCase: (typeof ANSWER_CASES)[number]): SubscribeArgs => ({
    schema,
    document: parse(testCase.query),
    variableValues: testCase.variables,
    contextValue: context([]),
    subscribeFieldResolver: testCase.async === true ? async (_root: unknown, _args: unknown, contextValue: unknown) => (contextValue as Context).feed : undefined,
  });

  for (const testCase of ANSWER_CASES) {
    it(`answers as graphql-js does when ${testCase.name}: under 16 with a promise, under 17 ${testCase.at17}`, async () => {
      const { expected, actual } = await onBoth((engine) => answerKind(() => engine.subscribe(argsOf(testCase))));
      expect(actual).toBe(expected);
      expect(expected).toBe(byMajor({ 16: 'a promise', 17: testCase.at17 }));
    });
  }

  it("answers from subscribePlan (the server's) as subscribe does, for every case above", async () => {
    for (const testCase of ANSWER_CASES) {
      const args = argsOf(testCase);
      const plan = planOperation(schema, args.document, null);
      expect(plan).toBeInstanceOf(OperationPlan);
      const kind = await answerKind(() => subscribePlan(plan as OperationPlan, args));
      expect(kind, testCase.name).toBe(byMajor({ 16: 'a promise', 17: testCase.at17 }));
    }
  });
});

describe('subscribe: the access option', () => {
  const READER = makeIdentity({ id: 'reader-1', kind: 'apiKey', roles: ['reader'], scopes: [], mfa: false, expiresAt: null, claims: {} });
  const ADMIN = makeIdentity({ id: 'admin-1', kind: 'apiKey', roles: ['admin'], scopes: [], mfa: false, expiresAt: null, claims: {} });

  const guarded = makeSchema({
    typeDefs: /* GraphQL */ `
      type Query {
        noop: String @auth(public: true)
      }
      type Notice {
        text: String
        secret: String @auth(roles: ["admin"])
      }
      type Subscription {
        notices: Notice @auth(roles: ["reader"])
        adminNotices: Notice @auth(roles: ["admin"])
      }
    `,
    roles: { admin: ['reader'], reader: [] },
    resolvers: {
      Notice: {
        secret: (notice: { secret: string }, _args: unknown, context: Context) => {
          context.secretReads = (context.secretReads ?? 0) + 1;
          return notice.secret;
        },
      },
      Subscription: {
        notices: { subscribe: feedOf, resolve: (payload: unknown) => payload },
        adminNotices: { subscribe: feedOf, resolve: (payload: unknown) => payload },
      },
    },
  });
  const payloads = [
    { text: 'one', secret: 's1' },
    { text: 'two', secret: 's2' },
  ];

  it("applies the caller's access to every event as execute applies it: a denied field fails with FORBIDDEN and its resolver never runs", async () => {
    const document = parse('subscription { notices { text secret } }');
    const access = accessFor(guarded, READER);
    const contextValue: Context = context(payloads);
    const stream = (await subscribe({ schema: guarded, document, contextValue, access })) as AsyncGenerator<ExecutionResult>;
    const events: WireResult[] = [];
    for await (const result of stream) events.push(wire(result));

    const executed: WireResult[] = [];
    for (const payload of payloads) {
      executed.push(wire(await execute({ schema: guarded, document, rootValue: payload, contextValue: context([]), access })));
    }
    expect(events).toEqual(executed);
    expect(events).toEqual(
      payloads.map((payload) => ({
        data: { notices: { text: payload.text, secret: null } },
        errors: [
          {
            message: 'Access to Notice.secret requires the role admin.',
            locations: [{ line: 1, column: 31 }],
            path: ['notices', 'secret'],
            extensions: { code: 'FORBIDDEN' },
          },
        ],
      })),
    );
    expect(contextValue.secretReads).toBeUndefined();
  });

  it('lets a caller with the role read the field in every event', async () => {
    const document = parse('subscription { notices { text secret } }');
    const contextValue: Context = context(payloads);
    const stream = (await subscribe({ schema: guarded, document, contextValue, access: accessFor(guarded, ADMIN) })) as AsyncGenerator<ExecutionResult>;
    const events: WireResult[] = [];
    for await (const result of stream) events.push(wire(result));
    expect(events).toEqual(payloads.map((payload) => ({ data: { notices: payload } })));
    expect(contextValue.secretReads).toBe(2);
  });

  it('streams under no access option exactly as graphql-js does on the same schema', async () => {
    const document = parse('subscription { notices { text secret } }');
    const { expected, actual } = await bothTranscripts(() => ({ schema: guarded, document, contextValue: context(payloads) }));
    expect(actual).toEqual(expected);
  });

  it('never calls the subscribe resolver of a root field the caller is denied, and answers with the FORBIDDEN error execute gives there', async () => {
    const document = parse('subscription { adminNotices { text } }');
    const observed: unknown[] = [];
    const wanted: unknown[] = [];
    for (const caller of [READER, ANONYMOUS]) {
      const access = accessFor(guarded, caller);
      const feed = new Feed(payloads);
      let subscribeCalls = 0;
      const counting = {
        get feed() {
          subscribeCalls += 1;
          return feed;
        },
      };
      const result = await subscribe({ schema: guarded, document, contextValue: counting, access });
      observed.push({
        caller: caller.id,
        subscribeCalls,
        result: isAsyncIterable(result) ? { firstEvent: wire((await result[Symbol.asyncIterator]().next()).value as ExecutionResult) } : wire(result),
      });
      const executed = wire(await execute({ schema: guarded, document, rootValue: payloads[0], contextValue: context([]), access }));
      wanted.push({ caller: caller.id, subscribeCalls: 0, result: { errors: executed.errors } });
    }
    expect(observed).toEqual(wanted);
  });
});
