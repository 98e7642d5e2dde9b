/**
 * graphql 17's tracing channels (`node:diagnostics_channel`), published by our engine
 * (src/language/tracingChannels.ts): a subscriber written for graphql-js 17 must see the same
 * events, in the same order, with the same context fields, from our parse, validate, execute,
 * subscribe and resolvers as from graphql-js's.
 *
 * Every channel is subscribed to with `tracingChannel(name).subscribe({ start, end, asyncStart,
 * asyncEnd, error })`, and each event recorded as it happens: its channel, its kind, and its
 * context as it stands then, normalized (the schema and document by identity, results as JSON,
 * errors by message). Under graphql 17 each case runs through graphql's own `execute` or
 * `subscribe` and through ours, and the sequences must be equal; graphql 17's sequences are
 * recorded in fixtures/tracing-channels/expected.json (rewritten with TRACING_RECORD=1 under
 * graphql 17), and under graphql 16, which publishes nothing, ours must give those.
 *
 * Then: with nobody subscribed nothing is published, and plain-read fields keep their fast
 * path (the generated readers of compileFields.ts); with a resolve subscriber, an execution
 * leaves that path and publishes every field.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { tracingChannel } from 'node:diagnostics_channel';
import * as graphql from 'graphql';
import type { DocumentNode, GraphQLSchema } from 'graphql';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHandler, execute, experimentalExecuteIncrementally, makeSchema, parseWithLimits, subscribe } from '../src/index.ts';
import { COMPILE_AFTER } from '../src/execution/compileFields.ts';
import { GRAPHQL_MAJOR } from './support/graphqlMajor.ts';
import { withFunctionSpy } from './support/functionSpy.ts';

const CHANNELS = [
  'graphql:parse',
  'graphql:validate',
  'graphql:execute',
  'graphql:execute:variableCoercion',
  'graphql:execute:rootSelectionSet',
  'graphql:subscribe',
  'graphql:resolve',
] as const;
const EVENTS = ['start', 'end', 'asyncStart', 'asyncEnd', 'error'] as const;

const EXPECTED_FILE = new URL('../fixtures/tracing-channels/expected.json', import.meta.url);
const RECORD = process.env.TRACING_RECORD === '1' && GRAPHQL_MAJOR >= 17;
const recorded: Record<string, unknown> = JSON.parse(readFileSync(EXPECTED_FILE, 'utf8'));

/**
 * Messages that graphql itself writes (variable coercion is the installed graphql's) and that
 * graphql 16 words differently: under 16 the recording is expected with 16's words.
 */
const WORDS_OF_16: ReadonlyArray<[string, string]> = [
  ['Variable "$n" has invalid value: Int cannot represent non-integer value: "three"', 'Variable "$n" got invalid value "three"; Int cannot represent non-integer value: "three"'],
];

/** The recording of a case, as the installed graphql words its own messages. */
function expectedFor(name: string): unknown {
  let text = JSON.stringify(recorded[name]);
  if (GRAPHQL_MAJOR < 17) for (const [of17, of16] of WORDS_OF_16) text = text.replaceAll(JSON.stringify(of17).slice(1, -1), JSON.stringify(of16).slice(1, -1));
  return text === undefined ? undefined : JSON.parse(text);
}

/** Waits a few macrotask turns: timers of a few milliseconds decide the order of async resolvers. */
const after = <T>(ms: number, value: T): Promise<T> => new Promise((resolve) => setTimeout(resolve, ms, value));

