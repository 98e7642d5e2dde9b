/**
 * `npm run bench:incremental`: what `@defer` buys and what it costs, ours beside the peers.
 *
 * 1. Time to the first payload and to the last, executor against executor. A query asks for a
 *    fast part (ten authors, synchronous) and a slow field that takes SLOW_MS to resolve. The
 *    table gives, as the median of ROUNDS runs: the fast part alone; the query with the slow
 *    field deferred (its first payload, and its last); the query with nothing deferred. The
 *    target: the deferred query's first payload within 1 ms of the fast part alone. Peers:
 *    `@graphql-tools/executor` (what GraphQL Yoga's defer plugin runs), and graphql-js's own
 *    `experimentalExecuteIncrementally` when the graphql installed has it (17).
 *
 * 2. HTTP throughput of a deferred query over `multipart/mixed` (server.ts, each server in its
 *    own process on its own core when there are two): our createServer against GraphQL Yoga with
 *    `@graphql-yoga/plugin-defer-stream`, the same schema and data, 32 connections, every answer
 *    read to its closing delimiter. Both answer in the 2022 format (`deferSpec=20220824`), the one
 *    Yoga writes. Before timing, each server's payloads are parsed and must agree.
 *
 * Environment: BENCH_INCREMENTAL_ROUNDS (default 40), BENCH_INCREMENTAL_SECONDS (HTTP load per
 * server, default 5).
 */
import '../production-mode.ts';
import { performance } from 'node:perf_hooks';
import { runHttp } from './http.ts';
import { EXECUTORS, SLOW_MS } from './executors.ts';
import type { Executor } from './executors.ts';

const ROUNDS = Number(process.env.BENCH_INCREMENTAL_ROUNDS ?? 40);

/** The three operations of part 1: the fast part alone, the slow field deferred, nothing deferred. */
export const FAST_ALONE = '{ authors { id name } }';
export const DEFERRED = '{ authors { id name } ... @defer { slow } }';
export const INLINE = '{ authors { id name } slow }';

interface Timing {
  first: number;
  last: number;
}

/** One run: the time (ms) until the first payload is in hand, and until the last. */
async function timeOnce(executor: Executor, query: string): Promise<Timing> {
  const start = performance.now();
  const result = await executor.run(query);
  const first = performance.now() - start;
  if (!('initialResult' in result)) return { first, last: first };
  for await (const _payload of result.subsequentResults) {
    // Read to the end: the last payload's time is when the generator finishes.
  }
  return { first, last: performance.now() - start };
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
}

async function timeMedian(executor: Executor, query: string): Promise<Timing> {
  // Warm up: the JIT, and each engine's document caches.
  for (let round = 0; round < 5; round++) await timeOnce(executor, query);
  const firsts: number[] = [];
  const lasts: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const { first, last } = await timeOnce(executor, query);
    firsts.push(first);
    lasts.push(last);
  }
  return { first: median(firsts), last: median(lasts) };
}

async function timeToPayloads(): Promise<void> {
  console.log(`### Time to the first and the last payload (executors; the slow field takes ${SLOW_MS} ms; median of ${ROUNDS} runs)\n`);
  console.log('| executor | fast part alone (ms) | deferred: first payload (ms) | deferred: last payload (ms) | nothing deferred (ms) | first payload − fast part alone (ms) |');
  console.log('|---|--:|--:|--:|--:|--:|');
  for (const executor of await EXECUTORS()) {
    const alone = await timeMedian(executor, FAST_ALONE);
    const deferred = await timeMedian(executor, DEFERRED);
    const inline = await timeMedian(executor, INLINE);
    const cells = [alone.last, deferred.first, deferred.last, inline.last, deferred.first - alone.last].map((ms) => ms.toFixed(2));
    console.log(`| ${executor.name} | ${cells.join(' | ')} |`);
  }
  console.log();
}

console.log(`Node ${process.version}, graphql ${(await import('graphql')).version}\n`);
await timeToPayloads();
await runHttp();
