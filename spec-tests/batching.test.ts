/**
 * The batching scheduler, observed from outside: how many times each loader's batch function is
 * called, with which keys, and what every request gets back. The fixture's relation resolvers
 * wait nothing, one microtask, three microtasks or a `setImmediate` before calling `load()`, so
 * a scheduler that batches by tick splits the levels, and one that batches by level does not.
 *
 * Nothing here measures time: the assertions are on counts, keys, results and the order in which
 * things finish.
 */
import { describe, expect, it } from 'vitest';
import DataLoader from 'dataloader';
import { execute as graphqlJsExecute, parse } from 'graphql';
import type { ExecutionResult } from 'graphql';
import { BatchLoader, execute } from '../src/index.ts';
import { THREE_LEVEL_QUERY, createContext, createData, delayFor, ratingOf, schema } from '../fixtures/batching/index.ts';
import type { BatchingContext, Delay, LoaderClass, LoaderName } from '../fixtures/batching/index.ts';

const THREE_LEVELS = parse(THREE_LEVEL_QUERY);

const data = createData();

/** Results as JSON values, so that prototypes and error classes do not count, only content. */
function plain(result: unknown): unknown {
  return JSON.parse(JSON.stringify(result));
}

/** The response THREE_LEVELS must get for `user`, built from the data rather than by any engine. */
function expectedResponse(user: string): unknown {
  return {
    data: {
      viewer: { name: user },
      publishers: data.publishers.map((publisher) => ({
        id: publisher.id,
        name: publisher.name,
        authors: (data.authorsByPublisher.get(publisher.id) ?? []).map((author) => ({
          id: author.id,
          name: author.name,
          books: (data.booksByAuthor.get(author.id) ?? []).map((book) => {
            const edition = data.publishersById.get(book.publisherId);
            return {
              id: book.id,
              title: book.title,
              publisher: edition === undefined ? null : { id: edition.id, name: edition.name },
              viewerRating: ratingOf(user, book),
            };
          }),
        })),
      })),
    },
  };
}

interface Run {
  result: ExecutionResult;
  context: BatchingContext;
}

async function runOurs(user = 'ada'): Promise<Run> {
  const context = createContext({ Loader: BatchLoader, user });
  const result = await execute({ schema, document: THREE_LEVELS, contextValue: context });
  return { result, context };
}

async function runGraphqlJsWithDataLoader(user = 'ada'): Promise<Run> {
  const Loader: LoaderClass = DataLoader;
  const context = createContext({ Loader, user });
  const result = await graphqlJsExecute({ schema, document: THREE_LEVELS, contextValue: context });
  return { result, context };
}

function batchCounts(context: BatchingContext): Record<LoaderName, number> {
  const { authorsByPublisher, booksByAuthor, publisherById, ratingByBook } = context.batches;
  return {
    authorsByPublisher: authorsByPublisher.length,
    booksByAuthor: booksByAuthor.length,
    publisherById: publisherById.length,
    ratingByBook: ratingByBook.length,
  };
}

const totalBatches = (context: BatchingContext) =>
  Object.values(batchCounts(context)).reduce((sum, count) => sum + count, 0);

const DELAY_RANK: Record<Delay, number> = { none: 0, oneMicrotask: 1, threeMicrotasks: 2, immediate: 3 };

/**
 * The order in which resolvers called on `parents` (in that order) first call `load()`: those
 * that wait nothing, then those that wait one microtask, then three, then a `setImmediate`;
 * within one delay, in call order. `Array.prototype.sort` is stable, so call order is kept.
 */
function inFirstRequestedOrder<T extends { index: number }>(parents: readonly T[]): T[] {
  return [...parents].sort((a, b) => DELAY_RANK[delayFor(a.index)] - DELAY_RANK[delayFor(b.index)]);
}

