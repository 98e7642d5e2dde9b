/**
 * The contract of `execute` as an API: what it returns and when, what resolvers receive, and
 * what it does on misuse. Spec-level behaviour (values, errors, fragments...) is covered by the
 * conformance cases and the differential property test.
 */
import { describe, expect, it } from 'vitest';
import { GraphQLError, GraphQLSchema, buildSchema, parse, responsePathAsArray } from 'graphql';
import type { GraphQLResolveInfo } from 'graphql';
import { GRAPHQL_MAJOR, byMajor } from './support/graphqlMajor.ts';
import { execute, makeSchema } from '../src/index.ts';

const typeDefs = `
  type Item { id: ID! label(prefix: String = ">"): String! describe(loud: Boolean): String }
  type Query {
    sync: String
    later: String
    failsLater: String!
    item(id: ID!): Item
    items: [Item!]!
    echo(n: Int!): Int
  }
`;

function schemaWith(extra: Record<string, unknown> = {}) {
  return makeSchema({
    typeDefs,
    resolvers: {
      Query: {
        sync: () => 'now',
        later: async () => 'later',
        failsLater: async () => {
          throw new Error('nope');
        },
        item: (_: unknown, { id }: { id: string }) => ({ id, name: `item ${id}` }),
        items: () => [{ id: '1' }, { id: '2' }],
        echo: (_: unknown, { n }: { n: number }) => n,
        ...extra,
      },
      Item: { label: (item: { id: string }, { prefix }: { prefix: string }) => `${prefix}${item.id}` },
    },
  });
}

describe('execute: synchronous unless a resolver returns a promise', () => {
  it('returns a plain result object when every resolver is synchronous', () => {
    const result = execute({ schema: schemaWith(), document: parse('{ sync items { id } }') });
    expect(result).not.toBeInstanceOf(Promise);
    expect(result).toEqual({ data: { sync: 'now', items: [{ id: '1' }, { id: '2' }] } });
  });

  it('returns a promise when some resolver returns one, and resolves with the full result', async () => {
    const result = execute({ schema: schemaWith(), document: parse('{ sync later }') });
    expect(result).toBeInstanceOf(Promise);
    expect(await result).toEqual({ data: { sync: 'now', later: 'later' } });
  });

  it('never rejects: a rejection at a non-null root field nulls data and is reported', async () => {
    const result = await execute({ schema: schemaWith(), document: parse('{ sync failsLater }') });
    expect(JSON.parse(JSON.stringify(result))).toEqual({
      errors: [{ message: 'nope', locations: [{ line: 1, column: 8 }], path: ['failsLater'] }],
      data: null,
    });
  });

  it('keeps the original error thrown by a resolver on the reported error', async () => {
    const original = new RangeError('out of range');
    const schema = schemaWith({
      sync: () => {
        throw original;
      },
    });
    const result = (await execute({ schema, document: parse('{ sync }') })) as { errors: GraphQLError[] };
    expect(result.errors[0]).toBeInstanceOf(GraphQLError);
    expect(result.errors[0]?.originalError).toBe(original);
  });
});

