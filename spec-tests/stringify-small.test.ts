/**
 * stringifySmall against JSON.stringify: the same text (or `undefined`) for any value, and when
 * JSON.stringify throws, an error of the same constructor with the same message.
 *
 * Why: the HTTP handler writes small results with stringifySmall instead of JSON.stringify, so
 * any difference in text is a different response body, and any difference in error is a
 * different failure. The function is a hand-written copy of a spec algorithm with shortcuts (a
 * fast path for short strings, a regex for long ones, a hand-off to the native serializer for
 * strings that need escaping, boxed primitives and BigInts, a depth limit with a fallback), and each shortcut has its
 * own way of being wrong. The reference is always the native JSON.stringify on the same value:
 * nothing here is a re-implementation of JSON.
 *
 * - The first property generates rich values (all kinds of strings, numbers, symbols, BigInts,
 *   functions, sparse arrays, plain and null-prototype objects with awkward keys, getters,
 *   non-enumerable and symbol-keyed properties, `toJSON` members that depend on their key,
 *   Dates, boxed primitives, class instances, Maps, Sets, GraphQLErrors, re-entrant getters and
 *   `toJSON`s, values nested past the 64-level walk) and compares outcomes.
 * - The second property builds values with shared and circular references through every kind of
 *   container the function treats differently (plain objects, arrays, class instances, objects
 *   with `toJSON`), because the error message of a circular structure names the path of the
 *   cycle as the native serializer walked it.
 * - The examples pin the literal text of common cases (written out, not computed), so that a
 *   mistake in the harness, such as comparing the wrong things, cannot make everything pass; the
 *   rest check errors, re-entrancy (a getter or `toJSON` that calls stringifySmall again, which
 *   must not disturb the outer walk's depth) and how often getters run (once, as natively, for
 *   any value within the 64-level walk: a getter may have a cost or a side effect).
 *
 * Not generated, because the header of stringifySmall documents them as differences: Proxies,
 * and boxed primitives whose prototype was replaced. Getters and `toJSON`s are deterministic, as
 * a value deeper than 64 levels is read twice (once by the walk, once by the native fallback).
 *
 * Runs: STRINGIFY_RUNS (default 2000) per property. To replay a failure, set STRINGIFY_SEED (and
 * STRINGIFY_PATH) to the `seed` (and `path`) fast-check printed, and pick the failing property
 * with `-t`, since the two properties read the same variables.
 */
import fc from 'fast-check';
import { GraphQLError } from 'graphql';
import { describe, expect, it } from 'vitest';
import { stringifySmall } from '../src/jsutils/stringifySmall.ts';

const RUNS = Number(process.env.STRINGIFY_RUNS ?? 2000);
const SEED = process.env.STRINGIFY_SEED === undefined ? undefined : Number(process.env.STRINGIFY_SEED);
const PATH = process.env.STRINGIFY_PATH;
const PARAMETERS = {
  numRuns: RUNS,
  ...(SEED === undefined ? {} : { seed: SEED }),
  ...(PATH === undefined ? {} : { path: PATH }),
};
const TIMEOUT = Math.max(120_000, RUNS * 60);

// ---------------------------------------------------------------------------------------------
// Outcomes

type Outcome = { threw: false; text: string | undefined } | { threw: true; type: unknown; message: string };

function outcome(serialize: () => string | undefined): Outcome {
  try {
    return { threw: false, text: serialize() };
  } catch (error) {
    return {
      threw: true,
      type: (error as object | null)?.constructor,
      message: error instanceof Error ? error.message : String(error),
    };
  }
}

/**
 * The serializer that re-entrant getters and `toJSON`s call. While the reference runs it is the
 * native JSON.stringify, while stringifySmall runs it is stringifySmall: so the reference is
 * native all the way down, and a re-entrant call of ours must produce the native text to agree.
 */
let reentrant: (value: unknown) => string | undefined = JSON.stringify;

/** What a re-entrant call gives to its caller: its text, or a description of what it threw (the message too must agree). */
function callReentrant(value: unknown): string {
  try {
    return `text:${String(reentrant(value))}`;
  } catch (error) {
    return `threw:${(error as Error).constructor.name}:${(error as Error).message}`;
  }
}

/** Both outcomes, the reference computed first, each with its own re-entrant serializer. */
function compare(make: () => unknown): { ours: Outcome; reference: Outcome } {
  const value = make();
  reentrant = JSON.stringify;
  const reference = outcome(() => JSON.stringify(value));
  reentrant = stringifySmall;
  try {
    const ours = outcome(() => stringifySmall(value));
    return { ours, reference };
  } finally {
    reentrant = JSON.stringify;
  }
}

function expectSameAsNative(make: () => unknown): void {
  const { ours, reference } = compare(make);
  expect(ours).toEqual(reference);
}

// ---------------------------------------------------------------------------------------------
// Leaves

