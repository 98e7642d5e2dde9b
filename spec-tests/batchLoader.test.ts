/**
 * BatchLoader: the batching scheduler's behaviour, rule by rule, and every misuse message.
 *
 * The rules are DataLoader 2's, with one intended difference: a key the batch function returns
 * nothing for resolves to `null`. Errors a user can meet are asserted by exact message.
 */
import { describe, expect, it } from 'vitest';
import { BatchLoader } from '../src/index.ts';
import { expectTypeError } from './support/expectations.ts';

/** A batch function that records the keys of every call and answers through `answer`. */
function recorder<K, R>(answer: (keys: ReadonlyArray<K>) => R): { calls: K[][]; batchFn: (keys: ReadonlyArray<K>) => R } {
  const calls: K[][] = [];
  return {
    calls,
    batchFn: (keys) => {
      calls.push([...keys]);
      return answer(keys);
    },
  };
}

/** Values derived from the key, so a test can see which key a value was computed for. */
const valuesFor = (keys: ReadonlyArray<number>): Promise<string[]> => Promise.resolve(keys.map((key) => `v${key}`));

/** The error a promise rejects with; fails the test if it resolves. */
async function rejectionOf(promise: Promise<unknown>): Promise<Error> {
  try {
    const value = await promise;
    throw new Error(`expected a rejection, got the value ${String(value)}`);
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    return error as Error;
  }
}

/** Lets every pending dispatch and batch promise run. */
const settle = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

describe('BatchLoader: what the batch function receives', () => {
  it('calls the batch function once with every key loaded in the same tick, in first-requested order', async () => {
    const { calls, batchFn } = recorder(valuesFor);
    const loader = new BatchLoader<number, string>(batchFn);
    const values = await Promise.all([loader.load(3), loader.load(1), loader.load(2)]);
    expect(calls).toEqual([[3, 1, 2]]);
    expect(values).toEqual(['v3', 'v1', 'v2']);
  });

  it('passes each key once however often it was loaded, and gives every caller its value', async () => {
    const { calls, batchFn } = recorder(valuesFor);
    const loader = new BatchLoader<number, string>(batchFn);
    const values = await Promise.all([loader.load(1), loader.load(2), loader.load(1), loader.load(2), loader.load(1)]);
    expect(calls).toEqual([[1, 2]]);
    expect(values).toEqual(['v1', 'v2', 'v1', 'v2', 'v1']);
  });

  it('puts loads made in microtasks already queued in the same turn into the same batch', async () => {
    const { calls, batchFn } = recorder(valuesFor);
    const loader = new BatchLoader<number, string>(batchFn);
    const first = loader.load(1);
    const second = Promise.resolve().then(() => loader.load(2));
    const third = Promise.resolve()
      .then(() => undefined)
      .then(() => loader.load(3));
    expect(await Promise.all([first, second, third])).toEqual(['v1', 'v2', 'v3']);
    expect(calls).toEqual([[1, 2, 3]]);
  });

  it('does not call the batch function before the current tick ends', async () => {
    const { calls, batchFn } = recorder(valuesFor);
    const loader = new BatchLoader<number, string>(batchFn);
    const pending = loader.load(1);
    expect(calls).toEqual([]);
    await pending;
    expect(calls).toEqual([[1]]);
  });

  it('starts a new batch for keys loaded after the previous batch was dispatched', async () => {
    const { calls, batchFn } = recorder(valuesFor);
    const loader = new BatchLoader<number, string>(batchFn);
    expect(await loader.load(1)).toBe('v1');
    expect(await Promise.all([loader.load(2), loader.load(3)])).toEqual(['v2', 'v3']);
    expect(calls).toEqual([[1], [2, 3]]);
  });

  it('cuts the queue into consecutive chunks of at most maxBatchSize keys, in request order', async () => {
    const { calls, batchFn } = recorder(valuesFor);
    const loader = new BatchLoader<number, string>(batchFn, { maxBatchSize: 2 });
    const values = await Promise.all([5, 4, 3, 2, 1].map((key) => loader.load(key)));
    expect(calls).toEqual([[5, 4], [3, 2], [1]]);
    expect(values).toEqual(['v5', 'v4', 'v3', 'v2', 'v1']);
  });

  it('counts unique keys, not loads, towards maxBatchSize', async () => {
    const { calls, batchFn } = recorder(valuesFor);
    const loader = new BatchLoader<number, string>(batchFn, { maxBatchSize: 2 });
    const values = await Promise.all([1, 1, 2, 2, 1, 3].map((key) => loader.load(key)));
    expect(calls).toEqual([[1, 2], [3]]);
    expect(values).toEqual(['v1', 'v1', 'v2', 'v2', 'v1', 'v3']);
  });

  it('sends one key per call with maxBatchSize 1, and every key in one call with maxBatchSize Infinity', async () => {
    const one = recorder(valuesFor);
    const single = new BatchLoader<number, string>(one.batchFn, { maxBatchSize: 1 });
    await Promise.all([1, 2, 3].map((key) => single.load(key)));
    expect(one.calls).toEqual([[1], [2], [3]]);

    const all = recorder(valuesFor);
    const unbounded = new BatchLoader<number, string>(all.batchFn, { maxBatchSize: Infinity });
    await Promise.all([1, 2, 3].map((key) => unbounded.load(key)));
    expect(all.calls).toEqual([[1, 2, 3]]);
  });
});