const config = {
  typeDefs: `
    type User { id: ID! name: String friends: [User!] }
    type Query {
      hello: String
      user(id: ID!): User
      slow: User
      later: String
      boom: String
      strict: String!
      rejects: String
      echo(n: Int!): Int
      items: [User]
    }
    type Mutation { add(n: Int!): Int }
    type Subscription { tick: Int tock: Int refused(n: Int): Int }
  `,
  resolvers: {
    Query: {
      user: (_: unknown, { id }: { id: string }) => ({ id, name: `user ${id}`, friends: [{ id: '2', name: 'two' }] }),
      slow: () => after(5, { id: 's', name: 'slow user' }),
      later: () => after(40, 'later'),
      boom: () => {
        throw new Error('boom');
      },
      strict: () => null,
      rejects: () => after(1, null).then(() => Promise.reject(new Error('rejected'))),
      echo: (_: unknown, { n }: { n: number }) => n,
    },
    Mutation: {
      add: (_: unknown, { n }: { n: number }) => n + 1,
    },
    Subscription: {
      tick: {
        subscribe: async () =>
          (async function* () {
            yield { tick: 1 };
            yield { tick: 2 };
          })(),
      },
      // Its stream at once: graphql 17's subscribe then answers at once, its publication without asyncStart and asyncEnd.
      tock: {
        subscribe: () =>
          (async function* () {
            yield { tock: 1 };
            yield { tock: 2 };
          })(),
      },
      refused: {
        subscribe: () => {
          throw new Error('refused');
        },
      },
    },
  },
};
// graphql-js's execute (17) refuses a schema declaring @defer/@stream; its experimentalExecuteIncrementally needs them.
const schema = makeSchema({ ...config, incremental: false });
const deferSchema = makeSchema({ ...config, incremental: true });

// ---------------------------------------------------------------------------------------------
// Recording
// ---------------------------------------------------------------------------------------------

type Recorded = [channel: string, event: string, context: Record<string, unknown>];

let recording: Recorded[] | null = null;
let runSchema: GraphQLSchema = schema;
let runDocument: DocumentNode | null = null;

/** A value as JSON would show it, with what JSON cannot show named. */
function shown(value: unknown, depth = 0): unknown {
  if (value instanceof Error) return { error: value.message };
  if (value === undefined) return '(undefined)';
  if (value === null || typeof value !== 'object') return typeof value === 'function' ? '(function)' : value;
  if (Symbol.asyncIterator in value) return '(AsyncIterable)';
  if (typeof (value as { then?: unknown }).then === 'function') return '(Promise)';
  if (depth > 4) return '(deeper)';
  if (Array.isArray(value)) return value.map((item) => shown(item, depth + 1));
  return Object.fromEntries(Object.entries(value).map(([key, item]) => [key, shown(item, depth + 1)]));
}

/** An ExecutionResult (or its errors) as a client sees it. */
function asJson(value: unknown): unknown {
  if (value === null || typeof value !== 'object' || Symbol.asyncIterator in value) return shown(value);
  return JSON.parse(JSON.stringify(value));
}

/** The variables graphql holds (17: `{ sources, coerced }`; 16: the values), by name. */
function coercedValues(variables: unknown): unknown {
  const values = GRAPHQL_MAJOR >= 17 ? (variables as { coerced: unknown }).coerced : variables;
  return { ...(values as object) };
}

/** A context as it stands at an event, each field normalized (one present but undefined shown so). */
function normalized(channel: string, context: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(context).sort()) {
    const value = context[key];
    if (value === undefined) out[key] = '(undefined)';
    else if (key === 'schema') out[key] = value === runSchema ? '(the schema)' : '(another schema)';
    else if (key === 'document') out[key] = value === runDocument || runDocument === null ? '(the document)' : graphql.print(value as DocumentNode);
    else if (key === 'operation') out[key] = (value as { kind: string }).kind;
    else if (key === 'source') out[key] = typeof value === 'string' ? value : (value as { body: string }).body;
    else if (key === 'error') out[key] = value instanceof Error ? value.message : shown(value);
    else if (key === 'result') out[key] = normalizedResult(channel, value);
    else out[key] = shown(value);
  }
  return out;
}

function normalizedResult(channel: string, value: unknown): unknown {
  switch (channel) {
    case 'graphql:parse':
      return (value as DocumentNode).kind;
    case 'graphql:validate':
      return (value as ReadonlyArray<Error>).map((error) => error.message);
    case 'graphql:execute:variableCoercion': {
      const coerced = value as { errors?: ReadonlyArray<Error>; variableValues?: unknown };
      return coerced.errors !== undefined ? { errors: coerced.errors.map((error) => error.message) } : { variableValues: coercedValues(coerced.variableValues) };
    }
    case 'graphql:resolve':
      return shown(value);
    default:
      return asJson(value);
  }
}