/** Any UTF-16 code unit: lone surrogates of both halves, control characters, everything. */
const codeUnit = fc.nat({ max: 0xffff }).map((code) => String.fromCharCode(code));
/** The characters JSON cares about, and neighbours it must leave alone (DEL, U+2028, non-ASCII, a valid pair). */
const trickyUnit = fc.constantFrom(
  '"', '\\', '\u0000', '\u0001', '\b', '\t', '\n', '\f', '\r', '\u001f', ' ', '\u007f', '\u2028', '\u2029',
  '\ud800', '\udbff', '\udc00', '\udfff', '\ud83d\ude00', '\ud83d', '\ude00', 'a', 'é', '/', '<',
);
/** Characters that never need escaping, for long strings that must take the no-escape path. */
const cleanUnit = fc.constantFrom('a', 'Z', '0', ' ', '~', 'é', '\u2028', '\u007f', '中', '/');

const strings: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 12 }),
  fc.string({ unit: 'grapheme-ascii', maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.string({ unit: 'binary-ascii', maxLength: 40 }),
  fc.string({ unit: codeUnit, maxLength: 40 }),
  fc.string({ unit: trickyUnit, maxLength: 40 }),
  // Around and past the 32-character boundary where quote switches from its loop to its regex.
  fc.string({ unit: cleanUnit, minLength: 28, maxLength: 90 }),
  // Valid pairs need no escape, but their halves are in the regex's range: the native call decides.
  fc.string({ unit: fc.oneof(cleanUnit, fc.constant('\ud83d\ude00')), minLength: 28, maxLength: 60 }),
  fc
    .tuple(fc.string({ unit: cleanUnit, minLength: 30, maxLength: 70 }), trickyUnit, fc.nat())
    .map(([clean, tricky, at]) => {
      const position = at % (clean.length + 1);
      return clean.slice(0, position) + tricky + clean.slice(position);
    }),
);

const numbers: fc.Arbitrary<number> = fc.oneof(
  fc.double(), // includes -0, NaN, ±Infinity, subnormals and huge values
  fc.integer(),
  fc.maxSafeInteger(),
  fc.constantFrom(
    0, -0, NaN, Infinity, -Infinity, 1e21, 1e-7, 123456789012345680000, 5e-324, Number.MAX_VALUE,
    Number.MIN_VALUE, Number.MAX_SAFE_INTEGER, -(2 ** 53), 0.1 + 0.2, 1.5, -1e-300,
  ),
);

function namedFunction(key: string): string {
  return `called with ${key}`;
}
class NotCallable {}
const functions: fc.Arbitrary<unknown> = fc.constantFrom<unknown>(
  () => 1,
  namedFunction,
  function (this: unknown, key: string) {
    return [key];
  },
  async () => 1,
  NotCallable,
  Math.max,
  namedFunction.bind(null, 'bound'),
  () => undefined,
  () => Symbol('from a function'),
);

const symbols: fc.Arbitrary<symbol> = fc.oneof(
  fc.string({ maxLength: 3 }).map((description) => Symbol(description)),
  fc.constantFrom(Symbol.iterator, Symbol.for('registered')),
);

const bigints = fc.bigInt({ min: -(2n ** 70n), max: 2n ** 70n });

const dates: fc.Arbitrary<Date> = fc.oneof(
  fc.date({ noInvalidDate: false }),
  fc.constant(null).map(() => new Date(NaN)),
  fc.constantFrom(8.64e15, -8.64e15, 0).map((time) => new Date(time)),
);

const boxed: fc.Arbitrary<unknown> = fc.oneof(
  numbers.map((n) => new Number(n)),
  strings.map((s) => new String(s)),
  fc.boolean().map((b) => new Boolean(b)),
  bigints.map((b) => Object(b)), // throws, as a BigInt does
  symbols.map((s) => Object(s)),
);

const leaves: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: strings },
  { weight: 5, arbitrary: numbers },
  { weight: 2, arbitrary: fc.boolean() },
  { weight: 2, arbitrary: fc.constant(null) },
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: functions },
  { weight: 1, arbitrary: symbols },
  // Rare, since anything holding one throws and would hide the rest of the value.
  { weight: 1, arbitrary: fc.oneof(bigints, fc.constantFrom(0n, -1n)) },
  { weight: 1, arbitrary: dates },
  { weight: 1, arbitrary: boxed },
  {
    weight: 1,
    arbitrary: fc.constantFrom<() => unknown>(
      () => new Map([['a', 1]]),
      () => new Set([1, 2]),
      () => /re/g,
      () => new Error('plain error'),
      () => new Uint8Array([1, 2, 3]),
      () => new ArrayBuffer(2),
      () => new WeakMap(),
      () => Object(Symbol('boxed')),
    ).map((make) => make()),
  },
);

// ---------------------------------------------------------------------------------------------
// Containers

/** Keys JSON must write as they are, in Object.keys order (integer-like first), escaped where needed. */
const keys: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('a', 'b', 'data', 'errors', 'hello') },
  {
    weight: 3,
    arbitrary: fc.constantFrom(
      '0', '1', '10', '2', '-1', '01', '1.5', '4294967294', '4294967295', '1e3', '',
      '__proto__', 'constructor', 'toString', 'hasOwnProperty', 'valueOf', 'length',
      '"', '\\', '\n', '\u0000', '\ud800', '\ud83d\ude00', 'key with spaces', 'x'.repeat(40),
    ),
  },
  { weight: 2, arbitrary: strings },
);

