/**
 * The executor half of the published conformance matrix: the kit's executor target (every case of
 * fixtures/cases and the differential run against graphql-js 16) over graphql-js 16, graphql-js 17,
 * graphql-jit, @graphql-tools/executor and ours, in one run, through the adapters of
 * examples/conformance; the table is written into docs/conformance.md between
 * `<!-- executor-matrix:start -->` and `<!-- executor-matrix:end -->`.
 *
 *   npm run conformance:matrix              measure, print, write the doc
 *   npm run conformance:matrix -- --print   measure and print only
 *   COUNT=200 SEED=3 npm run conformance:matrix
 *
 * `skipped` in a cell: the adapter exports no experimentalExecuteIncrementally, so the incremental
 * delivery checks had nothing to run (graphql-js 16 has none).
 *
 * The kit builds its fixture schemas with the graphql it resolves, and an executor runs only
 * schemas of its own graphql. So graphql-js 17 runs where 17 is the graphql: the package is built
 * into .tmp/conformance-matrix-17/ beside a node_modules whose graphql is the `graphql-17` alias,
 * and the kit runs there in a child process, under Node 24 (graphql 17 needs Node 22 or later;
 * scripts/node-binary.mjs finds one, NODE24 names it), as a user of graphql 17 would run it.
 */
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { version as graphqlVersion } from 'graphql';
import type { CheckResult, ConformanceReport } from '../src/conformance/check.ts';
import { runConformance } from '../src/conformance/runConformance.ts';
import type { ExecutorConformanceOptions } from '../src/conformance/runConformance.ts';
import { execute, experimentalExecuteIncrementally, subscribe } from '../src/index.ts';
import { buildFixtures } from './build-fixtures.mjs';
import { installGraphql17 } from './graphql-major.mjs';
import { nodeBinary } from './node-binary.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const DOC = join(ROOT, 'docs', 'conformance.md');
const START = '<!-- executor-matrix:start -->';
const END = '<!-- executor-matrix:end -->';
const GENERATED = { count: Number(process.env['COUNT'] ?? 100), seed: Number(process.env['SEED'] ?? 1) };
const run = promisify(execFile);

const version = (name: string) => versionAt(join(ROOT, 'node_modules', name));
const versionAt = (directory: string) => (JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as { version: string }).version;

/** One column: an executor and its report, or why it did not run. */
interface Column {
  name: string;
  report: ConformanceReport | string;
}

