/**
 * Incremental delivery's edges, on both majors: the directives as graphql 17 defines them, the
 * validation rules with graphql 17's messages (ours under 16, graphql's own under 17), what
 * `execute` does with an operation that defers (graphql 17 refuses it; graphql 16 knows no such
 * directive and runs it whole), what makeSchema declares, and that a client which stops reading
 * closes the streamed list's iterator.
 */
import * as graphql from 'graphql';
import { GraphQLSchema, buildSchema, parse, printSchema, specifiedRules, validate } from 'graphql';
import { describe, expect, it } from 'vitest';
import {
  GraphQLDeferDirective,
  GraphQLStreamDirective,
  execute,
  experimentalExecuteIncrementally,
  incrementalRules,
  legacyExecuteIncrementally,
  makeSchema,
  subscribe,
} from '../src/index.ts';
import { SPECIFIED_AND_INCREMENTAL_RULES } from '../src/language/graphqlCompat.ts';
import { GRAPHQL_MAJOR, byMajor } from './support/graphqlMajor.ts';

const typeDefs = `
  type Query { hero: Hero list: [String] scalar: String }
  type Hero { id: ID name: String friends: [Hero] }
  type Mutation { change: Hero }
  type Subscription { updates: Hero }
`;
const schema = makeSchema({ typeDefs, incremental: true });

const messages = (source: string) => validate(schema, parse(source), SPECIFIED_AND_INCREMENTAL_RULES).map((error) => error.message);

describe('the directives', () => {
  it('are graphql 17\'s under 17, and print the same under 16', () => {
    const reference = [
      'directive @defer(\n  """Deferred when true or undefined."""\n  if: Boolean! = true\n\n  """Unique name"""\n  label: String\n) on FRAGMENT_SPREAD | INLINE_FRAGMENT',
      'directive @stream(\n  """Number of items to return immediately"""\n  initialCount: Int! = 0\n\n  """Stream when true or undefined."""\n  if: Boolean! = true\n\n  """Unique name"""\n  label: String\n) on FIELD',
    ];
    const printed = printSchema(new GraphQLSchema({ directives: [GraphQLDeferDirective, GraphQLStreamDirective] }));
    for (const directive of reference) expect(printed).toContain(directive);
    if (GRAPHQL_MAJOR >= 17) {
      const own = graphql as unknown as Record<string, unknown>;
      expect(GraphQLDeferDirective).toBe(own['GraphQLDeferDirective']);
      expect(GraphQLStreamDirective).toBe(own['GraphQLStreamDirective']);
    }
  });

  it('are declared by makeSchema by default, and not with incremental: false', () => {
    expect(schema.getDirective('defer')).toBe(GraphQLDeferDirective);
    expect(schema.getDirective('stream')).toBe(GraphQLStreamDirective);
    expect(makeSchema({ typeDefs }).getDirective('defer')).toBe(GraphQLDeferDirective);
    const plain = makeSchema({ typeDefs, incremental: false });
    expect(plain.getDirective('defer')).toBeUndefined();
    expect(validate(plain, parse('{ hero { ... @defer { id } } }')).map((error) => error.message)).toEqual(['Unknown directive "@defer".']);
  });
});

describe('the validation rules', () => {
  const cases: ReadonlyArray<[string, string[]]> = [
    ['{ hero { id ... @defer(label: "a") { name } ... @defer(label: "b") { name } } }', []],
    [
      '{ hero { ... @defer(label: "same") { id } friends @stream(label: "same") { id } } }',
      ['Value for arguments "defer(label:)" and "stream(label:)" must be unique across all Defer/Stream directive usages.'],
    ],
    ['query ($l: String) { hero { ... @defer(label: $l) { id } } }', ['Argument "@defer(label:)" must be a static string.']],
    ['{ scalar @stream }', ['Directive "@stream" cannot be used on non-list field "Query.scalar".']],
    ['mutation { ... @defer { change { id } } }', ['Defer directive cannot be used on root mutation type "Mutation".']],
    ['mutation { change { ... @defer { id } } }', []],
    [
      'subscription { updates { ... @defer { id } } }',
      ['Defer directive not supported on subscription operations. Disable `@defer` by setting the `if` argument to `false`.'],
    ],
    ['subscription ($d: Boolean!) { updates { ... @defer(if: $d) { id } } }', []],
    ['subscription { updates { friends @stream { id } } }', ['Stream directive not supported on subscription operations. Disable `@stream` by setting the `if` argument to `false`.']],
  ];
  for (const [source, expected] of cases) {
    it(`${source} -> ${expected.length === 0 ? 'valid' : expected[0]}`, () => {
      expect(messages(source)).toEqual(expected);
      // Under 17 the rules are graphql's own specified rules.
      if (GRAPHQL_MAJOR >= 17) expect(validate(schema, parse(source), specifiedRules).map((error) => error.message)).toEqual(expected);
    });
  }

  it('are exported as incrementalRules: graphql 17\'s own under 17, ours under 16', () => {
    expect(incrementalRules).toHaveLength(4);
    if (GRAPHQL_MAJOR >= 17) for (const rule of incrementalRules) expect(specifiedRules).toContain(rule);
    else for (const rule of incrementalRules) expect(specifiedRules).not.toContain(rule);
  });
});