describe('BatchLoader: what the batch function may return', () => {
  it('resolves each key to the value at its position in the returned array', async () => {
    const loader = new BatchLoader<string, number>((keys) => Promise.resolve(keys.map((key) => key.length)));
    expect(await Promise.all([loader.load('a'), loader.load('abc'), loader.load('ab')])).toEqual([1, 3, 2]);
  });

  it('accepts an array returned synchronously, without a promise', async () => {
    const loader = new BatchLoader<number, number>((keys) => keys.map((key) => key * 10));
    expect(await Promise.all([loader.load(1), loader.load(2)])).toEqual([10, 20]);
  });

  it('accepts a Map from key to value, in any order, looked up by the keys passed to the batch function', async () => {
    const loader = new BatchLoader<number, string>((keys) =>
      Promise.resolve(new Map([...keys].reverse().map((key) => [key, `v${key}`]))),
    );
    expect(await Promise.all([loader.load(1), loader.load(2), loader.load(3)])).toEqual(['v1', 'v2', 'v3']);
  });

  it('accepts a Map returned synchronously', async () => {
    const loader = new BatchLoader<number, string>((keys) => new Map(keys.map((key) => [key, `v${key}`])));
    expect(await loader.load(7)).toBe('v7');
  });

  it('looks a Map result up by the very key objects it passed, when keys are objects with a cacheKeyFn', async () => {
    type Key = { id: number };
    const loader = new BatchLoader<Key, string, number>(
      (keys) => Promise.resolve(new Map(keys.map((key) => [key, `user ${key.id}`]))),
      { cacheKeyFn: (key) => key.id },
    );
    expect(await Promise.all([loader.load({ id: 1 }), loader.load({ id: 2 }), loader.load({ id: 1 })])).toEqual([
      'user 1',
      'user 2',
      'user 1',
    ]);
  });

  it('resolves a key to null when the array holds undefined or null at its position', async () => {
    const loader = new BatchLoader<number, string>(() => Promise.resolve(['v1', undefined, null]));
    expect(await Promise.all([loader.load(1), loader.load(2), loader.load(3)])).toEqual(['v1', null, null]);
  });

  it('resolves a key to null, not undefined, when the returned Map has no entry for it', async () => {
    const loader = new BatchLoader<number, string>(() => Promise.resolve(new Map([[1, 'v1']])));
    const [present, missing] = await Promise.all([loader.load(1), loader.load(2)]);
    expect(present).toBe('v1');
    expect(missing).toBeNull();
  });

  it('caches a null result like any other value', async () => {
    const { calls, batchFn } = recorder(() => Promise.resolve(new Map<number, string>()));
    const loader = new BatchLoader<number, string>(batchFn);
    expect(await loader.load(1)).toBeNull();
    expect(await loader.load(1)).toBeNull();
    expect(calls).toEqual([[1]]);
  });

  it('rejects only the key whose array value is an Error', async () => {
    const notFound = new Error('no user 2');
    const loader = new BatchLoader<number, string>(() => Promise.resolve(['v1', notFound, 'v3']));
    const one = loader.load(1);
    const two = loader.load(2);
    const three = loader.load(3);
    expect(await rejectionOf(two)).toBe(notFound);
    expect(await one).toBe('v1');
    expect(await three).toBe('v3');
  });

  it('rejects only the key whose Map value is an Error', async () => {
    const notFound = new Error('no user 2');
    const loader = new BatchLoader<number, string>(() =>
      Promise.resolve(
        new Map<number, string | Error>([
          [1, 'v1'],
          [2, notFound],
        ]),
      ),
    );
    const one = loader.load(1);
    const two = loader.load(2);
    expect(await rejectionOf(two)).toBe(notFound);
    expect(await one).toBe('v1');
  });

  it('keeps an Error value cached: loading the key again rejects without calling the batch function', async () => {
    const notFound = new Error('no user 1');
    const { calls, batchFn } = recorder(() => Promise.resolve([notFound]));
    const loader = new BatchLoader<number, string>(batchFn);
    expect(await rejectionOf(loader.load(1))).toBe(notFound);
    expect(await rejectionOf(loader.load(1))).toBe(notFound);
    expect(calls).toEqual([[1]]);
  });

  it('loads a key that failed with an Error value again once it is cleared', async () => {
    let answer: string | Error = new Error('not yet');
    const { calls, batchFn } = recorder(() => Promise.resolve([answer]));
    const loader = new BatchLoader<number, string>(batchFn);
    expect((await rejectionOf(loader.load(1))).message).toBe('not yet');
    answer = 'v1';
    loader.clear(1);
    expect(await loader.load(1)).toBe('v1');
    expect(calls).toEqual([[1], [1]]);
  });
});

