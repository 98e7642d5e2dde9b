/**
 * The `analysis` scenario group: how long it takes to measure a document before executing it,
 * as the document grows. Our `analyze` runs beside two libraries servers use for the same job,
 * on the same documents in the same run:
 *
 * - graphql-depth-limit, a validation rule, run alone: `validate(schema, document, [rule])`;
 * - graphql-query-complexity's `getComplexity` with `simpleEstimator` (one point per field).
 *
 * Both peers walk the document as if every fragment spread were replaced by the fragment's
 * text, so their time follows the size of that inlined document. Our analyzer measures each
 * fragment once per runtime type and reuses the result, so its time should follow the size
 * of the document as written. The four families of documents below pull those two sizes
 * apart by different amounts: not at all (wide, deep), quadratically (one fragment spread many
 * times), exponentially (fragments that spread the previous fragment twice).
 *
 * An exponential peer cannot be allowed to run to the end, and a synchronous call cannot be
 * interrupted, so each contender gets a budget per call: before a size is measured, the
 * contender's time on the previous size is scaled by the growth in inlined fields, and when
 * that projection exceeds the budget the size, and every larger one, is skipped. The rule is
 * the same for every contender, ours included.
 *
 * Every answer is checked before it is timed, against what is known of the document from how
 * it was built: graphql-depth-limit must report its depth, graphql-query-complexity its number
 * of inlined fields, and our `analyze` both. Ours are printed too, so that a reader sees the
 * fast answer is also the exact one.
 *
 * Environment: BENCH_ANALYSIS_CELL_MS (timed milliseconds per contender per document) and
 * BENCH_ANALYSIS_BUDGET_MS (the budget per call above), read by the runner.
 */
import { buildSchema, parse, validate, visit } from 'graphql';
import type { DocumentNode, GraphQLSchema, ValidationRule } from 'graphql';
import { createRequire } from 'node:module';
import { analyze } from '../src/index.ts';
import { measure } from './measure.ts';

/*
 * Both peers are loaded with `require`, on purpose. graphql-depth-limit ships no types, and
 * graphql-query-complexity ships an ES module build that imports graphql-js's `.mjs` files:
 * loaded that way it runs on a second copy of graphql-js, whose `instanceof` checks fail on our
 * schema, and it answers 0 for every document, quickly. Through `require` both share the one
 * copy of graphql-js everything else here uses; the answer checks below would catch it if not.
 */
const require = createRequire(import.meta.url);
const depthLimit = require('graphql-depth-limit') as (
  maxDepth: number,
  options?: object,
  callback?: (depths: Record<string, number>) => void,
) => ValidationRule;
const { getComplexity, simpleEstimator } = require('graphql-query-complexity') as typeof import('graphql-query-complexity');

export interface AnalysisOptions {
  /** The group's name, for messages. */
  name: string;
  /** How long each contender is timed on each document, after a quarter of that of warm-up. */
  cellMs: number;
  /** A size is skipped for a contender whose projected time per call exceeds this. */
  budgetMs: number;
}

const SCHEMA_SDL = /* GraphQL */ `
  type T {
    a: Int
    b: Int
    self: T
    list: [T]
  }
  type Query {
    t: T
  }
`;

/**
 * Larger than the depth of any document here, so that graphql-depth-limit walks every
 * document to the end instead of stopping at the first path that is too deep.
 */
const PEER_MAX_DEPTH = 1_000_000;

/** One document of a family, with what is known about it from how it was built. */
interface Sample {
  /** The family's size parameter: a field count, a depth, or a fragment count. */
  parameter: number;
  document: DocumentNode;
  /** Every node of the AST, names included: the size of the document as written. */
  astNodes: number;
  /** Fields of the document once every fragment spread is replaced by the fragment's text. */
  inlinedFields: number;
  /** Fields on the longest path from the root, the leaf included: `{ t { a } }` has depth 2. */
  depth: number;
}

interface Family {
  title: string;
  /** The name of the size parameter, as a column heading. */
  parameter: string;
  description: string;
  samples: Sample[];
}

function createSample(parameter: number, source: string, inlinedFields: number, depth: number): Sample {
  const document = parse(source);
  let astNodes = 0;
  visit(document, {
    enter() {
      astNodes++;
    },
  });
  return { parameter, document, astNodes, inlinedFields, depth };
}