describe('execute on an operation that defers or streams', () => {
  // A schema that does not declare the directives: graphql 17's execute refuses any schema that does.
  const bare = buildSchema('type Query { hero: Hero list: [String] } type Hero { id: ID name: String }');
  const rootValue = { hero: { id: 1, name: 'Luke' }, list: ['a', 'b'] };

  for (const source of ['{ hero { id ... @defer { name } } }', '{ ... @defer { hero { id } } }', '{ list @stream }']) {
    it(`${source}: ${byMajor({ 16: 'runs it whole (graphql 16)', 17: 'throws as graphql 17 does' })}`, async () => {
      const document = parse(source);
      const outcome = async (run: () => unknown) => {
        try {
          return { result: JSON.parse(JSON.stringify(await run())) };
        } catch (error) {
          return { thrown: (error as Error).name, message: (error as Error).message };
        }
      };
      const ours = await outcome(() => execute({ schema: bare, document, rootValue }));
      const theirs = await outcome(() => graphql.execute({ schema: bare, document, rootValue }));
      expect(ours).toEqual(theirs);
      if (GRAPHQL_MAJOR >= 17) expect(ours).toMatchObject({ thrown: 'AbortedGraphQLExecutionError' });
    });
  }

  it('if: false runs as usual', async () => {
    const document = parse('{ hero { id ... @defer(if: false) { name } } list @stream(if: false) }');
    expect(await execute({ schema: bare, document, rootValue })).toEqual({ data: { hero: { id: '1', name: 'Luke' }, list: ['a', 'b'] } });
  });
});

describe('subscribe on an operation whose @defer or @stream came true through a variable', () => {
  const subscribed = makeSchema({
    typeDefs: 'type Query { a: Int } type Review { id: ID stars: Int tags: [String] } type Subscription { reviewAdded: Review }',
    resolvers: {
      Subscription: {
        reviewAdded: {
          subscribe: async function* () {
            yield { reviewAdded: { id: '1', stars: 5, tags: ['a', 'b'] } };
          },
          resolve: (event: { reviewAdded: unknown }) => event.reviewAdded,
        },
      },
    },
  });
  const cases = [
    {
      source: 'subscription($on: Boolean!) { reviewAdded { id ... @defer(if: $on) { stars } } }',
      message: '`@defer` directive not supported on subscription operations. Disable `@defer` by setting the `if` argument to `false`.',
      path: ['reviewAdded'],
      column: 31,
      whole: { reviewAdded: { id: '1', stars: 5 } },
    },
    {
      source: 'subscription($on: Boolean!) { reviewAdded { id tags @stream(if: $on) } }',
      message: '`@stream` directive not supported on subscription operations. Disable `@stream` by setting the `if` argument to `false`.',
      path: ['reviewAdded', 'tags'],
      column: 48,
      whole: { reviewAdded: { id: '1', tags: ['a', 'b'] } },
    },
  ];
  for (const { source, message, path, column, whole } of cases) {
    it(`${source}: ${byMajor({ 16: 'runs each event whole (graphql 16)', 17: 'fails the field with graphql 17\'s message' })}`, async () => {
      const events = async (run: typeof graphql.subscribe) => {
        const stream = (await run({ schema: subscribed, document: parse(source), variableValues: { on: true } })) as AsyncIterable<unknown>;
        const results: unknown[] = [];
        for await (const result of stream) results.push(JSON.parse(JSON.stringify(result)));
        return results;
      };
      const ours = await events(subscribe as typeof graphql.subscribe);
      expect(ours).toEqual(await events(graphql.subscribe));
      const refused = { errors: [{ message, locations: [{ line: 1, column }], path }], data: path.length === 1 ? { reviewAdded: null } : { reviewAdded: { id: '1', tags: null } } };
      expect(ours).toEqual([GRAPHQL_MAJOR >= 17 ? refused : { data: whole }]);
    });
  }
});

