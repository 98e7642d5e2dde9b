/**
 * BatchLoader against DataLoader 2: random scripts of loads and cache operations, random batch
 * function behaviours, run through both; every load settles the same way and every batch
 * function call receives the same keys.
 *
 * A script is a few rounds. In a round, loads, loadManys, primes, clears and clearAlls are
 * issued synchronously, then everything the round started is awaited; so only what is batched
 * with what is compared, never the microtask at which something settles. Each batch function call
 * takes the next behaviour of the script's list (cycling): an array (returned directly or as a
 * promise; with holes, Error values), a Map (with missing keys, Error values, an extra key), a
 * throw, a rejection, an array of the wrong length, or something that is no collection at all.
 * Keys are small integers, or objects `{ id, tag }` with `cacheKeyFn: key => key.id`, each load
 * making a new object (the tag says which), so the test also sees which object was passed.
 *
 * The reference is DataLoader, adapted to the three places where our contract says something
 * DataLoader does not:
 * - a key with no result resolves to `null`: DataLoader is given `undefined` at that position
 *   (for a Map, the array built from the Map) and its `undefined` counts as our `null`;
 * - a batch function that throws, returns the wrong length or returns no collection rejects
 *   every key of the batch with our message: DataLoader is given a rejected promise with that
 *   message (it would wrap a synchronous throw, and word its own checks differently);
 * - `cache: false` still passes each key once per batch: the reference is a caching DataLoader
 *   whose cache is emptied before every round and whose prime, clear and clearAll do nothing
 *   (as they do in a DataLoader with `cache: false`). DataLoader with `cache: false` would pass
 *   duplicates.
 *
 * Runs: BATCH_RUNS (default 300). To replay a failure, set BATCH_SEED (and BATCH_PATH) to the
 * `seed` (and `path`) fast-check printed.
 */
import DataLoader from 'dataloader';
import fc from 'fast-check';
import { describe, it } from 'vitest';
import { BatchLoader } from '../src/index.ts';

const RUNS = Number(process.env.BATCH_RUNS ?? 300);
const SEED = process.env.BATCH_SEED === undefined ? undefined : Number(process.env.BATCH_SEED);
const PATH = process.env.BATCH_PATH;

const KEY_IDS = fc.integer({ min: 0, max: 5 });

type Op =
  | { kind: 'load'; id: number }
  | { kind: 'loadMany'; ids: number[] }
  | { kind: 'prime'; id: number; error: boolean }
  | { kind: 'clear'; id: number }
  | { kind: 'clearAll' };

const NOT_COLLECTIONS = [
  { value: 'oops', description: 'a string' },
  { value: { length: 0 }, description: 'an object' },
  { value: undefined, description: 'undefined' },
  { value: null, description: 'null' },
  { value: 42, description: 'a number' },
] as const;

type Behaviour =
  | { kind: 'array'; sync: boolean; holes: number[]; holeAsNull: boolean; errors: number[] }
  | { kind: 'map'; sync: boolean; missing: number[]; errors: number[]; extraKey: boolean }
  | { kind: 'throw' }
  | { kind: 'reject' }
  | { kind: 'wrongLength'; sync: boolean; delta: number }
  | { kind: 'notACollection'; sync: boolean; which: number };

interface Script {
  maxBatchSize: number;
  cache: boolean;
  objectKeys: boolean;
  name: string | undefined;
  behaviours: Behaviour[];
  rounds: Op[][];
}

const idSet = fc.uniqueArray(KEY_IDS, { maxLength: 3 });

const arbitraryOp: fc.Arbitrary<Op> = fc.oneof(
  { weight: 6, arbitrary: fc.record({ kind: fc.constant('load' as const), id: KEY_IDS }) },
  { weight: 3, arbitrary: fc.record({ kind: fc.constant('loadMany' as const), ids: fc.array(KEY_IDS, { maxLength: 5 }) }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('prime' as const), id: KEY_IDS, error: fc.boolean() }) },
  { weight: 2, arbitrary: fc.record({ kind: fc.constant('clear' as const), id: KEY_IDS }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'clearAll' as const }) },
);

