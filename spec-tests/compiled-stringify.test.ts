/**
 * Generated JSON writers (src/execution/compileStringify.ts) against JSON.stringify: the text of
 * a result's `data` is the same, byte for byte, before and after a plan's writer is generated,
 * and the same as the native serializer's.
 *
 * Why: the HTTP handler writes the body of every small result (no list fields, at most 32
 * fields, no errors) with `'{"data":' + stringifyData(...) + …`, so any difference is a different
 * response body: a key out of order, a string not escaped, a member JSON would leave out written
 * as `undefined`, a `toJSON` called with the wrong key or not called at all. The writer changes
 * at STRINGIFY_COMPILE_AFTER writes of one plan, so every check here writes the same plan past
 * that point and compares each text, not just the first. The reference is always the native
 * JSON.stringify (of graphql-js's own result, for the handler): nothing here re-implements JSON.
 *
 * - Through the handler: 17 queries over a schema made to be awkward (built-in scalars at their
 *   edges, an enum with internal values, a custom scalar whose values are objects with a
 *   key-dependent `toJSON`, Dates, nested plain objects, values nested past stringifyMember's
 *   64-level walk, functions, symbols and `toJSON`s giving undefined, which JSON leaves out,
 *   strings needing escapes on both sides of the 32-character fast path, three levels of nested
 *   objects and a chain deeper than the writers follow, abstract fields, aliases `toJSON` and
 *   `__proto__`, fragments, `@include(if: $flag)`, a throwing resolver, a list). Each request is
 *   sent 40 times to one handler: every body must equal the first and equal JSON.stringify of
 *   graphql-js's result (with the handler's `extensions` when the cost is reported, which checks
 *   how the two parts are put together). A spy on the Function constructor checks that the
 *   queries meant to be compiled were (so that the comparison is not only of the generic path)
 *   and the others were not.
 * - Directly: random operations over the fixture schemas (the differential test's) and this
 *   file's schema, each executed once by our executor and its `data` written 20 times by
 *   stringifyData, crossing the compile point; each text must be the native member text.
 * - Safety: names that are not GraphQL Names (a document built by hand) never reach generated
 *   code, and plans with a `toJSON` or `__proto__` response name are not compiled yet are
 *   written exactly.
 * - A `toJSON` put on Object.prototype after the writer was generated: the text is still the
 *   native one (which then calls it on every object).
 * - Functions with a `toJSON` (their own, or Object.prototype's), which JSON.stringify calls
 *   like any object's: a custom scalar may serialize to one.
 *
 * Runs: COMPILED_STRINGIFY_RUNS (default 150) per schema for the random operations. To replay a
 * failure, set COMPILED_STRINGIFY_SEED (and COMPILED_STRINGIFY_PATH) to the `seed` (and `path`)
 * fast-check printed, and pick the failing schema with `-t`.
 */
