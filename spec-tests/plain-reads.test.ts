/**
 * Plain reads: fields with no resolver and no arguments whose type is a built-in scalar, an
 * enum, or a one-level list of those (plan.ts `PlainRead`), and lists of objects read by index
 * (execute.ts `completeListValue`). The executor stores a value read off the parent as it is
 * when it is already in shape, and otherwise takes the general completion.
 *
 * Every case runs the same schema and document through our `execute` and graphql-js's, and
 * checks both that the two results are identical and that they equal the literal written here,
 * so that the two engines being wrong the same way fails too. Results are compared after a JSON
 * round trip: graphql-js's errors are GraphQLError instances.
 *
 * This suite found ten divergences when it was written (BigInt, Symbol and throwing `valueOf` on
 * Int; Errors and functions as enum values; thenables that call back synchronously; arrays with
 * their own iterator; a serializer's rejected promise); each is now a passing case here.
 */
import { describe, expect, it } from 'vitest';
import { execute as graphqlExecute, parse } from 'graphql';
import type { ExecutionResult, GraphQLSchema } from 'graphql';
import { byMajor } from './support/graphqlMajor.ts';
import { execute, makeSchema } from '../src/index.ts';

/** A result as it goes over the wire. */
function wire(result: unknown): unknown {
  return JSON.parse(JSON.stringify(result));
}

interface Run {
  rootValue?: unknown;
  contextValue?: unknown;
}

/** Runs the query through both engines (awaiting either, when asynchronous). */
async function runBoth(schema: GraphQLSchema, query: string, { rootValue, contextValue }: Run = {}) {
  const document = parse(query);
  const ours = wire(await execute({ schema, document, rootValue, contextValue }));
  const reference = wire(await graphqlExecute({ schema, document, rootValue, contextValue }));
  return { ours, reference };
}

/** Both engines give `expected`: first that ours equals graphql-js's, then that it is the literal. */
async function expectBoth(schema: GraphQLSchema, query: string, run: Run, expected: unknown): Promise<void> {
  const { ours, reference } = await runBoth(schema, query, run);
  expect(ours).toEqual(reference);
  expect(ours).toEqual(expected);
}

/** A field error as it appears on the wire. */
function fieldError(message: string, column: number, path: ReadonlyArray<string | number>) {
  return { message, locations: [{ line: 1, column }], path };
}

const leafSchema = makeSchema({
  incremental: false, // compared with graphql-js, whose execute (17) refuses a schema declaring @defer/@stream
  typeDefs: `
    enum Color { RED GREEN BLUE }
    type T {
      s: String
      ns: String!
      i: Int
      f: Float
      b: Boolean
      id: ID
      c: Color
      nc: Color!
      cs: [Color]
      l: [String]
      nl: [String!]
      nnl: [String!]!
      il: [Int]
      sibling: String
    }
    type Query { o: T }
  `,
  // BLUE keeps its name as its internal value.
  resolvers: { Color: { RED: 0, GREEN: 1 } },
});

/** Runs `{ o { <selection> } }` with `o` as the parent object, on the leaf schema. */
function onO(selection: string, o: unknown, expected: unknown, contextValue?: unknown): Promise<void> {
  return expectBoth(leafSchema, `{ o { ${selection} } }`, { rootValue: { o }, contextValue }, expected);
}