const arbitraryBehaviour: fc.Arbitrary<Behaviour> = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record({
      kind: fc.constant('array' as const),
      sync: fc.boolean(),
      holes: idSet,
      holeAsNull: fc.boolean(),
      errors: idSet,
    }),
  },
  {
    weight: 3,
    arbitrary: fc.record({
      kind: fc.constant('map' as const),
      sync: fc.boolean(),
      missing: idSet,
      errors: idSet,
      extraKey: fc.boolean(),
    }),
  },
  { weight: 1, arbitrary: fc.constant({ kind: 'throw' as const }) },
  { weight: 1, arbitrary: fc.constant({ kind: 'reject' as const }) },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('wrongLength' as const),
      sync: fc.boolean(),
      delta: fc.constantFrom(-1, 1, 2),
    }),
  },
  {
    weight: 1,
    arbitrary: fc.record({
      kind: fc.constant('notACollection' as const),
      sync: fc.boolean(),
      which: fc.integer({ min: 0, max: NOT_COLLECTIONS.length - 1 }),
    }),
  },
);

const arbitraryScript: fc.Arbitrary<Script> = fc
  .record({
    maxBatchSize: fc.oneof(fc.integer({ min: 1, max: 5 }), fc.constant(Infinity)),
    cache: fc.boolean(),
    objectKeys: fc.boolean(),
    name: fc.constantFrom(undefined, 'users'),
    behaviours: fc.array(arbitraryBehaviour, { minLength: 1, maxLength: 5 }),
    rounds: fc.array(fc.array(arbitraryOp, { minLength: 1, maxLength: 8 }), { minLength: 1, maxLength: 5 }),
  })
  .map((script) => (script.cache ? { ...script, rounds: script.rounds.map(withoutReloadAfterClear) } : script))
  .map((script) => Object.assign(script, { [fc.toStringMethod]: () => describeScript(script) }));

/**
 * Drops, from a round, every load and prime of a key that was loaded earlier in the round and
 * then cleared (by `clear` or `clearAll`) while that load was still queued. There the two differ
 * by design: DataLoader queues the key a second time, so its batch function sees it twice, and a
 * failed batch also wipes a value primed after the clear. Those cases have their own tests in
 * batchLoader.test.ts.
 */
function withoutReloadAfterClear(round: Op[]): Op[] {
  const loaded = new Set<number>();
  const cleared = new Set<number>();
  const kept: Op[] = [];
  for (const op of round) {
    switch (op.kind) {
      case 'load':
        if (cleared.has(op.id)) continue;
        loaded.add(op.id);
        kept.push(op);
        break;
      case 'loadMany': {
        const ids = op.ids.filter((id) => !cleared.has(id));
        for (const id of ids) loaded.add(id);
        kept.push({ kind: 'loadMany', ids });
        break;
      }
      case 'prime':
        if (!cleared.has(op.id)) kept.push(op);
        break;
      case 'clear':
        if (loaded.has(op.id)) cleared.add(op.id);
        kept.push(op);
        break;
      case 'clearAll':
        for (const id of loaded) cleared.add(id);
        kept.push(op);
        break;
    }
  }
  return kept;
}

describe('BatchLoader against DataLoader', () => {
  it(
    'settles every load as DataLoader does and calls the batch function with the same keys, for random scripts and batch behaviours',
    async () => {
      await fc.assert(
        fc.asyncProperty(arbitraryScript, async (script) => {
          const ours = await run(script, ourLoader);
          const reference = await run(script, referenceLoader);
          const difference = firstDifference(ours, reference);
          if (difference !== undefined) {
            throw new Error(`${difference}\n\n${describeScript(script)}`);
          }
        }),
        {
          numRuns: RUNS,
          ...(SEED === undefined ? {} : { seed: SEED }),
          ...(PATH === undefined ? {} : { path: PATH }),
        },
      );
    },
    Math.max(120_000, RUNS * 100),
  );
});

// ---------------------------------------------------------------------------------------------
// Keys and the values batch functions compute for them

interface TaggedKey {
  id: number;
  tag: string;
}
type Key = number | TaggedKey;

const idOf = (key: Key): number => (typeof key === 'number' ? key : key.id);
const labelOf = (key: Key): string => (typeof key === 'number' ? String(key) : `${key.id}(${key.tag})`);