describe('BatchLoader: a failed batch', () => {
  it('rejects every key of the batch, with the error, when the batch function throws', async () => {
    const loader = new BatchLoader<number, string>(() => {
      throw new Error('database down');
    });
    const failures = await Promise.all([loader.load(1), loader.load(2), loader.load(1)].map(rejectionOf));
    expect(failures.map((error) => error.message)).toEqual(['database down', 'database down', 'database down']);
  });

  it('rejects every key of the batch, with the reason, when the batch function returns a rejected promise', async () => {
    const loader = new BatchLoader<number, string>(() => Promise.reject(new Error('timed out')));
    const failures = await Promise.all([loader.load(1), loader.load(2)].map(rejectionOf));
    expect(failures.map((error) => error.message)).toEqual(['timed out', 'timed out']);
  });

  it('caches none of its keys: loading them again calls the batch function, which may now succeed', async () => {
    let down = true;
    const { calls, batchFn } = recorder((keys: ReadonlyArray<number>) =>
      down ? Promise.reject(new Error('database down')) : valuesFor(keys),
    );
    const loader = new BatchLoader<number, string>(batchFn);
    await Promise.all([loader.load(1), loader.load(2)].map(rejectionOf));
    down = false;
    expect(await Promise.all([loader.load(1), loader.load(2)])).toEqual(['v1', 'v2']);
    expect(calls).toEqual([
      [1, 2],
      [1, 2],
    ]);
  });

  it('does not cache keys of a batch that threw either', async () => {
    let down = true;
    const { calls, batchFn } = recorder((keys: ReadonlyArray<number>) => {
      if (down) throw new Error('database down');
      return valuesFor(keys);
    });
    const loader = new BatchLoader<number, string>(batchFn);
    await rejectionOf(loader.load(1));
    down = false;
    expect(await loader.load(1)).toBe('v1');
    expect(calls).toEqual([[1], [1]]);
  });

  it('rejects every key with a message giving both counts when the array has the wrong length', async () => {
    const loader = new BatchLoader<number, string>(() => Promise.resolve(['only one']), { name: 'users' });
    const failures = await Promise.all([loader.load(1), loader.load(2)].map(rejectionOf));
    const message =
      'BatchLoader "users": batchFn returned 1 values for 2 keys; it must return one value per key, in key order, or a Map.';
    expect(failures.map((error) => error.message)).toEqual([message, message]);
  });

  it('names an unnamed loader "unnamed" in its messages', async () => {
    const loader = new BatchLoader<number, string>(() => ['a', 'b', 'c']);
    expect((await rejectionOf(loader.load(1))).message).toBe(
      'BatchLoader "unnamed": batchFn returned 3 values for 1 keys; it must return one value per key, in key order, or a Map.',
    );
  });

  it('caches no key of a batch whose array had the wrong length', async () => {
    let values: string[] = [];
    const { calls, batchFn } = recorder(() => Promise.resolve(values));
    const loader = new BatchLoader<number, string>(batchFn);
    await rejectionOf(loader.load(1));
    values = ['v1'];
    expect(await loader.load(1)).toBe('v1');
    expect(calls).toEqual([[1], [1]]);
  });

  const notCollections: ReadonlyArray<[unknown, string]> = [
    ['oops', 'a string'],
    [{ 0: 'v1', length: 1 }, 'an object'],
    [undefined, 'undefined'],
    [null, 'null'],
    [42, 'a number'],
  ];
  for (const [result, description] of notCollections) {
    it(`rejects every key when the batch function returns ${description} instead of an array or a Map`, async () => {
      const direct = new BatchLoader<number, string>(() => result as never, { name: 'posts' });
      const promised = new BatchLoader<number, string>(() => Promise.resolve(result) as never);
      const failures = await Promise.all([direct.load(1), direct.load(2), promised.load(1)].map(rejectionOf));
      expect(failures.map((error) => error.message)).toEqual([
        `BatchLoader "posts": batchFn must return an array or a Map (or a promise of one), got ${description}.`,
        `BatchLoader "posts": batchFn must return an array or a Map (or a promise of one), got ${description}.`,
        `BatchLoader "unnamed": batchFn must return an array or a Map (or a promise of one), got ${description}.`,
      ]);
    });
  }

  it('fails only its own chunk: the other chunks of the same dispatch still resolve', async () => {
    const loader = new BatchLoader<number, string>(
      (keys) => (keys.includes(2) ? Promise.reject(new Error('chunk failed')) : valuesFor(keys)),
      { maxBatchSize: 2 },
    );
    const [one, two, three, four, five] = [1, 2, 3, 4, 5].map((key) => loader.load(key));
    expect((await rejectionOf(one!)).message).toBe('chunk failed');
    expect((await rejectionOf(two!)).message).toBe('chunk failed');
    expect(await Promise.all([three, four, five])).toEqual(['v3', 'v4', 'v5']);
  });
});