describe('plain reads: a getter that throws is a field error at its own position', () => {
  it('nulls a nullable String field and keeps its siblings', async () => {
    const o = {
      get s(): string {
        throw new Error('getter s');
      },
      sibling: 'ok',
    };
    await onO('s sibling', o, { errors: [fieldError('getter s', 7, ['o', 's'])], data: { o: { s: null, sibling: 'ok' } } });
  });

  it('nulls the parent when the field is Non-Null', async () => {
    const o = {
      sibling: 'ok',
      get ns(): string {
        throw new Error('getter ns');
      },
    };
    await onO('sibling ns', o, { errors: [fieldError('getter ns', 15, ['o', 'ns'])], data: { o: null } });
  });

  it('nulls an enum field', async () => {
    const o = {
      get c(): number {
        throw new Error('getter c');
      },
      sibling: 'ok',
    };
    await onO('c sibling', o, { errors: [fieldError('getter c', 7, ['o', 'c'])], data: { o: { c: null, sibling: 'ok' } } });
  });

  it('nulls a list field', async () => {
    const o = {
      sibling: 'ok',
      get l(): string[] {
        throw new Error('getter l');
      },
    };
    await onO('sibling l', o, { errors: [fieldError('getter l', 15, ['o', 'l'])], data: { o: { sibling: 'ok', l: null } } });
  });

  it('runs a getter once, whether its value is in shape or needs coercion', async () => {
    const reads = { ours: 0, reference: 0 };
    let engine: keyof typeof reads = 'ours';
    const o = {
      get s(): string {
        reads[engine]++;
        return 'x';
      },
      get i(): string {
        reads[engine]++;
        return '7';
      },
    };
    const document = parse('{ o { s i } }');
    const ours = wire(execute({ schema: leafSchema, document, rootValue: { o } }));
    engine = 'reference';
    const reference = wire(graphqlExecute({ schema: leafSchema, document, rootValue: { o } }));
    expect(ours).toEqual(reference);
    expect(ours).toEqual({ data: { o: { s: 'x', i: 7 } } });
    expect(reads).toEqual({ ours: 2, reference: 2 });
  });
});

describe('plain reads: null and undefined', () => {
  it('gives null for a nullable scalar holding null or undefined', async () => {
    await onO('s i f b id c l', { s: null, i: undefined, f: null, b: undefined, id: null, c: undefined, l: null }, {
      data: { o: { s: null, i: null, f: null, b: null, id: null, c: null, l: null } },
    });
  });

  it('gives null for a property the parent does not have', async () => {
    await onO('s cs', {}, { data: { o: { s: null, cs: null } } });
  });

  it('reports a Non-Null scalar holding null and nulls the parent', async () => {
    await onO('sibling ns', { sibling: 'ok', ns: null }, {
      errors: [fieldError('Cannot return null for non-nullable field T.ns.', 15, ['o', 'ns'])],
      data: { o: null },
    });
  });

  it('reports a Non-Null enum holding undefined', async () => {
    await onO('nc', { nc: undefined }, {
      errors: [fieldError('Cannot return null for non-nullable field T.nc.', 7, ['o', 'nc'])],
      data: { o: null },
    });
  });
});

