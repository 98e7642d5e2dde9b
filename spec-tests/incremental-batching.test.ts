/**
 * Deferred work joins the batches of its level: a three-level query whose every level is
 * deferred (one deferred fragment per publisher, per author and per book, so dozens of
 * execution groups) makes the same number of calls to each batch function as the same query
 * without `@defer`, and its payloads add up to the same data.
 *
 * Why it holds: the executions of deferred fragments share their request's batch scheduler
 * (execution/incremental/incrementalExecution.ts), and the fragments of one level start together
 * (their parents are delivered in the same payload), so their loads are queued before the
 * scheduler sends anything (batching/scheduler.ts: it sends when every resolver in flight waits
 * on a load).
 */
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { BatchLoader, execute, experimentalExecuteIncrementally, legacyExecuteIncrementally } from '../src/index.ts';
import { THREE_LEVEL_QUERY, createContext, schema } from '../fixtures/batching/index.ts';
import type { BatchingContext, LoaderName } from '../fixtures/batching/index.ts';

const DEFERRED_THREE_LEVELS = parse(/* GraphQL */ `
  {
    viewer { name }
    publishers {
      id
      name
      ... @defer {
        authors {
          id
          name
          ... @defer {
            books {
              id
              title
              ... @defer { publisher { id name } viewerRating }
            }
          }
        }
      }
    }
  }
`);

const STREAMED_THREE_LEVELS = parse(/* GraphQL */ `
  {
    viewer { name }
    publishers @stream(initialCount: 1) {
      id
      name
      authors @stream { id name books { id title publisher { id name } viewerRating } }
    }
  }
`);

type Payload = Record<string, unknown>;

/** Applies the current format's payloads to the initial data (where each pending id's path leads). */
function merge(payloads: ReadonlyArray<Payload>): unknown {
  const [initial, ...rest] = payloads as [Payload, ...Payload[]];
  const data = structuredClone(initial['data']) as Record<string, unknown>;
  const paths = new Map<string, ReadonlyArray<string | number>>();
  const at = (path: ReadonlyArray<string | number>) => path.reduce<any>((node, key) => node[key], data);
  for (const payload of [initial, ...rest]) {
    for (const pending of (payload['pending'] as Array<{ id: string; path: Array<string | number> }>) ?? []) paths.set(pending.id, pending.path);
    for (const entry of (payload['incremental'] as Array<Record<string, any>>) ?? []) {
      const base = [...(paths.get(entry['id']) as Array<string | number>), ...(entry['subPath'] ?? [])];
      if (entry['items'] !== undefined) at(base).push(...entry['items']);
      else Object.assign(at(base), entry['data']);
    }
  }
  return { data };
}

async function allPayloads(result: unknown): Promise<Payload[]> {
  if (!('initialResult' in (result as object))) return [result as Payload];
  const { initialResult, subsequentResults } = result as { initialResult: Payload; subsequentResults: AsyncIterable<Payload> };
  const payloads = [initialResult];
  for await (const payload of subsequentResults) payloads.push(payload);
  return payloads;
}

const callsPerLoader = (context: BatchingContext): Record<LoaderName, number> =>
  Object.fromEntries(Object.entries(context.batches).map(([name, batches]) => [name, batches.length])) as Record<LoaderName, number>;

async function plain(): Promise<{ result: unknown; context: BatchingContext }> {
  const context = createContext({ Loader: BatchLoader });
  const result = await execute({ schema, document: parse(THREE_LEVEL_QUERY), contextValue: context });
  return { result: JSON.parse(JSON.stringify(result)), context };
}

describe('incremental delivery over BatchLoaders', () => {
  it('a three-level deferred query makes as many batch calls per loader as without @defer, for the same data', async () => {
    const reference = await plain();
    const context = createContext({ Loader: BatchLoader });
    const payloads = await allPayloads(await experimentalExecuteIncrementally({ schema, document: DEFERRED_THREE_LEVELS, contextValue: context }));
    expect(payloads.length).toBeGreaterThan(2);
    expect(callsPerLoader(context)).toEqual(callsPerLoader(reference.context));
    expect(Object.values(callsPerLoader(context))).toEqual([1, 1, 1, 1]);
    expect(JSON.parse(JSON.stringify(merge(payloads)))).toEqual(reference.result);
  });

  it('the 2022 format batches the same way', async () => {
    const reference = await plain();
    const context = createContext({ Loader: BatchLoader });
    await allPayloads(await legacyExecuteIncrementally({ schema, document: DEFERRED_THREE_LEVELS, contextValue: context }));
    expect(callsPerLoader(context)).toEqual(callsPerLoader(reference.context));
  });

  it('streamed items run early together and load with their level; run one by one, they load one by one', async () => {
    const reference = await plain();
    for (const enableEarlyExecution of [true, false]) {
      const context = createContext({ Loader: BatchLoader });
      const result = await experimentalExecuteIncrementally({ schema, document: STREAMED_THREE_LEVELS, contextValue: context, enableEarlyExecution });
      const payloads = await allPayloads(result);
      expect(JSON.parse(JSON.stringify(merge(payloads)))).toEqual(reference.result);
      if (enableEarlyExecution) {
        // Early execution starts every streamed item at once: their loads join the level's batch.
        expect(callsPerLoader(context)).toEqual(callsPerLoader(reference.context));
      } else {
        // By default a stream completes its items one after another (graphql 17's order: the next
        // item is read once the one before is complete), so each item's loads go out on their own.
        for (const [name, calls] of Object.entries(callsPerLoader(context))) {
          expect(calls, name).toBeGreaterThanOrEqual(callsPerLoader(reference.context)[name as LoaderName]);
        }
        expect(callsPerLoader(context).authorsByPublisher).toBe(4);
      }
    }
  });
});
