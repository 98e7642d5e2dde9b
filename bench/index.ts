/**
 * `npm run bench [-- scenario...]`: our `execute` against graphql-js's `execute` and
 * graphql-jit, on the same schema, document, root value and context, in one run.
 *
 * Every engine is first checked to return exactly the result graphql-js returns; only then is
 * it timed. The output is a Markdown table of operations per second and of the ratios between
 * the engines. Ratios measured in the same run on the same machine are what carry over to
 * another machine; the absolute numbers do not, and nothing here asserts a time.
 *
 * Environment: BENCH_TIME_MS (timed milliseconds per engine per scenario, default 2000) and
 * BENCH_WARMUP_MS (untimed milliseconds per engine per scenario first, default 1000).
 *
 * The `n-plus-one` scenario (nPlusOne.ts) compares batching rather than raw execution: our
 * `execute` with `BatchLoader` against graphql-js with `dataloader`; it prints its own table.
 *
 * The `analysis` group (analysis.ts) times our `analyze` against graphql-depth-limit and
 * graphql-query-complexity on documents of growing size, one table per family of documents.
 * It reads BENCH_ANALYSIS_CELL_MS (timed milliseconds per contender per document, default 200)
 * and BENCH_ANALYSIS_BUDGET_MS (longest projected call before a size is skipped, default 2000).
 */
import './production-mode.ts';
import { execute as graphqlJsExecute, getIntrospectionQuery, parse, validate } from 'graphql';
import type { DocumentNode, ExecutionResult, GraphQLSchema } from 'graphql';
import { compileQuery, isCompiledQuery } from 'graphql-jit';
import { execute } from '../src/index.ts';
import { runAnalysis } from './analysis.ts';
import { measure } from './measure.ts';
import type { Contender, Measurement, Operation } from './measure.ts';
import { NESTED_QUERY, createBenchSchema, createDb } from './schema.ts';
import type { BenchContext } from './schema.ts';

/**
 * Runs last: its executions track tasks with AsyncLocalStorage (src/batching/scheduler.ts), and
 * on Node 20, once AsyncLocalStorage has run, every promise of the process is a little dearer,
 * which must not touch the other scenarios.
 */
const N_PLUS_ONE = 'n-plus-one';

/**
 * The same comparison against real PostgreSQL tables (nPlusOnePostgres.ts; it needs
 * DATABASE_URL, and says it is skipped without it). Loaded lazily and run last, for the same
 * reason as n-plus-one: its executions track tasks.
 */
const N_PLUS_ONE_POSTGRES = 'n-plus-one-postgres';

/** Runs after the execution scenarios, before n-plus-one; it executes nothing. */
const ANALYSIS = 'analysis';

/** The timed part is cut into this many rounds; see `measure` for why. */
const ROUNDS = 20;

interface Scenario {
  name: string;
  schema: GraphQLSchema;
  document: DocumentNode;
  rootValue: unknown;
  contextValue: BenchContext;
}

const ENGINES = ['ours', 'graphql-js', 'graphql-jit'] as const;
type EngineName = (typeof ENGINES)[number];

/** The engine every other one is checked against. */
const REFERENCE: EngineName = 'graphql-js';


function createScenarios(): Scenario[] {
  const contextValue = { db: createDb() };
  const rootValue = {};
  const syncSchema = createBenchSchema('sync');
  const asyncSchema = createBenchSchema('async');
  // Each document is parsed once, here: a server parses (and caches) a document once and then
  // executes it many times, and parsing is not what is being compared.
  const nested = parse(NESTED_QUERY);
  return [
    { name: 'trivial', schema: syncSchema, document: parse('{ hello }'), rootValue, contextValue },
    { name: 'nested-sync', schema: syncSchema, document: nested, rootValue, contextValue },
    { name: 'nested-async', schema: asyncSchema, document: nested, rootValue, contextValue },
    { name: 'introspection', schema: syncSchema, document: parse(getIntrospectionQuery()), rootValue, contextValue },
  ];
}