describe('BatchLoader under execute(): one batch per loader per level', () => {
  it("calls each loader's batch function exactly once per level, whatever the resolvers await before load()", async () => {
    const ours = await runOurs();
    const reference = await runGraphqlJsWithDataLoader();

    expect(batchCounts(ours.context)).toEqual({ authorsByPublisher: 1, booksByAuthor: 1, publisherById: 1, ratingByBook: 1 });

    // The model: a level's resolvers are called in the order the level above was answered
    // (its batch's key order), and reach load() in the order of their delays.
    const publishersInLoadOrder = inFirstRequestedOrder(data.publishers);
    const authorsInLoadOrder = inFirstRequestedOrder(
      publishersInLoadOrder.flatMap((publisher) => data.authorsByPublisher.get(publisher.id) ?? []),
    );
    const booksInLoadOrder = inFirstRequestedOrder(
      authorsInLoadOrder.flatMap((author) => data.booksByAuthor.get(author.id) ?? []),
    );
    const ids = (records: ReadonlyArray<{ id: string }>) => records.map((record) => record.id);

    // Publishers p0..p3 wait a setImmediate, nothing, three microtasks, one microtask.
    expect(ours.context.batches.authorsByPublisher).toEqual([['p1', 'p3', 'p2', 'p0']]);
    expect(ours.context.batches.authorsByPublisher).toEqual([ids(publishersInLoadOrder)]);
    expect(ours.context.batches.booksByAuthor).toEqual([
      ['a5', 'a9', 'a1', 'a3', 'a11', 'a7', 'a10', 'a6', 'a2', 'a4', 'a8', 'a0'],
    ]);
    expect(ours.context.batches.booksByAuthor).toEqual([ids(authorsInLoadOrder)]);
    // Sixty books ask for four publishers: each key once, in the order it was first asked for.
    expect(ours.context.batches.publisherById).toEqual([['p0', 'p2', 'p1', 'p3']]);
    expect(ours.context.batches.publisherById).toEqual([[...new Set(booksInLoadOrder.map((book) => book.publisherId))]]);
    expect(ours.context.batches.ratingByBook).toEqual([ids(booksInLoadOrder)]);

    expect(plain(ours.result)).toEqual(expectedResponse('ada'));
    expect(plain(ours.result)).toEqual(plain(reference.result));
  });

  it('takes more batches under graphql-js execute with DataLoader, which sends a batch at the end of each tick', async () => {
    const ours = await runOurs();
    const theirs = await runGraphqlJsWithDataLoader();

    const describeCounts = (context: BatchingContext) =>
      Object.entries(batchCounts(context))
        .map(([name, count]) => `${name} ${count}`)
        .join(', ');
    console.log(
      `graphql-js + DataLoader: ${totalBatches(theirs.context)} batch calls (${describeCounts(theirs.context)}); ` +
        `ours: ${totalBatches(ours.context)} (${describeCounts(ours.context)})`,
    );
    expect(totalBatches(ours.context)).toBe(4);
    expect(totalBatches(theirs.context)).toBeGreaterThan(totalBatches(ours.context));
    // DataLoader still asks for every key exactly once; it only spreads them over more batches.
    for (const name of Object.keys(ours.context.batches) as LoaderName[]) {
      expect(theirs.context.batches[name].flat().sort()).toEqual(ours.context.batches[name].flat().sort());
    }
  });
});

describe('BatchLoader: requests are isolated', () => {
  it("never shows one request another's cached values when both execute at once", async () => {
    const [ada, grace] = await Promise.all([runOurs('ada'), runOurs('grace')]);

    // The two readers rate some books differently, so a value leaking across would show.
    expect(expectedResponse('ada')).not.toEqual(expectedResponse('grace'));
    expect(plain(ada.result)).toEqual(expectedResponse('ada'));
    expect(plain(grace.result)).toEqual(expectedResponse('grace'));
    // Each request batched its own levels, once per loader, without waiting for the other's.
    expect(batchCounts(ada.context)).toEqual({ authorsByPublisher: 1, booksByAuthor: 1, publisherById: 1, ratingByBook: 1 });
    expect(batchCounts(grace.context)).toEqual({ authorsByPublisher: 1, booksByAuthor: 1, publisherById: 1, ratingByBook: 1 });
    expect(ada.context.batches.ratingByBook[0]).toHaveLength(60);
    expect(grace.context.batches.ratingByBook[0]).toHaveLength(60);
  });
});