/** Subscribes a recorder to every event of every channel; returns how to unsubscribe it. */
function listen(): () => void {
  const subscribed = CHANNELS.map((name) => {
    const handlers = Object.fromEntries(
      EVENTS.map((event) => [
        event,
        (message: unknown) => {
          recording?.push([name.slice('graphql:'.length), event, normalized(name, message as Record<string, unknown>)]);
        },
      ]),
    );
    tracingChannel(name).subscribe(handlers as never);
    return () => tracingChannel(name).unsubscribe(handlers as never);
  });
  return () => subscribed.forEach((unsubscribe) => unsubscribe());
}

/** Listens on every channel for the tests of a describe block. */
function listening(): void {
  let unlisten: () => void = () => undefined;
  beforeAll(() => {
    unlisten = listen();
  });
  afterAll(() => unlisten());
}

/** The events published while `run` runs (and whatever it returns settles). */
async function record(document: DocumentNode | null, run: () => unknown, ran: GraphQLSchema = schema): Promise<Recorded[]> {
  runSchema = ran;
  const events: Recorded[] = [];
  recording = events;
  runDocument = document;
  try {
    await run();
  } finally {
    recording = null;
  }
  return events;
}

// ---------------------------------------------------------------------------------------------
// The cases: each runs the same operation through an engine's execute or subscribe
// ---------------------------------------------------------------------------------------------

interface Engine {
  execute(args: graphql.ExecutionArgs): unknown;
  subscribe(args: graphql.ExecutionArgs): unknown;
  experimentalExecuteIncrementally(args: graphql.ExecutionArgs): unknown;
}

const ours: Engine = {
  execute: execute as Engine['execute'],
  subscribe: subscribe as Engine['subscribe'],
  experimentalExecuteIncrementally: experimentalExecuteIncrementally as Engine['experimentalExecuteIncrementally'],
};
const theirs: Engine = {
  execute: graphql.execute as Engine['execute'],
  subscribe: graphql.subscribe as Engine['subscribe'],
  experimentalExecuteIncrementally: (graphql as unknown as Engine).experimentalExecuteIncrementally,
};

interface Case {
  name: string;
  query: string;
  variables?: Record<string, unknown>;
  operationName?: string;
  subscription?: boolean;
  /** Run by experimentalExecuteIncrementally, every payload read. */
  incremental?: boolean;
}

const CASES: ReadonlyArray<Case> = [
  { name: 'a synchronous query: default resolvers, a resolver with arguments, lists, __typename', query: '{ hello user(id: "1") { name __typename friends { id name } } }' },
  { name: 'asynchronous resolvers and the fields beneath them', query: 'query Slow { later slow { id name } hello }' },
  { name: 'a resolver that throws', query: '{ boom hello }' },
  { name: 'a null in a Non-Null field, propagated to the root', query: '{ strict hello }' },
  { name: 'a resolver whose promise rejects', query: '{ rejects }' },
  { name: 'variables coerced', query: 'query Echo($n: Int!) { echo(n: $n) }', variables: { n: 3 } },
  { name: 'variables that cannot be coerced', query: 'query Echo($n: Int!) { echo(n: $n) }', variables: { n: 'three' } },
  { name: 'an operation chosen by name', query: 'query A { hello } query B { later }', operationName: 'B' },
  { name: 'an unknown operation name', query: 'query A { hello }', operationName: 'C' },
  { name: 'a mutation, its fields one after another', query: 'mutation Add { first: add(n: 1) second: add(n: 2) }' },
  { name: 'a subscription whose resolver answers with a promise of its stream, and its events', query: 'subscription Ticks { tick }', subscription: true },
  { name: 'a subscription whose resolver answers with its stream at once, and its events', query: 'subscription Tocks { tock }', subscription: true },
  { name: 'a subscription whose resolver throws', query: 'subscription Refused { refused }', subscription: true },
  { name: 'a subscription whose variables cannot be coerced', query: 'subscription Refused($n: Int) { refused(n: $n) }', variables: { n: 'three' }, subscription: true },
  { name: 'incremental delivery: a deferred fragment', query: 'query D { hello ... @defer(label: "L") { slow { name } } }', incremental: true },
];