type PropertyMode = 'data' | 'hidden' | 'getter' | 'hiddenGetter' | 'readonly' | 'symbol' | 'reentrantGetter';
const propertyModes = fc.constantFrom<PropertyMode>(
  'data', 'data', 'data', 'data', 'data', 'hidden', 'getter', 'getter', 'hiddenGetter', 'readonly', 'symbol',
  'reentrantGetter',
);

interface Entry {
  key: string;
  value: unknown;
  mode: PropertyMode;
}

/** Defines the entries on `target` in order, with defineProperty (so `__proto__` is an own key like any other). */
function define(target: object, entries: Entry[]): void {
  for (const { key, value, mode } of entries) {
    switch (mode) {
      case 'data':
      case 'hidden':
      case 'readonly':
        Object.defineProperty(target, key, {
          value,
          enumerable: mode !== 'hidden',
          writable: mode !== 'readonly',
          configurable: true,
        });
        break;
      case 'getter':
      case 'hiddenGetter':
        Object.defineProperty(target, key, { get: () => value, enumerable: mode === 'getter', configurable: true });
        break;
      case 'reentrantGetter':
        Object.defineProperty(target, key, { get: () => callReentrant(value), enumerable: true, configurable: true });
        break;
      case 'symbol':
        Object.defineProperty(target, Symbol(key), { value, enumerable: true, configurable: true });
        break;
    }
  }
}

type Kind = 'array' | 'object' | 'nullObject';

/** Wraps `value` in `levels` containers, so that some values go past the 64-level walk (and some only just). */
function nest(value: unknown, levels: number, kinds: readonly Kind[] = ['array']): unknown {
  let result = value;
  for (let level = 0; level < levels; level++) {
    const kind = kinds[level % kinds.length];
    if (kind === 'array') result = [result];
    else if (kind === 'object') result = { a: result };
    else {
      const holder = Object.create(null) as Record<string, unknown>;
      holder['n'] = result;
      result = holder;
    }
  }
  return result;
}

/** An object whose getter counts its reads, read before `rest`, so a walk that falls back to the native serializer afterwards has already read it once. */
function counting(count: () => number, rest: unknown): object {
  return {
    get counted() {
      return count();
    },
    rest,
  };
}

class Point {
  x: unknown;
  y: unknown;
  constructor(x: unknown, y: unknown) {
    this.x = x;
    this.y = y;
  }
  get ignored(): string {
    return 'prototype getters are not own properties';
  }
}

class WithToJSON {
  value: unknown;
  constructor(value: unknown) {
    this.value = value;
  }
  toJSON(key: string): unknown {
    return { class: 'WithToJSON', key, value: this.value };
  }
}

class List extends Array<unknown> {}

type ToJSONMaker = (inner: unknown) => unknown;
const toJSONMakers: fc.Arbitrary<ToJSONMaker> = fc.constantFrom<ToJSONMaker>(
  // The key, so that a wrong key shows.
  () => ({ toJSON: (key: string) => ({ key, n: 1 }) }),
  () => ({ toJSON: (key: string) => key }),
  // Left out of objects, null in arrays.
  () => ({ toJSON: () => undefined }),
  () => ({ toJSON: () => () => 1 }),
  () => ({ toJSON: () => Symbol('s') }),
  // Serialized as it is, its own members' toJSONs called.
  (inner) => ({ toJSON: () => inner }),
  (inner) => ({ toJSON: (key: string) => (key.length % 2 === 0 ? inner : [key, inner]) }),
  // What toJSON returns is not asked for its toJSON again: this writes {"a":…}.
  (inner) => ({ toJSON: () => ({ toJSON: () => 'never called', a: inner }) }),
  (inner) => ({ toJSON: () => new WithToJSON(inner) }),
  // this is the object itself.
  (inner) => ({
    other: inner,
    toJSON(this: { other: unknown }, key: string) {
      return { key, other: this.other };
    },
  }),
  // On a null-prototype object, and as a getter.
  (inner) => {
    const target = Object.create(null) as Record<string, unknown>;
    target['toJSON'] = (key: string) => ({ nullPrototype: key, inner });
    return target;
  },
  (inner) => ({
    get toJSON() {
      return (key: string) => [key, inner];
    },
  }),
  // Re-entrant: toJSON calls the serializer under test in the middle of the walk.
  (inner) => ({ toJSON: (key: string) => ({ key, text: callReentrant(inner) }) }),
  // A toJSON member that is not a function: ignored, and written as a member like any other.
  (inner) => ({ toJSON: 5, inner }),
  (inner) => ({ toJSON: null, inner }),
  (inner) => ({ toJSON: 'string', inner }),
  (inner) => ({ toJSON: { nested: inner } }),
  (inner) => ({ toJSON: undefined, inner }),
);