import fc from 'fast-check';
import { Kind, execute as graphqlExecute, parse } from 'graphql';
import type { DocumentNode, ExecutionResult, FieldNode, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { fixtures } from '../fixtures/index.ts';
import { createHandler, execute, makeSchema } from '../src/index.ts';
import type { PlainRequest } from '../src/index.ts';
import { OperationPlan, planOperation } from '../src/execution/plan.ts';
import { STRINGIFY_COMPILE_AFTER, stringifyData } from '../src/execution/compileStringify.ts';
import { arbitraryOperation, describeOperation } from './support/arbitraryOperation.ts';
import type { GeneratedOperation } from './support/arbitraryOperation.ts';
import { withFunctionSpy } from './support/functionSpy.ts';

const RUNS = Number(process.env.COMPILED_STRINGIFY_RUNS ?? 150);
const SEED = process.env.COMPILED_STRINGIFY_SEED === undefined ? undefined : Number(process.env.COMPILED_STRINGIFY_SEED);
const PATH = process.env.COMPILED_STRINGIFY_PATH;

/** Writes of one plan in the direct checks: past the compile point, so the last few are generated. */
const WRITES = 20;
/** Requests of one body in the handler checks. */
const REQUESTS = 40;

// ---------------------------------------------------------------------------------------------
// The schema

/**
 * Values of the custom scalar `Raw`, made fresh by its serialize from a tag (the resolvers
 * return tags). Each is something the writer must hand to the generic path, and the generic path
 * must write as JSON.stringify does.
 */
const RAW: Record<string, () => unknown> = {
  // toJSON's answer depends on its key: the response name (alias included) must be passed.
  keyed: () => ({
    toJSON(key: string) {
      return key.length % 2 === 0 ? { even: key } : ['odd', key];
    },
  }),
  date: () => new Date(Date.UTC(2024, 1, 29, 23, 59, 59, 999)),
  plain: () => ({
    b: 1,
    a: [1, 'two', null, { z: true, u: undefined, f() {} }, undefined, () => 1],
    'key "quoted"\n': 'v\u2028',
    nested: { deep: { deeper: -0, nan: Number.NaN, inf: -Infinity, big: 1e21, small: 5e-7 } },
    when: new Date(0),
    boxes: [new String('boxed'), new Number(3), new Boolean(false)],
    empty: {},
    emptyList: [],
    inner: { toJSON: (key: string) => `inner as ${key}` },
  }),
  escaped: () => 'needs "escape" \\ \u0001 \ud800 here',
  // JSON leaves a function out of an object (and calls it when it is a holder's `toJSON`).
  fn: () =>
    function called(key: string) {
      return `called as ${key}`;
    },
  sym: () => Symbol('left out'),
  nan: () => Number.NaN,
  infinity: () => Infinity,
  number: () => 1e21,
  negativeZero: () => -0,
  boxed: () => new String('a boxed "string"'),
  list: () => [new Date(86_400_000), { toJSON: (key: string) => `item ${key}` }, 'x'],
  text: () => 'plain text',
  bool: () => true,
  // JSON leaves out what toJSON turns into undefined.
  undefinedJSON: () => ({ toJSON: () => undefined }),
  // Deeper than stringifyMember walks (64 levels): the native serializer writes it, with its key.
  deep: () => {
    let value: unknown = { toJSON: (key: string) => `bottom as ${key}` };
    for (let level = 0; level < 70; level++) value = level % 2 === 0 ? { level, value } : [value, level];
    return value;
  },
};

const TEXTS: Record<string, string> = {
  quote: 'say "hi"',
  backslash: 'C:\\path\\to\\file',
  control: '\u0000\u0001\b\f\n\r\t\u001f\u007f',
  lone: 'high \ud800 alone, low \udfff alone',
  loneAtEnd: 'ends high \ud83d',
  emoji: '😀👍🏽',
  separators: 'line\u2028paragraph\u2029',
  long: 'x'.repeat(40),
  long32: 'y'.repeat(31) + '"',
  long33: 'z'.repeat(32) + '"',
  longEscaped: 'a fairly long string with a "quote" and a \\ in it',
  longEmoji: 'a long string, long enough, with an emoji 😀 in it',
  longLone: 'a long string, long enough, with a lone \udc00 in it',
  nonAscii: 'héllo wörld ñ ß 中文',
  empty: '',
};
const TEXT_NAMES = Object.keys(TEXTS);

const FLOATS = [1.5, -0, 1e21, 5e-7, 0.1 + 0.2, Number.MAX_VALUE, Number.MIN_VALUE, -123.456];

/** An index into `list` from any value (random operations pass any string or number). */
function pick<T>(list: readonly T[], value: unknown): T {
  const index = typeof value === 'number' ? value : [...String(value)].length;
  return list[((index % list.length) + list.length) % list.length] as T;
}

const LEVEL1 = {
  id: 7,
  s: 'level "1"',
  l2: { s: 'level\n2', l3: { s: 'level 3 😀', i: -2147483648 }, missing: null },
};

const schema = makeSchema({
  incremental: false, // compared with graphql-js, whose execute (17) refuses a schema declaring @defer/@stream
  typeDefs: /* GraphQL */ `
    scalar Raw
    enum Color { RED GREEN BLUE }
    interface Named { name: String }
    type Person implements Named { name: String age: Int }
    type Robot implements Named { name: String model: String }
    union Anything = Person | Robot
    type Level1 { id: ID! s: String l2: Level2 }
    type Level2 { s: String l3: Level3 missing: Level3 }
    type Level3 { s: String i: Int raw(tag: String!): Raw back: Level1 named: Named }
    type Query {
      hello: String
      int: Int
      float(which: Int! = 0): Float
      yes: Boolean
      no: Boolean
      id: ID
      color: Color
      text(which: String!): String
      raw(tag: String!): Raw
      nothing: String
      level1: Level1
      named(robot: Boolean! = false): Named
      any(robot: Boolean! = true): Anything
      fails: String
      list: [String]
    }
  `,
  resolvers: {
    Raw: { serialize: (tag: unknown) => (RAW[String(tag)] ?? pick(Object.values(RAW), tag))() },
    Color: { RED: '#f00', GREEN: '#0f0', BLUE: '#00f' },
    Named: { __resolveType: (value: { kind: string }) => value.kind },
    Anything: { __resolveType: (value: { kind: string }) => value.kind },
    Level3: {
      raw: (_: unknown, args: { tag: string }) => args.tag,
      back: () => LEVEL1,
      named: () => ({ kind: 'Robot', name: 'R2 "D2"', model: 'astromech' }),
    },
    Query: {
      hello: () => 'world',
      int: () => 2147483647,
      float: (_: unknown, args: { which: number }) => pick(FLOATS, args.which),
      yes: () => true,
      no: () => false,
      id: () => 42,
      color: () => '#0f0',
      text: (_: unknown, args: { which: string }) => TEXTS[args.which] ?? pick(Object.values(TEXTS), args.which),
      raw: (_: unknown, args: { tag: string }) => args.tag,
      nothing: () => null,
      level1: () => LEVEL1,
      named: (_: unknown, args: { robot: boolean }) =>
        args.robot ? { kind: 'Robot', name: 'Marvin', model: 'paranoid' } : { kind: 'Person', name: 'Ada "A"', age: 36 },
      any: (_: unknown, args: { robot: boolean }) =>
        args.robot ? { kind: 'Robot', name: 'Bender', model: 'bending unit' } : { kind: 'Person', name: 'Grace', age: 85 },
      fails: () => {
        throw new Error('this resolver fails');
      },
      list: () => ['a', 'b "c"', null],
    },
  },
});

// ---------------------------------------------------------------------------------------------
// Helpers

/** The native text of `data` as the member `data` of a result (its `toJSON`, if any, gets 'data'). */
function nativeMember(data: unknown): string {
  return JSON.stringify({ data }).slice('{"data":'.length, -1);
}

// The generated writers are named writeObject.
const writers = (generated: string[]) => generated.filter((text) => text.includes('writeObject'));

function post(body: unknown): PlainRequest {
  return {
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify(body),
    raw: null,
  };
}

/** The operation's plan, as our executor will use it for this document object. */
function rootPlanOf(document: DocumentNode, operationName?: string | null) {
  const plan = planOperation(schema, document, operationName);
  if (!(plan instanceof OperationPlan)) throw new Error(`no plan: ${plan.map((error) => error.message).join('; ')}`);
  return plan.root;
}

/** Our execution of a (synchronous) operation of this file's schema, cost not measured. */
function executeSync(document: DocumentNode, variableValues?: Record<string, unknown>): ExecutionResult {
  const result = execute({ schema, document, variableValues, measureCost: false });
  if (result instanceof Promise) throw new Error('expected a synchronous execution');
  return result;
}

/** `stringifyData` on the same plan and data WRITES times: every text. */
function writeRepeatedly(document: DocumentNode, data: unknown, operationName?: string | null): string[] {
  const root = rootPlanOf(document, operationName);
  return Array.from({ length: WRITES }, () => stringifyData(root, data) as string);
}

// ---------------------------------------------------------------------------------------------
// Through the handler

interface HandlerCase {
  name: string;
  query: string;
  operationName?: string;
  /** Request i sends variables[i % length]. */
  variables?: Array<Record<string, unknown>>;
  /** Whether a writer is generated for this operation (small, no errors, root plan compilable). */
  compiled: boolean;
  /** The result has errors: written natively, compared by its data. */
  errors?: boolean;
}

const HANDLER_CASES: HandlerCase[] = [
  {
    name: 'built-in scalars at their edges, an enum, null',
    query: `{ hello int f0: float f1: float(which: 1) f2: float(which: 2) f3: float(which: 3) f4: float(which: 4)
              f5: float(which: 5) f6: float(which: 6) f7: float(which: 7) yes no id color nothing }`,
    compiled: true,
  },
  {
    name: 'strings that need escaping, on both sides of the 32-character fast path',
    query: `{ ${TEXT_NAMES.map((which) => `${which}: text(which: "${which}")`).join(' ')} }`,
    compiled: true,
  },
  {
    // No member is left out here, so the generated writer writes every one of them itself.
    name: 'custom scalar values: toJSON(key) by alias, Date, plain object, escaped string, non-finite numbers',
    query: `{ keyed: raw(tag: "keyed") k: raw(tag: "keyed") date: raw(tag: "date") plain: raw(tag: "plain")
              escaped: raw(tag: "escaped") nan: raw(tag: "nan") infinity: raw(tag: "infinity") number: raw(tag: "number")
              negativeZero: raw(tag: "negativeZero") boxed: raw(tag: "boxed") list: raw(tag: "list") deep: raw(tag: "deep")
              text: raw(tag: "text") bool: raw(tag: "bool") hello }`,
    compiled: true,
  },
  {
    name: 'members JSON leaves out (a function, a symbol, a toJSON giving undefined), at the root and nested',
    query: `{ hello fn: raw(tag: "fn") sym: raw(tag: "sym") undefinedJSON: raw(tag: "undefinedJSON") int
              level1 { id l2 { l3 { s fn: raw(tag: "fn") i } s } } }`,
    compiled: true,
  },
  {
    name: 'only a member JSON leaves out',
    query: '{ fn: raw(tag: "fn") }',
    compiled: true,
  },
  {
    name: 'three levels of nested objects, a null object, custom and abstract values inside',
    query: `{ hello level1 { id s l2 { s missing { s } l3 { s i keyed: raw(tag: "keyed") fn: raw(tag: "fn") named { name } } } } }`,
    compiled: true,
  },
  {
    name: 'a chain of objects deeper than the writers follow',
    query: '{ level1 { l2 { l3 { back { l2 { l3 { back { l2 { l3 { back { id s } s } s } s } s } s } s } s } s } s } }',
    compiled: true,
  },
  {
    name: 'abstract fields (interface and union), __typename',
    query: `{ __typename named { __typename name ... on Person { age } } robot: named(robot: true) { __typename name ... on Robot { model } }
              any { __typename ... on Robot { model name } ... on Person { name } } person: any(robot: false) { ... on Person { age } } }`,
    compiled: true,
  },
  {
    name: 'aliases toJSON and __proto__ at the root (not compiled)',
    query: '{ toJSON: hello __proto__: int __typename level1 { id } }',
    compiled: false,
  },
  {
    name: 'alias toJSON on a function value (JSON.stringify calls it with "data")',
    query: '{ toJSON: raw(tag: "fn") hello }',
    compiled: false,
  },
  {
    name: 'aliases toJSON and __proto__ in nested objects (the root is compiled)',
    query: '{ hello level1 { __proto__: s id l2 { toJSON: l3 { s } s } } }',
    compiled: true,
  },
  {
    name: 'fragments, merged fields and an operation name',
    query: `query A { hello } query B { ...F level1 { id } level1 { s ...G } __typename }
            fragment F on Query { int color } fragment G on Level1 { l2 { s } }`,
    operationName: 'B',
    compiled: true,
  },
  {
    name: '@include(if: $flag) at the root, flag alternating',
    query: 'query Q($flag: Boolean!) { hello long: text(which: "long") @include(if: $flag) level1 { s @include(if: $flag) id } }',
    variables: [{ flag: true }, { flag: false }],
    compiled: false,
  },
  {
    name: '@skip(if: $flag) in a nested object only, flag alternating',
    query: 'query N($flag: Boolean!) { hello level1 { id s @skip(if: $flag) l2 { s } } }',
    variables: [{ flag: false }, { flag: true }],
    compiled: true,
  },
  {
    name: 'introspection fields (objects of the introspection types)',
    query: '{ __schema { queryType { name kind } mutationType { name } } __type(name: "Level2") { name kind description } hello }',
    compiled: true,
  },
  {
    name: 'a resolver that throws (errors: the native path)',
    query: '{ hello fails level1 { s } }',
    compiled: false,
    errors: true,
  },
  {
    name: 'a list field (not small: the native path)',
    query: '{ list hello }',
    compiled: false,
  },
];

describe('the handler writes small results as JSON.stringify does, across the compile point', () => {
  for (const reportCost of [false, true]) {
    it(`gives the same body ${REQUESTS} times over, equal to JSON.stringify of graphql-js's result (reportCost: ${reportCost})`, async () => {
      const handle = createHandler({ schema, production: false, reportCost });
      for (const testCase of HANDLER_CASES) {
        const variableSets = testCase.variables ?? [undefined];
        const requests = variableSets.map((variables) =>
          post({ query: testCase.query, ...(variables === undefined ? {} : { variables }), operationName: testCase.operationName ?? null }),
        );
        // graphql-js on a document of its own; its result is not touched by our handler.
        const references = variableSets.map((variables) => {
          const result = graphqlExecute({
            schema,
            document: parse(testCase.query),
            variableValues: variables ?? null,
            operationName: testCase.operationName ?? null,
          }) as ExecutionResult;
          expect(result).not.toBeInstanceOf(Promise);
          expect(result.errors !== undefined, testCase.name).toBe(testCase.errors === true);
          return result;
        });

        const { value: bodies, generated } = await withFunctionSpy(async () => {
          const bodies: string[] = [];
          for (let i = 0; i < REQUESTS; i++) {
            const [body, init] = await handle(requests[i % requests.length] as PlainRequest);
            expect(init.status, testCase.name).toBe(200);
            bodies.push(body as string);
          }
          return bodies;
        });

        expect(writers(generated).length > 0, `${testCase.name}: a writer was generated`).toBe(testCase.compiled);
        bodies.forEach((body, i) => {
          const which = i % requests.length;
          const first = bodies[which] as string;
          const reference = references[which] as ExecutionResult;
          expect(body, `${testCase.name}: request ${i + 1} against the first`).toBe(first);
          if (testCase.errors) {
            const parsed = JSON.parse(body) as ExecutionResult;
            expect(parsed.errors?.length, testCase.name).toBeGreaterThan(0);
            expect(parsed.data, testCase.name).toEqual(JSON.parse(JSON.stringify(reference.data)));
            return;
          }
          if (!reportCost) {
            expect(body, `${testCase.name}: request ${i + 1} against JSON.stringify`).toBe(JSON.stringify({ data: reference.data }));
          } else {
            const extensions = (JSON.parse(first) as { extensions: { cost: Record<string, unknown> } }).extensions;
            expect(Object.keys(extensions.cost)).toEqual(['requested', 'actual', 'limit']);
            expect(body, `${testCase.name}: request ${i + 1} against JSON.stringify`).toBe(JSON.stringify({ data: reference.data, extensions }));
          }
        });
      }
    });
  }

  it('pins a few bodies as written-out literals (so that a mistake in the comparison cannot pass everything)', async () => {
    const handle = createHandler({ schema, production: false, reportCost: false });
    const expectations: Array<[string, string]> = [
      ['{ hello k: raw(tag: "keyed") keyed: raw(tag: "keyed") fn: raw(tag: "fn") }', '{"data":{"hello":"world","k":["odd","k"],"keyed":["odd","keyed"]}}'],
      ['{ ab: raw(tag: "keyed") lone: text(which: "lone") }', '{"data":{"ab":{"even":"ab"},"lone":"high \\ud800 alone, low \\udfff alone"}}'],
      ['{ toJSON: raw(tag: "fn") hello }', '{"data":"called as data"}'],
      ['{ nan: raw(tag: "nan") i: raw(tag: "infinity") z: raw(tag: "negativeZero") yes no }', '{"data":{"nan":null,"i":null,"z":0,"yes":true,"no":false}}'],
      ['{ level1 { l2 { l3 { s } } } n: float(which: 1) }', '{"data":{"level1":{"l2":{"l3":{"s":"level 3 😀"}}},"n":0}}'],
    ];
    for (const [query, expected] of expectations) {
      for (let i = 0; i < REQUESTS; i++) {
        const [body] = await handle(post({ query }));
        expect(body, `${query}: request ${i + 1}`).toBe(expected);
      }
    }
  });
});

// ---------------------------------------------------------------------------------------------
// stringifyData directly, on random operations

/** Fixtures read some Int arguments as counts and microtask-tick delays: small Ints (as in the differential test). */
const OPERATIONS = { intRange: [-2, 6] } as const;

interface Subject {
  name: string;
  schema: GraphQLSchema;
  run(): { schema: GraphQLSchema; rootValue?: unknown; contextValue?: unknown };
}

const SUBJECTS: Subject[] = [
  ...fixtures.map((fixture) => ({ name: `fixture ${fixture.name}`, schema: fixture.run().schema, run: () => fixture.run() })),
  { name: "this file's schema", schema, run: () => ({ schema }) },
];

type Outcome = { text: string | undefined } | { threw: string };

function outcome(write: () => string | undefined): Outcome {
  try {
    return { text: write() };
  } catch (error) {
    return { threw: `${(error as Error).constructor.name}: ${(error as Error).message}` };
  }
}

describe('stringifyData writes random results as JSON.stringify does, across the compile point', () => {
  for (const subject of SUBJECTS) {
    it(`for random operations over ${subject.name}`, async () => {
      const counts = { written: 0, compiled: 0 };
      await fc.assert(
        fc.asyncProperty(arbitraryOperation(subject.schema, OPERATIONS), async (operation: GeneratedOperation) => {
          const { schema: runSchema, rootValue, contextValue } = subject.run();
          // A fresh document: a fresh plan, not yet compiled.
          const document = parse(operation.document);
          const plan = planOperation(runSchema, document, operation.operationName);
          if (!(plan instanceof OperationPlan)) return;
          const result = await execute({
            schema: runSchema,
            document,
            rootValue,
            contextValue,
            variableValues: operation.variables,
            operationName: operation.operationName,
            measureCost: false,
          });
          if (result.data === undefined) return;
          const expected = outcome(() => nativeMember(result.data));
          counts.written++;
          for (let write = 1; write <= WRITES; write++) {
            const actual = outcome(() => stringifyData(plan.root, result.data));
            if (JSON.stringify(actual) !== JSON.stringify(expected)) {
              throw new Error(
                [
                  `stringifyData differs from JSON.stringify at write ${write} (writer ${plan.root.writer === undefined ? 'not decided' : plan.root.writer === null ? 'not compiled' : 'generated'}).`,
                  describeOperation(operation),
                  `JSON.stringify: ${JSON.stringify(expected)}`,
                  `stringifyData:  ${JSON.stringify(actual)}`,
                ].join('\n'),
              );
            }
          }
          if (typeof plan.root.writer === 'function') counts.compiled++;
        }),
        {
          numRuns: RUNS,
          ...(SEED === undefined ? {} : { seed: SEED }),
          ...(PATH === undefined ? {} : { path: PATH }),
        },
      );
      // Not vacuous: most operations get a generated writer (those that do not depend on variables).
      if (PATH === undefined && RUNS >= 50) expect(counts.compiled).toBeGreaterThan(counts.written / 4);
    }, Math.max(120_000, RUNS * 200));
  }

  it(`writes the text of one plan generically ${STRINGIFY_COMPILE_AFTER - 1} times, then by its generated writer`, async () => {
    const document = parse('{ hello level1 { id s l2 { l3 { keyed: raw(tag: "keyed") } } } }');
    const data = executeSync(document).data;
    const root = rootPlanOf(document);
    const { value: texts, generated } = await withFunctionSpy(() =>
      Array.from({ length: WRITES }, (_, index) => {
        const text = stringifyData(root, data);
        expect(root.writer === undefined, `write ${index + 1}`).toBe(index + 1 < STRINGIFY_COMPILE_AFTER);
        return text;
      }),
    );
    expect(typeof root.writer).toBe('function');
    // One generation: the root's writer with the nested ones made with it (level1, l2, l3).
    expect(writers(generated)).toHaveLength(4);
    expect(texts).toEqual(Array.from({ length: WRITES }, () => nativeMember(data)));
    expect(texts[0]).toBe('{"hello":"world","level1":{"id":"7","s":"level \\"1\\"","l2":{"l3":{"keyed":["odd","keyed"]}}}}');
  });

  it('writes a null data, and result objects with members JSON leaves out, as JSON.stringify does', () => {
    const document = parse('{ hello level1 { id s } fn: raw(tag: "fn") }');
    const data = executeSync(document).data as Record<string, unknown>;
    const root = rootPlanOf(document);
    for (let i = 0; i < WRITES; i++) stringifyData(root, data);
    expect(typeof root.writer).toBe('function');
    expect(stringifyData(root, null)).toBe('null');
    expect(stringifyData(root, undefined)).toBeUndefined();
    // Hand-made results of this plan's shape, with values no completion gives.
    const odd: Array<Record<string, unknown>> = [
      { hello: undefined, level1: { id: '1', s: 's' }, fn: 1 },
      { hello: 'h', level1: { id: undefined, s: Symbol('x') }, fn: 'f' },
      { hello: 'h', level1: { id: () => 1, s: 's' }, fn: undefined },
      { hello: 'h', level1: undefined, fn: Symbol('y') },
      { hello: 'h', level1: 'not an object', fn: 2 },
      { hello: Number.NaN, level1: { id: Infinity, s: -0 }, fn: null },
      { hello: new Date(5), level1: { id: { toJSON: (key: string) => key }, s: [undefined] }, fn: { toJSON: () => undefined } },
    ];
    for (const value of odd) expect(stringifyData(root, value)).toBe(nativeMember(value));
    expect(stringifyData(root, data)).toBe('{"hello":"world","level1":{"id":"7","s":"level \\"1\\""}}');
  });
});

// ---------------------------------------------------------------------------------------------
// Safety

/** `source`'s document with the response name of the field at `path` (indices into selection sets) replaced by `alias`. */
function withAlias(source: string, path: number[], alias: string): DocumentNode {
  const document = parse(source, { noLocation: true });
  const rename = (selections: readonly FieldNode[], [index, ...rest]: number[]): FieldNode[] =>
    selections.map((field, i) => {
      if (i !== index) return field;
      if (rest.length === 0) return { ...field, alias: { kind: Kind.NAME, value: alias } };
      return { ...field, selectionSet: { kind: Kind.SELECTION_SET, selections: rename(field.selectionSet?.selections as FieldNode[], rest) } };
    });
  const operation = document.definitions[0] as OperationDefinitionNode;
  return {
    ...document,
    definitions: [{ ...operation, selectionSet: { ...operation.selectionSet, selections: rename(operation.selectionSet.selections as FieldNode[], path) } }],
  };
}

const HOSTILE = [
  `a'); process.exit(1); ('`,
  `x'); globalThis.injectedByAlias = true; ('`,
  'a\n}; globalThis.injectedByAlias = true; function f() {',
  '`${globalThis.injectedByAlias = true}`',
  'a b',
  'ünïcode',
  '1leading',
  '',
];

describe('generated writers are safe', () => {
  it('never put a response name that is not a GraphQL Name into generated code (a document built by hand)', async () => {
    for (const alias of HOSTILE) {
      for (const path of [[0], [1, 1], [1, 2, 0]]) {
        const document = withAlias('{ hello level1 { id s l2 { s } } }', path, alias);
        const data = executeSync(document).data;
        const { value: texts, generated } = await withFunctionSpy(() => writeRepeatedly(document, data));
        const label = `${JSON.stringify(alias)} at ${path.join('.')}`;
        expect(generated.filter((text) => alias !== '' && text.includes(alias)), label).toEqual([]);
        expect((globalThis as { injectedByAlias?: unknown }).injectedByAlias, label).toBeUndefined();
        expect(texts, label).toEqual(Array.from({ length: WRITES }, () => nativeMember(data)));
        expect(texts[0], label).toContain(JSON.stringify(alias) + ':');
        // At the root, nothing is compiled; deeper, the root is, and the object with the odd name is written generically.
        const root = rootPlanOf(document);
        expect(root.writer === null, label).toBe(path.length === 1);
        // One writer per object level above the odd name (each nested writer is generated on its own).
        expect(writers(generated), label).toHaveLength(path.length - 1);
      }
    }
  });

  it('compiles the same selection with parsed names (so the spy does see generated code)', async () => {
    const document = parse('{ hello level1 { id s l2 { s } } }');
    const data = executeSync(document).data;
    const { value: texts, generated } = await withFunctionSpy(() => writeRepeatedly(document, data));
    // The root's writer, level1's and l2's.
    expect(writers(generated)).toHaveLength(3);
    expect(writers(generated).some((text) => text.includes('result.hello'))).toBe(true);
    expect(texts).toEqual(Array.from({ length: WRITES }, () => nativeMember(data)));
  });

  it('does not compile a plan with a response name toJSON or __proto__, and writes it exactly', async () => {
    const queries = [
      '{ toJSON: hello level1 { id } }',
      '{ hello __proto__: level1 { id } }',
      '{ __proto__: hello toJSON: int }',
      '{ toJSON: raw(tag: "fn") hello }',
      '{ toJSON: raw(tag: "keyed") hello }',
      '{ toJSON: level1 { s } }',
    ];
    for (const query of queries) {
      const document = parse(query);
      const data = executeSync(document).data;
      const { value: texts, generated } = await withFunctionSpy(() => writeRepeatedly(document, data));
      expect(rootPlanOf(document).writer, query).toBeNull();
      expect(writers(generated), query).toEqual([]);
      expect(texts, query).toEqual(Array.from({ length: WRITES }, () => nativeMember(data)));
    }
    // The function under the alias toJSON is called with the key 'data', as JSON.stringify calls it.
    const document = parse('{ toJSON: raw(tag: "fn") hello }');
    expect(writeRepeatedly(document, executeSync(document).data)).toEqual(Array.from({ length: WRITES }, () => '"called as data"'));
  });

  it('does not compile a root plan whose fields are chosen by variables, and writes it exactly', () => {
    const document = parse('query Q($flag: Boolean!) { hello level1 @include(if: $flag) { id } }');
    for (const flag of [true, false, true]) {
      const data = executeSync(document, { flag }).data;
      expect(writeRepeatedly(document, data)).toEqual(Array.from({ length: WRITES }, () => nativeMember(data)));
    }
    expect(rootPlanOf(document).writer).toBeNull();
  });
});

// ---------------------------------------------------------------------------------------------
// Object.prototype.toJSON

describe('a toJSON on Object.prototype', () => {
  type Polluted = { toJSON?: unknown };
  const prototype = Object.prototype as Polluted;

  /** The native member text under the same pollution: a holder without a prototype, so only `data` is asked. */
  const pollutedMember = (data: unknown) => JSON.stringify(Object.assign(Object.create(null) as object, { data })).slice('{"data":'.length, -1);

  const pollutions: Array<[string, (this: unknown, key: string) => unknown]> = [
    [
      'returning a string',
      function (key) {
        return `polluted:${key}`;
      },
    ],
    [
      'returning a copy that names its key (so every nested object is asked too)',
      function (this: unknown, key) {
        const copy: Record<string, unknown> = {};
        for (const name of Object.keys(this as object)) copy[name] = (this as Record<string, unknown>)[name];
        copy['seenAs'] = key;
        return copy;
      },
    ],
  ];

  // Functions in the data are left to the test of functions with a toJSON, below.
  const QUERY = `{ hello level1 { id s l2 { l3 { s keyed: raw(tag: "keyed") date: raw(tag: "date") } } }
                   list: raw(tag: "list") boxed: raw(tag: "boxed") n: raw(tag: "number") }`;

  for (const [name, toJSON] of pollutions) {
    it(`(${name}), set after the writer was generated: stringifyData still writes the native text`, () => {
      const document = parse(QUERY);
      const data = executeSync(document).data;
      const root = rootPlanOf(document);
      const before = writeRepeatedly(document, data);
      expect(typeof root.writer).toBe('function');
      expect(before).toEqual(Array.from({ length: WRITES }, () => nativeMember(data)));
      let texts: Array<string | undefined>;
      let expected: string;
      try {
        prototype.toJSON = toJSON;
        texts = Array.from({ length: 3 }, () => stringifyData(root, data));
        expected = pollutedMember(data);
      } finally {
        delete prototype.toJSON;
      }
      expect(prototype.toJSON).toBeUndefined();
      expect(expected).not.toBe(before[0]);
      expect(expected).toMatch(/polluted:data|"seenAs":"l3"/);
      expect(texts).toEqual([expected, expected, expected]);
      // And once it is gone, the generated writer writes again.
      expect(stringifyData(root, data)).toBe(before[0]);
    });
  }

  it('through the handler, on a compiled plan: the body is JSON.stringify of our result under the same pollution', async () => {
    const handle = createHandler({ schema, production: false, reportCost: false });
    const query = '{ hello level1 { id s l2 { s } } }';
    const { generated } = await withFunctionSpy(async () => {
      for (let i = 0; i < REQUESTS; i++) await handle(post({ query }));
    });
    expect(writers(generated)).toHaveLength(3);
    // Made before the pollution: the request body is written by JSON.stringify too.
    const request = post({ query });
    let body: string | null;
    let expected: string;
    try {
      prototype.toJSON = (pollutions[1] as [string, (key: string) => unknown])[1];
      [body] = handle(request) as [string | null, unknown];
      // Our result objects inherit from Object.prototype (graphql-js's do not, so its result
      // is no reference here): the native text of our own result, as the handler makes it.
      expected = JSON.stringify({ data: executeSync(parse(query)).data });
    } finally {
      delete prototype.toJSON;
    }
    expect(expected).toContain('"seenAs":"level1"');
    expect(expected).toContain('"seenAs":""');
    expect(body).toBe(expected);
  });
});

// ---------------------------------------------------------------------------------------------
// Functions with a toJSON

/**
 * JSON.stringify asks every object for its `toJSON`, functions included (ECMA-262
 * SerializeJSONProperty, step 2: "If value is an Object or value is a BigInt"): a function with
 * a `toJSON` is written as what that returns, `JSON.stringify({ v: f })` is `{"v":"f as v"}`
 * when `f.toJSON = (key) => 'f as ' + key`. A function without one is left out.
 */
describe('a function value with a toJSON (a custom scalar\'s value)', () => {
  const functionWithToJSON = () => Object.assign(function value() {}, { toJSON: (key: string) => `function as ${key}` });
  const fnSchema = makeSchema({
    incremental: false, // compared with graphql-js, whose execute (17) refuses a schema declaring @defer/@stream
    typeDefs: 'scalar Fn type Box { f: Fn s: String } type Query { f: Fn hello: String box: Box }',
    resolvers: {
      Fn: { serialize: () => functionWithToJSON() },
      Query: { f: () => 1, hello: () => 'world', box: () => ({ f: 1, s: 's' }) },
    },
  });

  it('is written as its toJSON returns, by stringifyData and by the handler', async () => {
    const query = '{ f hello box { f s } g: f }';
    const reference = graphqlExecute({ schema: fnSchema, document: parse(query) }) as ExecutionResult;
    const expectedBody = JSON.stringify({ data: reference.data });
    expect(expectedBody).toBe('{"data":{"f":"function as f","hello":"world","box":{"f":"function as f","s":"s"},"g":"function as g"}}');

    const document = parse(query);
    const result = execute({ schema: fnSchema, document, measureCost: false }) as ExecutionResult;
    const plan = planOperation(fnSchema, document, null) as OperationPlan;
    const texts = Array.from({ length: WRITES }, () => stringifyData(plan.root, result.data));
    const handle = createHandler({ schema: fnSchema, production: false, reportCost: false });
    const bodies: Array<string | null> = [];
    for (let i = 0; i < REQUESTS; i++) bodies.push((await handle(post({ query })))[0] as string | null);

    // Both reported when both differ.
    expect(new Set(texts).size).toBe(1);
    expect(new Set(bodies).size).toBe(1);
    expect.soft(texts[WRITES - 1], 'stringifyData').toBe(nativeMember(result.data));
    expect.soft(bodies[REQUESTS - 1], 'handler body').toBe(expectedBody);
  });

  it('under a toJSON on Object.prototype, a function (which inherits it) is asked too', () => {
    const document = parse('{ hello fn: raw(tag: "fn") level1 { id } }');
    const data = executeSync(document).data;
    const root = rootPlanOf(document);
    writeRepeatedly(document, data);
    expect(typeof root.writer).toBe('function');
    const prototype = Object.prototype as { toJSON?: unknown };
    let text: string | undefined;
    let expected: string;
    try {
      prototype.toJSON = function (this: object, key: string) {
        return { ...this, seenAs: key };
      };
      text = stringifyData(root, data);
      expected = JSON.stringify(Object.assign(Object.create(null) as object, { data })).slice('{"data":'.length, -1);
    } finally {
      delete prototype.toJSON;
    }
    expect(expected).toBe('{"hello":"world","fn":{"seenAs":"fn"},"level1":{"id":"7","seenAs":"level1"},"seenAs":"data"}');
    expect(text).toBe(expected);
  });
});