describe('plain reads: values that need coercion, or cannot be coerced, by the built-in scalars', () => {
  it('Int: 2**31 is out of range', async () => {
    await onO('i', { i: 2 ** 31 }, {
      errors: [fieldError('Int cannot represent non 32-bit signed integer value: 2147483648', 7, ['o', 'i'])],
      data: { o: { i: null } },
    });
  });

  it('Int: 1.5 is not an integer', async () => {
    await onO('i', { i: 1.5 }, {
      errors: [fieldError('Int cannot represent non-integer value: 1.5', 7, ['o', 'i'])],
      data: { o: { i: null } },
    });
  });

  it("Int: the string '7' is coerced to 7", async () => {
    await onO('i', { i: '7' }, { data: { o: { i: 7 } } });
  });

  it('Int: -0 is an integer (and is 0 on the wire)', async () => {
    await onO('i', { i: -0 }, { data: { o: { i: 0 } } });
  });

  it('Int: true is 1, and an object is serialized through its valueOf', async () => {
    await onO('i sibling', { i: true, sibling: 'ok' }, { data: { o: { i: 1, sibling: 'ok' } } });
    await onO('i', { i: { valueOf: () => 3 } }, { data: { o: { i: 3 } } });
  });

  it('Int: a BigInt is a field error at the field under graphql 16, and a number under 17 (as a database driver may return for bigint columns)', async () => {
    await onO(
      'i sibling',
      { i: 10n, sibling: 'ok' },
      byMajor<unknown>({
        16: { errors: [fieldError('Int cannot represent non-integer value: 10', 7, ['o', 'i'])], data: { o: { i: null, sibling: 'ok' } } },
        17: { data: { o: { i: 10, sibling: 'ok' } } },
      }),
    );
  });

  it('Int: a Symbol is a field error at the field', async () => {
    await onO('i sibling', { i: Symbol('x'), sibling: 'ok' }, {
      errors: [fieldError('Int cannot represent non-integer value: Symbol(x)', 7, ['o', 'i'])],
      data: { o: { i: null, sibling: 'ok' } },
    });
  });

  it('Int: an object whose valueOf throws is a field error at the field', async () => {
    const i = {
      valueOf(): number {
        throw new Error('no value');
      },
    };
    await onO('i sibling', { i, sibling: 'ok' }, {
      errors: [fieldError('no value', 7, ['o', 'i'])],
      data: { o: { i: null, sibling: 'ok' } },
    });
  });

  it('Int: a resolver returning a Symbol gets graphql-js\'s message', async () => {
    const schema = makeSchema({ incremental: false, typeDefs: 'type Query { i: Int s: String }', resolvers: { Query: { i: () => Symbol('x') } } });
    await expectBoth(schema, '{ i s }', { rootValue: { s: 's' } }, {
      errors: [fieldError('Int cannot represent non-integer value: Symbol(x)', 3, ['i'])],
      data: { i: null, s: 's' },
    });
  });

  it('Float: NaN and Infinity are not numeric values', async () => {
    await onO('f', { f: NaN }, {
      errors: [fieldError('Float cannot represent non numeric value: NaN', 7, ['o', 'f'])],
      data: { o: { f: null } },
    });
    await onO('f', { f: Infinity }, {
      errors: [fieldError('Float cannot represent non numeric value: Infinity', 7, ['o', 'f'])],
      data: { o: { f: null } },
    });
  });

  it("Float: the string '1.5' is coerced to 1.5, and an integer stays one", async () => {
    await onO('f', { f: '1.5' }, { data: { o: { f: 1.5 } } });
    await onO('f', { f: 2 }, { data: { o: { f: 2 } } });
  });

  it('Boolean: 1 is true and 0 is false', async () => {
    await onO('b', { b: 1 }, { data: { o: { b: true } } });
    await onO('b', { b: 0 }, { data: { o: { b: false } } });
  });

  it("Boolean: 'true' cannot be represented", async () => {
    await onO('b', { b: 'true' }, {
      errors: [fieldError('Boolean cannot represent a non boolean value: "true"', 7, ['o', 'b'])],
      data: { o: { b: null } },
    });
  });

  it('String: 42 and true are converted to strings', async () => {
    await onO('s', { s: 42 }, { data: { o: { s: '42' } } });
    await onO('s', { s: true }, { data: { o: { s: 'true' } } });
  });

  it('String: an object with only toString cannot be represented, one with valueOf is serialized through it', async () => {
    await onO('s', { s: { toString: () => 'ts' } }, {
      errors: [fieldError('String cannot represent value: { toString: [function toString] }', 7, ['o', 's'])],
      data: { o: { s: null } },
    });
    await onO('s', { s: { valueOf: () => 'vo' } }, { data: { o: { s: 'vo' } } });
  });

  it('String: a String object is unwrapped', async () => {
    await onO('s', { s: new String('boxed') }, { data: { o: { s: 'boxed' } } });
  });

  it('ID: an integer becomes a string, a fraction cannot be represented', async () => {
    await onO('id', { id: 42 }, { data: { o: { id: '42' } } });
    await onO('id', { id: 1.5 }, {
      errors: [fieldError('ID cannot represent value: 1.5', 7, ['o', 'id'])],
      data: { o: { id: null } },
    });
  });

  it('an Error instance as the value is the field error', async () => {
    await onO('s sibling', { s: new Error('value is an error'), sibling: 'ok' }, {
      errors: [fieldError('value is an error', 7, ['o', 's'])],
      data: { o: { s: null, sibling: 'ok' } },
    });
  });
});

