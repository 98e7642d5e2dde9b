/**
 * Generated code for plain reads (src/execution/compileFields.ts): once a selection plan has
 * completed COMPILE_AFTER objects, its fields run as generated code. These tests run lists long
 * enough to cross that point within one execution, so the first items go through the
 * interpreter and the rest through the generated code, and check that nothing tells them
 * apart: the result equals graphql-js's (and a written-out literal), errors land at the same
 * paths, resolvers and property reads keep their order, the measured cost is the same, and
 * names that are not GraphQL names never reach generated code.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Kind, execute as graphqlExecute, parse } from 'graphql';
import type { DocumentNode, FieldNode, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import { describe, expect, it } from 'vitest';
import { execute, makeSchema } from '../src/index.ts';
import { COMPILE_AFTER } from '../src/execution/compileFields.ts';
import { withFunctionSpy } from './support/functionSpy.ts';

/** More items than it takes to compile, so that both ways run in one list. */
const ITEMS = COMPILE_AFTER * 3;

function wire(result: unknown): unknown {
  return JSON.parse(JSON.stringify(result));
}

async function bothEngines(schema: GraphQLSchema, document: DocumentNode, rootValue: unknown) {
  const ours = wire(await execute({ schema, document, rootValue }));
  const reference = wire(await graphqlExecute({ schema, document, rootValue }));
  return { ours, reference };
}

const schema = makeSchema({
  incremental: false, // compared with graphql-js, whose execute (17) refuses a schema declaring @defer/@stream
  typeDefs: `
    enum Color { RED GREEN }
    type Item {
      id: ID!
      name: String
      size: Int
      color: Color
      tags: [String!]
      touch: String
      after: String
      strict: String!
    }
    type Query { items: [Item] }
  `,
  resolvers: {
    Color: { RED: 0, GREEN: 1 },
    // A resolver that changes its parent: the next field must see the change, as in graphql-js.
    Item: {
      touch: (item: { id: string; after?: string }) => {
        item.after = `touched ${item.id}`;
        return 'ok';
      },
    },
  },
});

function items(make: (index: number) => Record<string, unknown>): Array<Record<string, unknown>> {
  return Array.from({ length: ITEMS }, (_, index) => make(index));
}