describe('BatchLoader: when batches are sent', () => {
  it('sends the loads made outside execute() in one tick as one batch, after that tick', async () => {
    const context = createContext({ Loader: BatchLoader });
    const { publisherById } = context.loaders;

    const first = publisherById.load('p1');
    const second = publisherById.load('p2');
    const repeated = publisherById.load('p1');
    const inMicrotask = Promise.resolve().then(() => publisherById.load('p0'));
    expect(context.batches.publisherById).toEqual([]);

    const values = await Promise.all([first, second, repeated, inMicrotask]);
    expect(values.map((publisher) => publisher?.name)).toEqual(['Publisher 1', 'Publisher 2', 'Publisher 1', 'Publisher 0']);
    expect(repeated).toBe(first);
    expect(context.batches.publisherById).toEqual([['p1', 'p2', 'p0']]);

    const afterwards = await new Promise<void>((resolve) => setImmediate(resolve)).then(() =>
      Promise.all([publisherById.load('p3'), publisherById.load('p2')]),
    );
    expect(afterwards.map((publisher) => publisher?.name)).toEqual(['Publisher 3', 'Publisher 2']);
    // p2 came from the cache; only p3 made a new batch.
    expect(context.batches.publisherById).toEqual([['p1', 'p2', 'p0'], ['p3']]);
  });

  it('lets an execution whose loads are ready finish while another still waits on a timer', async () => {
    const finished: string[] = [];
    const slowContext = createContext({ Loader: BatchLoader, user: 'slow' });
    const slow = Promise.resolve(
      execute({
        schema,
        document: parse('{ publisher(id: "p1", waitMs: 30) { name authors { name } } }'),
        contextValue: slowContext,
      }),
    ).then((result) => {
      finished.push('slow');
      return result;
    });
    const fast = runOurs('fast').then((run) => {
      finished.push('fast');
      return run;
    });

    const [slowResult, fastRun] = await Promise.all([slow, fast]);
    expect(finished).toEqual(['fast', 'slow']);
    expect(plain(fastRun.result)).toEqual(expectedResponse('fast'));
    expect(batchCounts(fastRun.context)).toEqual({ authorsByPublisher: 1, booksByAuthor: 1, publisherById: 1, ratingByBook: 1 });
    expect(plain(slowResult)).toEqual({
      data: { publisher: { name: 'Publisher 1', authors: [{ name: 'Author 3' }, { name: 'Author 4' }, { name: 'Author 5' }] } },
    });
    expect(slowContext.batches).toEqual({
      authorsByPublisher: [['p1']],
      booksByAuthor: [],
      publisherById: [['p1']],
      ratingByBook: [],
    });
  });
});

describe('BatchLoader: which executions batch by level', () => {
  /** The fixture's context with its loaders out of holdsBatchLoader's sight: a non-enumerable property. */
  function hiddenLoaders(user: string): BatchingContext {
    const context = createContext({ Loader: BatchLoader, user });
    const { loaders } = context;
    Object.defineProperty(context, 'loaders', { value: loaders, enumerable: false });
    return context;
  }

  it('batches by level when the context holds its loaders, by tick when it does not, whatever ran before', async () => {
    const hiddenBefore = hiddenLoaders('ada');
    const before = await execute({ schema, document: THREE_LEVELS, contextValue: hiddenBefore });
    const held = await runOurs('ada');
    const hiddenAfter = hiddenLoaders('ada');
    const after = await execute({ schema, document: THREE_LEVELS, contextValue: hiddenAfter });

    for (const result of [before, held.result, after]) expect(plain(result)).toEqual(expectedResponse('ada'));
    expect(batchCounts(held.context)).toEqual({ authorsByPublisher: 1, booksByAuthor: 1, publisherById: 1, ratingByBook: 1 });
    // Per tick, the levels split along the fixture's delays; and the same way before and after an
    // execution that did batch by level: no state of the process decides it.
    const perTick = { authorsByPublisher: 2, booksByAuthor: 5, publisherById: 1, ratingByBook: 20 };
    expect(batchCounts(hiddenBefore)).toEqual(perTick);
    expect(batchCounts(hiddenAfter)).toEqual(perTick);
    expect(hiddenAfter.batches).toEqual(hiddenBefore.batches);
  });

  it('finds loaders held directly by the context too (the test above holds them one level down, in context.loaders)', async () => {
    const direct = createContext({ Loader: BatchLoader });
    const { loaders } = direct;
    const flat = Object.assign(Object.create(null) as object, { user: direct.user, data: direct.data, batches: direct.batches, ...loaders });
    Object.defineProperty(flat, 'loaders', { value: loaders, enumerable: false });
    const result = await execute({ schema, document: THREE_LEVELS, contextValue: flat });
    expect(plain(result)).toEqual(expectedResponse('ada'));
    expect(batchCounts(direct)).toEqual({ authorsByPublisher: 1, booksByAuthor: 1, publisherById: 1, ratingByBook: 1 });
  });
});