describe('plain reads: enums', () => {
  it('maps internal values read off the parent to their names', async () => {
    await onO('c nc cs', { c: 1, nc: 'BLUE', cs: [0, 1, 'BLUE', null] }, {
      data: { o: { c: 'GREEN', nc: 'BLUE', cs: ['RED', 'GREEN', 'BLUE', null] } },
    });
  });

  it('does not accept the name of a value whose internal value differs', async () => {
    await onO('c', { c: 'RED' }, {
      errors: [fieldError('Enum "Color" cannot represent value: "RED"', 7, ['o', 'c'])],
      data: { o: { c: null } },
    });
  });

  it('reports an unknown internal value', async () => {
    await onO('c sibling', { c: 5, sibling: 'ok' }, {
      errors: [fieldError('Enum "Color" cannot represent value: 5', 7, ['o', 'c'])],
      data: { o: { c: null, sibling: 'ok' } },
    });
  });

  it('reports a bad item of an enum list at the item, keeping the others', async () => {
    await onO('cs', { cs: [0, 5, 1] }, {
      errors: [fieldError('Enum "Color" cannot represent value: 5', 7, ['o', 'cs', 1])],
      data: { o: { cs: ['RED', null, 'GREEN'] } },
    });
  });

  describe('internal values that the default resolver or completion treats specially', () => {
    const method = function method(): string {
      return 'called';
    };
    const failure = new Error('an internal value that is an Error');
    const schema = makeSchema({
      incremental: false, // compared with graphql-js, whose execute (17) refuses a schema declaring @defer/@stream
      typeDefs: 'enum E { FN ERR PLAIN } type Query { e: E es: [E] }',
      resolvers: { E: { FN: method, ERR: failure, PLAIN: 'p' } },
    });

    it('a function read off the parent is called, even when it is an internal value', async () => {
      await expectBoth(schema, '{ e }', { rootValue: { e: method } }, {
        errors: [fieldError('Enum "E" cannot represent value: "called"', 3, ['e'])],
        data: { e: null },
      });
    });

    it('an Error read off the parent is the field error, even when it is an internal value', async () => {
      await expectBoth(schema, '{ e }', { rootValue: { e: failure } }, {
        errors: [fieldError('an internal value that is an Error', 3, ['e'])],
        data: { e: null },
      });
    });

    it('an Error item of an enum list is the item error, even when it is an internal value', async () => {
      await expectBoth(schema, '{ es }', { rootValue: { es: ['p', failure] } }, {
        errors: [fieldError('an internal value that is an Error', 3, ['es', 1])],
        data: { es: ['PLAIN', null] },
      });
    });
  });
});