/** What the batch function answers for `key` on call number `call`, so a value tells which call made it. */
const valueFor = (key: Key, call: number): string => `${idOf(key)}@${call}`;
const errorFor = (key: Key, call: number): Error => new Error(`no ${idOf(key)}@${call}`);

const loaderName = (script: Script): string => script.name ?? 'unnamed';
const wrongLengthMessage = (script: Script, values: number, keys: number): string =>
  `BatchLoader "${loaderName(script)}": batchFn returned ${values} values for ${keys} keys; it must return one value per key, in key order, or a Map.`;
const notACollectionMessage = (script: Script, description: string): string =>
  `BatchLoader "${loaderName(script)}": batchFn must return an array or a Map (or a promise of one), got ${description}.`;

// ---------------------------------------------------------------------------------------------
// The two loaders

/** The operations a script uses, common to BatchLoader and DataLoader. */
interface Loader {
  load(key: Key): Promise<unknown>;
  loadMany(keys: Key[]): Promise<unknown[]>;
  prime(key: Key, value: string | Error): unknown;
  clear(key: Key): unknown;
  clearAll(): unknown;
  /** Called before each round's operations. */
  startRound(): void;
  /** How this loader's "no result" reads once settled: ours must say `null`; DataLoader says `undefined`. */
  readonly undefinedMeans: 'null' | 'undefined';
}

type OurBatchFn = ConstructorParameters<typeof BatchLoader<Key, string, unknown>>[0];
type OurBatchResult = ReturnType<OurBatchFn>;

/** Builds a loader whose batch function logs its keys and answers with `behaviourOf(call)`. */
type LoaderFactory = (script: Script, onBatch: (keys: ReadonlyArray<Key>) => number) => Loader;

const ourLoader: LoaderFactory = (script, onBatch) => {
  const loader = new BatchLoader<Key, string, unknown>((keys) => ourAnswer(script, keys, onBatch(keys)), {
    maxBatchSize: script.maxBatchSize,
    cache: script.cache,
    ...(script.objectKeys ? { cacheKeyFn: idOf } : {}),
    ...(script.name === undefined ? {} : { name: script.name }),
  });
  return {
    load: (key) => loader.load(key),
    loadMany: (keys) => loader.loadMany(keys),
    prime: (key, value) => loader.prime(key, value),
    clear: (key) => loader.clear(key),
    clearAll: () => loader.clearAll(),
    startRound: () => {},
    undefinedMeans: 'undefined',
  };
};

const referenceLoader: LoaderFactory = (script, onBatch) => {
  const loader = new DataLoader<Key, string | null | undefined, unknown>((keys) => referenceAnswer(script, keys, onBatch(keys)), {
    maxBatchSize: script.maxBatchSize,
    ...(script.objectKeys ? { cacheKeyFn: idOf } : {}),
  });
  if (script.cache) {
    return {
      load: (key) => loader.load(key),
      loadMany: (keys) => loader.loadMany(keys),
      prime: (key, value) => loader.prime(key, value),
      clear: (key) => loader.clear(key),
      clearAll: () => loader.clearAll(),
      startRound: () => {},
      undefinedMeans: 'null',
    };
  }
  return {
    load: (key) => loader.load(key),
    loadMany: (keys) => loader.loadMany(keys),
    prime: () => {},
    clear: () => {},
    clearAll: () => {},
    startRound: () => loader.clearAll(),
    undefinedMeans: 'null',
  };
};

function behaviourFor(script: Script, call: number): Behaviour {
  return script.behaviours[call % script.behaviours.length]!;
}