/** `{ t { f0: a f1: b … } }`: one level, N fields. */
function wide(sizes: readonly number[]): Family {
  return {
    title: 'wide',
    parameter: 'N',
    description: 'A query with N sibling fields under `t`, each with its own alias',
    samples: sizes.map((n) => {
      const fields = Array.from({ length: n }, (_, i) => `f${i}: ${i % 2 === 0 ? 'a' : 'b'}`);
      return createSample(n, `{ t { ${fields.join(' ')} } }`, n + 1, 2);
    }),
  };
}

/** `{ t { self { self { … a } } } }`: N levels of `self`. */
function deep(sizes: readonly number[]): Family {
  return {
    title: 'deep',
    parameter: 'N',
    description: 'N levels of `self` under `t`, with one leaf at the bottom',
    samples: sizes.map((n) => createSample(n, `{ t { ${'self { '.repeat(n)}a${' }'.repeat(n)} } }`, n + 2, n + 2)),
  };
}

/**
 * F0 has two fields; every further fragment spreads the one before it under two aliases, so
 * Fk holds 2 + 2·(fields of F(k-1)) = 2^(k+2) − 2 fields once inlined, nested k + 1 deep.
 */
function fragmentBomb(sizes: readonly number[]): Family {
  return {
    title: 'nested fragment bomb',
    parameter: 'k',
    description:
      '`fragment F0 on T { a b }` and, for i = 1…k, `fragment Fi on T { x: self { ...F(i-1) } y: self { ...F(i-1) } }`; ' +
      'the query is `{ t { ...Fk } }`',
    samples: sizes.map((k) => {
      const fragments = ['fragment F0 on T { a b }'];
      for (let i = 1; i <= k; i++) {
        fragments.push(`fragment F${i} on T { x: self { ...F${i - 1} } y: self { ...F${i - 1} } }`);
      }
      const source = `{ t { ...F${k} } }\n${fragments.join('\n')}`;
      return createSample(k, source, 2 ** (k + 2) - 1, k + 2);
    }),
  };
}

/** One fragment of N fields, spread N times side by side: N² fields once inlined. */
function repeatedSpread(sizes: readonly number[]): Family {
  return {
    title: 'fragment spread repeated',
    parameter: 'N',
    description: '`fragment F on T` with N aliased fields, spread N times in the selection set of `t`',
    samples: sizes.map((n) => {
      const fields = Array.from({ length: n }, (_, i) => `f${i}: ${i % 2 === 0 ? 'a' : 'b'}`);
      const source = `{ t { ${'...F '.repeat(n)}} }\nfragment F on T { ${fields.join(' ')} }`;
      return createSample(n, source, n * n + 1, 2);
    }),
  };
}

/**
 * Sizes grow by a constant factor, so that a linear analyzer's time grows by the same factor
 * from row to row. graphql-js's parser overflows the stack a little beyond a depth of 1,024.
 */
function createFamilies(): Family[] {
  return [
    wide([64, 256, 1024, 4096, 16384]),
    // `analyze` refuses documents nested deeper than MAX_ANALYZED_NESTING (500) levels; N + 2 stays under it.
    deep([16, 64, 256, 496]),
    fragmentBomb([5, 10, 15, 20, 25, 30, 40]),
    repeatedSpread([16, 32, 64, 128, 256, 512, 1024]),
  ];
}

/** What every contender is asked about one document. */
interface Contender {
  name: string;
  /**
   * Prepares the contender for one document, untimed: checks its answer against what is known
   * of the document (throwing when it is wrong) and returns the call to time.
   */
  prepare(schema: GraphQLSchema, sample: Sample): { run: () => unknown; answer?: string };
}

