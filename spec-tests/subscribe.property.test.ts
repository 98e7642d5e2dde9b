/**
 * The law of subscriptions: random subscription operations and event payloads give result
 * streams identical to graphql-js's subscribe.
 *
 * Each fixture schema gets a subscription root that copies its query root: every Query field is
 * also a Subscription field of the same type and arguments. Its `subscribe` resolver hands out the
 * source stream the case asks for (through the root value, which is what subscribe gives it). What
 * each event makes of the root field is decided by the event's payload:
 *
 *  - root fields at even positions have a `resolve`, which reads the payload's instruction: call
 *    the fixture's own resolver (at once, or as a promise, or a few microtasks later), or return
 *    null, throw, reject, return an Error, or return a raw value of any type;
 *  - root fields at odd positions have none: the default resolver reads the field off the
 *    payload, where the instruction is a method (called with args, context and info) or a plain
 *    value (a raw value, null, or nothing at all).
 *
 * So beneath the root field the fixture's resolvers run on their usual data: field errors,
 * nulls in Non-Null positions, promises and abstract types at every depth.
 *
 * Operations come from arbitraryOperation over a schema whose query root is the Subscription
 * type, made subscription operations and kept when they pass `validate`; their variables are
 * sometimes invalid. One rule is left out, SingleFieldSubscriptions (graphql-js 16 throws running
 * it on a root field whose @skip or @include reads a variable), so about half the operations
 * select two root fields, or __typename: subscribe takes the stream from the first root field
 * left after @skip and @include, and executes all of them for each event. Sources: a few
 * events, then the end or an error; or a subscribe resolver that throws, rejects, returns an
 * Error or returns something that is not async iterable.
 *
 * Compared exactly: what subscribe settled to, then every result of the stream (data as JSON, so
 * key order counts, and every error's message, path, locations and extensions, in order), every
 * rejection (class and message), up to done.
 *
 * Two allowances, both documented differences the spec permits:
 *  - the one differential.test.ts documents: when a Non-Null error propagates asynchronously,
 *    graphql-js goes on collecting errors from siblings still running inside the part of the
 *    response that is nulled, and ours stops at once (spec 6.4.4 lets them be cancelled); and
 *    when several errors race to null one position, graphql-js reports the one whose promise
 *    chain is shortest, ours the first that happened. So inside nulled parts the errors may
 *    differ, as long as both report some;
 *  - the order among errors of one turn may differ when a Non-Null error propagates
 *    asynchronously, or an asynchronous isTypeOf refuses a value: graphql-js records those a few
 *    microtasks later than ours (graphql-js-parity.test.ts pins both cases, and checks the exact
 *    order of everything else with a property of its own).
 * The data must be the same in every case.
 *
 * Runs per fixture: SUB_RUNS (default 300). To replay a failure, set SUB_SEED (and SUB_PATH) to
 * the `seed` (and `path`) fast-check printed.
 */
import fc from 'fast-check';
import {
  GraphQLError,
  GraphQLObjectType,
  GraphQLSchema,
  Kind,
  OperationTypeNode,
  SingleFieldSubscriptionsRule,
  parse,
  print,
  specifiedRules,
  subscribe as graphqlJsSubscribe,
  validate,
  visit,
} from 'graphql';
import type { GraphQLFieldConfig, GraphQLFieldResolver, GraphQLResolveInfo } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureByName } from '../fixtures/index.ts';
import type { Fixture } from '../fixtures/types.ts';
import { subscribe } from '../src/index.ts';
import type { SubscribeArgs } from '../src/index.ts';
import { arbitraryOperation, describeOperation } from './support/arbitraryOperation.ts';
import type { GeneratedOperation } from './support/arbitraryOperation.ts';
import { transcript as pullAll } from './support/transcript.ts';
import type { Step, SubscribeFn } from './support/transcript.ts';

const RUNS = Number(process.env.SUB_RUNS ?? 300);
const SEED = process.env.SUB_SEED === undefined ? undefined : Number(process.env.SUB_SEED);
const PATH = process.env.SUB_PATH;

/** Fixtures whose resolvers only ever wait on microtasks (no timers), so both engines see the same timing. */
const FIXTURES = ['errors', 'starwars', 'library', 'bank'];

// ---------------------------------------------------------------------------------------------
// Events and sources
// ---------------------------------------------------------------------------------------------

