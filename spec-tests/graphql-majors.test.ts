/**
 * Where graphql 17's `execute` and `subscribe` answer differently from graphql 16's, ours answers
 * as the installed graphql-js does (src/language/graphqlCompat.ts lists the differences). Each
 * test runs graphql-js's function and ours on the same arguments, expects the same outcome, and
 * pins down what each major's is. `npm test` runs this file on graphql 16 and on graphql 17.
 */
import * as graphqlJs from 'graphql';
import { GraphQLObjectType, buildSchema, execute as graphqlJsExecute, parse } from 'graphql';
import type { ExecutionResult, GraphQLFieldResolver, GraphQLResolveInfo, GraphQLSchema } from 'graphql';
import { describe, expect, it } from 'vitest';
import { execute, makeSchema } from '../src/index.ts';
import type { ExecuteArgs } from '../src/index.ts';
import { GRAPHQL_MAJOR, byMajor } from './support/graphqlMajor.ts';

type Executor = (args: ExecuteArgs) => ExecutionResult | Promise<ExecutionResult>;

const ENGINES: ReadonlyArray<readonly [string, Executor]> = [
  ['graphql-js', graphqlJsExecute as Executor],
  ['ours', execute],
];

/** What a caller sees: the result, or what was thrown (at once or as a rejection), as plain data. */
type Outcome =
  | { returned: 'at once' | 'later'; result: unknown }
  | { thrown: 'at once' | 'later'; name: string; message: string; abortedResult?: unknown; cause?: unknown };

async function outcome(run: () => ExecutionResult | Promise<ExecutionResult>): Promise<Outcome> {
  let returned: ExecutionResult | Promise<ExecutionResult>;
  try {
    returned = run();
  } catch (error) {
    return describeThrown('at once', error);
  }
  const when = returned instanceof Promise ? 'later' : 'at once';
  try {
    return { returned: when, result: JSON.parse(JSON.stringify(await returned)) };
  } catch (error) {
    return describeThrown('later', error);
  }
}

async function describeThrown(when: 'at once' | 'later', error: unknown): Promise<Outcome> {
  const thrown = error as Error & { abortedResult?: unknown };
  const described: Outcome = { thrown: when, name: thrown.name, message: thrown.message };
  if ('abortedResult' in thrown) described.abortedResult = JSON.parse(JSON.stringify(await thrown.abortedResult));
  if (thrown.cause !== undefined) described.cause = (thrown.cause as Error).message;
  return described;
}

/** The outcome under graphql-js and under ours, each with arguments of its own. */
async function onBoth(makeArgs: () => ExecuteArgs): Promise<{ expected: Outcome; actual: Outcome }> {
  const outcomes: Outcome[] = [];
  for (const [, engine] of ENGINES) {
    const args = makeArgs();
    outcomes.push(await outcome(() => engine(args)));
  }
  return { expected: outcomes[0] as Outcome, actual: outcomes[1] as Outcome };
}

const ticks = async (count: number) => {
  for (let i = 0; i < count; i++) await Promise.resolve();
};