function fromEntries(entries: Entry[], nullPrototype: boolean): object {
  const target = nullPrototype ? (Object.create(null) as object) : {};
  define(target, entries);
  return target;
}

const { value: values } = fc.letrec<{ value: unknown; container: unknown }>((tie) => {
  const value = tie('value');
  const entry: fc.Arbitrary<Entry> = fc.record({ key: keys, value, mode: propertyModes });
  const entries = fc.array(entry, { maxLength: 5 });
  return {
    value: fc.oneof({ depthSize: 'small', maxDepth: 6 }, { weight: 3, arbitrary: leaves }, { weight: 2, arbitrary: tie('container') }),
    container: fc.oneof(
      // Plain objects, with Object.prototype and without.
      { weight: 5, arbitrary: fc.tuple(entries, fc.boolean()).map(([list, nullPrototype]) => fromEntries(list, nullPrototype)) },
      // Arrays: dense, sparse (holes), with getters at indices, with extra non-index properties.
      { weight: 3, arbitrary: fc.array(value, { maxLength: 6 }) },
      { weight: 1, arbitrary: fc.sparseArray(value, { maxLength: 8 }) },
      {
        weight: 1,
        arbitrary: fc.tuple(fc.array(value, { minLength: 1, maxLength: 4 }), value, fc.nat()).map(([list, extra, at]) => {
          const array: unknown[] = [...list];
          const index = at % array.length;
          const element = array[index];
          Object.defineProperty(array, index, { get: () => element, enumerable: at % 2 === 0, configurable: true });
          (array as unknown as Record<string, unknown>)['extra'] = extra;
          return array;
        }),
      },
      // Arrays with elements JSON writes as null.
      { weight: 1, arbitrary: fc.array(fc.oneof(fc.constant(undefined), functions, symbols, value), { maxLength: 5 }) },
      // Objects with toJSON, in all its forms.
      { weight: 3, arbitrary: fc.tuple(toJSONMakers, value).map(([make, inner]) => make(inner)) },
      // Class instances, an Array subclass, an object with an unusual prototype, a GraphQLError.
      {
        weight: 2,
        arbitrary: fc.oneof(
          fc.tuple(value, value).map(([x, y]) => new Point(x, y)),
          fc.tuple(value, value).map(([x, y]) => {
            const point = new Point(x, y);
            Object.defineProperty(point, 'hidden', { value: 1, enumerable: false });
            Object.defineProperty(point, 'viaGetter', { get: () => y, enumerable: true });
            return point;
          }),
          value.map((inner) => new WithToJSON(inner)),
          fc.array(value, { maxLength: 4 }).map((list) => List.from(list)),
          fc.tuple(entries, value).map(([list, inherited]) => {
            const target = Object.create({ inherited }) as object;
            define(target, list);
            return target;
          }),
          fc.tuple(strings, fc.option(fc.array(fc.oneof(strings, fc.nat()), { maxLength: 3 })), value).map(
            ([message, path, code]) =>
              new GraphQLError(message, { ...(path === null ? {} : { path }), extensions: { code, other: [code] } }),
          ),
          fc.tuple(fc.array(fc.tuple(keys, value), { maxLength: 3 }), fc.array(value, { maxLength: 3 })).map(
            ([entryList, setValues]) => (setValues.length % 2 === 0 ? new Map(entryList) : new Set(setValues)),
          ),
        ),
      },
    ),
  };
});

/** Top-level values: most as generated, some nested past (or right around) the 64-level walk. */
const topValues: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 8, arbitrary: values },
  {
    weight: 1,
    arbitrary: fc
      .tuple(values, fc.oneof(fc.integer({ min: 60, max: 70 }), fc.integer({ min: 0, max: 120 })), fc.array(fc.constantFrom<Kind>('array', 'object', 'nullObject'), { minLength: 1, maxLength: 3 }))
      .map(([inner, levels, kinds]) => nest(inner, levels, kinds)),
  },
);

// ---------------------------------------------------------------------------------------------
// Shared and circular references

type Shape =
  | { kind: 'leaf'; value: unknown }
  | { kind: 'object' | 'nullObject' | 'array' | 'instance' | 'toJSONStable' | 'toJSONFresh'; children: Shape[] };

const shapes: fc.Arbitrary<Shape> = fc.letrec<{ shape: Shape }>((tie) => ({
  shape: fc.oneof(
    { depthSize: 'small', maxDepth: 5 },
    { weight: 2, arbitrary: fc.oneof(strings, numbers, fc.constant(null), fc.constant(undefined), fc.boolean()).map((value) => ({ kind: 'leaf' as const, value })) },
    {
      weight: 3,
      arbitrary: fc.record({
        kind: fc.constantFrom('object', 'nullObject', 'array', 'instance', 'toJSONStable', 'toJSONFresh'),
        children: fc.array(tie('shape'), { maxLength: 3 }),
      }),
    },
  ),
})).shape;

class Node {}

interface Built {
  /** Objects and arrays a reference can be added to. */
  holders: object[];
  /** Objects a reference can point at: the holders, and the objects with toJSON around some of them. */
  targets: object[];
}