describe('BatchLoader: the cache', () => {
  it('answers a key loaded before from the cache, without calling the batch function', async () => {
    const { calls, batchFn } = recorder(valuesFor);
    const loader = new BatchLoader<number, string>(batchFn);
    expect(await loader.load(1)).toBe('v1');
    expect(await Promise.all([loader.load(1), loader.load(2)])).toEqual(['v1', 'v2']);
    expect(calls).toEqual([[1], [2]]);
  });

  it('compares keys by identity when there is no cacheKeyFn', async () => {
    const { calls, batchFn } = recorder((keys: ReadonlyArray<{ id: number }>) => keys.map((key) => key.id));
    const loader = new BatchLoader<{ id: number }, number>(batchFn);
    const same = { id: 1 };
    await Promise.all([loader.load(same), loader.load({ id: 1 }), loader.load(same)]);
    expect(calls).toEqual([[same, { id: 1 }]]);
    expect(calls[0]![0]).toBe(same);
  });

  it('treats key objects with the same cacheKeyFn result as one key, and passes the first one requested', async () => {
    type Key = { id: number; from: string };
    const { calls, batchFn } = recorder((keys: ReadonlyArray<Key>) => keys.map((key) => `user ${key.id}`));
    const loader = new BatchLoader<Key, string, number>(batchFn, { cacheKeyFn: (key) => key.id });
    const first = { id: 1, from: 'first' };
    const values = await Promise.all([
      loader.load(first),
      loader.load({ id: 2, from: 'second' }),
      loader.load({ id: 1, from: 'third' }),
    ]);
    expect(values).toEqual(['user 1', 'user 2', 'user 1']);
    expect(calls).toEqual([[first, { id: 2, from: 'second' }]]);
    expect(calls[0]![0]).toBe(first);
    expect(await loader.load({ id: 1, from: 'later' })).toBe('user 1');
    expect(calls).toHaveLength(1);
  });

  it('primes a value for a key that is not cached yet, so loading it calls no batch function', async () => {
    const { calls, batchFn } = recorder(valuesFor);
    const loader = new BatchLoader<number, string>(batchFn);
    loader.prime(1, 'primed');
    expect(await Promise.all([loader.load(1), loader.load(2)])).toEqual(['primed', 'v2']);
    expect(calls).toEqual([[2]]);
  });

  it('leaves a key that is already cached unchanged when primed', async () => {
    const loader = new BatchLoader<number, string>(valuesFor);
    expect(await loader.load(1)).toBe('v1');
    loader.prime(1, 'primed').prime(2, 'first prime').prime(2, 'second prime');
    expect(await Promise.all([loader.load(1), loader.load(2)])).toEqual(['v1', 'first prime']);
  });

  it('does not let a prime replace a key loaded earlier in the same tick', async () => {
    const { calls, batchFn } = recorder(valuesFor);
    const loader = new BatchLoader<number, string>(batchFn);
    const loaded = loader.load(1);
    loader.prime(1, 'primed');
    expect(await Promise.all([loaded, loader.load(1)])).toEqual(['v1', 'v1']);
    expect(calls).toEqual([[1]]);
  });

  it('primes a rejection when given an Error, which stays until the key is cleared', async () => {
    const { calls, batchFn } = recorder(valuesFor);
    const loader = new BatchLoader<number, string>(batchFn);
    const forbidden = new Error('forbidden');
    loader.prime(1, forbidden);
    expect(await rejectionOf(loader.load(1))).toBe(forbidden);
    expect(await rejectionOf(loader.load(1))).toBe(forbidden);
    expect(calls).toEqual([]);
    loader.clear(1);
    expect(await loader.load(1)).toBe('v1');
    expect(calls).toEqual([[1]]);
  });

  it('does not report a primed Error that is never loaded as an unhandled rejection', async () => {
    const unhandled: unknown[] = [];
    const listener = (reason: unknown): void => {
      unhandled.push(reason);
    };
    process.on('unhandledRejection', listener);
    try {
      new BatchLoader<number, string>(valuesFor).prime(1, new Error('never loaded'));
      await settle();
      await settle();
    } finally {
      process.off('unhandledRejection', listener);
    }
    expect(unhandled).toEqual([]);
  });

  it('forgets one key on clear, so only that key is loaded again', async () => {
    const { calls, batchFn } = recorder(valuesFor);
    const loader = new BatchLoader<number, string>(batchFn);
    await Promise.all([loader.load(1), loader.load(2)]);
    loader.clear(1);
    expect(await Promise.all([loader.load(1), loader.load(2)])).toEqual(['v1', 'v2']);
    expect(calls).toEqual([[1, 2], [1]]);
  });

  it('forgets every key on clearAll', async () => {
    const { calls, batchFn } = recorder(valuesFor);
    const loader = new BatchLoader<number, string>(batchFn);
    await Promise.all([loader.load(1), loader.load(2)]);
    loader.clearAll();
    await Promise.all([loader.load(1), loader.load(2)]);
    expect(calls).toEqual([
      [1, 2],
      [1, 2],
    ]);
  });

  it('clears and primes through cacheKeyFn', async () => {
    type Key = { id: number };
    const { calls, batchFn } = recorder((keys: ReadonlyArray<Key>) => keys.map((key) => `user ${key.id}`));
    const loader = new BatchLoader<Key, string, number>(batchFn, { cacheKeyFn: (key) => key.id });
    await loader.load({ id: 1 });
    loader.clear({ id: 1 });
    loader.prime({ id: 2 }, 'primed');
    expect(await Promise.all([loader.load({ id: 1 }), loader.load({ id: 2 })])).toEqual(['user 1', 'primed']);
    expect(calls.map((keys) => keys.map((key) => key.id))).toEqual([[1], [1]]);
  });

  it('passes a key loaded again after clear in the same tick once, and caches its result again', async () => {
    const { calls, batchFn } = recorder(valuesFor);
    const loader = new BatchLoader<number, string>(batchFn);
    const first = loader.load(1);
    loader.clear(1);
    const second = loader.load(1);
    loader.clearAll();
    const third = loader.load(1);
    expect(await Promise.all([first, second, third])).toEqual(['v1', 'v1', 'v1']);
    expect(calls).toEqual([[1]]);
    expect(await loader.load(1)).toBe('v1');
    expect(calls).toEqual([[1]]);
  });

  it('keeps a value primed after a queued key was cleared, even when that key\'s batch fails', async () => {
    // DataLoader differs here: its failed batch clears the key again, and the primed value with it.
    const { calls, batchFn } = recorder(() => Promise.reject(new Error('database down')));
    const loader = new BatchLoader<number, string>(batchFn);
    const queued = loader.load(1);
    loader.clear(1).prime(1, 'primed');
    expect((await rejectionOf(queued)).message).toBe('database down');
    expect(await loader.load(1)).toBe('primed');
    expect(calls).toEqual([[1]]);
  });

  it('returns the loader itself from prime, clear and clearAll, for chaining', () => {
    const loader = new BatchLoader<number, string>(valuesFor);
    expect(loader.prime(1, 'v')).toBe(loader);
    expect(loader.clear(1)).toBe(loader);
    expect(loader.clearAll()).toBe(loader);
  });

  it('with cache: false, calls the batch function again for every load after a dispatch', async () => {
    const { calls, batchFn } = recorder(valuesFor);
    const loader = new BatchLoader<number, string>(batchFn, { cache: false });
    expect(await loader.load(1)).toBe('v1');
    expect(await loader.load(1)).toBe('v1');
    expect(await Promise.all([loader.load(1), loader.load(2)])).toEqual(['v1', 'v2']);
    expect(calls).toEqual([[1], [1], [1, 2]]);
  });

  it('with cache: false, still passes a key loaded twice in one batch once, and answers both loads', async () => {
    const { calls, batchFn } = recorder(valuesFor);
    const loader = new BatchLoader<number, string>(batchFn, { cache: false });
    expect(await Promise.all([loader.load(1), loader.load(2), loader.load(1)])).toEqual(['v1', 'v2', 'v1']);
    expect(calls).toEqual([[1, 2]]);
  });

  it('with cache: false, does not keep an Error value: the next load asks the batch function again', async () => {
    let answer: string | Error = new Error('not yet');
    const { calls, batchFn } = recorder(() => [answer]);
    const loader = new BatchLoader<number, string>(batchFn, { cache: false });
    expect((await rejectionOf(loader.load(1))).message).toBe('not yet');
    answer = 'v1';
    expect(await loader.load(1)).toBe('v1');
    expect(calls).toEqual([[1], [1]]);
  });

  it('with cache: false and a cacheKeyFn, passes key objects with the same cache key once per batch', async () => {
    type Key = { id: number };
    const { calls, batchFn } = recorder((keys: ReadonlyArray<Key>) => keys.map((key) => `user ${key.id}`));
    const loader = new BatchLoader<Key, string, number>(batchFn, { cache: false, cacheKeyFn: (key) => key.id });
    expect(await Promise.all([loader.load({ id: 1 }), loader.load({ id: 1 })])).toEqual(['user 1', 'user 1']);
    expect(calls.map((keys) => keys.map((key) => key.id))).toEqual([[1]]);
  });
});