const CONTENDERS: readonly Contender[] = [
  {
    name: 'ours',
    prepare(schema, sample) {
      const { document } = sample;
      const run = () => analyze({ schema, document });
      const { depth, fields } = run();
      if (depth !== sample.depth || fields !== sample.inlinedFields) {
        throw new Error(`depth ${sample.depth} and fields ${sample.inlinedFields}, but got ${depth} and ${fields}`);
      }
      return { run, answer: `${integer(depth)} \\| ${integer(fields)}` };
    },
  },
  {
    name: 'graphql-depth-limit',
    prepare(schema, sample) {
      const { document } = sample;
      const rule = depthLimit(PEER_MAX_DEPTH);
      const run = () => validate(schema, document, [rule]);
      let reported: Record<string, number> = {};
      const errors = validate(schema, document, [depthLimit(PEER_MAX_DEPTH, {}, (depths) => (reported = depths))]);
      // The rule counts the fields that have a selection set, so a leaf adds nothing.
      const expected = sample.depth - 1;
      if (errors.length > 0 || reported[''] !== expected) {
        throw new Error(`depth ${expected}, but got ${JSON.stringify(reported)} and errors ${errors.join('; ')}`);
      }
      return { run };
    },
  },
  {
    name: 'graphql-query-complexity',
    prepare(schema, sample) {
      const estimators = [simpleEstimator({ defaultComplexity: 1 })];
      // Left to its default of 10,000, maxQueryNodes makes getComplexity throw instead of
      // answering once it has visited that many selections, wide documents included; lifted,
      // the library computes the complexity of every document, which is what is compared.
      const run = () => getComplexity({ schema, query: sample.document, estimators, maxQueryNodes: Infinity });
      const complexity = run();
      if (complexity !== sample.inlinedFields) {
        throw new Error(`complexity ${sample.inlinedFields} (one per inlined field), but got ${complexity}`);
      }
      return { run };
    },
  },
];

type Cell = { kind: 'measured'; microseconds: number } | { kind: 'skipped'; projectedMs: number };

/** The fast contenders on a document are timed together, in this many interleaved rounds. */
const ROUNDS = 10;

/**
 * Contenders whose first call on a document took less than a round's share of the time box
 * run side by side through `measure` (measure.ts), as the execution scenarios do, so that
 * whatever else the machine does touches them alike. A slower call cannot fit the rounds: it
 * is timed alone, call after call until the time box is spent, and at least once, which on a
 * document that takes a second is already a long measurement.
 */
async function timeContenders(
  runs: ReadonlyArray<{ name: string; run: () => unknown; firstMs: number }>,
  cellMs: number,
): Promise<number[]> {
  const microseconds: number[] = [];
  const fast: number[] = [];
  runs.forEach(({ run, firstMs }, index) => {
    if (firstMs < cellMs / ROUNDS) fast.push(index);
    else microseconds[index] = timeAlone(run, cellMs);
  });
  const measurements = await measure(
    fast.map((index) => runs[index]),
    { warmupMs: cellMs / 4, timeMs: cellMs, rounds: ROUNDS },
  );
  measurements.forEach((measurement, position) => {
    microseconds[fast[position]] = 1e6 / measurement.opsPerSecond;
  });
  return microseconds;
}

