/**
 * makeSchema: SDL + an Apollo/Yoga-style resolver map -> an executable schema, and a clear
 * build-time error for every resolver the SDL does not declare.
 */
import { describe, expect, it } from 'vitest';
import { GraphQLScalarType, Kind, graphqlSync, parse } from 'graphql';
import type { ValueNode } from 'graphql';
import { byMajor } from './support/graphqlMajor.ts';
import { execute, makeSchema } from '../src/index.ts';

describe('makeSchema: resolvers reach the fields they name', () => {
  it('attaches field resolvers given as functions or as { resolve }', () => {
    const schema = makeSchema({
      typeDefs: 'type Query { a: String b: String }',
      resolvers: { Query: { a: () => 'from a', b: { resolve: () => 'from b' } } },
    });
    expect(execute({ schema, document: parse('{ a b }') })).toEqual({ data: { a: 'from a', b: 'from b' } });
  });

  it('merges several resolver maps type by type', () => {
    const schema = makeSchema({
      typeDefs: ['type Query { a: String }', 'extend type Query { b: String }'],
      resolvers: [{ Query: { a: () => 'A' } }, { Query: { b: () => 'B' } }],
    });
    expect(execute({ schema, document: parse('{ a b }') })).toEqual({ data: { a: 'A', b: 'B' } });
  });

  it('uses enum internal values for arguments and results', () => {
    const seen: unknown[] = [];
    const schema = makeSchema({
      typeDefs: 'enum Species { DOG CAT } type Query { echo(s: Species!): Species }',
      resolvers: {
        Species: { DOG: 'd', CAT: 'c' },
        Query: { echo: (_: unknown, { s }: { s: string }) => (seen.push(s), s) },
      },
    });
    expect(execute({ schema, document: parse('{ echo(s: CAT) }') })).toEqual({ data: { echo: 'CAT' } });
    expect(seen).toEqual(['c']);
  });

  it('coerces argument and input-field defaults with the internal enum values and custom scalar parsers', () => {
    const seen: unknown[] = [];
    const schema = makeSchema({
      // Introspected by graphql-js's graphqlSync, which (under 17) refuses a schema declaring @defer/@stream.
      incremental: false,
      typeDefs: `enum Unit { METER FOOT } scalar Day
        input Filter { unit: Unit = FOOT since: Day = "2001-02-03" }
        type Query { measure(unit: Unit = METER, filter: Filter = {}): Float }`,
      resolvers: {
        Unit: { METER: 1, FOOT: 0.3048 },
        Day: {
          serialize: (day: unknown) => (day as Date).toISOString().slice(0, 10),
          parseLiteral: (node: ValueNode) => (node.kind === Kind.STRING ? new Date(node.value) : null),
        },
        Query: { measure: (_: unknown, args: unknown) => (seen.push(args), 2) },
      },
    });
    expect(execute({ schema, document: parse('{ measure }') })).toEqual({ data: { measure: 2 } });
    expect(JSON.parse(JSON.stringify(seen[0]))).toEqual({ unit: 1, filter: { unit: 0.3048, since: '2001-02-03T00:00:00.000Z' } });
    const introspected = graphqlSync({ schema, source: '{ __type(name: "Query") { fields { args { name defaultValue } } } }' });
    expect(introspected).toEqual({
      // graphql 16 prints the coerced default; 17 prints the literal as written.
      data: {
        __type: {
          fields: [{ args: [{ name: 'unit', defaultValue: 'METER' }, { name: 'filter', defaultValue: byMajor({ 16: '{unit: FOOT, since: "2001-02-03"}', 17: '{  }' }) }] }],
        },
      },
    });
  });

  it('accepts custom scalars as a GraphQLScalarType or as { serialize, parseValue, parseLiteral }', () => {
    const Upper = new GraphQLScalarType({ name: 'Upper', serialize: (value) => String(value).toUpperCase() });
    const schema = makeSchema({
      typeDefs: 'scalar Upper scalar Cents type Query { u: Upper c(in: Cents): Cents }',
      resolvers: {
        Upper,
        Cents: {
          serialize: (value: unknown) => `${(value as number) / 100}`,
          parseValue: (value: unknown) => Math.round(Number(value) * 100),
          parseLiteral: (node: ValueNode) => (node.kind === Kind.STRING ? Math.round(Number(node.value) * 100) : null),
        },
        Query: { u: () => 'shout', c: (_: unknown, args: { in: number }) => args.in },
      },
    });
    expect(execute({ schema, document: parse('{ u c(in: "1.25") }') })).toEqual({ data: { u: 'SHOUT', c: '1.25' } });
  });

  it('uses __resolveType on interfaces and unions and __isTypeOf on objects', () => {
    const schema = makeSchema({
      // Run by graphql-js's graphqlSync, which (under 17) refuses a schema declaring @defer/@stream.
      incremental: false,
      typeDefs: `interface Named { name: String } type A implements Named { name: String }
        type B { b: Int } union AB = A | B type Query { named: Named ab: [AB] }`,
      resolvers: {
        Named: { __resolveType: () => 'A' },
        A: { __isTypeOf: (value: { name?: string }) => value.name !== undefined },
        B: { __isTypeOf: (value: { b?: number }) => value.b !== undefined },
        Query: { named: () => ({ name: 'n' }), ab: () => [{ name: 'a' }, { b: 2 }] },
      },
    });
    const result = graphqlSync({ schema, source: '{ named { name } ab { ... on A { name } ... on B { b } } }' });
    expect(result).toEqual({ data: { named: { name: 'n' }, ab: [{ name: 'a' }, { b: 2 }] } });
  });
});