describe('generated plain reads', () => {
  it('give the same result as the interpreter and graphql-js across the compile point', async () => {
    const rootValue = {
      items: items((index) => ({ id: `i${index}`, name: index % 5 === 0 ? null : `n${index}`, size: index, color: index % 2, tags: ['a', 'b'] })),
    };
    const document = parse('{ items { id name size color tags } }');
    const { ours, reference } = await bothEngines(schema, document, rootValue);
    expect(ours).toEqual(reference);
    expect((ours as { data: { items: unknown[] } }).data.items[ITEMS - 1]).toEqual({
      id: `i${ITEMS - 1}`,
      name: (ITEMS - 1) % 5 === 0 ? null : `n${ITEMS - 1}`,
      size: ITEMS - 1,
      color: (ITEMS - 1) % 2 === 0 ? 'RED' : 'GREEN',
      tags: ['a', 'b'],
    });
  });

  it('make plain objects and arrays on both sides of the compile point: Object and Array prototypes, own keys in selection order', async () => {
    const rootValue = { items: items((index) => ({ id: `i${index}`, name: `n${index}`, size: index, tags: ['a'] })) };
    const result = (await execute({ schema, document: parse('{ items { size id name tags } }'), rootValue })) as { data: { items: Array<Record<string, unknown>> } };
    const list = result.data.items;
    expect(Object.getPrototypeOf(list)).toBe(Array.prototype);
    expect(list).toHaveLength(ITEMS);
    for (const [index, item] of list.entries()) {
      expect(Object.getPrototypeOf(item)).toBe(Object.prototype);
      expect(item.constructor).toBe(Object);
      expect(Object.keys(item)).toEqual(['size', 'id', 'name', 'tags']);
      expect(item).toStrictEqual({ size: index, id: `i${index}`, name: `n${index}`, tags: ['a'] });
    }
  });

  it('treat every odd value as the interpreter does, once compiled', async () => {
    const oddSchema = makeSchema({
      incremental: false, // compared with graphql-js, whose execute (17) refuses a schema declaring @defer/@stream
      typeDefs: `
        enum Color { RED GREEN }
        type Odd { s: String i: Int f: Float b: Boolean c: Color l: [String] nl: [Int!] }
        type Query { odds: [Odd] }
      `,
      resolvers: { Color: { RED: 0, GREEN: 1 } },
    });
    const odd: unknown[] = [
      10n,
      Symbol('x'),
      Number.NaN,
      Infinity,
      -0,
      2 ** 31,
      1.5,
      '7',
      true,
      0,
      1,
      '',
      null,
      undefined,
      new Error('an Error as a value'),
      () => 'from a method',
      { valueOf: () => 3, toString: () => 'three' },
      [1, 2],
      ['a', null],
      new Set(['s']),
    ];
    const document = parse('{ odds { s i f b c l nl } }');
    for (const value of odd) {
      // Plain values first, to get past the compile point; the odd value comes last.
      const make = () => ({
        odds: items((index) => {
          const v = index === ITEMS - 1 ? value : index;
          return { s: v, i: v, f: v, b: v, c: v, l: v, nl: v };
        }),
      });
      const ours = wire(await execute({ schema: oddSchema, document, rootValue: make() }));
      const reference = wire(await graphqlExecute({ schema: oddSchema, document, rootValue: make() }));
      expect({ value: String(value), result: ours }).toEqual({ value: String(value), result: reference });
    }
  });

  it('keep each field error at its own item, before and after the compile point', async () => {
    const failing = new Set([3, COMPILE_AFTER + 5, ITEMS - 2]);
    const rootValue = {
      items: items((index) => {
        const item: Record<string, unknown> = { id: `i${index}`, size: failing.has(index) ? 2 ** 31 : index, strict: 's' };
        if (failing.has(index)) {
          Object.defineProperty(item, 'name', {
            enumerable: true,
            get() {
              throw new Error(`getter ${index} throws`);
            },
          });
        } else {
          item['name'] = `n${index}`;
        }
        return item;
      }),
    };
    const document = parse('{ items { id name size strict } }');
    const { ours, reference } = await bothEngines(schema, document, rootValue);
    expect(ours).toEqual(reference);
    const errors = (ours as { errors: Array<{ message: string; path: unknown[] }> }).errors;
    expect(errors.map((error) => [error.message, error.path])).toEqual(
      [...failing].flatMap((index) => [
        [`getter ${index} throws`, ['items', index, 'name']],
        [`Int cannot represent non 32-bit signed integer value: 2147483648`, ['items', index, 'size']],
      ]),
    );
  });

  it('null an item whose Non-Null field is missing, on both sides of the compile point', async () => {
    const rootValue = { items: items((index) => (index === 1 || index === ITEMS - 1 ? { id: `i${index}` } : { id: `i${index}`, strict: 'yes' })) };
    const document = parse('{ items { id strict } }');
    const { ours, reference } = await bothEngines(schema, document, rootValue);
    expect(ours).toEqual(reference);
    const list = (ours as { data: { items: unknown[] } }).data.items;
    expect(list[1]).toBeNull();
    expect(list[ITEMS - 1]).toBeNull();
    expect(list[2]).toEqual({ id: 'i2', strict: 'yes' });
  });

  it('read each property when its field runs, after the resolvers before it', async () => {
    // Each engine gets data of its own: the resolver writes to it.
    const fresh = () => ({ items: items((index) => ({ id: `i${index}`, after: 'untouched' })) });
    const document = parse('{ items { after touch after2: after } }');
    const ours = wire(await execute({ schema, document, rootValue: fresh() }));
    const reference = wire(await graphqlExecute({ schema, document, rootValue: fresh() }));
    expect(ours).toEqual(reference);
    expect((ours as { data: { items: unknown[] } }).data.items[ITEMS - 1]).toEqual({
      after: 'untouched',
      touch: 'ok',
      after2: `touched i${ITEMS - 1}`,
    });
  });

  it('measure the same cost as the interpreter', async () => {
    // Leaves weigh 0 unless told otherwise: these do, so that a plain read left uncounted shows.
    const weighted = makeSchema({
      incremental: false, // compared with graphql-js, whose execute (17) refuses a schema declaring @defer/@stream
      typeDefs: `
        type Item { id: ID! name: String @cost(weight: "2") size: Int tags: [String] @cost(weight: "3") }
        type Query { items: [Item] }
      `,
    });
    const rootValue = { items: items((index) => ({ id: `i${index}`, name: `n${index}`, size: index, tags: ['x'] })) };
    type Measured = { extensions: { cost: { actual: number } } };
    const compiled = (await execute({ schema: weighted, document: parse('{ items { id name size tags } }'), rootValue, measureCost: true })) as Measured;
    // A field resolver of one's own turns plain reads (and so the generated code) off.
    const interpreted = (await execute({
      schema: weighted,
      document: parse('{ items { id name size tags } }'),
      rootValue,
      measureCost: true,
      fieldResolver: (source: Record<string, unknown>, _args: unknown, _context: unknown, info: { fieldName: string }) =>
        source[info.fieldName],
    })) as Measured;
    // items (1) + every item's name (2) and tags (3).
    expect(compiled.extensions.cost.actual).toBe(1 + ITEMS * 5);
    expect(interpreted.extensions.cost.actual).toBe(1 + ITEMS * 5);
  });

  it('never generate code from a name that is not a GraphQL name (a document built by hand)', async () => {
    const document = parse('{ items { id name } }');
    const operation = document.definitions[0] as OperationDefinitionNode;
    const itemsField = operation.selectionSet.selections[0] as FieldNode;
    const nameField = (itemsField.selectionSet?.selections[1] as FieldNode);
    // An alias no parser would produce, shaped like code.
    const hostile = 'x = (() => { throw new Error("injected") })(); let y';
    const edited: DocumentNode = {
      ...document,
      definitions: [
        {
          ...operation,
          selectionSet: {
            ...operation.selectionSet,
            selections: [
              {
                ...itemsField,
                selectionSet: {
                  kind: Kind.SELECTION_SET,
                  selections: [itemsField.selectionSet?.selections[0] as FieldNode, { ...nameField, alias: { kind: Kind.NAME, value: hostile } }],
                },
              },
            ],
          },
        },
      ],
    };
    const rootValue = { items: items((index) => ({ id: `i${index}`, name: `n${index}` })) };
    const { value: ours, generated } = await withFunctionSpy(async () => wire(await execute({ schema, document: edited, rootValue })));
    expect(ours).toEqual(wire(await graphqlExecute({ schema, document: edited, rootValue })));
    expect((ours as { data: { items: unknown[] } }).data.items[ITEMS - 1]).toEqual({ id: `i${ITEMS - 1}`, [hostile]: `n${ITEMS - 1}` });
    expect(generated.filter((text) => text.includes('injected'))).toEqual([]);
    // The same selection with parsed names is compiled, so the spy does see generated code.
    const parsed = await withFunctionSpy(() => execute({ schema, document: parse('{ items { id name } }'), rootValue }));
    expect(parsed.generated.some((text) => text.includes('result.name = completed'))).toBe(true);
  });

  it('leave a selection with a __proto__ alias to the interpreter', async () => {
    const rootValue = { items: items((index) => ({ id: `i${index}`, name: `n${index}` })) };
    const document = parse('{ items { id __proto__: name } }');
    const { ours, reference } = await bothEngines(schema, document, rootValue);
    expect(ours).toEqual(reference);
    expect(Object.keys((ours as { data: { items: Array<Record<string, unknown>> } }).data.items[ITEMS - 1] as object)).toEqual([
      'id',
      '__proto__',
    ]);
  });

  it('fall back to the interpreter where code generation is disallowed', () => {
    const script = `
      import { parse } from 'graphql';
      import { execute, makeSchema } from ${JSON.stringify(fileURLToPath(new URL('../src/index.ts', import.meta.url)))};
      const schema = makeSchema({ incremental: false, typeDefs: 'type Item { id: ID! name: String } type Query { items: [Item] }' });
      const items = Array.from({ length: ${ITEMS} }, (_, i) => ({ id: 'i' + i, name: 'n' + i }));
      const result = execute({ schema, document: parse('{ items { id name } }'), rootValue: { items } });
      process.stdout.write(JSON.stringify(result.data.items[${ITEMS - 1}]));
    `;
    const run = spawnSync(process.execPath, ['--disallow-code-generation-from-strings', '--import', 'tsx', '--input-type=module', '-e', script], {
      encoding: 'utf8',
      cwd: fileURLToPath(new URL('..', import.meta.url)),
    });
    expect(run.stderr).not.toMatch(/EvalError|Code generation from strings disallowed/);
    expect(run.stdout).toBe(JSON.stringify({ id: `i${ITEMS - 1}`, name: `n${ITEMS - 1}` }));
  });
});