describe('abortSignal', () => {
  const schema = buildSchema('type Query { now: String later: String slow: String }');
  const document = parse('{ now later slow }');

  it('of an already aborted signal: ignored under graphql 16; under 17 its reason is thrown at once', async () => {
    const { expected, actual } = await onBoth(() => ({
      schema,
      document,
      rootValue: { now: 'now', later: async () => 'later' },
      abortSignal: AbortSignal.abort(new Error('Gone before it began.')),
    }));
    expect(actual).toEqual(expected);
    expect(expected).toEqual(
      byMajor<Outcome>({
        16: { returned: 'later', result: { data: { now: 'now', later: 'later', slow: null } } },
        17: { thrown: 'at once', name: 'Error', message: 'Gone before it began.' },
      }),
    );
  });

  it("that aborts while values are pending: ignored under 16; under 17 the result rejects with AbortedGraphQLExecutionError, and what arrives afterwards fails with 'Aborted!'", async () => {
    const { expected, actual } = await onBoth(() => {
      const controller = new AbortController();
      return {
        schema,
        document,
        rootValue: {
          now: 'now',
          later: async () => {
            await ticks(1);
            controller.abort(new Error('The client went away.'));
            return 'later';
          },
          slow: async () => {
            await ticks(5);
            return 'slow';
          },
        },
        abortSignal: controller.signal,
      };
    });
    expect(actual).toEqual(expected);
    expect(expected).toEqual(
      byMajor<Outcome>({
        16: { returned: 'later', result: { data: { now: 'now', later: 'later', slow: 'slow' } } },
        17: {
          thrown: 'later',
          name: 'AbortedGraphQLExecutionError',
          message: 'The client went away.',
          cause: 'The client went away.',
          abortedResult: {
            errors: [
              { message: 'Aborted!', locations: [{ line: 1, column: 7 }], path: ['later'] },
              { message: 'Aborted!', locations: [{ line: 1, column: 13 }], path: ['slow'] },
            ],
            data: { now: 'now', later: null, slow: null },
          },
        },
      }),
    );
  });

  it('aborted by a resolver of a synchronous execution: under 17 the execution throws AbortedGraphQLExecutionError at once, with the result', async () => {
    const { expected, actual } = await onBoth(() => {
      const controller = new AbortController();
      return {
        schema,
        document: parse('{ now later }'),
        rootValue: {
          now: () => {
            controller.abort(new Error('Stop now.'));
            return 'now';
          },
          later: 'later',
        },
        abortSignal: controller.signal,
      };
    });
    expect(actual).toEqual(expected);
    expect(expected).toEqual(
      byMajor<Outcome>({
        16: { returned: 'at once', result: { data: { now: 'now', later: 'later' } } },
        17: { thrown: 'at once', name: 'AbortedGraphQLExecutionError', message: 'Stop now.', cause: 'Stop now.', abortedResult: { data: { now: 'now', later: 'later' } } },
      }),
    );
  });
});

describe("the resolver's info under graphql 17", () => {
  it('gives getAbortSignal(): a signal that aborts with the caller\'s reason, and once the execution is over; and getAsyncHelpers()', async () => {
    const schema = buildSchema('type Query { a: String b: String }');
    const seen = await Promise.all(
      ENGINES.map(async ([, engine]) => {
        const controller = new AbortController();
        let signalOfA: AbortSignal | undefined;
        let signalOfB: AbortSignal | undefined;
        let whileRunning: boolean | undefined;
        let helpers: unknown;
        const info = (value: unknown) => value as GraphQLResolveInfo & { getAbortSignal?: () => AbortSignal; getAsyncHelpers?: () => { promiseAll: (values: unknown[]) => Promise<unknown[]> } };
        const rootValue = {
          a: (_args: unknown, _context: unknown, resolveInfo: unknown) => {
            signalOfA = info(resolveInfo).getAbortSignal?.();
            whileRunning = signalOfA?.aborted;
            helpers = info(resolveInfo).getAsyncHelpers?.();
            return info(resolveInfo).getAsyncHelpers?.().promiseAll([Promise.resolve('a'), 'b']).then((values) => values.join('')) ?? 'ab';
          },
          b: (_args: unknown, _context: unknown, resolveInfo: unknown) => {
            signalOfB = info(resolveInfo).getAbortSignal?.();
            return 'b';
          },
        };
        const result = await engine({ schema, document: parse('{ a b }'), rootValue, abortSignal: controller.signal });
        return {
          result,
          sameSignal: signalOfA === signalOfB,
          whileRunning,
          afterwards: signalOfA?.aborted,
          helpers: helpers === undefined ? undefined : Object.keys(helpers as object),
        };
      }),
    );
    expect(seen[1]).toEqual(seen[0]);
    expect(seen[0]).toEqual(
      byMajor({
        16: { result: { data: { a: 'ab', b: 'b' } }, sameSignal: true, whileRunning: undefined, afterwards: undefined, helpers: undefined },
        17: { result: { data: { a: 'ab', b: 'b' } }, sameSignal: true, whileRunning: false, afterwards: true, helpers: ['promiseAll', 'track'] },
      }),
    );
  });
});

