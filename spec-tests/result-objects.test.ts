/**
 * Result objects (src/execution/resultObjects.ts): whichever way a selection plan's constructor
 * makes them (generated, cloned from a template, null-prototype, empty), they are the objects the
 * reference path needs: plain objects holding every response name, in selection order, null
 * until stored. The executor's own tests (compiled-fields.test.ts and the graphql-js suites)
 * check the results they end up in.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { execute, makeSchema } from '../src/index.ts';
import { isGeneratedName } from '../src/execution/generatedNames.ts';
import { resultConstructor } from '../src/execution/resultObjects.ts';

/** What every result object of these names must be: a plain object, each name null, in order. */
function expectShape(object: object, names: ReadonlyArray<string>): void {
  expect(Object.getPrototypeOf(object)).toBe(Object.prototype);
  expect(Object.keys(object)).toEqual(names);
  expect(Object.values(object)).toEqual(names.map(() => null));
}

const graphqlName = fc.stringMatching(/^[_A-Za-z][_0-9A-Za-z]{0,8}$/);

describe('result objects', () => {
  it('hold every response name, in order, null, with Object.prototype: generated constructor', () => {
    fc.assert(
      fc.property(fc.uniqueArray(graphqlName.filter(isGeneratedName), { minLength: 1, maxLength: 12 }), (names) => {
        const Result = resultConstructor(names);
        const first = new Result();
        const second = new Result();
        expectShape(first, names);
        expect(second).not.toBe(first);
        expect(first.constructor).toBe(Object);
        expect(JSON.stringify(first)).toBe(JSON.stringify(Object.fromEntries(names.map((name) => [name, null]))));
      }),
    );
  });

  it('are the same objects when a name cannot be written into code (a document built by hand)', () => {
    const names = ['id', 'not-a-name', '1st', 'constructor', 'toString'];
    const Result = resultConstructor(names);
    const made = new Result();
    expectShape(made, names);
    made['not-a-name'] = 'x';
    expect(new Result()['not-a-name']).toBe(null);
  });

  it('have no prototype when a response name is __proto__, so that it is an own key', () => {
    const Result = resultConstructor(['id', '__proto__']);
    const made = new Result();
    expect(Object.getPrototypeOf(made)).toBe(null);
    expect(Object.keys(made)).toEqual([]);
    made['id'] = 1;
    made['__proto__'] = 'n';
    expect(Object.keys(made)).toEqual(['id', '__proto__']);
    expect(JSON.stringify(made)).toBe('{"id":1,"__proto__":"n"}');
  });

  it('are empty plain objects for a field list chosen per request by variables', () => {
    const Result = resultConstructor(undefined);
    const made = new Result();
    expect(Object.getPrototypeOf(made)).toBe(Object.prototype);
    expect(Object.keys(made)).toEqual([]);
  });

  it('come out the same where code generation is disallowed', () => {
    const script = `
      import { resultConstructor } from ${JSON.stringify(fileURLToPath(new URL('../src/execution/resultObjects.ts', import.meta.url)))};
      const made = new (resultConstructor(['b', 'a', 'c']))();
      process.stdout.write(JSON.stringify({ keys: Object.keys(made), values: Object.values(made), plain: Object.getPrototypeOf(made) === Object.prototype }));
    `;
    const run = spawnSync(process.execPath, ['--disallow-code-generation-from-strings', '--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      cwd: fileURLToPath(new URL('..', import.meta.url)),
    });
    expect(run.stderr).toBe('');
    expect(JSON.parse(run.stdout)).toEqual({ keys: ['b', 'a', 'c'], values: [null, null, null], plain: true });
  });

  it('keep the selection order in the interpreter: root fields with resolvers, aliases, __typename', () => {
    const schema = makeSchema({
      incremental: false, // graphql 17's execute refuses a schema declaring @defer/@stream, and so does ours there
      typeDefs: 'type Query { hello: String! n: Int }',
      resolvers: { Query: { hello: () => 'world', n: () => 1 } },
    });
    const result = execute({ schema, document: parse('{ n b: hello __typename a: hello }') });
    expect(result).toEqual({ data: { n: 1, b: 'world', __typename: 'Query', a: 'world' } });
    expect(Object.keys((result as { data: object }).data)).toEqual(['n', 'b', '__typename', 'a']);
  });
});