describe('BatchLoader: loadMany', () => {
  it('resolves to the values in key order, null for a missing key, in the same batch as other loads', async () => {
    const { calls, batchFn } = recorder((keys: ReadonlyArray<number>) =>
      Promise.resolve(new Map(keys.filter((key) => key !== 4).map((key) => [key, `v${key}`]))),
    );
    const loader = new BatchLoader<number, string>(batchFn);
    const [single, many] = await Promise.all([loader.load(1), loader.loadMany([3, 4, 1, 3])]);
    expect(single).toBe('v1');
    expect(many).toEqual(['v3', null, 'v1', 'v3']);
    expect(calls).toEqual([[1, 3, 4]]);
  });

  it('resolves to an empty array for no keys, without calling the batch function', async () => {
    const { calls, batchFn } = recorder(valuesFor);
    const loader = new BatchLoader<number, string>(batchFn);
    expect(await loader.loadMany([])).toEqual([]);
    await settle();
    expect(calls).toEqual([]);
  });

  it('never rejects: a key that failed becomes its Error, in place', async () => {
    const notFound = new Error('no user 2');
    const loader = new BatchLoader<number, string>(() => Promise.resolve(['v1', notFound]));
    expect(await loader.loadMany([1, 2, 1])).toEqual(['v1', notFound, 'v1']);
  });

  it('never rejects when the whole batch fails: every key becomes the error', async () => {
    const down = new Error('database down');
    const loader = new BatchLoader<number, string>(() => Promise.reject(down), { maxBatchSize: 1 });
    const results = await loader.loadMany([1, 2]);
    expect(results).toHaveLength(2);
    for (const result of results) {
      expect(result).toBeInstanceOf(Error);
      expect((result as Error).message).toBe('database down');
    }
  });

  const notArrays: ReadonlyArray<[unknown, string]> = [
    ['1,2', 'a string'],
    [new Set([1, 2]), 'an object'],
    [undefined, 'undefined'],
    [null, 'null'],
    [2, 'a number'],
  ];
  for (const [keys, description] of notArrays) {
    it(`throws a TypeError when given ${description} instead of an array of keys`, () => {
      const loader = new BatchLoader<number, string>(valuesFor, { name: 'books' });
      expectTypeError(
        () => loader.loadMany(keys as never),
        `BatchLoader "books": loadMany() needs an array of keys, got ${description}.`,
      );
    });
  }
});

