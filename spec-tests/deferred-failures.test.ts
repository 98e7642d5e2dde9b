/**
 * When a Non-Null field fails synchronously while earlier fields of its object are still pending,
 * the object is nulled only once those have settled (as graphql-js does), so their errors are
 * reported too. These are the minimal operations the differential test found; the expected
 * responses are graphql-js's.
 */
import { describe, expect, it } from 'vitest';
import { execute as referenceExecute, parse } from 'graphql';
import type { ExecutionResult } from 'graphql';
import { fixtureByName } from '../fixtures/index.ts';
import { execute } from '../src/index.ts';

async function both(fixture: string, source: string): Promise<[unknown, unknown]> {
  const run = async (executor: typeof execute) => {
    const { schema, rootValue, contextValue } = fixtureByName(fixture).run();
    const result = (await executor({ schema, document: parse(source), rootValue, contextValue })) as ExecutionResult;
    const errors = (result.errors ?? []).map((e) => ({ message: e.message, path: e.path })).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
    return { data: result.data, errors };
  };
  const ours = await run(execute);
  const reference = await run(referenceExecute);
  await new Promise((resolve) => setImmediate(resolve));
  return [ours, reference];
}

describe('a synchronous Non-Null failure waits for the pending fields of its object', () => {
  it('still reports an error raised inside a pending sibling before the object is nulled', async () => {
    const [ours, reference] = await both('errors', '{ box { asyncItems nonNullThrows } }');
    expect(ours).toEqual({
      data: { box: null },
      errors: [
        { message: 'Box 0 throws from a non-null field.', path: ['box', 'nonNullThrows'] },
        { message: 'Item 2 of box 0 rejects.', path: ['box', 'asyncItems', 2] },
      ],
    });
    expect(ours).toEqual(reference);
  });

  it('lets a later list item without pending work fail first, so its error is the one reported', async () => {
    const [ours, reference] = await both('library', '{ authors { books { author { id } } fullName(style: null) } }');
    expect(ours).toEqual({
      data: null,
      errors: [{ message: 'Cannot return null for non-nullable field Author.fullName.', path: ['authors', 4, 'fullName'] }],
    });
    expect(ours).toEqual(reference);
  });

  it('reports the list that failed first when a nested item waits on pending work', async () => {
    const [ours, reference] = await both('errors', '{ box { nonNullSparseChildren { nonNullResolvesNull strictHoles } } }');
    expect(ours).toEqual({
      data: { box: { nonNullSparseChildren: null } },
      errors: [
        { message: 'Cannot return null for non-nullable field Box.nonNullSparseChildren.', path: ['box', 'nonNullSparseChildren', 1] },
      ],
    });
    expect(ours).toEqual(reference);
  });
});
