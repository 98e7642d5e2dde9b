/**
 * The `n-plus-one` scenario: a three-level query (10 publishers × 10 authors × 10 books, and
 * each book's publisher and the viewer's rating of it) over a data source where every batch is
 * a round trip that takes a fixed latency. The relation resolvers are the batching fixture's:
 * each waits nothing, one microtask, three microtasks or a `setImmediate` before it calls
 * `load()`, as resolvers that check permissions or read a cache first do.
 *
 * Two engines run the same schema and resolvers: our `execute` with our `BatchLoader`, and
 * graphql-js's `execute` with `dataloader`. What differs is when a batch is sent, so what is
 * compared is how many round trips a request makes and what that costs in latency and
 * throughput. Here the cost is waiting, not computing: the data source is a timer, and round
 * trips run in parallel without limit, as if every batch had its own connection.
 *
 * Environment: BENCH_LATENCY_MS (milliseconds per round trip, default 2), and the BENCH_TIME_MS
 * and BENCH_WARMUP_MS of the other scenarios.
 */
import DataLoader from 'dataloader';
import { execute as graphqlJsExecute, parse, validate } from 'graphql';
import type { ExecutionResult } from 'graphql';
import { BatchLoader, execute } from '../src/index.ts';
import { THREE_LEVEL_QUERY, createContext, createData, schema } from '../fixtures/batching/index.ts';
import type { BatchingContext, LoaderClass } from '../fixtures/batching/index.ts';

/** The timed part is cut into this many rounds, each running every engine in turn. */
const ROUNDS = 10;

/** How many requests are in flight at once in the concurrent half of each round. */
const CONCURRENCY = 10;

export interface NPlusOneOptions {
  /** The scenario's name, for messages. */
  name: string;
  timeMs: number;
  warmupMs: number;
}

interface Answer {
  result: ExecutionResult;
  roundTrips: number;
}

interface Engine {
  name: string;
  /** One request, with a fresh context (fresh loaders), as a server makes per request. */
  request: () => Promise<Answer>;
}

interface Tally {
  latenciesMs: number[];
  roundTrips: number[];
  sequentialRates: number[];
  concurrentRates: number[];
}

function readLatencyMs(): number {
  const raw = process.env.BENCH_LATENCY_MS;
  if (raw === undefined || raw === '') return 2;
  const value = Number(raw);
  if (!Number.isFinite(value) || value < 0) {
    throw new TypeError(`BENCH_LATENCY_MS must be a number of milliseconds, 0 or more, but got "${raw}".`);
  }
  return value;
}

function createEngines(scenario: string, latencyMs: number): Engine[] {
  const data = createData({ publishers: 10, authorsPerPublisher: 10, booksPerAuthor: 10 });
  const roundTrip = () => new Promise<void>((resolve) => setTimeout(resolve, latencyMs));
  const document = parse(THREE_LEVEL_QUERY);
  const validationErrors = validate(schema, document);
  if (validationErrors.length > 0) {
    throw new Error(`${scenario}: the query is not valid against the schema: ${validationErrors.join('; ')}`);
  }
  const roundTripsOf = (context: BatchingContext) =>
    Object.values(context.batches).reduce((sum, batches) => sum + batches.length, 0);
  const withLoader = (Loader: LoaderClass) => createContext({ Loader, data, roundTrip });
  return [
    {
      name: 'ours + BatchLoader',
      request: async () => {
        const contextValue = withLoader(BatchLoader);
        const result = await execute({ schema, document, contextValue });
        return { result, roundTrips: roundTripsOf(contextValue) };
      },
    },
    {
      name: 'graphql-js + DataLoader',
      request: async () => {
        const contextValue = withLoader(DataLoader);
        const result = await graphqlJsExecute({ schema, document, contextValue });
        return { result, roundTrips: roundTripsOf(contextValue) };
      },
    },
  ];
}

/** Throws unless both engines return the same result, free of errors. */
async function assertEnginesAgree(scenario: string, engines: readonly Engine[]): Promise<void> {
  const [first, ...others] = await Promise.all(engines.map(async (engine) => ({ engine, answer: await engine.request() })));
  const expected = JSON.stringify(first.answer.result);
  if (first.answer.result.errors !== undefined) {
    throw new Error(`${scenario}: ${first.engine.name} returned errors, so the scenario itself is broken: ${expected}`);
  }
  for (const { engine, answer } of others) {
    if (JSON.stringify(answer.result) !== expected) {
      throw new Error(`${scenario}: ${engine.name} returned a different result from ${first.engine.name}.`);
    }
  }
}