describe('execute: request errors', () => {
  it('reports an unknown operation name without a data key', () => {
    const result = execute({ schema: schemaWith(), document: parse('query A { sync }'), operationName: 'B' });
    expect(JSON.parse(JSON.stringify(result))).toEqual({ errors: [{ message: 'Unknown operation named "B".' }] });
  });

  it('requires an operation name when the document has several operations', () => {
    const result = execute({ schema: schemaWith(), document: parse('query A { sync } query B { sync }') });
    expect(JSON.parse(JSON.stringify(result))).toEqual({
      errors: [{ message: 'Must provide operation name if query contains multiple operations.' }],
    });
  });

  it('reports a variable of the wrong type as a request error', () => {
    const result = execute({
      schema: schemaWith(),
      document: parse('query ($n: Int!) { echo(n: $n) }'),
      variableValues: { n: 'three' },
    });
    expect(JSON.parse(JSON.stringify(result))).toEqual({
      errors: [
        {
          message: byMajor({
            16: 'Variable "$n" got invalid value "three"; Int cannot represent non-integer value: "three"',
            17: 'Variable "$n" has invalid value: Int cannot represent non-integer value: "three"',
          }),
          locations: [{ line: 1, column: 8 }],
        },
      ],
    });
  });

  it('reports an operation the schema has no root type for, with data null', () => {
    const result = execute({ schema: schemaWith(), document: parse('mutation { sync }') });
    expect(JSON.parse(JSON.stringify(result))).toEqual({
      errors: [{ message: 'Schema is not configured to execute mutation operation.', locations: [{ line: 1, column: 1 }] }],
      data: null,
    });
  });
});

describe('execute: misuse of the API throws at once', () => {
  it('throws when no document is given, with the installed graphql-js\'s error', () => {
    expect(() => execute({ schema: schemaWith(), document: undefined as never })).toThrow(
      byMajor({ 16: 'Must provide document.', 17: "Cannot read properties of undefined (reading 'definitions')" }),
    );
  });

  it('throws when the variables are not an object, as graphql-js 16 does (17 takes them as given)', () => {
    const run = () => execute({ schema: schemaWith(), document: parse('{ sync }'), variableValues: '{}' as never });
    if (GRAPHQL_MAJOR >= 17) {
      expect(run()).toEqual({ data: { sync: 'now' } });
    } else {
      expect(run).toThrow(
        'Variables must be provided as an Object where each property is a variable value. Perhaps look to see if an unparsed JSON string was provided.',
      );
    }
  });

  it('throws when the schema is invalid', () => {
    const invalid = new GraphQLSchema({});
    expect(() => execute({ schema: invalid, document: parse('{ a }') })).toThrow('Query root type must be provided.');
  });
});