describe('plain reads: lists of leaves', () => {
  it('[String] keeps null and undefined items as null', async () => {
    await onO('l', { l: ['a', null, undefined] }, { data: { o: { l: ['a', null, null] } } });
  });

  it('[String] gives null for the holes of a sparse array', async () => {
    await onO('l', { l: [, 'a'] }, { data: { o: { l: [null, 'a'] } } });
  });

  it('[String] coerces items that are not strings', async () => {
    await onO('l', { l: ['a', 1, true] }, { data: { o: { l: ['a', '1', 'true'] } } });
  });

  it('[String!] with a null item: the error is at the item, the list becomes null', async () => {
    await onO('nl sibling', { nl: ['a', null], sibling: 'ok' }, {
      errors: [fieldError('Cannot return null for non-nullable field T.nl.', 7, ['o', 'nl', 1])],
      data: { o: { nl: null, sibling: 'ok' } },
    });
  });

  it('[String!]! with a null item: the null reaches the parent', async () => {
    await onO('nnl sibling', { nnl: ['a', null], sibling: 'ok' }, {
      errors: [fieldError('Cannot return null for non-nullable field T.nnl.', 7, ['o', 'nnl', 1])],
      data: { o: null },
    });
  });

  it('[String!]! holding null itself: the error is at the field', async () => {
    await onO('nnl', { nnl: null }, {
      errors: [fieldError('Cannot return null for non-nullable field T.nnl.', 7, ['o', 'nnl'])],
      data: { o: null },
    });
  });

  it('[String!]! in shape is stored as it is', async () => {
    await onO('nnl', { nnl: ['a', 'b'] }, { data: { o: { nnl: ['a', 'b'] } } });
  });

  it('an Error item is the error of that item', async () => {
    await onO('l', { l: ['a', new Error('bad item')] }, {
      errors: [fieldError('bad item', 7, ['o', 'l', 1])],
      data: { o: { l: ['a', null] } },
    });
  });

  it('a Promise item is awaited in place', async () => {
    await onO('l', { l: ['a', Promise.resolve('b'), 'c'] }, { data: { o: { l: ['a', 'b', 'c'] } } });
  });

  it('a rejected Promise item of [String!] nulls the list', async () => {
    await onO('nl sibling', { nl: ['a', Promise.reject(new Error('rejected item'))], sibling: 'ok' }, {
      errors: [fieldError('rejected item', 7, ['o', 'nl', 1])],
      data: { o: { nl: null, sibling: 'ok' } },
    });
  });

  it('a Set is iterated like an array', async () => {
    await onO('l', { l: new Set(['a', 'b']) }, { data: { o: { l: ['a', 'b'] } } });
  });

  it('a Set with a null item of [String!] fails at the item', async () => {
    await onO('nl', { nl: new Set(['a', null]) }, {
      errors: [fieldError('Cannot return null for non-nullable field T.nl.', 7, ['o', 'nl', 1])],
      data: { o: { nl: null } },
    });
  });

  it('a value that is not iterable (a number, a string, a plain object) is an error', async () => {
    const expected = {
      errors: [fieldError('Expected Iterable, but did not find one for field "T.l".', 7, ['o', 'l'])],
      data: { o: { l: null } },
    };
    await onO('l', { l: 5 }, expected);
    await onO('l', { l: 'abc' }, expected);
    await onO('l', { l: { 0: 'a', length: 1 } }, expected);
  });

  it('an array with its own `then` is a thenable: the list is what it resolves to', async () => {
    const list = Object.assign(['a', 'b'], {
      then(onFulfilled: (value: unknown) => unknown, onRejected: (error: unknown) => unknown) {
        return Promise.resolve(['from', 'then']).then(onFulfilled, onRejected);
      },
    });
    await onO('l', { l: list }, { data: { o: { l: ['from', 'then'] } } });
  });

  it('an array whose own `then` calls back synchronously resolves to what it passes', async () => {
    const list = Object.assign(['a', 'b'], {
      then(onFulfilled: (value: unknown) => unknown) {
        return onFulfilled(['from', 'then']);
      },
    });
    await onO('l', { l: list }, { data: { o: { l: ['from', 'then'] } } });
  });

  it("an array's own Symbol.iterator is what the list is made of", async () => {
    const list = Object.assign(['a', 'b'], {
      *[Symbol.iterator]() {
        yield 'x';
      },
    });
    await onO('l', { l: list }, { data: { o: { l: ['x'] } } });
  });

  it('[Int] with one float item: the item is an error, the others stay', async () => {
    await onO('il', { il: [1, 1.5, 2] }, {
      errors: [fieldError('Int cannot represent non-integer value: 1.5', 7, ['o', 'il', 1])],
      data: { o: { il: [1, null, 2] } },
    });
  });

  it('[Int] coerces a numeric string item', async () => {
    await onO('il', { il: [1, '2'] }, { data: { o: { il: [1, 2] } } });
  });
});

describe('plain reads: a function read off the parent is called as a method with (args, context, info)', () => {
  it('for a scalar field', async () => {
    const o = {
      base: 'base',
      s(this: { base: string }, args: object, context: { tag: string }, info: { fieldName: string; path: { key: unknown } }) {
        return `${this.base}:${Object.keys(args).length}:${context.tag}:${info.fieldName}:${String(info.path.key)}`;
      },
    };
    await onO('s', o, { data: { o: { s: 'base:0:ctx:s:s' } } }, { tag: 'ctx' });
  });

  it('for a list field', async () => {
    await onO('l il', { l: () => ['q', 'r'], il: () => [1, '2'] }, { data: { o: { l: ['q', 'r'], il: [1, 2] } } });
  });

  it('for a Non-Null field whose method returns null', async () => {
    await onO('ns', { ns: () => null }, {
      errors: [fieldError('Cannot return null for non-nullable field T.ns.', 7, ['o', 'ns'])],
      data: { o: null },
    });
  });
});