function build(shape: Shape, built: Built): unknown {
  if (shape.kind === 'leaf') return shape.value;
  const children = shape.children.map((child) => build(child, built));
  let holder: object;
  switch (shape.kind) {
    case 'array':
      holder = children;
      break;
    case 'object':
    case 'toJSONStable':
    case 'toJSONFresh':
      holder = {};
      break;
    case 'nullObject':
      holder = Object.create(null) as object;
      break;
    case 'instance':
      holder = new Node();
      break;
  }
  if (shape.kind !== 'array') children.forEach((child, index) => ((holder as Record<string, unknown>)[`c${index}`] = child));
  built.holders.push(holder);
  built.targets.push(holder);
  if (shape.kind === 'toJSONStable') {
    // toJSON gives the same object every time: that object is on the serializer's stack.
    const wrapper = { toJSON: () => holder };
    built.targets.push(wrapper);
    return wrapper;
  }
  if (shape.kind === 'toJSONFresh') {
    // toJSON gives a new object every time, with the holder's members (references added later included).
    const wrapper = { toJSON: () => ({ ...holder }) };
    built.targets.push(wrapper);
    return wrapper;
  }
  return holder;
}

interface Reference {
  from: number;
  to: number;
  first: boolean;
}

function buildWithReferences(shape: Shape, references: Reference[]): unknown {
  const built: Built = { holders: [], targets: [] };
  const value = build(shape, built);
  if (built.holders.length === 0) return value;
  references.forEach(({ from, to, first }, index) => {
    const holder = built.holders[from % built.holders.length] as object;
    const target = built.targets[to % built.targets.length];
    if (Array.isArray(holder)) {
      if (first) holder.unshift(target);
      else holder.push(target);
    } else {
      (holder as Record<string, unknown>)[`ref${index}`] = target;
    }
  });
  return value;
}

const cyclicValues = fc.record({
  shape: shapes.filter((shape) => shape.kind !== 'leaf'),
  references: fc.array(fc.record({ from: fc.nat(), to: fc.nat(), first: fc.boolean() }), { minLength: 1, maxLength: 3 }),
});

// ---------------------------------------------------------------------------------------------

describe('stringifySmall against JSON.stringify', () => {
  it(
    'writes the same text, or throws the same error, for random values of every kind',
    () => {
      fc.assert(
        fc.property(topValues, (value) => {
          expectSameAsNative(() => value);
        }),
        PARAMETERS,
      );
    },
    TIMEOUT,
  );

  it(
    'writes the same text, or throws the same error, for values with shared and circular references through every kind of container',
    () => {
      fc.assert(
        fc.property(cyclicValues, ({ shape, references }) => {
          // Built here rather than generated: the references are added by mutation, which must not
          // touch what fast-check keeps for shrinking.
          expectSameAsNative(() => buildWithReferences(shape, references));
        }),
        PARAMETERS,
      );
    },
    TIMEOUT,
  );
});