describe('BatchLoader: misuse is a TypeError at once', () => {
  it('throws when load is given undefined or null as a key', () => {
    const named = new BatchLoader<number, string>(valuesFor, { name: 'authors' });
    const unnamed = new BatchLoader<number, string>(valuesFor);
    expectTypeError(() => named.load(undefined as never), 'BatchLoader "authors": load() needs a key, got undefined.');
    expectTypeError(() => named.load(null as never), 'BatchLoader "authors": load() needs a key, got null.');
    expectTypeError(() => unnamed.load(undefined as never), 'BatchLoader "unnamed": load() needs a key, got undefined.');
  });

  it('accepts falsy keys other than undefined and null', async () => {
    const loader = new BatchLoader<number | string | boolean, string>((keys) => keys.map((key) => `v${String(key)}`));
    expect(await Promise.all([loader.load(0), loader.load(''), loader.load(false)])).toEqual(['v0', 'v', 'vfalse']);
  });

  const notFunctions: ReadonlyArray<[unknown, string]> = [
    ['load', 'a string'],
    [{ batchFn() {} }, 'an object'],
    [undefined, 'undefined'],
    [null, 'null'],
    [1, 'a number'],
  ];
  for (const [batchFn, description] of notFunctions) {
    it(`throws when the batch function is ${description}`, () => {
      expectTypeError(
        () => new BatchLoader(batchFn as never),
        `BatchLoader: batchFn must be a function that takes an array of keys, got ${description}.`,
      );
    });
  }

  const badSizes: ReadonlyArray<[unknown, string]> = [
    [0, '0'],
    [-1, '-1'],
    [2.5, '2.5'],
    [Number.NaN, 'NaN'],
    [-Infinity, '-Infinity'],
    ['3', '3'],
  ];
  for (const [maxBatchSize, shown] of badSizes) {
    it(`throws when maxBatchSize is ${typeof maxBatchSize === 'string' ? `the string "${maxBatchSize}"` : shown}`, () => {
      expectTypeError(
        () => new BatchLoader(valuesFor, { maxBatchSize: maxBatchSize as number, name: 'users' }),
        `BatchLoader "users": maxBatchSize must be a positive integer or Infinity, got ${shown}.`,
      );
    });
  }

  it('names an unnamed loader "unnamed" in option messages', () => {
    expectTypeError(
      () => new BatchLoader(valuesFor, { maxBatchSize: 0 }),
      'BatchLoader "unnamed": maxBatchSize must be a positive integer or Infinity, got 0.',
    );
  });

  const notCacheKeyFns: ReadonlyArray<[unknown, string]> = [
    ['id', 'a string'],
    [{ id: true }, 'an object'],
    [null, 'null'],
    [1, 'a number'],
  ];
  for (const [cacheKeyFn, description] of notCacheKeyFns) {
    it(`throws when cacheKeyFn is ${description}`, () => {
      expectTypeError(
        () => new BatchLoader(valuesFor, { cacheKeyFn: cacheKeyFn as never, name: 'users' }),
        `BatchLoader "users": cacheKeyFn must be a function, got ${description}.`,
      );
    });
  }

  const notBooleans: ReadonlyArray<[unknown, string]> = [
    ['false', 'a string'],
    [{}, 'an object'],
    [null, 'null'],
    [0, 'a number'],
  ];
  for (const [cache, description] of notBooleans) {
    it(`throws when cache is ${description}`, () => {
      expectTypeError(
        () => new BatchLoader(valuesFor, { cache: cache as boolean, name: 'users' }),
        `BatchLoader "users": cache must be true or false, got ${description}.`,
      );
    });
  }

  const notNames: ReadonlyArray<[unknown, string]> = [
    [{ toString: () => 'users' }, 'an object'],
    [null, 'null'],
    [7, 'a number'],
  ];
  for (const [name, description] of notNames) {
    it(`throws when name is ${description}`, () => {
      expectTypeError(
        () => new BatchLoader(valuesFor, { name: name as string }),
        `BatchLoader: name must be a non-empty string, got ${description}.`,
      );
    });
  }

  it('throws when name is the empty string', () => {
    let thrown: unknown;
    try {
      new BatchLoader(valuesFor, { name: '' });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(TypeError);
    expect((thrown as TypeError).message).toMatch(/^BatchLoader: name must be a non-empty string, got .+\.$/);
  });

  it('throws on an option it does not know, naming it and the options it expects', () => {
    expectTypeError(
      () => new BatchLoader(valuesFor, { batch: false } as never),
      'BatchLoader "unnamed": unknown option "batch"; expected maxBatchSize, cacheKeyFn, cache or name.',
    );
    expectTypeError(
      () => new BatchLoader(valuesFor, { name: 'users', cacheMap: new Map() } as never),
      'BatchLoader "users": unknown option "cacheMap"; expected maxBatchSize, cacheKeyFn, cache or name.',
    );
  });

  it('accepts every option at once, and no options at all', () => {
    expect(
      () =>
        new BatchLoader<{ id: number }, string, number>(() => [], {
          maxBatchSize: 10,
          cacheKeyFn: (key) => key.id,
          cache: false,
          name: 'users',
        }),
    ).not.toThrow();
    expect(() => new BatchLoader(valuesFor)).not.toThrow();
    expect(() => new BatchLoader(valuesFor, {})).not.toThrow();
  });
});