describe('experimentalExecuteIncrementally and legacyExecuteIncrementally', () => {
  it('answer a plain result when nothing is deferred', async () => {
    for (const run of [experimentalExecuteIncrementally, legacyExecuteIncrementally]) {
      const result = await run({ schema, document: parse('{ hero { id } }'), rootValue: { hero: { id: 1 } } });
      expect('initialResult' in result).toBe(false);
      expect(result).toEqual({ data: { hero: { id: '1' } } });
    }
  });

  it('answer request errors as execute does', async () => {
    const result = await experimentalExecuteIncrementally({ schema, document: parse('query A { scalar } query B { scalar }') });
    expect(JSON.parse(JSON.stringify(result))).toEqual({ errors: [{ message: 'Must provide operation name if query contains multiple operations.' }] });
  });

  it('return() on subsequentResults closes the streamed async iterator at once', async () => {
    let closed = false;
    let release!: () => void;
    const never = new Promise<void>((resolve) => (release = resolve));
    async function* slowList() {
      try {
        yield 'a';
        await never;
        yield 'b';
      } finally {
        closed = true;
      }
    }
    const result = await experimentalExecuteIncrementally({ schema, document: parse('{ list @stream(initialCount: 1) }'), rootValue: { list: slowList } });
    if (!('initialResult' in result)) throw new Error('expected an incremental result');
    expect(result.initialResult).toEqual({ data: { list: ['a'] }, pending: [{ id: '0', path: ['list'] }], hasNext: true });
    const next = result.subsequentResults.next();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await result.subsequentResults.return();
    expect(await next).toEqual({ value: undefined, done: true });
    release();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(closed).toBe(true);
  });

  it(byMajor({ 16: 'ignore abortSignal, as graphql 16 does', 17: 'end subsequentResults with the abortSignal\'s reason, as graphql 17 does' }), async () => {
    const probe = async (run: (args: Record<string, unknown>) => unknown) => {
      const controller = new AbortController();
      const result = (await run({
        schema,
        document: parse('{ hero { id ... @defer { name } } }'),
        rootValue: { hero: { id: 1, name: () => new Promise((resolve) => setTimeout(() => resolve('Luke'), 30)) } },
        abortSignal: controller.signal,
      })) as { initialResult: unknown; subsequentResults: AsyncGenerator<unknown> };
      const outcomes: unknown[] = [result.initialResult];
      const next = result.subsequentResults.next();
      setTimeout(() => controller.abort(new Error('stop')), 5);
      for (const pending of [next, result.subsequentResults.next()]) {
        try {
          outcomes.push(await pending);
        } catch (error) {
          outcomes.push(`rejected: ${(error as Error).message}`);
        }
      }
      return outcomes;
    };
    const ours = await probe(experimentalExecuteIncrementally as never);
    if (GRAPHQL_MAJOR >= 17) {
      expect(ours).toEqual(await probe((graphql as unknown as { experimentalExecuteIncrementally: never }).experimentalExecuteIncrementally));
      expect(ours[1]).toBe('rejected: stop');
    } else {
      expect(ours[1]).toEqual({ value: { incremental: [{ id: '0', data: { name: 'Luke' } }], completed: [{ id: '0' }], hasNext: false }, done: false });
    }
  });

  it('a client that leaves while deferred work runs stops all of it: later values are not completed', async () => {
    const run = async (execute: (args: Record<string, unknown>) => unknown) => {
      const completed: string[] = [];
      const later = (value: unknown) => new Promise((resolve) => setTimeout(() => resolve(value), 30));
      const hero = { id: 1, get name() { completed.push('name'); return 'Luke'; }, friends: () => later([{ get name() { completed.push('friend'); return 'Han'; } }]) };
      const result = (await execute({
        schema,
        document: parse('{ hero { id ... @defer { friends { name } } } ... @defer(label: "two") { list } slow: hero { ... @defer { name } } }'),
        rootValue: { hero: () => hero, list: () => later(['x']) },
        enableEarlyExecution: true,
      })) as { subsequentResults: AsyncGenerator<unknown, void, void> };
      await new Promise((resolve) => setTimeout(resolve, 5));
      await result.subsequentResults.return();
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { completed, next: await result.subsequentResults.next() };
    };
    const ours = await run(experimentalExecuteIncrementally as never);
    expect(ours.next).toEqual({ value: undefined, done: true });
    expect(ours.completed).not.toContain('friend');
    if (GRAPHQL_MAJOR >= 17) expect(ours).toEqual(await run((graphql as unknown as { experimentalExecuteIncrementally: never }).experimentalExecuteIncrementally));
  });

  it('a client that leaves before reading cancels the deferred work: its resolvers never run', async () => {
    let called = 0;
    const result = await experimentalExecuteIncrementally({
      schema,
      document: parse('{ hero { id ... @defer { name } } }'),
      rootValue: { hero: { id: 1, name: () => ++called } },
    });
    if (!('initialResult' in result)) throw new Error('expected an incremental result');
    await result.subsequentResults.return();
    await new Promise((resolve) => setTimeout(resolve, 5));
    expect(called).toBe(0);
  });
});