/** Our batch function's answer: what the behaviour says, returned as our contract allows. */
function ourAnswer(script: Script, keys: ReadonlyArray<Key>, call: number): OurBatchResult {
  const behaviour = behaviourFor(script, call);
  const maybePromise = <T>(sync: boolean, value: T): T | Promise<T> => (sync ? value : Promise.resolve(value));
  switch (behaviour.kind) {
    case 'array':
      return maybePromise(behaviour.sync, arrayAnswer(behaviour, keys, call));
    case 'map': {
      const map = new Map<Key, string | Error>();
      for (const key of keys) {
        if (behaviour.missing.includes(idOf(key))) continue;
        map.set(key, behaviour.errors.includes(idOf(key)) ? errorFor(key, call) : valueFor(key, call));
      }
      if (behaviour.extraKey) map.set(script.objectKeys ? { id: 99, tag: 'extra' } : 99, 'extra');
      return maybePromise(behaviour.sync, map);
    }
    case 'throw':
      throw new Error(`batch ${call} threw`);
    case 'reject':
      return Promise.reject(new Error(`batch ${call} rejected`));
    case 'wrongLength':
      return maybePromise(
        behaviour.sync,
        Array.from({ length: Math.max(0, keys.length + behaviour.delta) }, (_, index) => `extra ${index}`),
      );
    case 'notACollection':
      return maybePromise(behaviour.sync, NOT_COLLECTIONS[behaviour.which]!.value) as unknown as OurBatchResult;
  }
}

/** DataLoader's answer to the same behaviour: always a promise of an array of the keys' length. */
function referenceAnswer(script: Script, keys: ReadonlyArray<Key>, call: number): Promise<ReadonlyArray<string | Error | null | undefined>> {
  const behaviour = behaviourFor(script, call);
  switch (behaviour.kind) {
    case 'array':
      return Promise.resolve(arrayAnswer(behaviour, keys, call));
    case 'map':
      return Promise.resolve(
        keys.map((key) =>
          behaviour.missing.includes(idOf(key))
            ? undefined
            : behaviour.errors.includes(idOf(key))
              ? errorFor(key, call)
              : valueFor(key, call),
        ),
      );
    case 'throw':
      return Promise.reject(new Error(`batch ${call} threw`));
    case 'reject':
      return Promise.reject(new Error(`batch ${call} rejected`));
    case 'wrongLength':
      return Promise.reject(
        new Error(wrongLengthMessage(script, Math.max(0, keys.length + behaviour.delta), keys.length)),
      );
    case 'notACollection':
      return Promise.reject(new Error(notACollectionMessage(script, NOT_COLLECTIONS[behaviour.which]!.description)));
  }
}

function arrayAnswer(
  behaviour: Extract<Behaviour, { kind: 'array' }>,
  keys: ReadonlyArray<Key>,
  call: number,
): Array<string | Error | null | undefined> {
  return keys.map((key) => {
    if (behaviour.errors.includes(idOf(key))) return errorFor(key, call);
    if (behaviour.holes.includes(idOf(key))) return behaviour.holeAsNull ? null : undefined;
    return valueFor(key, call);
  });
}

// ---------------------------------------------------------------------------------------------
// Running a script, and what is compared

interface RoundTrace {
  /** The keys of each batch function call made during the round, as labels. */
  batches: string[][];
  /** How each operation of the round came out, in order. */
  outcomes: string[];
}

async function run(script: Script, makeLoader: LoaderFactory): Promise<RoundTrace[]> {
  const traces: RoundTrace[] = [];
  let current: RoundTrace = { batches: [], outcomes: [] };
  let calls = 0;
  const loader = makeLoader(script, (keys) => {
    current.batches.push(keys.map(labelOf));
    return calls++;
  });
  const keyFor = (id: number, tag: string): Key => (script.objectKeys ? { id, tag } : id);

  for (const [roundIndex, round] of script.rounds.entries()) {
    current = { batches: [], outcomes: [] };
    traces.push(current);
    loader.startRound();
    const pending: Array<Promise<string>> = [];
    for (const [opIndex, op] of round.entries()) {
      const tag = `r${roundIndex}o${opIndex}`;
      try {
        switch (op.kind) {
          case 'load':
            pending.push(
              loader.load(keyFor(op.id, tag)).then(
                (value) => describeValue(value, loader),
                (error: unknown) => `rejects ${describeValue(error, loader)}`,
              ),
            );
            break;
          case 'loadMany':
            pending.push(
              loader.loadMany(op.ids.map((id, index) => keyFor(id, `${tag}.${index}`))).then(
                (values) => (Array.isArray(values) ? `[${values.map((value) => describeValue(value, loader)).join(', ')}]` : `not an array: ${String(values)}`),
                (error: unknown) => `loadMany rejected (it never should) with ${describeValue(error, loader)}`,
              ),
            );
            break;
          case 'prime':
            loader.prime(keyFor(op.id, tag), op.error ? new Error(`primed error ${op.id}`) : `primed ${op.id}`);
            pending.push(Promise.resolve('primed'));
            break;
          case 'clear':
            loader.clear(keyFor(op.id, tag));
            pending.push(Promise.resolve('cleared'));
            break;
          case 'clearAll':
            loader.clearAll();
            pending.push(Promise.resolve('cleared all'));
            break;
        }
      } catch (error) {
        pending.push(Promise.resolve(`threw ${describeValue(error, loader)}`));
      }
    }
    current.outcomes = await Promise.all(pending);
    await new Promise((resolve) => setImmediate(resolve));
  }
  return traces;
}