/** What one event makes of the root field. */
type Instruction =
  | { kind: 'original' }
  | { kind: 'promise' }
  | { kind: 'later'; ticks: number }
  | { kind: 'null' }
  | { kind: 'absent' }
  | { kind: 'throws' }
  | { kind: 'rejects'; ticks: number }
  | { kind: 'returnsError' }
  | { kind: 'raw'; value: unknown };

/** The source stream a case subscribes to, or how its subscribe resolver fails instead. */
type SourceSpec =
  | { kind: 'events'; events: Instruction[]; end: 'done' | 'throws' }
  | { kind: 'subscribeThrows' }
  | { kind: 'subscribeRejects' }
  | { kind: 'subscribeReturnsError' }
  | { kind: 'subscribeReturnsNonIterable'; value: unknown };

const rawValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom('a string', '', 'RED', '1000', 0, 7, -1, 1.5, 2 ** 31, true, false, [], {}, [null], [1, 'two']),
  fc.record({ id: fc.constantFrom('1', '1000', '2001', 'nope'), name: fc.constantFrom('a', 'b') }),
);

const ticks = fc.integer({ min: 0, max: 3 });

const instruction: fc.Arbitrary<Instruction> = fc.oneof(
  { weight: 6, arbitrary: fc.constant<Instruction>({ kind: 'original' }) },
  { weight: 2, arbitrary: fc.constant<Instruction>({ kind: 'promise' }) },
  { weight: 2, arbitrary: ticks.map<Instruction>((t) => ({ kind: 'later', ticks: t })) },
  { weight: 1, arbitrary: fc.constant<Instruction>({ kind: 'null' }) },
  { weight: 1, arbitrary: fc.constant<Instruction>({ kind: 'absent' }) },
  { weight: 1, arbitrary: fc.constant<Instruction>({ kind: 'throws' }) },
  { weight: 1, arbitrary: ticks.map<Instruction>((t) => ({ kind: 'rejects', ticks: t })) },
  { weight: 1, arbitrary: fc.constant<Instruction>({ kind: 'returnsError' }) },
  { weight: 2, arbitrary: rawValue.map<Instruction>((value) => ({ kind: 'raw', value })) },
);

const sourceSpec: fc.Arbitrary<SourceSpec> = fc.oneof(
  {
    weight: 12,
    arbitrary: fc.record({
      kind: fc.constant('events' as const),
      events: fc.array(instruction, { maxLength: 4 }),
      end: fc.constantFrom('done' as const, 'done' as const, 'throws' as const),
    }),
  },
  { weight: 1, arbitrary: fc.constant<SourceSpec>({ kind: 'subscribeThrows' }) },
  { weight: 1, arbitrary: fc.constant<SourceSpec>({ kind: 'subscribeRejects' }) },
  { weight: 1, arbitrary: fc.constant<SourceSpec>({ kind: 'subscribeReturnsError' }) },
  { weight: 1, arbitrary: rawValue.map<SourceSpec>((value) => ({ kind: 'subscribeReturnsNonIterable', value })) },
);

async function afterTicks(count: number): Promise<void> {
  for (let i = 0; i < count; i++) await Promise.resolve();
}

/** What the subscribe resolver reads off the root value it is given. */
interface SubscriptionRoot {
  /** The source for this subscription; called once, by the root field's subscribe resolver. */
  source: () => unknown;
}

/** One event: the instruction for root fields with a resolve, and each default-resolved root field's entry. */
interface Payload {
  instruction: Instruction;
  index: number;
  [fieldName: string]: unknown;
}

/** The source stream of a case: an async generator of payloads, ending as the spec says. */
async function* events(spec: Extract<SourceSpec, { kind: 'events' }>, defaultResolved: ReadonlyArray<string>, original: OriginalResolvers): AsyncGenerator<Payload> {
  for (const [index, instruction] of spec.events.entries()) {
    const payload: Payload = { instruction, index };
    for (const fieldName of defaultResolved) {
      const entry = defaultResolvedEntry(instruction, index, fieldName, original);
      if (entry.present) payload[fieldName] = entry.value;
    }
    yield payload;
  }
  if (spec.end === 'throws') throw new Error('The source failed after its events.');
}

function subscribeResolver(root: SubscriptionRoot): unknown {
  return root.source();
}