/**
 * Everything an engine does once per document happens here, untimed; the returned operation
 * is the per-request work that is timed. graphql-jit's model is to compile a document once and
 * call the compiled function per request, so compiling is setup. Our `execute` and graphql-js's
 * receive the same parsed document on every call and may cache whatever they like for it.
 */
function prepare(engine: EngineName, scenario: Scenario): Operation {
  const { schema, document, rootValue, contextValue } = scenario;
  switch (engine) {
    case 'ours':
      return () => execute({ schema, document, rootValue, contextValue });
    case 'graphql-js':
      return () => graphqlJsExecute({ schema, document, rootValue, contextValue });
    case 'graphql-jit': {
      const compiled = compileQuery(schema, document);
      if (!isCompiledQuery(compiled)) {
        throw new Error(`${scenario.name}: graphql-jit could not compile the document: ${JSON.stringify(compiled.errors)}`);
      }
      return () => compiled.query(rootValue, contextValue, {});
    }
  }
}

/**
 * Throws unless every engine returns, as JSON, exactly what the reference engine returns, and
 * that result is free of errors. Each engine is called twice and both answers are checked: the
 * first call may fill a per-document cache, and the second takes the path the timed loop takes.
 * Returns the reference result.
 */
async function assertEnginesAgree(scenario: Scenario, contenders: readonly Contender[]): Promise<ExecutionResult> {
  const validationErrors = validate(scenario.schema, scenario.document);
  if (validationErrors.length > 0) {
    throw new Error(`${scenario.name}: the document is not valid against the schema: ${validationErrors.join('; ')}`);
  }
  const reference = contenders.find((contender) => contender.name === REFERENCE);
  if (reference === undefined) throw new Error(`The reference engine ${REFERENCE} is not among the contenders.`);
  const referenceResult = (await reference.run()) as ExecutionResult;
  const expected = JSON.stringify(referenceResult);
  if (referenceResult.errors !== undefined) {
    throw new Error(`${scenario.name}: ${REFERENCE} returned errors, so the scenario itself is broken: ${expected}`);
  }
  for (const { name, run } of contenders) {
    for (const call of ['first', 'second']) {
      let actual: string;
      try {
        actual = JSON.stringify(await run());
      } catch (error) {
        throw new Error(`${scenario.name}: ${name} threw on its ${call} call instead of returning a result.`, { cause: error });
      }
      if (actual !== expected) {
        throw new Error(
          `${scenario.name}: ${name} returned a different result from ${REFERENCE} on its ${call} call.\n` +
            describeDifference(expected, actual),
        );
      }
    }
  }
  return referenceResult;
}

/** Shows both JSON texts around their first differing character, so a mismatch can be read. */
function describeDifference(expected: string, actual: string): string {
  let at = 0;
  while (at < expected.length && expected[at] === actual[at]) at++;
  const excerpt = (text: string) => text.slice(Math.max(0, at - 60), at + 60);
  return `First difference at character ${at}:\n  expected …${excerpt(expected)}…\n  actual   …${excerpt(actual)}…`;
}

/** Every object, list and leaf in a JSON value, counting the value itself. */
function countValues(value: unknown): number {
  if (Array.isArray(value)) return value.reduce((sum: number, item) => sum + countValues(item), 1);
  if (typeof value === 'object' && value !== null) {
    return Object.values(value).reduce((sum: number, item) => sum + countValues(item), 1);
  }
  return 1;
}

function readMilliseconds(name: string, defaultValue: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return defaultValue;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) {
    throw new TypeError(`${name} must be a positive whole number of milliseconds, but got "${raw}".`);
  }
  return value;
}

function selectScenarios(all: Scenario[], names: string[]): Scenario[] {
  if (names.length === 0) return all;
  return names.map((name) => {
    const scenario = all.find((candidate) => candidate.name === name);
    if (scenario === undefined) {
      throw new TypeError(
        `Unknown scenario "${name}"; the scenarios are: ${[...all.map((s) => s.name), ANALYSIS, N_PLUS_ONE, N_PLUS_ONE_POSTGRES].join(', ')}.`,
      );
    }
    return scenario;
  });
}

