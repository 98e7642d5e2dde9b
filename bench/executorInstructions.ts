/**
 * `npm run bench:instructions [-- scenario ...]`: what one execution costs our executor and
 * graphql-js's `execute`, in instructions counted by valgrind's callgrind, in one process and
 * without a server. bench/index.ts measures the same scenarios in time; on a shared machine
 * that time moves by more than an executor change does, and instruction counts do not.
 *
 * How: each (scenario, engine) runs in a child process under callgrind with instrumentation off.
 * The child executes the scenario WARMUP times, called as bench/index.ts calls each engine (from
 * a closure, with arguments made for each call), turns instrumentation on (callgrind_control),
 * executes it COUNTED times in the same loop function (so that the code counted is the code the
 * warm-up optimized), and turns it off. Node runs with --single-threaded: V8 compiles and
 * collects on the main thread, at the same points in every run, so two runs of one build agree
 * within about 1%, where background compilation made them differ by 5–15%. The count is the
 * whole process's while instrumentation was on, divided by COUNTED.
 *
 * Needs valgrind (`apt-get install valgrind`). About half a minute per row.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { execute as graphqlExecute, parse } from 'graphql';
import type { DocumentNode, ExecutionResult, GraphQLSchema } from 'graphql';
import { execute } from '../src/index.ts';
import { NESTED_QUERY, createBenchSchema, createDb } from './schema.ts';

interface Scenario {
  schema: GraphQLSchema;
  document: DocumentNode;
  warmup: number;
  counted: number;
}

const SCENARIOS: Record<string, () => Scenario> = {
  trivial: () => ({ schema: createBenchSchema('sync'), document: parse('{ hello }'), warmup: 200_000, counted: 50_000 }),
  'nested-sync': () => ({ schema: createBenchSchema('sync'), document: parse(NESTED_QUERY), warmup: 300, counted: 100 }),
  'nested-async': () => ({ schema: createBenchSchema('async'), document: parse(NESTED_QUERY), warmup: 300, counted: 100 }),
};

const ENGINES = {
  ours: execute,
  'graphql-js': graphqlExecute,
} as const;
type EngineName = keyof typeof ENGINES;

/** The child: warm up, count, print nothing (the parent reads callgrind's file). */
async function child(scenarioName: string, engineName: EngineName): Promise<void> {
  const scenario = (SCENARIOS[scenarioName] as () => Scenario)();
  const engine = ENGINES[engineName] as (args: object) => ExecutionResult | Promise<ExecutionResult>;
  const { schema, document } = scenario;
  const rootValue = {};
  const contextValue = { db: createDb() };
  // Called as bench/index.ts calls it: from a closure, with arguments made for each call. (What
  // V8 inlines into an execution's entry depends on its caller: docs/benchmarks.md.)
  const run = () => engine({ schema, document, rootValue, contextValue });
  // One loop function for both phases: the counted executions run the code the warm-up made.
  const loop = async (times: number): Promise<number> => {
    let answered = 0;
    for (let i = 0; i < times; i++) {
      const result = run();
      const settled = result instanceof Promise ? await result : result;
      if (settled.errors !== undefined) throw new Error(`${engineName} failed ${scenarioName}: ${settled.errors[0]?.message}`);
      answered++;
    }
    return answered;
  };
  await loop(scenario.warmup);
  execFileSync('callgrind_control', ['-i', 'on', String(process.pid)], { stdio: 'ignore' });
  await loop(scenario.counted);
  execFileSync('callgrind_control', ['-i', 'off', String(process.pid)], { stdio: 'ignore' });
}

/** Instructions per execution of one (scenario, engine), from a child under callgrind. */
function count(scratch: string, scenarioName: string, engineName: EngineName): number {
  const outFile = join(scratch, `${scenarioName}-${engineName}.out`);
  const self = fileURLToPath(import.meta.url);
  const ran = spawnSync(
    'valgrind',
    ['--tool=callgrind', '--instr-atstart=no', `--callgrind-out-file=${outFile}`, process.execPath, '--single-threaded', '--import', 'tsx', self, '--child', scenarioName, engineName],
    { encoding: 'utf8' },
  );
  if (ran.status !== 0) throw new Error(`callgrind run of ${scenarioName} (${engineName}) failed:\n${ran.stderr.slice(-2000)}`);
  const totals = /^totals: (\d+)/m.exec(readFileSync(outFile, 'utf8'))?.[1];
  if (totals === undefined) throw new Error(`callgrind wrote no totals for ${scenarioName} (${engineName}).`);
  return Number(totals) / (SCENARIOS[scenarioName] as () => Scenario)().counted;
}

function main(): void {
  const asked = process.argv.slice(2);
  const names = asked.length > 0 ? asked : Object.keys(SCENARIOS);
  for (const name of names) {
    if (!(name in SCENARIOS)) throw new TypeError(`Unknown scenario "${name}"; the scenarios are: ${Object.keys(SCENARIOS).join(', ')}.`);
  }
  const scratch = mkdtempSync(join(os.tmpdir(), 'executor-instructions-'));
  const format = (n: number) => Math.round(n).toLocaleString('en-US');
  try {
    console.log(`Node ${process.version}; instructions per execution (callgrind, in process, --single-threaded)\n`);
    console.log('| scenario | ours | graphql-js | graphql-js ÷ ours |');
    console.log('|---|--:|--:|--:|');
    for (const name of names) {
      const ours = count(scratch, name, 'ours');
      const reference = count(scratch, name, 'graphql-js');
      console.log(`| ${name} | ${format(ours)} | ${format(reference)} | ${(reference / ours).toFixed(2)} |`);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

if (process.argv[2] === '--child') await child(process.argv[3] as string, process.argv[4] as EngineName);
else main();