describe('execute: the resolver contract (parent, args, context, info)', () => {
  it('passes the parent value, coerced arguments with defaults, the shared context and a full info', () => {
    const seen: Array<{ parent: unknown; args: unknown; context: unknown; info: GraphQLResolveInfo }> = [];
    const context = { user: 'ada' };
    const rootValue = { root: true };
    const schema = makeSchema({
      typeDefs,
      resolvers: {
        Query: { item: (_: unknown, { id }: { id: string }) => ({ id }) },
        Item: {
          label: (parent: unknown, args: unknown, ctx: unknown, info: GraphQLResolveInfo) => {
            seen.push({ parent, args, context: ctx, info });
            return 'x';
          },
        },
      },
    });
    const document = parse('query Q($id: ID!) { first: item(id: $id) { l: label } }');
    execute({ schema, document, contextValue: context, rootValue, variableValues: { id: '7' } });
    expect(seen).toHaveLength(1);
    const { parent, args, context: ctx, info } = seen[0]!;
    expect(parent).toEqual({ id: '7' });
    expect({ ...(args as object) }).toEqual({ prefix: '>' });
    expect(ctx).toBe(context);
    expect(info.fieldName).toBe('label');
    expect(info.fieldNodes.map((node) => node.alias?.value)).toEqual(['l']);
    expect(String(info.returnType)).toBe('String!');
    expect(info.parentType.name).toBe('Item');
    expect(responsePathAsArray(info.path)).toEqual(['first', 'l']);
    expect(info.path.typename).toBe('Item');
    expect(info.schema).toBe(schema);
    expect(Object.keys(info.fragments)).toEqual([]);
    expect(info.rootValue).toBe(rootValue);
    expect(info.operation.name?.value).toBe('Q');
    // graphql 17 hands resolvers its { sources, coerced } form of the variables.
    expect(info.variableValues).toEqual(byMajor<unknown>({ 16: { id: '7' }, 17: { sources: { id: expect.objectContaining({ value: '7' }) }, coerced: { id: '7' } } }));
  });

  it('gives each call a fresh arguments object, so a resolver that mutates it cannot leak into the next call', () => {
    const schema = makeSchema({
      typeDefs,
      resolvers: {
        Query: { items: () => [{ id: '1' }, { id: '2' }] },
        Item: {
          label: (item: { id: string }, args: { prefix: string }) => {
            const label = args.prefix + item.id;
            args.prefix = 'mutated';
            return label;
          },
        },
      },
    });
    const result = execute({ schema, document: parse('{ items { label(prefix: "#") } }') });
    expect(result).toEqual({ data: { items: [{ label: '#1' }, { label: '#2' }] } });
  });

  it('calls a method of the parent with (args, context, info) when no resolver is given', () => {
    const calls: unknown[][] = [];
    const schema = makeSchema({ typeDefs, resolvers: { Query: { item: () => ({ id: '1', describe: (...a: unknown[]) => (calls.push(a), 'described') }) } } });
    const context = {};
    const result = execute({ schema, document: parse('{ item(id: "1") { describe(loud: true) } }'), contextValue: context });
    expect(result).toEqual({ data: { item: { describe: 'described' } } });
    expect({ ...(calls[0]![0] as object) }).toEqual({ loud: true });
    expect(calls[0]![1]).toBe(context);
    expect((calls[0]![2] as GraphQLResolveInfo).fieldName).toBe('describe');
  });

  it('reads a parent property once, as graphql-js does, whether or not its value is already in shape', () => {
    const reads: string[] = [];
    const parent = {
      get name() {
        reads.push('name');
        return 'Ada';
      },
      get age() {
        reads.push('age');
        return 36.5;
      },
    };
    const schema = buildSchema('type Person { name: String age: Int } type Query { person: Person }');
    const result = execute({ schema, document: parse('{ person { name age } }'), rootValue: { person: parent } });
    expect(JSON.parse(JSON.stringify(result))).toEqual({
      errors: [{ message: 'Int cannot represent non-integer value: 36.5', locations: [{ line: 1, column: 17 }], path: ['person', 'age'] }],
      data: { person: { name: 'Ada', age: null } },
    });
    expect(reads).toEqual(['name', 'age']);
  });

  it('uses the given fieldResolver for fields without their own resolver', () => {
    const schema = buildSchema('type Query { a: String b: String }');
    const result = execute({
      schema,
      document: parse('{ a b }'),
      fieldResolver: (_source, _args, _context, info) => `resolved ${info.fieldName}`,
    });
    expect(result).toEqual({ data: { a: 'resolved a', b: 'resolved b' } });
  });

  it('uses the given typeResolver for abstract types without resolveType', () => {
    const schema = buildSchema('interface Pet { name: String } type Dog implements Pet { name: String } type Query { pet: Pet }');
    const result = execute({
      schema,
      document: parse('{ pet { __typename name } }'),
      rootValue: { pet: { name: 'Rex' } },
      typeResolver: () => 'Dog',
    });
    expect(result).toEqual({ data: { pet: { __typename: 'Dog', name: 'Rex' } } });
  });
});

describe('execute: plans are reused, answers are not', () => {
  it('gives each request its own variables when the same document runs again', () => {
    const schema = schemaWith();
    const document = parse('query ($n: Int!, $skip: Boolean!) { echo(n: $n) sync @skip(if: $skip) }');
    expect(execute({ schema, document, variableValues: { n: 1, skip: true } })).toEqual({ data: { echo: 1 } });
    expect(execute({ schema, document, variableValues: { n: 2, skip: false } })).toEqual({ data: { echo: 2, sync: 'now' } });
    expect(execute({ schema, document, variableValues: { n: 3, skip: true } })).toEqual({ data: { echo: 3 } });
  });

  it('keeps a response name of __proto__ as an ordinary key', () => {
    const result = execute({ schema: schemaWith(), document: parse('{ __proto__: sync }') }) as { data: object };
    expect(Object.keys(result.data)).toEqual(['__proto__']);
    expect(JSON.stringify(result.data)).toBe('{"__proto__":"now"}');
  });
});

