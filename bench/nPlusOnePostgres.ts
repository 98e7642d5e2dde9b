/**
 * The `n-plus-one-postgres` scenario: the PostgreSQL example's nested query (authors, their
 * books, the books' reviews) against real tables, through three engines on the same schema,
 * resolvers and SQL:
 *  - our `execute` with our BatchLoader (what the example serves);
 *  - graphql-js's `execute` with `dataloader`;
 *  - graphql-js's `execute` with no loader at all: one statement per parent row, the N+1 that
 *    loaders exist to avoid, shown so the first two columns have something to be read against.
 *
 * Unlike `n-plus-one` (nPlusOne.ts), whose round trips are timers, here each one is a real
 * statement through a `pg.Pool`, so what is measured includes the driver, the socket and the
 * server's planning and reading. Statements are counted per request, in the request's context,
 * and checked against the pool's own count before anything is timed.
 *
 * Environment: DATABASE_URL (without it the scenario says it is skipped), and the BENCH_TIME_MS
 * and BENCH_WARMUP_MS of the other scenarios. The data lives in a schema made for the run and
 * dropped at its end.
 */
import DataLoader from 'dataloader';
import { execute as graphqlJsExecute, parse, validate } from 'graphql';
import type { ExecutionResult } from 'graphql';
import { BatchLoader, execute } from '../src/index.ts';
import { generatedLibrary } from '../examples/postgres/database.ts';
import { createPostgresExample } from '../examples/postgres/example.ts';
import type { PostgresExample } from '../examples/postgres/example.ts';
import type { Loader, LoaderClass } from '../examples/postgres/schema.ts';
import { measure } from './measure.ts';
import type { Measurement } from './measure.ts';

/** 50 authors × 4 books × 3 reviews: without a loader, 1 + 50 + 200 statements a request. */
const SIZE = { authors: 50, booksPerAuthor: 4, reviewsPerBook: 3 };

const QUERY = '{ authors { name born books { title genre published reviews { stars text } } } }';

/** The timed part is cut into this many rounds; see `measure` for why. */
const ROUNDS = 10;

/** Requests in flight at once in the concurrent measurement; as many as the pool has connections. */
const CONCURRENCY = 10;

export interface NPlusOnePostgresOptions {
  /** The scenario's name, for messages. */
  name: string;
  timeMs: number;
  warmupMs: number;
}

/** The loader a server without batching effectively has: every `load` is a statement of its own. */
class Unbatched<K, V> implements Loader<K, V> {
  private readonly batch: (keys: readonly K[]) => Promise<V[]>;

  constructor(batch: (keys: readonly K[]) => Promise<V[]>, _options: { name: string }) {
    this.batch = batch;
  }

  async load(key: K): Promise<V | null> {
    const [value] = await this.batch([key]);
    return value ?? null;
  }
}

interface Engine {
  name: string;
  /** One request with a fresh context (fresh loaders), as a server makes per request. */
  request: () => Promise<{ result: ExecutionResult; statements: number }>;
  /** Statements each request sent, every request counted. */
  statements: number[];
}

function createEngines(example: PostgresExample): Engine[] {
  const document = parse(QUERY);
  const engine = (name: string, Loader: LoaderClass, ours: boolean): Engine => {
    const statements: number[] = [];
    return {
      name,
      statements,
      request: async () => {
        const contextValue = example.contextFor({ Loader });
        const result = ours
          ? await execute({ schema: example.schema, document, contextValue })
          : await graphqlJsExecute({ schema: example.schema, document, contextValue });
        statements.push(contextValue.queries.length);
        return { result, statements: contextValue.queries.length };
      },
    };
  };
  return [
    engine('ours + BatchLoader', BatchLoader, true),
    engine('graphql-js + DataLoader', DataLoader, false),
    engine('graphql-js, no loader (N+1)', Unbatched, false),
  ];
}

/** Throws unless every engine returns the same result, free of errors, and the pool saw every statement counted. */
async function assertEnginesAgree(scenario: string, example: PostgresExample, engines: readonly Engine[]): Promise<void> {
  const validationErrors = validate(example.schema, parse(QUERY));
  if (validationErrors.length > 0) throw new Error(`${scenario}: the query is not valid: ${validationErrors.join('; ')}`);
  let expected: string | null = null;
  for (const engine of engines) {
    const before = example.queryCount;
    const { result, statements } = await engine.request();
    const text = JSON.stringify(result);
    if (result.errors !== undefined) throw new Error(`${scenario}: ${engine.name} returned errors: ${text}`);
    if (expected !== null && text !== expected) throw new Error(`${scenario}: ${engine.name} returned a different result from ${engines[0]?.name}.`);
    expected ??= text;
    if (example.queryCount - before !== statements) {
      throw new Error(`${scenario}: ${engine.name}'s context counted ${statements} statements, the pool ${example.queryCount - before}.`);
    }
  }
}