/** Requests one after another for `ms`; answers requests per second, recording each request. */
async function runSequential(engine: Engine, ms: number, tally: Tally | null): Promise<number> {
  let requests = 0;
  const start = performance.now();
  let now = start;
  do {
    const requestStart = now;
    const { roundTrips } = await engine.request();
    now = performance.now();
    requests++;
    tally?.latenciesMs.push(now - requestStart);
    tally?.roundTrips.push(roundTrips);
  } while (now - start < ms);
  return requests / ((now - start) / 1000);
}

/** CONCURRENCY requests at a time, a new group when the last one ends, for `ms`; requests per second. */
async function runConcurrent(engine: Engine, ms: number): Promise<number> {
  let requests = 0;
  const start = performance.now();
  let now = start;
  do {
    await Promise.all(Array.from({ length: CONCURRENCY }, () => engine.request()));
    requests += CONCURRENCY;
    now = performance.now();
  } while (now - start < ms);
  return requests / ((now - start) / 1000);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function describeRoundTrips(counts: readonly number[]): string {
  const min = Math.min(...counts);
  const max = Math.max(...counts);
  if (min === max) return String(min);
  const mean = counts.reduce((sum, count) => sum + count, 0) / counts.length;
  return `${mean.toFixed(1)} (${min}–${max})`;
}

const formatRate = (rate: number) => rate.toLocaleString('en-US', { maximumFractionDigits: rate < 100 ? 1 : 0 });
/** Two decimals, or two significant digits below 0.1, so that a ratio of 4 to 313 does not read 0.01. */
const formatRatio = (ratio: number) => (ratio < 0.1 ? ratio.toPrecision(2) : ratio.toFixed(2));

/**
 * Measures the scenario and answers its report, in Markdown. Like the other scenarios, the
 * engines take turns: each round runs every engine, sequential then concurrent, in an order that
 * rotates from round to round, so drift during the run touches both alike.
 */
export async function runNPlusOne(options: NPlusOneOptions): Promise<string> {
  const latencyMs = readLatencyMs();
  const engines = createEngines(options.name, latencyMs);
  await assertEnginesAgree(options.name, engines);
  console.error(`${options.name}: both engines agree; measuring…`);

  for (const engine of engines) {
    await runSequential(engine, options.warmupMs / 2, null);
    await runConcurrent(engine, options.warmupMs / 2);
  }
  const tallies: Tally[] = engines.map(() => ({ latenciesMs: [], roundTrips: [], sequentialRates: [], concurrentRates: [] }));
  const phaseMs = options.timeMs / ROUNDS / 2;
  for (let round = 0; round < ROUNDS; round++) {
    for (let turn = 0; turn < engines.length; turn++) {
      const index = (round + turn) % engines.length;
      const tally = tallies[index];
      tally.sequentialRates.push(await runSequential(engines[index], phaseMs, tally));
      tally.concurrentRates.push(await runConcurrent(engines[index], phaseMs));
    }
  }

  const summaries = tallies.map((tally) => ({
    roundTrips: tally.roundTrips.reduce((sum, count) => sum + count, 0) / tally.roundTrips.length,
    latencyMs: median(tally.latenciesMs),
    sequential: median(tally.sequentialRates),
    concurrent: median(tally.concurrentRates),
  }));
  const [ours, theirs] = summaries;
  const lines = [
    `${options.name} — Node ${process.version} (${process.platform} ${process.arch}), NODE_ENV=${process.env.NODE_ENV}; ` +
      `${latencyMs} ms per round trip (BENCH_LATENCY_MS), round trips in parallel without limit; ` +
      `${options.timeMs} ms timed per engine in ${ROUNDS} interleaved rounds (half sequential, half ${CONCURRENCY} concurrent), ` +
      `after ${options.warmupMs} ms of warm-up. Latency is the median of every timed sequential request; ` +
      `requests/s the median of the rounds.`,
    '',
    `| engine | round trips per request | latency per request (ms, median) | requests/s (sequential) | requests/s (${CONCURRENCY} concurrent) |`,
    '|---|--:|--:|--:|--:|',
    ...engines.map(
      (engine, index) =>
        `| ${engine.name} | ${describeRoundTrips(tallies[index].roundTrips)} | ${summaries[index].latencyMs.toFixed(2)} ` +
        `| ${formatRate(summaries[index].sequential)} | ${formatRate(summaries[index].concurrent)} |`,
    ),
    `| ours ÷ graphql-js + DataLoader | ${formatRatio(ours.roundTrips / theirs.roundTrips)} | ${formatRatio(ours.latencyMs / theirs.latencyMs)} ` +
      `| ${formatRatio(ours.sequential / theirs.sequential)} | ${formatRatio(ours.concurrent / theirs.concurrent)} |`,
  ];
  return lines.join('\n');
}