describe('@experimental_disableErrorPropagation', () => {
  const schema = buildSchema(`
    directive @experimental_disableErrorPropagation on QUERY | MUTATION | SUBSCRIPTION
    type Item { name: String! tag: String }
    type Query { item: Item items: [Item!] count: Int! }
  `);
  const rootValue = {
    item: { name: null, tag: 'kept' },
    items: async () => [{ name: 'one' }, { name: null }, { name: () => Promise.reject(new Error('Not found.')) }],
    count: () => null,
  };
  const query = '{ item { name tag } items { name } count }';

  it('keeps each error at its own position under graphql 17 (its siblings and parents keep their values); under 16 the directive changes nothing', async () => {
    const { expected, actual } = await onBoth(() => ({ schema, document: parse(`query @experimental_disableErrorPropagation ${query}`), rootValue }));
    expect(actual).toEqual(expected);
    const nullName = (column: number, path: Array<string | number>) => ({ message: 'Cannot return null for non-nullable field Item.name.', locations: [{ line: 1, column }], path });
    const nullCount = (column: number) => ({ message: 'Cannot return null for non-nullable field Query.count.', locations: [{ line: 1, column }], path: ['count'] });
    expect(expected).toEqual(
      byMajor<Outcome>({
        16: { returned: 'later', result: { errors: [nullName(54, ['item', 'name']), nullName(73, ['items', 1, 'name']), nullCount(80)], data: null } },
        17: {
          returned: 'later',
          result: {
            errors: [
              nullName(54, ['item', 'name']),
              nullCount(80),
              nullName(73, ['items', 1, 'name']),
              { message: 'Not found.', locations: [{ line: 1, column: 73 }], path: ['items', 2, 'name'] },
            ],
            data: { item: { name: null, tag: 'kept' }, items: [{ name: 'one' }, { name: null }, { name: null }], count: null },
          },
        },
      }),
    );
  });

  it('propagates as ever in an operation without it; graphql 17 answers at once, without waiting for what is pending inside the nulled response', async () => {
    const { expected, actual } = await onBoth(() => ({ schema, document: parse(query), rootValue }));
    expect(actual).toEqual(expected);
    const nullItemName = { message: 'Cannot return null for non-nullable field Item.name.', locations: [{ line: 1, column: 10 }], path: ['item', 'name'] };
    const nullItemsName = { message: 'Cannot return null for non-nullable field Item.name.', locations: [{ line: 1, column: 29 }], path: ['items', 1, 'name'] };
    const nullCount = { message: 'Cannot return null for non-nullable field Query.count.', locations: [{ line: 1, column: 36 }], path: ['count'] };
    // graphql 16 waits for `items` (pending when `count` fails) and reports its error too.
    expect(expected).toEqual(
      byMajor<Outcome>({
        16: { returned: 'later', result: { errors: [nullItemName, nullItemsName, nullCount], data: null } },
        17: { returned: 'at once', result: { errors: [nullItemName, nullCount], data: null } },
      }),
    );
  });
});

describe('schemas that declare @defer or @stream', () => {
  it('are executed under graphql 16; under 17, execute refuses them at once, pointing to incremental execution', async () => {
    const schema = buildSchema(`
      directive @defer(if: Boolean! = true, label: String) on FRAGMENT_SPREAD | INLINE_FRAGMENT
      type Query { hello: String }
    `);
    const { expected, actual } = await onBoth(() => ({ schema, document: parse('{ hello }'), rootValue: { hello: 'world' } }));
    expect(actual).toEqual(expected);
    expect(expected).toEqual(
      byMajor<Outcome>({
        16: { returned: 'at once', result: { data: { hello: 'world' } } },
        17: {
          thrown: 'at once',
          name: 'Error',
          message:
            'The provided schema unexpectedly contains experimental directives (@defer or @stream). These directives may only be utilized if experimental execution features are explicitly enabled.',
        },
      }),
    );
  });
});