/** Runs a case through an engine: the result, and for a subscription every event it delivers. */
async function runCase(engine: Engine, testCase: Case, document: DocumentNode): Promise<void> {
  const args = { schema, document, variableValues: testCase.variables, operationName: testCase.operationName };
  if (testCase.incremental === true) {
    const result = (await engine.experimentalExecuteIncrementally({ ...args, schema: deferSchema })) as { subsequentResults: AsyncIterable<unknown> };
    for await (const payload of result.subsequentResults) expect(payload).toBeDefined();
    return;
  }
  if (testCase.subscription !== true) {
    await engine.execute(args);
    return;
  }
  const subscribed = (await engine.subscribe(args)) as object;
  if (!(Symbol.asyncIterator in subscribed)) return;
  for await (const event of subscribed as AsyncIterable<unknown>) expect(event).toBeDefined();
}

async function sequence(engine: Engine, testCase: Case): Promise<Recorded[]> {
  const document = graphql.parse(testCase.query);
  return record(document, () => runCase(engine, testCase, document), testCase.incremental === true ? deferSchema : schema);
}

describe('tracing channels: ours publish what graphql 17 publishes', () => {
  listening();
  for (const testCase of CASES) {
    it(testCase.name, async () => {
      const our = await sequence(ours, testCase);
      if (GRAPHQL_MAJOR >= 17) {
        const their = await sequence(theirs, testCase);
        expect(our, 'ours against graphql 17').toEqual(their);
        if (RECORD) recorded[testCase.name] = their;
        else expect(their, 'graphql 17 against the recording').toEqual(recorded[testCase.name]);
      } else {
        expect(our, 'ours against the recording of graphql 17').toEqual(expectedFor(testCase.name));
      }
      expect(our.length).toBeGreaterThan(0);
    });
  }
});

// ---------------------------------------------------------------------------------------------
// parse and validate: the server's document phase and the public API, against graphql's own
// ---------------------------------------------------------------------------------------------

const handle = createHandler({ schema, production: false, reportCost: false });

/** A POST of a query to the transport-free handler. */
function post(query: string): Promise<unknown> {
  return Promise.resolve(
    handle({
      method: 'POST',
      url: '/graphql',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify({ query }),
      raw: {},
    }),
  );
}

/** What graphql 17 publishes for a server's request: its own parse, validate and execute. */
async function graphqlServed(query: string): Promise<void> {
  let document: DocumentNode;
  try {
    document = graphql.parse(query);
  } catch {
    return;
  }
  if (graphql.validate(schema, document).length > 0) return;
  // The variables a request without any brings: null, as the server passes them on.
  await graphql.execute({ schema, document, variableValues: null });
}

const SERVED = [
  { name: 'the server: a query that does not parse', query: '{ hello' },
  { name: 'the server: a query that is not valid', query: '{ hello nope }' },
  { name: 'the server: a valid query, parsed, validated and executed', query: '{ hello user(id: "7") { name } }' },
];

describe('tracing channels: the server and the public API publish parse and validate once', () => {
  listening();
  for (const { name, query } of SERVED) {
    it(name, async () => {
      const our = await record(null, () => post(query));
      if (GRAPHQL_MAJOR >= 17) {
        const their = await record(null, () => graphqlServed(query));
        expect(our, 'ours against graphql 17').toEqual(their);
        if (RECORD) recorded[name] = their;
        else expect(their, 'graphql 17 against the recording').toEqual(recorded[name]);
      } else {
        expect(our, 'ours against the recording of graphql 17').toEqual(expectedFor(name));
      }
    });
  }

  it('makeSchema publishes its parses of SDL on graphql:parse, as graphql 17\'s own parse does', async () => {
    const typeDefs = 'type Query { ping: String }';
    const events = await record(null, () => makeSchema({ typeDefs, resolvers: {} }));
    // The typeDefs, then the definitions of the directives makeSchema adds (@cost, @listSize, @auth...).
    const named = (source: unknown) => (source === typeDefs ? 'typeDefs' : /directive @cost\b/.test(String(source)) ? 'the added directives' : source);
    expect(events.map(([channel, event, context]) => [channel, event, named(context['source']), context['result']])).toEqual([
      ['parse', 'start', 'typeDefs', undefined],
      ['parse', 'end', 'typeDefs', 'Document'],
      ['parse', 'start', 'the added directives', undefined],
      ['parse', 'end', 'the added directives', 'Document'],
    ]);
  });

  it('parseWithLimits publishes a parse error as graphql:parse start, error, end', async () => {
    const events = await record(null, () => parseWithLimits('{ hello'));
    expect(events).toEqual([
      ['parse', 'start', { source: '{ hello' }],
      ['parse', 'error', { error: 'Syntax Error: Expected Name, found <EOF>.', source: '{ hello' }],
      ['parse', 'end', { error: 'Syntax Error: Expected Name, found <EOF>.', source: '{ hello' }],
    ]);
  });
});