describe('makeSchema: a resolver for something the SDL lacks is a build-time error naming it', () => {
  const typeDefs = 'type Query { a: String } enum E { X } input I { x: Int } scalar S';
  const cases: Array<[string, Record<string, unknown>, string]> = [
    ['an unknown type', { Nope: { a: () => 1 } }, 'makeSchema: resolvers define type "Nope", which is not in the schema.'],
    ['an unknown field', { Query: { b: () => 1 } }, 'makeSchema: resolvers define field "Query.b", which is not in the schema.'],
    ['an unknown enum value', { E: { Y: 1 } }, 'makeSchema: resolvers define enum value "E.Y", which is not in the schema.'],
    ['an input object', { I: { x: () => 1 } }, 'makeSchema: input object type "I" cannot have resolvers.'],
    [
      'a built-in scalar',
      { String: { serialize: String } },
      'makeSchema: the built-in scalar "String" cannot be given resolvers.',
    ],
    [
      'a scalar with unknown members',
      { S: { serialise: String } },
      byMajor({
        16: 'makeSchema: scalar "S" got "serialise"; expected only serialize, parseValue, parseLiteral, specifiedByURL.',
        17: 'makeSchema: scalar "S" got "serialise"; expected only serialize, parseValue, parseLiteral, coerceOutputValue, coerceInputValue, coerceInputLiteral, valueToLiteral, specifiedByURL.',
      }),
    ],
    [
      '__resolveType on an object type',
      { Query: { __resolveType: () => 'Query' } },
      'makeSchema: "Query.__resolveType" is only allowed on interfaces and unions.',
    ],
    [
      'a field resolver that is not a function',
      { Query: { a: 42 } },
      'makeSchema: resolver "Query.a" must be a function or { resolve }, got a number.',
    ],
  ];
  for (const [what, resolvers, message] of cases) {
    it(`rejects ${what}`, () => {
      expect(() => makeSchema({ typeDefs, resolvers: resolvers as never })).toThrow(new TypeError(message));
    });
  }
});

describe('makeSchema: SDL that cannot make a valid schema is refused at once, prefixed and located', () => {
  it.each<[string, string | string[], string]>([
    ['a type typo', 'type Query {\n  a: Strin\n}', 'makeSchema: Unknown type "Strin". Did you mean "String"? (at typeDefs line 2, column 6)'],
    ['a syntax error', 'type Query { a: String', 'makeSchema: Syntax Error: Expected Name, found <EOF>. (at typeDefs line 1, column 23)'],
    ['a type defined twice', 'type Query { a: String }\n\ntype Query { b: Int }', 'makeSchema: There can be only one type named "Query". (at typeDefs line 3, column 1)'],
    ['an extension of nothing', 'type Query { a: String }\nextend type Nope { b: Int }', 'makeSchema: Cannot extend type "Nope" because it is not defined. (at typeDefs line 2, column 1)'],
    ['a union of a scalar (valid SDL, invalid schema)', 'type Query { a: Foo }\nunion Foo = String', 'makeSchema: Union type Foo can only include Object types, it cannot include String. (at typeDefs line 2, column 13)'],
    ['the second of several parts', ['type Query { a: String }', 'type Book {\n  title: Strng\n}'], 'makeSchema: Unknown type "Strng". Did you mean "String"? (at typeDefs[1] line 2, column 10)'],
  ])('%s', (_title, typeDefs, message) => {
    expect(() => makeSchema({ typeDefs })).toThrow(new TypeError(message));
  });

  it('lists every error the type system finds, one line each', () => {
    expect(() => makeSchema({ typeDefs: 'type Query { a: Foo b: Bar }\nunion Foo = String\nunion Bar = Int' })).toThrow(
      new TypeError(
        [
          'makeSchema: Union type Foo can only include Object types, it cannot include String. (at typeDefs line 2, column 13)',
          'makeSchema: Union type Bar can only include Object types, it cannot include Int. (at typeDefs line 3, column 13)',
        ].join('\n'),
      ),
    );
  });
});
