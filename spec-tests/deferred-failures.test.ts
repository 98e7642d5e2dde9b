/**
 * When a Non-Null field fails synchronously while earlier fields of its object are still pending,
 * graphql 16 nulls the object only once those have settled, so their errors are reported too;
 * graphql 17 nulls it at once, and leaves them (graphqlCompat.ts ABANDONS_NULLED_WORK). These are
 * the minimal operations the differential test found; the expected responses are what graphql-js
 * 16.15 and 17.1 return for them. (graphql-js is not run here: in exactly these cases it abandons
 * a rejected promise, which a test runner reports as an unhandled error.)
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'graphql';
import type { ExecutionResult } from 'graphql';
import { fixtureByName } from '../fixtures/index.ts';
import { execute } from '../src/index.ts';
import { byMajor } from './support/graphqlMajor.ts';

/** Runs `source` over fresh fixture data; errors as `{ message, path }`, sorted (the spec does not order them). */
async function run(fixture: string, source: string): Promise<unknown> {
  const { schema, rootValue, contextValue } = fixtureByName(fixture).run();
  const result = (await execute({ schema, document: parse(source), rootValue, contextValue })) as ExecutionResult;
  const errors = (result.errors ?? [])
    .map((error) => ({ message: error.message, path: error.path }))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  return { data: result.data, errors };
}

describe('a synchronous Non-Null failure waits for the pending fields of its object (graphql 16), or not (17)', () => {
  it('still reports an error raised inside a pending sibling before the object is nulled (16); reports only the failure (17)', async () => {
    const ours = await run('errors', '{ box { asyncItems nonNullThrows } }');
    const thrown = { message: 'Box 0 throws from a non-null field.', path: ['box', 'nonNullThrows'] };
    expect(ours).toEqual({
      data: { box: null },
      errors: byMajor({ 16: [thrown, { message: 'Item 2 of box 0 rejects.', path: ['box', 'asyncItems', 2] }], 17: [thrown] }),
    });
  });

  it('lets a later list item without pending work fail first, so its error is the one reported (16); the first item fails first (17)', async () => {
    const ours = await run('library', '{ authors { books { author { id } } fullName(style: null) } }');
    expect(ours).toEqual({
      data: null,
      errors: [{ message: 'Cannot return null for non-nullable field Author.fullName.', path: ['authors', byMajor({ 16: 4, 17: 0 }), 'fullName'] }],
    });
  });

  it('reports the list that failed first when a nested item waits on pending work (16); the first failure met (17)', async () => {
    const ours = await run('errors', '{ box { nonNullSparseChildren { nonNullResolvesNull strictHoles } } }');
    expect(ours).toEqual({
      data: { box: { nonNullSparseChildren: null } },
      errors: [
        byMajor({
          16: { message: 'Cannot return null for non-nullable field Box.nonNullSparseChildren.', path: ['box', 'nonNullSparseChildren', 1] },
          17: { message: 'Cannot return null for non-nullable field Box.strictHoles.', path: ['box', 'nonNullSparseChildren', 0, 'strictHoles', 1] },
        }),
      ],
    });
  });
});