describe('execute: mutations run serially', () => {
  it('starts each root mutation field only after the previous one and its sub-selection are complete', async () => {
    const log: string[] = [];
    const schema = makeSchema({
      typeDefs: `type Counter { value: Int! after: Int! }
        type Query { value: Int }
        type Mutation { slow: Counter! fast: Counter! }`,
      resolvers: {
        Mutation: {
          slow: async (_: unknown, __: unknown, ctx: { n: number }) => {
            log.push('slow start');
            await new Promise((resolve) => setTimeout(resolve, 5));
            ctx.n += 1;
            log.push('slow end');
            return { value: ctx.n };
          },
          fast: (_: unknown, __: unknown, ctx: { n: number }) => {
            log.push('fast');
            ctx.n *= 10;
            return { value: ctx.n };
          },
        },
        Counter: {
          after: async (counter: { value: number }) => {
            await new Promise((resolve) => setTimeout(resolve, 5));
            log.push(`after ${counter.value}`);
            return counter.value;
          },
        },
      },
    });
    const result = await execute({
      schema,
      document: parse('mutation { a: slow { value after } b: fast { value after } c: slow { value } }'),
      contextValue: { n: 0 },
    });
    expect(result).toEqual({ data: { a: { value: 1, after: 1 }, b: { value: 10, after: 10 }, c: { value: 11 } } });
    expect(log).toEqual(['slow start', 'slow end', 'after 1', 'fast', 'after 10', 'slow start', 'slow end']);
  });

  it('stops at a failed non-null mutation field: later ones never run', async () => {
    const ran: string[] = [];
    const schema = makeSchema({
      typeDefs: 'type Query { a: Int } type Mutation { ok: Int! broken: Int! never: Int! }',
      resolvers: {
        Mutation: {
          ok: () => (ran.push('ok'), 1),
          broken: async () => {
            ran.push('broken');
            throw new Error('broken');
          },
          never: () => (ran.push('never'), 3),
        },
      },
    });
    const result = await execute({ schema, document: parse('mutation { ok broken never }') });
    expect(JSON.parse(JSON.stringify(result))).toEqual({
      errors: [{ message: 'broken', locations: [{ line: 1, column: 15 }], path: ['broken'] }],
      data: null,
    });
    expect(ran).toEqual(['ok', 'broken']);
  });
});

describe('execute: an aborted signal stops the work', () => {
  it('starts no further field once the signal is aborted, and reports each skipped field with the reason', async () => {
    const controller = new AbortController();
    const ran: string[] = [];
    const schema = makeSchema({
      typeDefs: 'type Item { id: ID! } type Query { first: String second: String items: [Item] }',
      resolvers: {
        Query: {
          first: async () => {
            ran.push('first');
            await Promise.resolve();
            controller.abort(new Error('Execution timed out.'));
            return 'done';
          },
          second: async () => {
            ran.push('second');
            await new Promise((resolve) => setTimeout(resolve, 5));
            return 'late';
          },
          items: async () => {
            ran.push('items');
            await new Promise((resolve) => setTimeout(resolve, 5));
            return [{ id: '1' }];
          },
        },
        Item: { id: (item: { id: string }) => (ran.push('Item.id'), item.id) },
      },
    });
    const result = await execute({ schema, document: parse('{ first second items { id } }'), signal: controller.signal });
    expect(ran).toEqual(['first', 'second', 'items']);
    expect(JSON.parse(JSON.stringify(result))).toEqual({
      errors: [{ message: 'Execution timed out.', locations: [{ line: 1, column: 24 }], path: ['items', 0, 'id'] }],
      data: { first: 'done', second: 'late', items: [null] },
    });
  });
});