describe('lists of objects (the list fast path)', () => {
  const schema = makeSchema({
    incremental: false, // compared with graphql-js, whose execute (17) refuses a schema declaring @defer/@stream
    typeDefs: `
      type P { n: String! m: String }
      type W { x: String c: [P!]! }
      type Query { a: [P] b: [P!] w: W }
    `,
  });

  it('an item that is null in [T] stays null', async () => {
    await expectBoth(schema, '{ a { n } }', { rootValue: { a: [{ n: '1' }, null, undefined] } }, { data: { a: [{ n: '1' }, null, null] } });
  });

  it('an item that is null in [T!] nulls the list', async () => {
    await expectBoth(schema, '{ b { n } }', { rootValue: { b: [{ n: '1' }, null] } }, {
      errors: [fieldError('Cannot return null for non-nullable field Query.b.', 3, ['b', 1])],
      data: { b: null },
    });
  });

  it('an item that is an Error is the error of that item', async () => {
    await expectBoth(schema, '{ a { n } }', { rootValue: { a: [{ n: '1' }, new Error('bad item')] } }, {
      errors: [fieldError('bad item', 3, ['a', 1])],
      data: { a: [{ n: '1' }, null] },
    });
  });

  it('an item that is a Promise is awaited in place', async () => {
    await expectBoth(schema, '{ a { n } }', { rootValue: { a: [Promise.resolve({ n: 'p' }), { n: '1' }] } }, {
      data: { a: [{ n: 'p' }, { n: '1' }] },
    });
  });

  it('an item that is a function is an object without the fields (it is not called)', async () => {
    await expectBoth(schema, '{ a { n } }', { rootValue: { a: [() => ({ n: 'f' }), { n: '1' }] } }, {
      errors: [fieldError('Cannot return null for non-nullable field P.n.', 7, ['a', 0, 'n'])],
      data: { a: [null, { n: '1' }] },
    });
  });

  it('an item that is a string has none of the fields', async () => {
    await expectBoth(schema, '{ a { m } }', { rootValue: { a: ['str', { m: 'x' }] } }, { data: { a: [{ m: null }, { m: 'x' }] } });
  });

  it('a Non-Null field failing in the 2nd item of [T!]! nulls the nearest nullable ancestor', async () => {
    await expectBoth(schema, '{ w { x c { n m } } }', { rootValue: { w: { x: 'x', c: [{ n: '1' }, { m: 'no n' }] } } }, {
      errors: [fieldError('Cannot return null for non-nullable field P.n.', 13, ['w', 'c', 1, 'n'])],
      data: { w: null },
    });
  });

  it('items of a type with isTypeOf are checked one by one', async () => {
    const typed = makeSchema({
      incremental: false, // compared with graphql-js, whose execute (17) refuses a schema declaring @defer/@stream
      typeDefs: 'type P { n: String } type Query { a: [P] }',
      resolvers: { P: { __isTypeOf: (value: { kind?: string }) => value.kind === 'P' } },
    });
    await expectBoth(typed, '{ a { n } }', { rootValue: { a: [{ kind: 'P', n: '1' }, { kind: 'Q', n: '2' }] } }, {
      errors: [fieldError('Expected value of type "P" but got: { kind: "Q", n: "2" }.', 3, ['a', 1])],
      data: { a: [{ n: '1' }, null] },
    });
  });

  it('items of a type with an asynchronous isTypeOf', async () => {
    const typed = makeSchema({
      incremental: false, // compared with graphql-js, whose execute (17) refuses a schema declaring @defer/@stream
      typeDefs: 'type P { n: String } type Query { a: [P] }',
      resolvers: { P: { __isTypeOf: async (value: { kind?: string }) => value.kind === 'P' } },
    });
    await expectBoth(typed, '{ a { n } }', { rootValue: { a: [{ kind: 'Q', n: '2' }, { kind: 'P', n: '1' }] } }, {
      errors: [fieldError('Expected value of type "P" but got: { kind: "Q", n: "2" }.', 3, ['a', 0])],
      data: { a: [null, { n: '1' }] },
    });
  });
});

describe('a custom scalar whose serialize returns a Promise', () => {
  it('is awaited at the field, for a field and for list items', async () => {
    const schema = makeSchema({
      incremental: false, // compared with graphql-js, whose execute (17) refuses a schema declaring @defer/@stream
      typeDefs: 'scalar Later type Query { x: Later y: [Later] s: String }',
      resolvers: { Later: { serialize: (value: unknown) => Promise.resolve(`L${String(value)}`) } },
    });
    await expectBoth(schema, '{ x y s }', { rootValue: { x: 1, y: [1, 2], s: 's' } }, { data: { x: 'L1', y: ['L1', 'L2'], s: 's' } });
  });

  // A short timeout: the bug this guards against left the execution unsettled.
  it('a rejected serialize promise is a field error', async () => {
    const schema = makeSchema({
      incremental: false, // compared with graphql-js, whose execute (17) refuses a schema declaring @defer/@stream
      typeDefs: 'scalar Later type Query { x: Later s: String }',
      resolvers: { Later: { serialize: () => Promise.reject(new Error('cannot serialize')) } },
    });
    await expectBoth(schema, '{ s x }', { rootValue: { x: 1, s: 's' } }, {
      errors: [fieldError('cannot serialize', 5, ['x'])],
      data: { s: 's', x: null },
    });
  }, 5_000);
});