describe('stringifySmall, examples with the text written out', () => {
  it('writes a GraphQL response', () => {
    expect(stringifySmall({ data: { hello: 'world' } })).toBe('{"data":{"hello":"world"}}');
    expect(
      stringifySmall({
        data: {
          users: [
            { id: '1', name: 'Ada', friends: [] },
            null,
            { id: '2', name: null, friends: [{ id: '3', tags: [null, 'x', null] }] },
          ],
          count: 2,
          ok: true,
        },
        errors: [{ message: 'Cannot return null', locations: [{ line: 1, column: 9 }], path: ['users', 1] }],
      }),
    ).toBe(
      '{"data":{"users":[{"id":"1","name":"Ada","friends":[]},null,{"id":"2","name":null,"friends":[{"id":"3","tags":[null,"x",null]}]}],"count":2,"ok":true},' +
        '"errors":[{"message":"Cannot return null","locations":[{"line":1,"column":9}],"path":["users",1]}]}',
    );
  });

  it('escapes control characters, quotes, backslashes and lone surrogates, and leaves pairs alone', () => {
    expect(stringifySmall('a\u0001"\\\ud800\ud83d\ude00')).toBe(String.raw`"a\u0001\"\\\ud800` + '\ud83d\ude00"');
    expect(stringifySmall('\ud800')).toBe(String.raw`"\ud800"`);
    expect(stringifySmall('\udfff')).toHaveLength(8);
    expect(stringifySmall('\n\t\b\f\r\u001f')).toBe(String.raw`"\n\t\b\f\r\u001f"`);
    expect(stringifySmall('\u007f\u2028/')).toBe('"\u007f\u2028/"');
    // Past the 32-character fast loop: the regex must find the escape, and leave clean text alone.
    expect(stringifySmall('x'.repeat(40) + '"')).toBe('"' + 'x'.repeat(40) + String.raw`\""`);
    expect(stringifySmall('x'.repeat(40) + '\udc00')).toBe('"' + 'x'.repeat(40) + String.raw`\udc00"`);
    expect(stringifySmall('é'.repeat(40) + '\ud83d\ude00')).toBe('"' + 'é'.repeat(40) + '\ud83d\ude00"');
    // Keys are escaped too.
    expect(stringifySmall({ 'a"b': 1, '\n': 2 })).toBe(String.raw`{"a\"b":1,"\n":2}`);
  });

  it('writes numbers as JSON does', () => {
    expect(stringifySmall(-0)).toBe('0');
    expect(stringifySmall(NaN)).toBe('null');
    expect(stringifySmall([Infinity, -Infinity, NaN])).toBe('[null,null,null]');
    expect(stringifySmall([1e21, 5e-324, 1e-7, 0.1 + 0.2, -0, 123])).toBe('[1e+21,5e-324,1e-7,0.30000000000000004,0,123]');
  });

  it('leaves out undefined, functions and symbols in objects, writes null for them in arrays, and gives undefined for them at the top', () => {
    expect(stringifySmall([undefined, () => 1, Symbol()])).toBe('[null,null,null]');
    expect(stringifySmall({ a: undefined, b: 1 })).toBe('{"b":1}');
    expect(stringifySmall({ a: () => 1, [Symbol('s')]: 2, b: Symbol(), c: [, 1] })).toBe('{"c":[null,1]}');
    expect(stringifySmall(undefined)).toBeUndefined();
    expect(stringifySmall(() => 1)).toBeUndefined();
    expect(stringifySmall(Symbol('top'))).toBeUndefined();
  });

  it('passes toJSON its key: the property name, the index as a string, or the empty string at the top', () => {
    expect(stringifySmall({ x: { toJSON: (k: string) => k }, y: [{ toJSON: (k: string) => k }] })).toBe('{"x":"x","y":["0"]}');
    expect(stringifySmall({ toJSON: (k: string) => (k === '' ? 'top' : 'no') })).toBe('"top"');
    expect(stringifySmall([1, 2, { toJSON: (k: unknown) => typeof k + ':' + String(k) }])).toBe('[1,2,"string:2"]');
    expect(stringifySmall({ '"q"': { toJSON: (k: string) => k } })).toBe(String.raw`{"\"q\"":"\"q\""}`);
    // What toJSON returns is not asked again; undefined from toJSON leaves the member out.
    expect(stringifySmall({ a: { toJSON: () => ({ toJSON: () => 'never', b: 1 }) }, c: { toJSON: () => undefined } })).toBe('{"a":{"b":1}}');
  });

  it('asks a function for its toJSON too (functions are objects), and leaves out one without', () => {
    const withToJSON = Object.assign(() => 1, { toJSON: (k: string) => 'function as ' + k });
    expect(stringifySmall({ f: withToJSON, g: () => 2, list: [withToJSON] })).toBe('{"f":"function as f","list":["function as 0"]}');
    expect(stringifySmall(withToJSON)).toBe('"function as "');
  });

  it('writes Dates, boxed primitives, class instances, Maps and GraphQLErrors as JSON does', () => {
    expect(stringifySmall({ d: new Date(0), bad: new Date(NaN) })).toBe('{"d":"1970-01-01T00:00:00.000Z","bad":null}');
    expect(stringifySmall([new Number(-0), new String('s"'), new Boolean(false)])).toBe(String.raw`[0,"s\"",false]`);
    expect(stringifySmall({ p: new Point(1, undefined), m: new Map([[1, 2]]), s: new Set([1]) })).toBe('{"p":{"x":1},"m":{},"s":{}}');
    expect(stringifySmall({ e: new GraphQLError('boom', { path: ['a', 0], extensions: { code: 'X' } }) })).toBe(
      '{"e":{"message":"boom","path":["a",0],"extensions":{"code":"X"}}}',
    );
  });

  it('writes an own __proto__ key, and integer-like keys first, as JSON does', () => {
    const withProto = {} as Record<string, unknown>;
    Object.defineProperty(withProto, '__proto__', { value: 1, enumerable: true });
    withProto['b'] = 2;
    withProto['10'] = 3;
    withProto['01'] = 4;
    withProto['1'] = 5;
    expect(stringifySmall(withProto)).toBe('{"1":5,"10":3,"__proto__":1,"b":2,"01":4}');
  });
});