function describeCounts(counts: readonly number[]): string {
  const min = Math.min(...counts);
  const max = Math.max(...counts);
  return min === max ? String(min) : `${mean(counts).toFixed(1)} (${min}–${max})`;
}

const formatRate = (rate: number) => rate.toLocaleString('en-US', { maximumFractionDigits: rate < 100 ? 1 : 0 });
const formatMeasurement = (m: Measurement, scale = 1) => `${formatRate(m.opsPerSecond * scale)} ±${(m.relativeMargin * 100).toFixed(1)}%`;
/** Two decimals, or two significant digits below 0.1, so that a small ratio does not read 0.00. */
const formatRatio = (ratio: number) => (ratio < 0.1 ? ratio.toPrecision(2) : ratio.toFixed(2));
const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;

/** Measures the scenario and answers its report in Markdown, or why it was skipped. */
export async function runNPlusOnePostgres(options: NPlusOnePostgresOptions): Promise<string> {
  const url = process.env.DATABASE_URL;
  if (url === undefined || url === '') {
    return `${options.name}: skipped: DATABASE_URL is not set (e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run bench -- ${options.name}).`;
  }
  const example = createPostgresExample({
    connectionString: url,
    schemaName: `graphql_engine_bench_${process.pid}`,
    poolSize: CONCURRENCY,
  });
  try {
    await example.seed(generatedLibrary(SIZE));
    const engines = createEngines(example);
    await assertEnginesAgree(options.name, example, engines);
    console.error(`${options.name}: all engines agree; measuring…`);
    const sequential = await measure(
      engines.map((engine) => ({ name: engine.name, run: engine.request })),
      { warmupMs: options.warmupMs, timeMs: options.timeMs, rounds: ROUNDS },
    );
    const concurrent = await measure(
      engines.map((engine) => ({ name: engine.name, run: () => Promise.all(Array.from({ length: CONCURRENCY }, engine.request)) })),
      { warmupMs: options.warmupMs, timeMs: options.timeMs, rounds: ROUNDS },
    );
    // Engines 0 and 1 are ours and graphql-js + DataLoader; the ratio row compares them.
    const ratio = (values: (index: number) => number) => formatRatio(values(0) / values(1));
    const lines = [
      `${options.name} — Node ${process.version} (${process.platform} ${process.arch}), NODE_ENV=${process.env.NODE_ENV}; ` +
        `PostgreSQL at ${new URL(url).host}, a pool of ${CONCURRENCY} connections; ${SIZE.authors} authors × ${SIZE.booksPerAuthor} books × ` +
        `${SIZE.reviewsPerBook} reviews, query \`${QUERY}\`. ${options.timeMs} ms timed per engine and column in ${ROUNDS} interleaved rounds, ` +
        `after ${options.warmupMs} ms of warm-up; requests/s is the median of the rounds, ± the 95% margin of error of their mean.`,
      '',
      `| engine | SQL statements per request | requests/s (sequential) | requests/s (${CONCURRENCY} concurrent) |`,
      '|---|--:|--:|--:|',
      ...engines.map(
        (engine, index) =>
          `| ${engine.name} | ${describeCounts(engine.statements)} | ${formatMeasurement(sequential[index] as Measurement)} ` +
          `| ${formatMeasurement(concurrent[index] as Measurement, CONCURRENCY)} |`,
      ),
      `| ours ÷ graphql-js + DataLoader | ${ratio((i) => mean(engines[i]?.statements ?? []))} ` +
        `| ${ratio((i) => (sequential[i] as Measurement).opsPerSecond)} | ${ratio((i) => (concurrent[i] as Measurement).opsPerSecond)} |`,
    ];
    return lines.join('\n');
  } finally {
    await example.dropSchema().catch((error: unknown) => console.error(`${options.name}: could not drop schema ${example.schemaName}:`, error));
    await example.close();
  }
}