// ---------------------------------------------------------------------------------------------
// Nobody listening
// ---------------------------------------------------------------------------------------------

/** Spies on how each channel publishes (without subscribing to it): every call of `publish` and `runStores`. */
function publishSpies() {
  return CHANNELS.flatMap((name) => {
    const channel = tracingChannel(name);
    return EVENTS.flatMap((event) => [vi.spyOn(channel[event], 'publish'), vi.spyOn(channel[event], 'runStores')]);
  });
}

/** `{ items { id name } }` over enough users that its plain reads are compiled (compileFields.ts). */
async function itemsQuery(): Promise<{ data: unknown; generated: string[] }> {
  const items = Array.from({ length: COMPILE_AFTER * 3 }, (_, index) => ({ id: String(index), name: `user ${index}` }));
  // A document of its own: plans, and so their generated readers, are kept per document.
  const document = graphql.parse('{ items { id name } }');
  const { value, generated } = await withFunctionSpy(() => execute({ schema, document, rootValue: { items } }));
  return { data: (value as { data: unknown }).data, generated };
}

describe('tracing channels: nobody listening', () => {
  it('publishes nothing from execute, subscribe, the server, parse or validate', async () => {
    const spies = publishSpies();
    try {
      for (const testCase of CASES) await runCase(ours, testCase, graphql.parse(testCase.query));
      for (const { query } of SERVED) await post(query);
      parseWithLimits('{ hello');
      for (const spy of spies) expect(spy).not.toHaveBeenCalled();
    } finally {
      for (const spy of spies) spy.mockRestore();
    }
  });

  it('keeps plain-read fields on their fast path (generated readers)', async () => {
    const { data, generated } = await itemsQuery();
    expect((data as { items: unknown[] }).items[COMPILE_AFTER * 3 - 1]).toEqual({ id: String(COMPILE_AFTER * 3 - 1), name: `user ${COMPILE_AFTER * 3 - 1}` });
    expect(generated.some((text) => text.includes('result.name = completed'))).toBe(true);
  });

  it('while graphql:resolve is listened to, takes the reference path, which publishes every field', async () => {
    const calls: string[] = [];
    const handlers = { start: (message: unknown) => calls.push((message as { fieldPath: string }).fieldPath) };
    tracingChannel('graphql:resolve').subscribe(handlers as never);
    try {
      const { generated } = await itemsQuery();
      // Nothing generated but the result objects' constructors (made with the plans, whichever path
      // runs): no reader. The spy does see them, so an empty list would not pass for a blind spy.
      expect(generated.length).toBeGreaterThan(0);
      expect(generated.filter((text) => !/^"use strict";\nfunction Result\(\)/.test(text))).toEqual([]);
      expect(calls.length).toBe(1 + 2 * COMPILE_AFTER * 3);
      expect(calls.slice(0, 5)).toEqual(['items', 'items.0.id', 'items.0.name', 'items.1.id', 'items.1.name']);
    } finally {
      tracingChannel('graphql:resolve').unsubscribe(handlers as never);
    }
    // Unsubscribed again: the next execution is back on the fast path.
    expect((await itemsQuery()).generated.some((text) => text.includes('result.name = completed'))).toBe(true);
  });
});

if (RECORD) {
  afterAll(() => {
    const sorted = Object.fromEntries(Object.entries(recorded).sort(([a], [b]) => a.localeCompare(b)));
    writeFileSync(EXPECTED_FILE, JSON.stringify(sorted, null, 1) + '\n');
  });
}
