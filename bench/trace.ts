/**
 * `npx tsx bench/trace.ts`: what an execution trace costs (src/execution/trace.ts), measured on
 * the demo's nested query with its BatchLoaders, traced against untraced, in one run.
 *
 * Why a script of its own: the demo's executions hold BatchLoaders and track tasks with
 * AsyncLocalStorage (src/batching/scheduler.ts), which on Node 20 makes every later promise of the
 * process dearer, and `npm run bench` keeps that away from its other scenarios. What tracing costs when it is off is `npm run bench` itself,
 * before and after (docs/traces.md).
 *
 * Environment: BENCH_TIME_MS (default 2000) and BENCH_WARMUP_MS (default 1000), as `npm run bench`.
 */
import './production-mode.ts';
import { parse } from 'graphql';
import { execute } from '../src/index.ts';
import { createDemoContext, createDemoData, demoSchema } from '../src/demo/librarySchema.ts';
import { measure } from './measure.ts';

/** Three levels of resolvers and two of loaders: 11 resolver calls and 2 batches a request. */
const NESTED = '{ books(limit: 5) { items { title genre published author { name born books { title } } } } }';

const timeMs = Number(process.env.BENCH_TIME_MS ?? 2000);
const warmupMs = Number(process.env.BENCH_WARMUP_MS ?? 1000);
const document = parse(NESTED);
const data = createDemoData();
const run = (trace: boolean) => () => execute({ schema: demoSchema, document, contextValue: createDemoContext(data), trace });

const first = await run(true)();
const second = await run(false)();
if (JSON.stringify(first.data) !== JSON.stringify(second.data) || first.errors !== undefined) {
  throw new Error(`The traced and untraced results differ: ${JSON.stringify(first)} ${JSON.stringify(second)}`);
}
const [untraced, traced] = await measure(
  [
    { name: 'untraced', run: run(false) },
    { name: 'traced', run: run(true) },
  ],
  { warmupMs, timeMs, rounds: 20 },
);
const format = (rate: number) => rate.toLocaleString('en-US', { maximumFractionDigits: 0 });
console.log(`Node ${process.version} (${process.platform} ${process.arch}), NODE_ENV=${process.env.NODE_ENV}; the demo's ${NESTED}`);
console.log();
console.log('| execution | ops/s | ± | traced ÷ untraced |');
console.log('|---|--:|--:|--:|');
for (const measured of [untraced, traced]) {
  if (measured === undefined) continue;
  console.log(
    `| ${measured.name} | ${format(measured.opsPerSecond)} | ${(measured.relativeMargin * 100).toFixed(1)}% | ${(measured.opsPerSecond / (untraced as typeof measured).opsPerSecond).toFixed(2)} |`,
  );
}