/** graphql-js 17's report, from the package built beside graphql 17 and run in a child process. */
async function graphql17(): Promise<ConformanceReport | string> {
  const node = nodeBinary(24);
  if (node === null) return 'no Node 24 to run graphql 17 on (set NODE24)';
  const scratch = join(ROOT, '.tmp', 'conformance-matrix-17');
  rmSync(scratch, { recursive: true, force: true });
  mkdirSync(join(scratch, 'node_modules'), { recursive: true });
  symlinkSync(installGraphql17(), join(scratch, 'node_modules', 'graphql'), 'dir');
  await run(process.execPath, [join(ROOT, 'node_modules/typescript-7/bin/tsc'), '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(scratch, 'dist')], { cwd: ROOT }).catch(() => undefined);
  await buildFixtures({ outDir: join(scratch, 'dist') });
  writeFileSync(join(scratch, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(join(scratch, 'graphql-js.mjs'), readFileSync(join(ROOT, 'examples', 'conformance', 'graphql-js.mjs')));
  const args = [join(scratch, 'dist', 'cli', 'main.js'), 'conformance', 'executor', 'graphql-js.mjs', '--count', String(GENERATED.count), '--seed', String(GENERATED.seed), '--json', 'report.json'];
  await run(node, ['--preserve-symlinks', ...args], { cwd: scratch, maxBuffer: 64 * 1024 * 1024 }).catch((error: { code?: number; stderr?: string }) => {
    if (error.code !== 1) throw new Error(`graphql 17's run failed: ${error.stderr ?? String(error)}`);
  });
  return JSON.parse(readFileSync(join(scratch, 'report.json'), 'utf8')) as ConformanceReport;
}

async function measure(): Promise<Column[]> {
  const adapter = (name: string) => join(ROOT, 'examples', 'conformance', name);
  const inProcess: Array<[string, ExecutorConformanceOptions['module']]> = [
    [`graphql-js ${graphqlVersion}`, adapter('graphql-js.mjs')],
    [`graphql-jit ${version('graphql-jit')}`, adapter('graphql-jit.mjs')],
    [`@graphql-tools/executor ${version('@graphql-tools/executor')}`, adapter('graphql-tools-executor.mjs')],
    ['graphql-glassbox (ours)', { execute, subscribe, experimentalExecuteIncrementally }],
  ];
  const columns: Column[] = [];
  for (const [name, module] of inProcess) {
    process.stderr.write(`-- ${name}\n`);
    columns.push({ name, report: await runConformance({ kind: 'executor', module, generated: GENERATED }).catch((error: Error) => error.message) });
  }
  const version17 = versionAt(installGraphql17());
  process.stderr.write(`-- graphql-js ${version17}\n`);
  columns.splice(1, 0, { name: `graphql-js ${version17}`, report: await graphql17().catch((error: Error) => error.message) });
  return columns;
}

/** The group a check belongs to: its spec section, or the differential run. */
const groupOf = (result: CheckResult) => result.id.split('.').slice(1, -1).join('.');

function table(columns: Column[]): string {
  const reports = columns.map((column) => column.report).filter((report): report is ConformanceReport => typeof report !== 'string');
  const groups = [...new Set(reports.flatMap((report) => report.results.map(groupOf)))];
  const cell = (report: ConformanceReport | string, group: string | null) => {
    if (typeof report === 'string') return 'did not run';
    const results = report.results.filter((result) => group === null || groupOf(result) === group);
    const passed = results.filter((result) => result.status === 'pass').length;
    const skipped = results.filter((result) => result.status === 'skip').length;
    if (skipped === results.length) return 'skipped';
    const counted = `${passed}/${results.length - skipped}${skipped > 0 ? ` (${skipped} skipped)` : ''}`;
    return passed + skipped === results.length ? `${counted} ✅` : counted;
  };
  const lines = [
    `Measured with \`npm run conformance:matrix\` (${GENERATED.count} generated operations per fixture, seed ${GENERATED.seed}; the expectations are graphql-js ${graphqlVersion}'s, and graphql 17's own wording where a case gives it).`,
    '',
    `| checks | ${columns.map((column) => column.name).join(' | ')} |`,
    `|---|${columns.map(() => '---').join('|')}|`,
    ...groups.map((group) => `| ${group} | ${columns.map((column) => cell(column.report, group)).join(' | ')} |`),
    `| **all** | ${columns.map((column) => `**${cell(column.report, null)}**`).join(' | ')} |`,
  ];
  for (const column of columns) {
    if (typeof column.report === 'string') {
      lines.push('', `${column.name} did not run: ${column.report}`);
      continue;
    }
    const failed = column.report.results.filter((result) => result.status === 'fail');
    if (failed.length === 0) continue;
    lines.push('', `<details><summary>${column.name}: ${failed.length} failing checks</summary>`, '');
    lines.push(...failed.map((result) => `- \`${result.id}\` (${result.requirement}): ${(result.evidence?.why ?? '').replace(/\|/g, '\\|').replace(/\n/g, ' ')}`));
    lines.push('', '</details>');
  }
  return lines.join('\n');
}

const columns = await measure();
const text = table(columns);
process.stdout.write(`${text}\n`);
if (!process.argv.includes('--print')) {
  const doc = readFileSync(DOC, 'utf8');
  const [start, end] = [doc.indexOf(START), doc.indexOf(END)];
  const updated = start >= 0 && end > start ? `${doc.slice(0, start + START.length)}\n${text}\n${doc.slice(end)}` : `${doc.trimEnd()}\n\n## Executors\n\n${START}\n${text}\n${END}\n`;
  writeFileSync(DOC, updated);
}