const formatRate = (rate: number) =>
  rate.toLocaleString('en-US', { maximumFractionDigits: rate < 100 ? 1 : 0 });
const formatMeasurement = (m: Measurement) => `${formatRate(m.opsPerSecond)} ±${(m.relativeMargin * 100).toFixed(1)}%`;
const formatRatio = (a: Measurement, b: Measurement) => (a.opsPerSecond / b.opsPerSecond).toFixed(2);

async function main(): Promise<void> {
  const timeMs = readMilliseconds('BENCH_TIME_MS', 2000);
  const warmupMs = readMilliseconds('BENCH_WARMUP_MS', 1000);
  const names = process.argv.slice(2);
  const withNPlusOne = names.length === 0 || names.includes(N_PLUS_ONE);
  const withAnalysis = names.length === 0 || names.includes(ANALYSIS);
  const withNPlusOnePostgres = names.length === 0 || names.includes(N_PLUS_ONE_POSTGRES);
  const otherNames = names.filter((name) => name !== N_PLUS_ONE && name !== ANALYSIS && name !== N_PLUS_ONE_POSTGRES);
  const scenarios = names.length > 0 && otherNames.length === 0 ? [] : selectScenarios(createScenarios(), otherNames);

  const rows: string[] = [];
  for (const scenario of scenarios) {
    const contenders = ENGINES.map((engine) => ({ name: engine, run: prepare(engine, scenario) }));
    const reference = await assertEnginesAgree(scenario, contenders);
    // Progress goes to stderr so that stdout is exactly the Markdown report.
    console.error(`${scenario.name}: all engines agree on ${countValues(reference.data)} values; measuring…`);
    // `measure` answers in the order of ENGINES.
    const [ours, graphqlJs, graphqlJit] = await measure(contenders, { warmupMs, timeMs, rounds: ROUNDS });
    rows.push(
      `| ${scenario.name} | ${formatMeasurement(ours)} | ${formatMeasurement(graphqlJs)} | ${formatMeasurement(graphqlJit)} ` +
        `| ${formatRatio(ours, graphqlJs)} | ${formatRatio(graphqlJit, graphqlJs)} | ${formatRatio(ours, graphqlJit)} |`,
    );
  }

  // The groups that print their own report, in the order they run.
  const reports: string[] = [];
  if (withAnalysis) {
    const report = await runAnalysis({
      name: ANALYSIS,
      cellMs: readMilliseconds('BENCH_ANALYSIS_CELL_MS', 200),
      budgetMs: readMilliseconds('BENCH_ANALYSIS_BUDGET_MS', 2000),
    });
    reports.push(report);
  }
  if (withNPlusOne) {
    const { runNPlusOne } = await import('./nPlusOne.ts');
    reports.push(await runNPlusOne({ name: N_PLUS_ONE, timeMs, warmupMs }));
  }
  if (withNPlusOnePostgres) {
    const { runNPlusOnePostgres } = await import('./nPlusOnePostgres.ts');
    reports.push(await runNPlusOnePostgres({ name: N_PLUS_ONE_POSTGRES, timeMs, warmupMs }));
  }

  if (rows.length > 0) printTable(rows, { timeMs, warmupMs });
  reports.forEach((report, index) => {
    if (rows.length > 0 || index > 0) console.log();
    console.log(report);
  });
}

function printTable(rows: readonly string[], { timeMs, warmupMs }: { timeMs: number; warmupMs: number }): void {
  console.log(
    `Node ${process.version} (${process.platform} ${process.arch}), NODE_ENV=${process.env.NODE_ENV}; ` +
      `${timeMs} ms timed per engine per scenario in ${ROUNDS} interleaved rounds, after ${warmupMs} ms of warm-up. ` +
      `ops/s is the median of the rounds, ± the 95% margin of error of their mean.`,
  );
  console.log();
  console.log('| scenario | ours ops/s | graphql-js ops/s | graphql-jit ops/s | ours ÷ graphql-js | graphql-jit ÷ graphql-js | ours ÷ graphql-jit |');
  console.log('|---|--:|--:|--:|--:|--:|--:|');
  for (const row of rows) console.log(row);
}

await main();