describe('stringifySmall errors', () => {
  function nativeError(value: unknown): Error {
    try {
      JSON.stringify(value);
    } catch (error) {
      return error as Error;
    }
    throw new Error('JSON.stringify did not throw');
  }

  function expectSameError(value: unknown): void {
    const expected = nativeError(value);
    let thrown: unknown;
    try {
      stringifySmall(value);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(Error);
    expect((thrown as Error).constructor).toBe(expected.constructor);
    expect((thrown as Error).message).toBe(expected.message);
  }

  it('throws the native TypeError for a circular structure of plain objects and arrays', () => {
    const object: Record<string, unknown> = { a: { b: [1] } };
    ((object['a'] as Record<string, unknown>)['b'] as unknown[]).push(object);
    expect(nativeError(object)).toBeInstanceOf(TypeError);
    expectSameError(object);

    const self: unknown[] = [];
    self.push(self);
    expectSameError(self);
    expectSameError({ wrapper: self });
  });

  it('throws the native TypeError for a cycle through an object with toJSON', () => {
    const object: Record<string, unknown> = {};
    object['t'] = { toJSON: () => object };
    expectSameError(object);
  });

  // The cycle closes through a class instance, which stringifySmall hands to the native serializer
  // in a fresh holder: the native serializer then starts the cycle at the instance, not at the
  // object above it, and names a different path.
  it('throws the native TypeError, message included, for a cycle through a class instance', () => {
    const object: Record<string, unknown> = { d: new Node() };
    (object['d'] as Record<string, unknown>)['back'] = object;
    expectSameError(object);

    const array: unknown[] = [new Node()];
    (array[0] as Record<string, unknown>)['back'] = array;
    expectSameError(array);
  });

  // The same, with the cycle closing through what a toJSON returns: the native serializer, given
  // the toJSON's object in a fresh holder, meets the returned object twice and starts the cycle
  // there.
  it('throws the native TypeError, message included, for a cycle through a toJSON that returns the same object each time', () => {
    const object: Record<string, unknown> = {};
    const returned = { back: object };
    object['a'] = { t: { toJSON: () => returned } };
    expectSameError(object);
  });

  it('writes a value nested past the 64-level walk as JSON does', () => {
    expect(stringifySmall(nest(1, 100))).toBe('['.repeat(100) + '1' + ']'.repeat(100));
    const deepObject = nest({ end: true, list: [1, null] }, 100, ['object', 'array', 'nullObject']);
    expect(stringifySmall(deepObject)).toBe(JSON.stringify(deepObject));
    // Right around the limit.
    for (const levels of [63, 64, 65, 66]) {
      expect(stringifySmall(nest('x', levels, ['object']))).toBe('{"a":'.repeat(levels) + '"x"' + '}'.repeat(levels));
    }
  });

  it('throws the native TypeError for a BigInt, at the top, nested, boxed and deep', () => {
    expectSameError(1n);
    expectSameError({ a: [1, { b: 2n }] });
    expectSameError([Object(3n)]);
    expectSameError(nest({ b: 1n }, 100, ['object', 'array']));
    expect(nativeError({ a: 1n })).toBeInstanceOf(TypeError);
  });

  it('throws what a getter or toJSON throws', () => {
    const failure = new RangeError('from a getter');
    let thrown: unknown;
    try {
      stringifySmall({
        get a() {
          throw failure;
        },
      });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBe(failure);
    expectSameError({ a: [{ toJSON: () => { throw new SyntaxError('from toJSON'); } }] });
  });
});

describe('stringifySmall re-entrancy', () => {
  it('gives the same text when a getter calls stringifySmall in the middle of the walk', () => {
    const value = {
      get outer() {
        return stringifySmall({ inner: [1, 2] });
      },
      after: [3],
    };
    expect(stringifySmall(value)).toBe(String.raw`{"outer":"{\"inner\":[1,2]}","after":[3]}`);
  });

  it('gives the same text when a toJSON calls stringifySmall in the middle of the walk', () => {
    const value = { list: [{ toJSON: (key: string) => stringifySmall({ key, deep: nest(0, 3) }) }, 'next'] };
    expect(stringifySmall(value)).toBe(String.raw`{"list":["{\"key\":\"0\",\"deep\":[[[0]]]}","next"]}`);
  });

  it('still handles a value past the 64-level walk after a re-entrant call, and one inside it', () => {
    const make = (inner: (value: unknown) => string | undefined) =>
      nest(
        {
          get reentrant() {
            return inner(nest({ inside: true }, 70, ['object', 'array']));
          },
          deep: nest('end', 70, ['array', 'object']),
        },
        30,
        ['object'],
      );
    // The reference: the same structure, with the native serializer inside.
    expect(stringifySmall(make(stringifySmall))).toBe(JSON.stringify(make(JSON.stringify)));
  });

  it('keeps each walk its own depth: a getter of a small value runs once, before, inside and after a deep re-entrant call', () => {
    let before = 0;
    let inside = 0;
    let after = 0;
    const value = nest(
      {
        first: counting(() => ++before, nest(0, 5)),
        get reentrant() {
          // 51 levels, called 21 levels down: only a walk that counted on from the outer walk's
          // depth would pass 64 and fall back to the native serializer, reading the getter again.
          return stringifySmall(counting(() => ++inside, nest(0, 50)));
        },
        // 22 + 40 levels: below 64 unless the re-entrant call left the outer depth too high.
        last: counting(() => ++after, nest(0, 40)),
      },
      20,
    );
    const text = stringifySmall(value);
    expect([before, inside, after]).toEqual([1, 1, 1]);
    expect(text).toBe(
      '['.repeat(20) +
        '{"first":{"counted":1,"rest":[[[[[0]]]]]},' +
        String.raw`"reentrant":"{\"counted\":1,\"rest\":` + '['.repeat(50) + '0' + ']'.repeat(50) + '}",' +
        '"last":{"counted":1,"rest":' + '['.repeat(40) + '0' + ']'.repeat(40) + '}}' +
        ']'.repeat(20),
    );
  });

  // A re-entrant call must give the outer walk back the depth it had: one that reset it would let
  // a circular structure whose every level makes such a call recurse until the stack overflows,
  // instead of falling back to the native serializer and its TypeError.
  it('throws the native circular TypeError when every level of a cycle calls stringifySmall again', () => {
    const make = (inner: (value: unknown) => string | undefined) => {
      const object: Record<string, unknown> = {};
      Object.defineProperty(object, 'reentrant', { get: () => inner([1]), enumerable: true });
      object['self'] = object;
      return object;
    };
    let expected: unknown;
    try {
      JSON.stringify(make(JSON.stringify));
    } catch (error) {
      expected = error;
    }
    let thrown: unknown;
    try {
      stringifySmall(make(stringifySmall));
    } catch (error) {
      thrown = error;
    }
    expect(expected).toBeInstanceOf(TypeError);
    expect((thrown as Error).constructor).toBe(TypeError);
    expect((thrown as Error).message).toBe((expected as Error).message);
  });
});

describe('stringifySmall reads getters as often as JSON.stringify does', () => {
  it('runs a getter of a small plain object exactly once', () => {
    let calls = 0;
    const value = {
      a: 1,
      get b() {
        calls++;
        return [calls];
      },
    };
    expect(stringifySmall(value)).toBe('{"a":1,"b":[1]}');
    expect(calls).toBe(1);
  });

  // Depth is nesting, not size: a wide value whose containers add up to more than 64 is still
  // small, and walked once.
  it('runs a getter of a wide but shallow value exactly once', () => {
    let calls = 0;
    const value = counting(
      () => ++calls,
      Array.from({ length: 300 }, (_, index) => (index % 2 === 0 ? [index] : { index })),
    );
    expect(stringifySmall(value)).toMatch(/^\{"counted":1,"rest":\[\[0\],\{"index":1\},\[2\],/);
    expect(calls).toBe(1);
  });

  it('runs getters nested in arrays and null-prototype objects exactly once', () => {
    let calls = 0;
    const holder = Object.create(null) as Record<string, unknown>;
    Object.defineProperty(holder, 'g', {
      get: () => {
        calls++;
        return 'g';
      },
      enumerable: true,
    });
    const array: unknown[] = [holder];
    Object.defineProperty(array, 1, {
      get: () => {
        calls++;
        return 'i';
      },
      enumerable: true,
    });
    expect(stringifySmall(nest(array, 10, ['object', 'array']))).toBe('[{"a":'.repeat(5) + '[{"g":"g"},"i"]' + '}]'.repeat(5));
    expect(calls).toBe(2);
  });

  // JSON.stringify reads toJSON once per value (the spec's GetV(value, "toJSON")).
  it('reads a toJSON getter exactly once, as JSON.stringify does', () => {
    let reference = 0;
    let ours = 0;
    const make = (count: () => void) => ({
      a: {
        get toJSON() {
          count();
          return (key: string) => 'key ' + key;
        },
      },
    });
    const expected = JSON.stringify(make(() => reference++));
    expect(stringifySmall(make(() => ours++))).toBe(expected);
    expect(ours).toBe(reference);
  });
});

// JSON.stringify takes an array's length and an object's keys once, before reading any element
// (the spec's LengthOfArrayLike and EnumerableOwnProperties), so a getter or toJSON that changes
// its container while it is written does not change which members are written.
describe('stringifySmall when a getter or toJSON changes its container during the walk', () => {
  /** `container` with an enumerable getter at `key` that changes it (by `change`) when read, then gives `value`. */
  function withChangingGetter<T extends object>(container: T, key: PropertyKey, change: (container: T) => void, value: unknown): T {
    Object.defineProperty(container, key, {
      get: () => {
        change(container);
        return value;
      },
      enumerable: true,
      configurable: true,
    });
    return container;
  }

  /** Both serializers give `text` for a fresh value from `make` each. */
  function expectBothWrite(make: () => unknown, text: string): void {
    expect(JSON.stringify(make())).toBe(text);
    expect(stringifySmall(make())).toBe(text);
  }

  it('writes the members an object had when its walk began', () => {
    const make = () =>
      withChangingGetter<Record<string, unknown>>({ a: 1, b: 2 }, 'a', (object) => {
        delete object['b'];
        object['c'] = 3;
      }, 'A');
    expectBothWrite(make, '{"a":"A"}');
  });

  it('writes as many elements as an array had when its walk began, when a getter shortens it', () => {
    const make = () => withChangingGetter<unknown[]>([1, 2, 3], 0, (array) => (array.length = 1), 'first');
    expectBothWrite(make, '["first",null,null]');
  });

  it('writes as many elements as an array had when its walk began, when a toJSON lengthens it', () => {
    const make = () => {
      const array: unknown[] = [];
      array.push({
        toJSON: () => {
          array.push('added');
          return 0;
        },
      });
      return array;
    };
    expectBothWrite(make, '[0]');
  });
});