function sourceOf(spec: SourceSpec, defaultResolved: ReadonlyArray<string>, original: OriginalResolvers): () => unknown {
  switch (spec.kind) {
    case 'events':
      return () => events(spec, defaultResolved, original);
    case 'subscribeThrows':
      return () => {
        throw new Error('The subscribe resolver throws.');
      };
    case 'subscribeRejects':
      return () => Promise.reject(new GraphQLError('The subscribe resolver rejects.', { extensions: { code: 'REJECTED' } }));
    case 'subscribeReturnsError':
      return () => new Error('The subscribe resolver returns an Error.');
    case 'subscribeReturnsNonIterable':
      return () => spec.value;
  }
}

// ---------------------------------------------------------------------------------------------
// The subscription root over a fixture
// ---------------------------------------------------------------------------------------------

/** The fixture's own resolution of each Query field: its resolver, or a read of the (absent) root value. */
type OriginalResolvers = ReadonlyMap<string, GraphQLFieldResolver<unknown, unknown>>;

/** What an instruction makes of a root field, given the fixture's own resolution of it. */
function follow(instruction: Instruction, index: number, run: () => unknown): unknown {
  switch (instruction.kind) {
    case 'original':
      return run();
    case 'promise':
      return Promise.resolve().then(run);
    case 'later':
      return afterTicks(instruction.ticks).then(run);
    case 'null':
    case 'absent':
      return null;
    case 'throws':
      throw new Error(`Event ${index} throws.`);
    case 'rejects':
      return afterTicks(instruction.ticks).then(() => Promise.reject(new Error(`Event ${index} rejects.`)));
    case 'returnsError':
      return new Error(`Event ${index} returns an Error.`);
    case 'raw':
      return instruction.value;
  }
}

/** A default-resolved root field's entry in the payload: a method, a plain value, or nothing. */
function defaultResolvedEntry(
  instruction: Instruction,
  index: number,
  fieldName: string,
  original: OriginalResolvers,
): { present: false } | { present: true; value: unknown } {
  switch (instruction.kind) {
    case 'absent':
      return { present: false };
    case 'null':
      return { present: true, value: null };
    case 'raw':
      return { present: true, value: instruction.value };
    default: {
      const resolve = original.get(fieldName) as GraphQLFieldResolver<unknown, unknown>;
      const method = (args: Record<string, unknown>, contextValue: unknown, info: GraphQLResolveInfo) =>
        follow(instruction, index, () => resolve(undefined, args, contextValue, info));
      return { present: true, value: method };
    }
  }
}

interface SubscriptionFixture {
  fixture: Fixture;
  /** The fixture's schema plus the Subscription root. */
  schema: GraphQLSchema;
  /** The Subscription type as a query root: what arbitraryOperation generates selections from. */
  generatorSchema: GraphQLSchema;
  original: OriginalResolvers;
  /** Root fields without a resolve: the default resolver reads them off the payload. */
  defaultResolved: ReadonlyArray<string>;
}

function withSubscriptionRoot(fixture: Fixture): SubscriptionFixture {
  const base = fixture.run().schema;
  const query = base.getQueryType() as GraphQLObjectType;
  const original = new Map<string, GraphQLFieldResolver<unknown, unknown>>();
  const defaultResolved: string[] = [];
  const fields: Record<string, GraphQLFieldConfig<unknown, unknown>> = {};
  for (const [position, [name, config]] of Object.entries(query.toConfig().fields).entries()) {
    // Fixtures have no root value: a Query field without a resolver of its own is always null.
    const resolve: GraphQLFieldResolver<unknown, unknown> = config.resolve ?? (() => undefined);
    original.set(name, resolve);
    if (position % 2 === 1) {
      defaultResolved.push(name);
      fields[name] = { ...config, resolve: undefined, subscribe: subscribeResolver as GraphQLFieldResolver<unknown, unknown> };
    } else {
      fields[name] = {
        ...config,
        subscribe: subscribeResolver as GraphQLFieldResolver<unknown, unknown>,
        resolve: (payload, args, contextValue, info) => {
          const { instruction, index } = payload as Payload;
          return follow(instruction, index, () => resolve(undefined, args, contextValue, info));
        },
      };
    }
  }
  const subscription = new GraphQLObjectType({ name: 'Subscription', fields });
  const config = base.toConfig();
  const schema = new GraphQLSchema({ ...config, subscription });
  const generatorSchema = new GraphQLSchema({ query: subscription, types: config.types.filter((type) => type !== query) });
  return { fixture, schema, generatorSchema, original, defaultResolved };
}