describe('abstract types', () => {
  const schema = buildSchema('interface Named { name: String } type Person implements Named { name: String } type Query { named: Named }');
  const resolveTo = (answer: (schema: GraphQLSchema) => unknown): GraphQLSchema => {
    const copy = buildSchema(graphqlJs.printSchema(schema));
    (copy.getType('Named') as unknown as { resolveType: () => unknown }).resolveType = () => answer(copy);
    return copy;
  };

  it('a resolveType that returns the type object, not its name: 16 has an error of its own, 17 the error of any answer that is not a name', async () => {
    const { expected, actual } = await onBoth(() => {
      const withType = resolveTo((copy) => copy.getType('Person'));
      return { schema: withType, document: parse('{ named { name } }'), rootValue: { named: { name: 'Ada' } } };
    });
    expect(actual).toEqual(expected);
    expect(expected).toEqual({
      returned: 'at once',
      result: {
        errors: [
          {
            message: byMajor({
              16: 'Support for returning GraphQLObjectType from resolveType was removed in graphql-js@16.0.0 please return type name instead.',
              17: 'Abstract type "Named" must resolve to an Object type at runtime for field "Query.named" with value { name: "Ada" }, received "Person", which is not a valid Object type name.',
            }),
            locations: [{ line: 1, column: 3 }],
            path: ['named'],
          },
        ],
        data: { named: null },
      },
    });
  });

  it("asks isTypeOf before choosing the fields under 17, after under 16: the error reported differs when both would fail", async () => {
    const withCheck = buildSchema('type Token { name: String } type Query { token: Token }');
    (withCheck.getType('Token') as GraphQLObjectType).isTypeOf = () => false;
    const { expected, actual } = await onBoth(() => ({
      schema: withCheck,
      document: parse('query ($skip: Boolean) { token { name @skip(if: $skip) } }'),
      variableValues: { skip: null },
      rootValue: { token: { name: 'fake' } },
    }));
    expect(actual).toEqual(expected);
    expect((expected as { result: { errors: Array<{ message: string }> } }).result.errors.map((error) => error.message)).toEqual([
      byMajor({
        16: 'Argument "if" of non-null type "Boolean!" must not be null.',
        17: 'Expected value of type "Token" but got: { name: "fake" }.',
      }),
    ]);
  });
});

describe('custom scalars given to makeSchema', () => {
  const typeDefs = 'scalar Shout type Query { hello(to: Shout): Shout }';
  const hello: GraphQLFieldResolver<unknown, unknown> = (_source, args) => `hello ${String((args as { to: unknown }).to)}`;

  it("serialize, parseValue and parseLiteral work on both majors (17 derives its coercions from them)", async () => {
    const schema = makeSchema({
      incremental: false, // compared with graphql-js, whose execute (17) refuses a schema declaring @defer/@stream
      typeDefs,
      resolvers: {
        Shout: {
          serialize: (value: unknown) => String(value).toUpperCase(),
          parseValue: (value: unknown) => `${String(value)}!`,
          parseLiteral: (node: graphqlJs.ValueNode) => (node.kind === 'StringValue' ? `${node.value}!` : null),
        },
        Query: { hello },
      },
    });
    const { expected, actual } = await onBoth(() => ({ schema, document: parse('query ($v: Shout) { a: hello(to: "you") b: hello(to: $v) }'), variableValues: { v: 'them' } }));
    expect(actual).toEqual(expected);
    expect(expected).toEqual({ returned: 'at once', result: { data: { a: 'HELLO YOU!', b: 'HELLO THEM!' } } });
  });

  it("coerceOutputValue and coerceInputValue are graphql 17's names: taken under 17, refused under 16 with the names it reads", async () => {
    const make = () =>
      makeSchema({
        incremental: false, // compared with graphql-js, whose execute (17) refuses a schema declaring @defer/@stream
        typeDefs,
        resolvers: { Shout: { coerceOutputValue: (value: unknown) => String(value).toUpperCase(), coerceInputValue: (value: unknown) => `${String(value)}?` }, Query: { hello } },
      });
    if (GRAPHQL_MAJOR < 17) {
      expect(make).toThrow(
        new TypeError(`makeSchema: scalar "Shout" got "coerceOutputValue", which only graphql 17 reads; this project has graphql ${graphqlJs.version}: use serialize, parseValue, parseLiteral.`),
      );
      return;
    }
    const schema = make();
    const { expected, actual } = await onBoth(() => ({ schema, document: parse('query ($v: Shout) { hello(to: $v) }'), variableValues: { v: 'them' } }));
    expect(actual).toEqual(expected);
    expect(expected).toEqual({ returned: 'at once', result: { data: { hello: 'HELLO THEM?' } } });
  });
});

describe('hideSuggestions', () => {
  it('leaves the suggestions out of coercion errors, as graphql-js does', async () => {
    const schema = buildSchema('enum Color { RED GREEN } type Query { paint(color: Color): String }');
    for (const hideSuggestions of [false, true]) {
      const { expected, actual } = await onBoth(() => ({
        schema,
        document: parse('query ($c: Color) { paint(color: $c) }'),
        variableValues: { c: 'REDD' },
        hideSuggestions,
      }));
      expect(actual).toEqual(expected);
      const message = (expected as { result: { errors: Array<{ message: string }> } }).result.errors[0]?.message;
      expect(message?.includes('Did you mean')).toBe(!hideSuggestions);
    }
  });
});
