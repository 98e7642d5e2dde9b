/**
 * The GraphiQL Trace panel's plan and wording (src/graphiql/planOf.ts, words.ts) on real traces
 * of the demo: the tree of the operation with each field's resolver calls, plain reads and the
 * batches its calls waited on, level by level; an interface's types each under their field; merged
 * fields; and the words a row says ("1 batch · 2 keys", a path's end kept whole). The browser test
 * (graphiql.browser.test.ts) checks the same drawn in Chromium.
 */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { execute } from '../src/index.ts';
import type { ExecutionTrace } from '../src/index.ts';
import { createDemoContext, createDemoData, demoSchema } from '../src/demo/librarySchema.ts';
import { planOf } from '../src/graphiql/planOf.ts';
import type { PlannedSet } from '../src/graphiql/planOf.ts';
import { batchesText, fieldPathOf, keyCount, pathLabel } from '../src/graphiql/words.ts';

async function traceOf(query: string): Promise<ExecutionTrace> {
  const result = await execute({ schema: demoSchema, document: parse(query), contextValue: createDemoContext(createDemoData()), trace: true });
  expect(result.errors).toBeUndefined();
  return result.extensions?.['trace'] as ExecutionTrace;
}

/** The tree as lines, two spaces a level, without times. */
function lines(sets: ReadonlyArray<PlannedSet>, indent = ''): string[] {
  return sets.flatMap((set) => [
    `${indent}${set.type}`,
    ...set.fields.flatMap((field) => [
      `${indent}  ${field.name}${field.type === null ? '' : `: ${field.type}`} · ${field.how} · ${field.calls} calls${field.merged ? ' · merged' : ''}`,
      ...field.loads.map((load) => `${indent}    level ${field.level}: ${load.loader}, ${batchesText(load.batches, load.keys)}`),
      ...lines(field.children, `${indent}    `),
    ]),
  ]);
}

describe('the Trace panel’s plan (planOf)', () => {
  it('is the tree of the operation: each field with how it was resolved, its calls, and the batches its calls waited on, level by level', async () => {
    const planned = planOf(await traceOf('{ books(limit: 3) { items { title author { name books { title } } averageStars } } }'));
    expect(lines(planned.root)).toEqual([
      'Query',
      '  books: BookPage! · resolver · 1 calls',
      '    BookPage',
      '      items · default resolver · 0 calls',
      '        Book',
      '          title · plain read · 0 calls',
      '          author: Author! · resolver · 3 calls',
      '            level 1: authorById, 1 batch · 2 keys',
      '            Author',
      '              name · plain read · 0 calls',
      '              books: [Book!]! · resolver · 3 calls',
      '                level 2: booksByAuthor, 1 batch · 2 keys',
      '                Book',
      '                  title · plain read · 0 calls',
      '          averageStars: Float · resolver · 3 calls',
      '            level 1: reviewsByBook, 1 batch · 3 keys',
    ]);
    expect(planned.levels.map(({ level, loads }) => `level ${level}: ${loads.map((load) => `${load.loader}, ${batchesText(load.batches, load.keys)}`).join('; ')}`)).toEqual([
      'level 1: authorById, 1 batch · 2 keys; reviewsByBook, 1 batch · 3 keys',
      'level 2: booksByAuthor, 1 batch · 2 keys',
    ]);
  });

  it('puts each type an interface or union field met under that field, and marks fields merged from several selections', async () => {
    const planned = planOf(await traceOf('{ search(text: "a") { __typename ... on Book { title author { name } } ... on Author { name } } book(id: "b1") { title ... on Book { title } } }'));
    expect(lines(planned.root)).toEqual([
      'Query',
      '  search: [SearchResult!]! · resolver · 1 calls',
      '    Author',
      '      __typename · type name · 0 calls',
      '      name · plain read · 0 calls',
      '    Book',
      '      __typename · type name · 0 calls',
      '      title · plain read · 0 calls',
      '      author: Author! · resolver · 2 calls',
      '        level 1: authorById, 1 batch · 2 keys',
      '        Author',
      '          name · plain read · 0 calls',
      '  book: Book · resolver · 1 calls',
      '    Book',
      '      title · plain read · 0 calls · merged',
    ]);
  });

  it('says a field the caller may not use was not allowed, its resolver never run (a trace as the pipeline makes it for such a caller)', () => {
    const trace: ExecutionTrace = {
      version: 1,
      startedAt: '2026-11-27T06:00:00.000Z',
      durationNs: 1000,
      resolvers: [],
      batches: [],
      plan: {
        operation: 'mutation',
        name: 'Add',
        jsonWriter: false,
        selectionSets: [{ path: '', type: 'Mutation', mode: 'interpreted', fields: ['addReview'], resolvers: [], plainReads: [], merged: [], denied: ['addReview'] }],
      },
    };
    expect(planOf(trace)).toEqual({
      root: [{ type: 'Mutation', fields: [{ name: 'addReview', path: 'addReview', how: 'not allowed (its resolver never ran)', type: null, calls: 0, merged: false, loads: [], level: 0, children: [] }] }],
      levels: [],
    });
  });
});

describe('the Trace panel’s words', () => {
  it('counts batches and keys apart, so that keys never read as batches', () => {
    expect([batchesText(1, 2), batchesText(1, 1), batchesText(2, 150)]).toEqual(['1 batch · 2 keys', '1 batch · 1 key', '2 batches · 150 keys']);
    // Keys past the trace's limit of 100 are counted too.
    expect(keyCount({ keys: Array.from({ length: 100 }, (_, index) => index), keysTruncated: 20 })).toBe(120);
    expect(keyCount({ keys: ['a1', 'a2'] })).toBe(2);
  });

  it('labels a path by its end: the field whole, the parent path cut from the left at a dot only when it does not fit', () => {
    expect(pathLabel('books', 20)).toEqual({ parent: '', name: 'books' });
    expect(pathLabel('books.items.0.author', 20)).toEqual({ parent: 'books.items.0.', name: 'author' });
    expect(pathLabel('books.items.0.author.books', 20)).toEqual({ parent: '…0.author.', name: 'books' });
    expect(pathLabel('books.items.0.author.books', 14)).toEqual({ parent: '…author.', name: 'books' });
    expect(pathLabel('books.items.0.averageStars', 12)).toEqual({ parent: '…', name: 'averageStars' });
    expect(fieldPathOf('books.items.12.author.books.3.reviews')).toBe('books.items.author.books.reviews');
  });
});