/** The median time of the calls made one by one until `cellMs` have passed, in microseconds. */
function timeAlone(run: () => unknown, cellMs: number): number {
  const calls: number[] = [];
  const until = performance.now() + cellMs;
  do {
    const start = performance.now();
    run();
    calls.push((performance.now() - start) * 1000);
  } while (performance.now() < until);
  return median(calls);
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

interface Row {
  sample: Sample;
  cells: Cell[];
  /** What we reported about the document, when we were measured on it. */
  ours: string | null;
}

/** Measures every contender on every document of a family, smallest document first. */
async function measureFamily(schema: GraphQLSchema, family: Family, options: AnalysisOptions): Promise<Row[]> {
  // Per contender, its time on the last document it was measured on: the base of the projection.
  const previous: ({ inlinedFields: number; ms: number } | null)[] = CONTENDERS.map(() => null);
  const skipping: boolean[] = CONTENDERS.map(() => false);
  const rows: Row[] = [];
  for (const sample of family.samples) {
    const where = `${family.title} ${family.parameter} = ${sample.parameter}`;
    const errors = validate(schema, sample.document);
    if (errors.length > 0) throw new Error(`${where}: the document is not valid: ${errors.join('; ')}`);

    const cells: Cell[] = [];
    const timed: { index: number; name: string; run: () => unknown; firstMs: number }[] = [];
    let ours: string | null = null;
    CONTENDERS.forEach((contender, index) => {
      const last = previous[index];
      const projectedMs = last === null ? 0 : (last.ms * sample.inlinedFields) / last.inlinedFields;
      if (skipping[index] || projectedMs > options.budgetMs) {
        skipping[index] = true;
        cells[index] = { kind: 'skipped', projectedMs };
        return;
      }
      const start = performance.now();
      let prepared: ReturnType<Contender['prepare']>;
      try {
        prepared = contender.prepare(schema, sample);
      } catch (error) {
        throw new Error(`${where}: ${contender.name} answered wrongly.`, { cause: error });
      }
      timed.push({ index, name: contender.name, run: prepared.run, firstMs: performance.now() - start });
      if (prepared.answer !== undefined) ours = prepared.answer;
    });

    const microseconds = await timeContenders(timed, options.cellMs);
    timed.forEach(({ index }, position) => {
      cells[index] = { kind: 'measured', microseconds: microseconds[position] };
      previous[index] = { inlinedFields: sample.inlinedFields, ms: microseconds[position] / 1000 };
    });
    console.error(`${options.name}: ${where} measured`);
    rows.push({ sample, cells, ours });
  }
  return rows;
}

const integer = (value: number) => value.toLocaleString('en-US');
const microseconds = (value: number) =>
  value.toLocaleString('en-US', { maximumFractionDigits: value < 10 ? 2 : value < 100 ? 1 : 0 });

function formatCell(cell: Cell): string {
  if (cell.kind === 'measured') return microseconds(cell.microseconds);
  const seconds = cell.projectedMs / 1000;
  return `> budget (≈ ${seconds < 100 ? seconds.toPrecision(2) : integer(Math.round(seconds))} s)`;
}

function formatRatio(peer: Cell, ours: Cell): string {
  if (peer.kind !== 'measured' || ours.kind !== 'measured') return '–';
  const ratio = peer.microseconds / ours.microseconds;
  return ratio < 10 ? ratio.toFixed(2) : integer(Math.round(ratio));
}

function formatFamily(family: Family, rows: readonly Row[]): string[] {
  const lines = [
    `### ${family.title}`,
    '',
    `${family.description}. "ours ns/node" is our time divided by the AST nodes: flat when our time is ` +
      'linear in the document as written.',
    '',
    `| ${family.parameter} | size (AST nodes) | inlined fields | ours (µs) | ours ns/node | graphql-depth-limit (µs) ` +
      '| graphql-query-complexity (µs) | depth-limit ÷ ours | complexity ÷ ours | ours: depth \\| fields |',
    '|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
  ];
  for (const { sample, cells, ours: ourAnswer } of rows) {
    const [ours, depthLimitCell, complexityCell] = cells;
    const perNode = ours.kind === 'measured' ? microseconds((ours.microseconds * 1000) / sample.astNodes) : '–';
    lines.push(
      `| ${sample.parameter} | ${integer(sample.astNodes)} | ${integer(sample.inlinedFields)} ` +
        `| ${formatCell(ours)} | ${perNode} | ${formatCell(depthLimitCell)} | ${formatCell(complexityCell)} ` +
        `| ${formatRatio(depthLimitCell, ours)} | ${formatRatio(complexityCell, ours)} | ${ourAnswer ?? '–'} |`,
    );
  }
  return lines;
}

/** Runs the group and returns its Markdown report. */
export async function runAnalysis(options: AnalysisOptions): Promise<string> {
  const schema = buildSchema(SCHEMA_SDL);
  const families = createFamilies();
  const lines = [
    `## ${options.name}`,
    '',
    `Node ${process.version} (${process.platform} ${process.arch}), NODE_ENV=${process.env.NODE_ENV}. ` +
      `Times are µs per call. On each document, the contenders whose first call took under ` +
      `${options.cellMs / ROUNDS} ms are timed side by side, ${options.cellMs} ms each in ${ROUNDS} interleaved rounds ` +
      `after ${options.cellMs / 4} ms of warm-up, and the median round counts; a slower contender is timed alone, ` +
      `the median of its calls in ${options.cellMs} ms (at least one). A contender skips a size, and every ` +
      `larger one, when its time on the last size it ran, scaled by the growth in inlined fields, exceeds ` +
      `${options.budgetMs} ms. Peers: graphql-depth-limit as the only rule of \`validate\`, and ` +
      '`getComplexity` of graphql-query-complexity with `simpleEstimator({ defaultComplexity: 1 })` and no ' +
      'node limit. Every answer was checked before it was timed: the depth graphql-depth-limit reports, the ' +
      'complexity getComplexity reports (one per inlined field), and our depth and fields (last column) all ' +
      'match the document.',
  ];
  for (const family of families) {
    lines.push('', ...formatFamily(family, await measureFamily(schema, family, options)));
  }
  return lines.join('\n');
}