function describeValue(value: unknown, loader: Loader): string {
  if (value === undefined) return loader.undefinedMeans;
  if (value === null) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (value instanceof Error) return `Error(${JSON.stringify(value.message)})`;
  return `unexpected ${typeof value} ${String(value)}`;
}

function firstDifference(ours: RoundTrace[], reference: RoundTrace[]): string | undefined {
  for (const [index, expected] of reference.entries()) {
    const actual = ours[index]!;
    const show = (trace: RoundTrace): string =>
      `  batch function calls: ${trace.batches.map((keys) => `[${keys.join(', ')}]`).join(' ') || '(none)'}\n` +
      `  outcomes: ${trace.outcomes.join(' | ')}`;
    if (JSON.stringify(actual) !== JSON.stringify(expected)) {
      return `Round ${index + 1} differs.\nBatchLoader:\n${show(actual)}\nDataLoader (reference):\n${show(expected)}`;
    }
  }
  return undefined;
}

function describeScript(script: Script): string {
  const options = [
    `maxBatchSize: ${script.maxBatchSize}`,
    `cache: ${script.cache}`,
    ...(script.objectKeys ? ['cacheKeyFn: key => key.id (keys are { id, tag } objects)'] : []),
    ...(script.name === undefined ? [] : [`name: ${JSON.stringify(script.name)}`]),
  ];
  const behaviours = script.behaviours.map((behaviour, index) => `  call ${index} (+${script.behaviours.length}k): ${describeBehaviour(behaviour)}`);
  const rounds = script.rounds.map((round, index) => `  round ${index + 1}: ${round.map(describeOp).join('; ')}`);
  return [`options: { ${options.join(', ')} }`, 'batch function:', ...behaviours, 'script:', ...rounds].join('\n');
}

function describeBehaviour(behaviour: Behaviour): string {
  const how = (isSync: boolean): string => (isSync ? 'returns' : 'resolves to');
  const ids = (list: number[]): string => `[${list.join(', ')}]`;
  switch (behaviour.kind) {
    case 'array':
      return `${how(behaviour.sync)} an array; ${behaviour.holeAsNull ? 'null' : 'undefined'} for ${ids(behaviour.holes)}, Error for ${ids(behaviour.errors)}`;
    case 'map':
      return `${how(behaviour.sync)} a Map; missing ${ids(behaviour.missing)}, Error for ${ids(behaviour.errors)}${behaviour.extraKey ? ', plus an unrequested key 99' : ''}`;
    case 'throw':
      return 'throws';
    case 'reject':
      return 'rejects';
    case 'wrongLength':
      return `${how(behaviour.sync)} an array with ${Math.abs(behaviour.delta)} value(s) too ${behaviour.delta > 0 ? 'many' : 'few'}`;
    case 'notACollection':
      return `${how(behaviour.sync)} ${NOT_COLLECTIONS[behaviour.which]!.description}`;
  }
}

function describeOp(op: Op): string {
  switch (op.kind) {
    case 'load':
      return `load(${op.id})`;
    case 'loadMany':
      return `loadMany([${op.ids.join(', ')}])`;
    case 'prime':
      return `prime(${op.id}, ${op.error ? 'Error' : `"primed ${op.id}"`})`;
    case 'clear':
      return `clear(${op.id})`;
    case 'clearAll':
      return 'clearAll()';
  }
}