/** The operation as fast-check prints it in a counterexample: operation name, variables, document. */
function printable(operation: GeneratedOperation): GeneratedOperation {
  Object.defineProperty(operation, fc.toStringMethod, { value: () => describeOperation(operation) });
  return operation;
}

/**
 * Every validation rule but SingleFieldSubscriptions: graphql-js 16 cannot run that one on a root
 * field whose @skip or @include reads a variable (it throws, the variable having no value yet).
 */
const RULES = specifiedRules.filter((rule) => rule !== SingleFieldSubscriptionsRule);

/** The generated operations made subscriptions; those graphql-js's validate rejects are left out. */
function arbitrarySubscription(target: SubscriptionFixture): fc.Arbitrary<GeneratedOperation> {
  return arbitraryOperation(target.generatorSchema, { intRange: [-2, 6], maxBreadth: 2 })
    .map((operation) => {
      const document = visit(parse(operation.document), {
        OperationDefinition: (node) => ({ ...node, operation: OperationTypeNode.SUBSCRIPTION }),
      });
      return printable({ ...operation, document: print(document) });
    })
    .filter((operation) => validate(target.schema, parse(operation.document), RULES).length === 0);
}

// ---------------------------------------------------------------------------------------------
// Running both engines
// ---------------------------------------------------------------------------------------------

const MAX_STEPS = 12;

function transcript(run: SubscribeFn, args: SubscribeArgs): Promise<Step[]> {
  return pullAll(run, args, MAX_STEPS);
}

const macrotask = () => new Promise((resolve) => setImmediate(resolve));

async function sameStreams(target: SubscriptionFixture, operation: GeneratedOperation, source: SourceSpec): Promise<void> {
  const transcripts: Step[][] = [];
  for (const [engine, run] of [
    ['graphql-js', graphqlJsSubscribe as unknown as SubscribeFn],
    ['ours', subscribe],
  ] as const) {
    running = engine;
    const { contextValue } = target.fixture.run();
    const rootValue: SubscriptionRoot = { source: sourceOf(source, target.defaultResolved, target.original) };
    transcripts.push(
      await transcript(run, {
        schema: target.schema,
        document: parse(operation.document),
        rootValue,
        contextValue,
        variableValues: operation.variables,
        operationName: operation.operationName,
      }),
    );
    // graphql-js may still be settling promises it abandoned; let them all land before ours runs.
    await macrotask();
  }
  running = undefined;
  const [expected, actual] = transcripts as [Step[], Step[]];
  expect(actual.map((step, index) => withAllowance(expected[index], step))).toEqual(expected);
  expect(ourUnhandledRejections.splice(0)).toEqual([]);
}

type WireError = { message: string; path?: ReadonlyArray<string | number> };
type WireResult = { data?: unknown; errors?: WireError[] };

/**
 * Our step, with the allowances applied: when our result's data equals graphql-js's, our errors
 * outside the parts of the response an error nulled (a proper prefix of its path is null in
 * data; data null: the whole response) are graphql-js's in any order, and both or neither report
 * errors inside nulled parts, graphql-js's step is returned, so that the comparison passes.
 * Anything else comes back as it was.
 */
function withAllowance(expected: Step | undefined, actual: Step): Step {
  if (expected === undefined || !('next' in expected) || !('next' in actual)) return actual;
  const theirs = expected.next as WireResult;
  const ours = actual.next as WireResult;
  if (JSON.stringify(theirs.data) !== JSON.stringify(ours.data)) return actual;
  // Errors outside the nulled parts must be the same, in any order; inside a nulled part, which
  // of the errors racing to null it is reported is the engine's (graphql-js keeps the one whose
  // promise chain is shortest, ours the first that happened), but both must report one.
  const outside = (errors: WireError[] | undefined) =>
    (errors ?? []).filter((error) => !insideNulledPart(theirs.data, error.path ?? [])).map((error) => JSON.stringify(error)).sort();
  const inside = (errors: WireError[] | undefined) => (errors ?? []).some((error) => insideNulledPart(theirs.data, error.path ?? []));
  const sameOutside = JSON.stringify(outside(ours.errors)) === JSON.stringify(outside(theirs.errors));
  return sameOutside && inside(ours.errors) === inside(theirs.errors) ? expected : actual;
}

