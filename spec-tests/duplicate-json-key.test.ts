/**
 * duplicateJsonKey (src/jsutils/duplicateJsonKey.ts): the first key written twice in one object
 * of a JSON text. Fixed cases for what JSON.parse hides (escapes, nesting, keys that look like
 * values), and a property against a model: objects generated as lists of entries, written out
 * by hand (so equal keys can be written twice), must be reported exactly when some object's
 * entry list repeats a key, and then with the first repeated key in document order.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { duplicateJsonKey } from '../src/jsutils/duplicateJsonKey.ts';

describe('duplicateJsonKey', () => {
  it.each<[string, string | null]>([
    ['{"a":1,"b":2}', null],
    ['{"a":1,"a":2}', 'a'],
    ['{"a":{"b":1},"c":{"b":2}}', null],
    ['{"a":{"b":1,"b":2}}', 'b'],
    ['{"a":"a","b":"a"}', null],
    ['[{"a":1},{"a":1}]', null],
    ['[{"a":1,"a":1}]', 'a'],
    ['{"k\\u0065y":1,"key":2}', 'key'],
    ['{"q\\"":1,"q\\"":2}', 'q"'],
    ['{"a":[1,{"x":1},"a,\\"a\\":"],"b":{}}', null],
    ['{ "a" : 1 , "a" : 2 }', 'a'],
    ['"a"', null],
    ['{}', null],
  ])('%s: %s', (text, expected) => {
    JSON.parse(text); // only texts JSON.parse accepts are given to it
    expect(duplicateJsonKey(text)).toBe(expected);
  });

  type Json = { kind: 'object'; entries: Array<[string, Json]> } | { kind: 'array'; items: Json[] } | { kind: 'leaf'; value: string | number | null };
  const { json } = fc.letrec<{ json: Json }>((tie) => ({
    json: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.oneof(fc.string({ maxLength: 4 }), fc.integer(), fc.constant(null)).map((value): Json => ({ kind: 'leaf', value })),
      fc.array(fc.tuple(fc.constantFrom('a', 'b', 'é', '"', '\\', ',', '{'), tie('json')), { maxLength: 4 }).map((entries): Json => ({ kind: 'object', entries })),
      fc.array(tie('json'), { maxLength: 3 }).map((items): Json => ({ kind: 'array', items })),
    ),
  }));
  const write = (value: Json): string =>
    value.kind === 'leaf'
      ? JSON.stringify(value.value)
      : value.kind === 'array'
        ? `[${value.items.map(write).join(', ')}]`
        : `{${value.entries.map(([key, item]) => `${JSON.stringify(key)}: ${write(item)}`).join(',')}}`;
  /** The model: the first key (in text order) that its object's earlier entries already had. */
  const firstRepeated = (value: Json): string | null => {
    if (value.kind === 'leaf') return null;
    if (value.kind === 'array') {
      for (const item of value.items) {
        const found = firstRepeated(item);
        if (found !== null) return found;
      }
      return null;
    }
    const seen = new Set<string>();
    for (const [key, item] of value.entries) {
      if (seen.has(key)) return key;
      seen.add(key);
      const found = firstRepeated(item);
      if (found !== null) return found;
    }
    return null;
  };

  it('reports the first repeated key of generated JSON, as a model of its objects does', () => {
    fc.assert(
      fc.property(json, (value) => {
        expect(duplicateJsonKey(write(value))).toBe(firstRepeated(value));
      }),
      { numRuns: 500 },
    );
  });
});
