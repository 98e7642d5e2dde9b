/**
 * When a Non-Null field fails synchronously while earlier fields of its object are still pending,
 * the object is nulled only once those have settled (as graphql-js does), so their errors are
 * reported too. These are the minimal operations the differential test found; the expected
 * responses are what graphql-js 16.15 returns for them. (graphql-js is not run here: in exactly
 * these cases it abandons a rejected promise, which a test runner reports as an unhandled error.)
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'graphql';
import type { ExecutionResult } from 'graphql';
import { fixtureByName } from '../fixtures/index.ts';
import { execute } from '../src/index.ts';

/** Runs `source` over fresh fixture data; errors as `{ message, path }`, sorted (the spec does not order them). */
async function run(fixture: string, source: string): Promise<unknown> {
  const { schema, rootValue, contextValue } = fixtureByName(fixture).run();
  const result = (await execute({ schema, document: parse(source), rootValue, contextValue })) as ExecutionResult;
  const errors = (result.errors ?? [])
    .map((error) => ({ message: error.message, path: error.path }))
    .sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  return { data: result.data, errors };
}

describe('a synchronous Non-Null failure waits for the pending fields of its object', () => {
  it('still reports an error raised inside a pending sibling before the object is nulled', async () => {
    const ours = await run('errors', '{ box { asyncItems nonNullThrows } }');
    expect(ours).toEqual({
      data: { box: null },
      errors: [
        { message: 'Box 0 throws from a non-null field.', path: ['box', 'nonNullThrows'] },
        { message: 'Item 2 of box 0 rejects.', path: ['box', 'asyncItems', 2] },
      ],
    });
  });

  it('lets a later list item without pending work fail first, so its error is the one reported', async () => {
    const ours = await run('library', '{ authors { books { author { id } } fullName(style: null) } }');
    expect(ours).toEqual({
      data: null,
      errors: [{ message: 'Cannot return null for non-nullable field Author.fullName.', path: ['authors', 4, 'fullName'] }],
    });
  });

  it('reports the list that failed first when a nested item waits on pending work', async () => {
    const ours = await run('errors', '{ box { nonNullSparseChildren { nonNullResolvesNull strictHoles } } }');
    expect(ours).toEqual({
      data: { box: { nonNullSparseChildren: null } },
      errors: [
        { message: 'Cannot return null for non-nullable field Box.nonNullSparseChildren.', path: ['box', 'nonNullSparseChildren', 1] },
      ],
    });
  });
});