/** Whether some proper prefix of `path` is null in `data` (the empty prefix: data itself). */
function insideNulledPart(data: unknown, path: ReadonlyArray<string | number>): boolean {
  let value = data;
  for (let depth = 0; depth < path.length; depth++) {
    if (value === null || value === undefined) return true;
    value = (value as Record<string | number, unknown>)[path[depth] as string | number];
  }
  return false;
}

/**
 * Cases the property found, run first on every run: a random run meets them only now and then.
 * (Both give graphql-js's errors in another order: the second allowance.)
 */
const EXAMPLES: Record<string, Array<[GeneratedOperation, SourceSpec]>> = {
  errors: [
    [
      // A Non-Null list item resolving to null asynchronously, beside a list whose item rejects.
      printable({ document: 'subscription {\n  box {\n    asyncItems\n    nonNullAsyncItems\n  }\n}', variables: {} }),
      { kind: 'events', events: [{ kind: 'original' }], end: 'done' },
    ],
    [
      // An asynchronous isTypeOf refusing a promised object, and an item of a promised list.
      printable({ document: 'subscription {\n  fakeToken {\n    name\n  }\n  tokens {\n    name\n  }\n}', variables: {} }),
      { kind: 'events', events: [{ kind: 'promise' }], end: 'done' },
    ],
  ],
};

/*
 * graphql-js 16 can leave a rejected promise unhandled (an item of a list of non-null items that
 * fails while an earlier one is pending: see differential.test.ts). Those are ignored while
 * graphql-js runs; any that surfaces while ours runs fails the property.
 */
let running: 'graphql-js' | 'ours' | undefined;
const ourUnhandledRejections: unknown[] = [];
let previousListeners: NodeJS.UnhandledRejectionListener[] = [];

function onUnhandledRejection(reason: unknown, promise: Promise<unknown>): void {
  if (running === 'graphql-js' && reason instanceof GraphQLError) return;
  if (running === 'ours') {
    ourUnhandledRejections.push(reason);
    return;
  }
  for (const listener of previousListeners) listener(reason, promise);
}

describe('subscribe: random subscription operations and event payloads give result streams identical to graphql-js\'s subscribe', () => {
  beforeAll(() => {
    previousListeners = process.listeners('unhandledRejection');
    process.removeAllListeners('unhandledRejection');
    process.on('unhandledRejection', onUnhandledRejection);
  });
  afterAll(() => {
    process.off('unhandledRejection', onUnhandledRejection);
    for (const listener of previousListeners) process.on('unhandledRejection', listener);
  });

  for (const name of FIXTURES) {
    it(`random subscription operations and event payloads give result streams identical to graphql-js's subscribe, over ${name}`, async () => {
      const target = withSubscriptionRoot(fixtureByName(name));
      await fc.assert(
        fc.asyncProperty(arbitrarySubscription(target), sourceSpec, (operation, source) => sameStreams(target, operation, source)),
        {
          numRuns: RUNS,
          examples: EXAMPLES[name] ?? [],
          ...(SEED === undefined ? {} : { seed: SEED }),
          ...(PATH === undefined ? {} : { path: PATH }),
        },
      );
    });
  }

  it('generates subscriptions that select each root field, both with a resolve and through the default resolver', () => {
    const target = withSubscriptionRoot(fixtureByName('errors'));
    const rootFields = new Set<string>();
    for (const operation of fc.sample(arbitrarySubscription(target), { numRuns: 300, seed: 1 })) {
      for (const definition of parse(operation.document).definitions) {
        if (definition.kind !== Kind.OPERATION_DEFINITION) continue;
        for (const selection of definition.selectionSet.selections) {
          if (selection.kind === Kind.FIELD) rootFields.add(selection.name.value);
        }
      }
    }
    const query = fixtureByName('errors').run().schema.getQueryType() as GraphQLObjectType;
    rootFields.delete('__typename');
    expect([...rootFields].sort()).toEqual(Object.keys(query.getFields()).sort());
    expect(target.defaultResolved.length).toBeGreaterThan(0);
  });
});