describe('measureCost: plain reads cost what the same fields cost with trivial resolvers', () => {
  // Weights (analyze.ts fieldWeight): a field's @cost, else its named type's @cost, else 1 for
  // a composite type and 0 for a leaf. A field without arguments has a fixed weight.
  const typeDefs = `
    enum Color @cost(weight: "5") { RED GREEN }
    type T {
      s: String @cost(weight: "2")
      i: Int
      c: Color
      l: [String] @cost(weight: "3")
      cs: [Color]
      ns: String!
    }
    type Query { o: T os: [T] }
  `;
  const plainSchema = makeSchema({ incremental: false, typeDefs });
  const trivial = (name: string) => (parent: Record<string, unknown>) => parent[name];
  const resolvedSchema = makeSchema({
    incremental: false, // compared with graphql-js, whose execute (17) refuses a schema declaring @defer/@stream
    typeDefs,
    resolvers: { T: Object.fromEntries(['s', 'i', 'c', 'l', 'cs', 'ns'].map((name) => [name, trivial(name)])) },
  });

  function actualCost(schema: GraphQLSchema, query: string, rootValue: unknown): { result: ExecutionResult; actual: unknown } {
    const result = execute({ schema, document: parse(query), rootValue, measureCost: true }) as ExecutionResult;
    return { result, actual: (result.extensions?.['cost'] as { actual?: unknown } | undefined)?.actual };
  }

  it('scalars, an enum and lists of leaves in shape: 1 (o) + 2 (s) + 0 (i) + 5 (c) + 3 (l) + 5 (cs) = 16', () => {
    const o = { s: 'a', i: 1, c: 'RED', l: ['x'], cs: ['GREEN'] };
    const query = '{ o { s i c l cs } }';
    const plain = actualCost(plainSchema, query, { o });
    const resolved = actualCost(resolvedSchema, query, { o });
    expect(plain.result).toEqual({ data: { o: { s: 'a', i: 1, c: 'RED', l: ['x'], cs: ['GREEN'] } }, extensions: { cost: { actual: 16 } } });
    expect(resolved.result).toEqual(plain.result);
  });

  it('values that need coercion (the general path) cost the same', () => {
    const o = { s: 7, i: '2', c: 'RED', l: new Set(['x']), cs: [null] };
    const query = '{ o { s i c l cs } }';
    const plain = actualCost(plainSchema, query, { o });
    const resolved = actualCost(resolvedSchema, query, { o });
    expect(plain.result).toEqual({ data: { o: { s: '7', i: 2, c: 'RED', l: ['x'], cs: [null] } }, extensions: { cost: { actual: 16 } } });
    expect(resolved.result).toEqual(plain.result);
  });

  it('a field that fails still counts, as a resolver that runs and fails does', () => {
    const query = '{ o { s ns } }';
    const plain = actualCost(plainSchema, query, { o: { s: 'a', ns: null } });
    const resolved = actualCost(resolvedSchema, query, { o: { s: 'a', ns: null } });
    expect(plain.actual).toBe(3);
    expect(resolved.actual).toBe(3);
    expect(wire(plain.result)).toEqual(wire(resolved.result));
  });

  it('a list of objects counts the list field, then each item\'s fields: 1 (os) + 2 × (2 (s) + 5 (c)) = 15', () => {
    const query = '{ os { s c } }';
    const rootValue = { os: [{ s: 'a', c: 'RED' }, { s: 'b', c: 'GREEN' }] };
    const plain = actualCost(plainSchema, query, rootValue);
    const resolved = actualCost(resolvedSchema, query, rootValue);
    expect(plain.actual).toBe(15);
    expect(resolved.actual).toBe(15);
  });
});
