/**
 * `npm run bench:webhooks`: events per second from `publish` to receipt, with 100 endpoints on
 * loopback receivers, and the latency of each delivery, for both webhook stores (the file
 * store, fsync on; the Redis store), measured in the same run.
 *
 * Everything runs in this one process: 100 `node:http` receivers on 127.0.0.1, each on its
 * own port and path (receivers.ts; each answers 204 as soon as the headers arrive), every one
 * registered as an endpoint for the one event type, and `createWebhooks` with the store under
 * test (`allowedHosts: ['127.0.0.1']`, the default retry schedule and per-endpoint concurrency).
 * Each run has a store of its own: the file store in a fresh directory (under
 * BENCH_WEBHOOKS_DIR, default the system's temporary directory; fsync on, `pollMs: 0`, since
 * it wakes itself on publish), the Redis store under a key prefix of its own (its default
 * `pollMs`).
 *
 * For each store, E events (BENCH_WEBHOOKS_EVENTS, default 200), each with a sequence number
 * in its data, are published:
 *  - sequential: one `publish` at a time, each awaited (what a mutation does), then
 *  - burst: all E `publish` calls started at once (Promise.all),
 * with the default `maxConcurrency` (64), and the burst once more with `maxConcurrency: 256`.
 * events/s = E ÷ (last receipt − first publish call); deliveries/s = E × 100 ÷ the same.
 * The receipt latency is, for every delivery, its arrival at the receiver (headers) minus its
 * event's `publish` call; the publish latency is the time `publish` takes to resolve (the
 * event and its 100 deliveries written to the store: appended and fdatasync'd for the file
 * store, one MULTI/EXEC for Redis). Every receipt is counted per receiver and webhook-id: the
 * report says whether each of the E × 100 deliveries arrived exactly once, and prints any
 * loss, duplicate or malformed request loudly. A short untimed warm-up run (file store, fsync
 * off) comes first.
 *
 * The Redis runs need REDIS_URL (default redis://127.0.0.1:6379); when Redis does not answer
 * they are skipped, with a line saying so. Afterwards the run's keys are deleted (SCAN + DEL),
 * as are the file store's directories. Nothing about speed is asserted.
 *
 * Environment: BENCH_WEBHOOKS_EVENTS (default 200), BENCH_WEBHOOKS_DIR (where the file
 * store's temporary directory is made), REDIS_URL.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { open } from 'node:fs/promises';
import os from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import type { Redis } from 'ioredis';
import { loadIoredis } from '../../src/redis/loadIoredis.ts';
import { FileStore, JOURNAL_FILE } from '../../src/webhooks/fileStore.ts';
import { RedisWebhookStore } from '../../src/webhooks/redisStore.ts';
import type { WebhookStore } from '../../src/webhooks/store.ts';
import { createWebhooks } from '../../src/webhooks/webhooks.ts';
import { Receivers } from './receivers.ts';

const ENDPOINTS = 100;
const EVENT_TYPE = 'bench.ping';
const DEFAULT_EVENTS = 200;
const DEFAULT_REDIS_URL = 'redis://127.0.0.1:6379';
/** How long a run waits for its last delivery before it reports the missing ones. */
const RECEIPT_TIMEOUT_MS = 60_000;
/** How long, after the last receipt, for every outcome to be recorded (no delivery left pending). */
const RECORD_TIMEOUT_MS = 30_000;
/** After closing, how long to keep listening for late duplicates. */
const SETTLE_MS = 100;
const WARM_UP_EVENTS = 20;
/** Appends + fdatasync timed to tell what one flush of the file store costs on this disk. */
const FSYNC_PROBES = 50;

type StoreName = 'file' | 'Redis';
type Mode = 'sequential' | 'burst';

interface RunSpec {
  readonly store: StoreName;
  readonly mode: Mode;
  readonly maxConcurrency: number;
}

/** A run's store, and the file store's journal (to report its size). */
interface MadeStore {
  readonly store: WebhookStore;
  readonly journal: string | null;
}

interface RunResult extends RunSpec {
  readonly events: number;
  readonly expected: number;
  readonly received: number;
  readonly duplicates: number;
  readonly malformed: number;
  readonly problems: readonly string[];
  /** Per receiver, the events whose delivery did not arrive (receiver → seqs), at most a few. */
  readonly missing: ReadonlyArray<string>;
  /** First publish call to last receipt (ms). */
  readonly elapsedMs: number;
  /** First publish call until every publish had resolved (ms). */
  readonly publishedMs: number;
  readonly publishMs: readonly number[];
  readonly receiptMs: readonly number[];
  /** From the last receipt until no delivery was pending in the store (ms), or null if it never came to that. */
  readonly recordedAfterMs: number | null;
  /** CPU this process used over the run (first publish to last receipt), as a share of one core. */
  readonly cpuShare: number;
  /** What the engine logged (errors), at most a few. */
  readonly logged: readonly string[];
  readonly loggedCount: number;
  /** The file store's journal after the run (bytes). */
  readonly journalBytes: number | null;
  /** How often the engine called the store's claimDue and nextDue, and the time nextDue took before returning (ms). */
  readonly calls: StoreCalls;
}

interface StoreCalls {
  claimDue: number;
  nextDue: number;
  nextDueMs: number;
}

/** The store, its claimDue and nextDue counted (and nextDue's synchronous time: the file store's scan of its pending deliveries). */
function counted(store: WebhookStore, calls: StoreCalls): WebhookStore {
  return {
    open: () => store.open(),
    saveEndpoint: (endpoint) => store.saveEndpoint(endpoint),
    removeEndpoint: (id) => store.removeEndpoint(id),
    endpoints: () => store.endpoints(),
    enqueue: (event, deliveries) => store.enqueue(event, deliveries),
    claimDue: (now, limit, busy, leaseMs) => {
      calls.claimDue++;
      return store.claimDue(now, limit, busy, leaseMs);
    },
    recordAttempt: (deliveryId, outcome) => store.recordAttempt(deliveryId, outcome),
    deliveries: (endpointId, limit) => store.deliveries(endpointId, limit),
    event: (id) => store.event(id),
    nextDue: () => {
      calls.nextDue++;
      const start = performance.now();
      const due = store.nextDue();
      calls.nextDueMs += performance.now() - start;
      return due;
    },
    close: () => store.close(),
  };
}

async function main(): Promise<void> {
  const events = readEvents();
  const redisUrl = process.env.REDIS_URL ?? DEFAULT_REDIS_URL;
  const parent = process.env.BENCH_WEBHOOKS_DIR ?? os.tmpdir();
  const directory = mkdtempSync(join(parent, 'bench-webhooks-'));
  const fileSystem = fileSystemOf(directory);
  const receivers = await Receivers.start(ENDPOINTS);
  const results: RunResult[] = [];
  const skipped: string[] = [];
  let redis: Redis | null = null;
  const redisPrefix = `bench:webhooks:${process.pid}-${Date.now().toString(36)}:`;
  const started = performance.now();
  let fsyncMs = NaN;
  let runs = 0;
  try {
    fsyncMs = await probeFsync(directory);
    const fileStore = (fsync: boolean) => (): MadeStore => {
      const dir = join(directory, `run-${++runs}`);
      return { store: new FileStore({ dir, fsync }), journal: join(dir, JOURNAL_FILE) };
    };

    // Untimed: the first run of a process pays for compiling everything it touches.
    await run({ store: 'file', mode: 'burst', maxConcurrency: 64 }, fileStore(false), receivers, WARM_UP_EVENTS);

    for (const spec of specsFor('file')) results.push(await run(spec, fileStore(true), receivers, events));

    redis = await connectRedis(redisUrl);
    if (redis === null) {
      skipped.push(`Redis store: skipped, Redis did not answer at ${redisUrl} (set REDIS_URL).`);
    } else {
      for (const spec of specsFor('Redis')) {
        const keyPrefix = `${redisPrefix}${++runs}:`;
        results.push(await run(spec, () => ({ store: new RedisWebhookStore({ url: redisUrl, keyPrefix }), journal: null }), receivers, events));
      }
    }
  } finally {
    await receivers.close();
    rmSync(directory, { recursive: true, force: true });
    if (redis !== null) {
      try {
        skipped.push(`Redis: deleted the run's ${await deleteKeys(redis, `${redisPrefix}*`)} keys under ${redisPrefix}.`);
      } catch (error) {
        skipped.push(`!!! Redis: could not delete the run's keys under ${redisPrefix}: ${String(error)}`);
      }
      redis.disconnect();
    }
  }
  report(results, skipped, { events, directory, fileSystem, fsyncMs, redisUrl, seconds: (performance.now() - started) / 1000 });
}

function specsFor(store: StoreName): RunSpec[] {
  return [
    { store, mode: 'sequential', maxConcurrency: 64 },
    { store, mode: 'burst', maxConcurrency: 64 },
    { store, mode: 'burst', maxConcurrency: 256 },
  ];
}

/** One run: a fresh store and engine, 100 endpoints registered, `events` published, every receipt awaited and counted. */
async function run(spec: RunSpec, makeStore: () => MadeStore, receivers: Receivers, events: number): Promise<RunResult> {
  const { store, journal } = makeStore();
  const logged: string[] = [];
  let loggedCount = 0;
  const calls: StoreCalls = { claimDue: 0, nextDue: 0, nextDueMs: 0 };
  const webhooks = createWebhooks({
    store: counted(store, calls),
    eventTypes: [EVENT_TYPE],
    allowedHosts: ['127.0.0.1'],
    maxConcurrency: spec.maxConcurrency,
    ...(spec.store === 'file' ? { pollMs: 0 } : {}),
    log: (entry) => {
      loggedCount++;
      if (logged.length < 5) logged.push(`${entry.level}: ${entry.message}${entry.error === undefined ? '' : ` ${String(entry.error)}`}`);
    },
  });
  const expected = events * ENDPOINTS;
  let closed = false;
  try {
    await webhooks.start();
    await Promise.all(receivers.urls.map((url) => webhooks.register({ url, events: [EVENT_TYPE] })));
    receivers.reset(expected);
    Object.assign(calls, { claimDue: 0, nextDue: 0, nextDueMs: 0 });

    const publishStarts = new Float64Array(events);
    const publishMs: number[] = new Array<number>(events);
    const cpuBefore = process.cpuUsage();
    const first = performance.now();
    if (spec.mode === 'sequential') {
      for (let seq = 0; seq < events; seq++) {
        const start = performance.now();
        publishStarts[seq] = start;
        await webhooks.publish(EVENT_TYPE, { seq });
        publishMs[seq] = performance.now() - start;
      }
    } else {
      await Promise.all(
        Array.from({ length: events }, (_, seq) => {
          const start = performance.now();
          publishStarts[seq] = start;
          return webhooks.publish(EVENT_TYPE, { seq }).then(() => {
            publishMs[seq] = performance.now() - start;
          });
        }),
      );
    }
    const publishedMs = performance.now() - first;
    const complete = await receivers.whenAllReceived(RECEIPT_TIMEOUT_MS);
    const cpu = process.cpuUsage(cpuBefore);
    const callsUntilReceived = { ...calls };
    const receivedAt = performance.now();
    const { receipts } = receivers.tally();
    const last = receipts.reduce((latest, receipt) => Math.max(latest, receipt.at), first);
    const cpuShare = (cpu.user + cpu.system) / 1000 / (receivedAt - first);

    // Every outcome recorded: nothing pending (nor claimed) in the store.
    let recordedAfterMs: number | null = null;
    if (complete) {
      const deadline = performance.now() + RECORD_TIMEOUT_MS;
      while (performance.now() < deadline) {
        if ((await store.nextDue()) === null) {
          recordedAfterMs = performance.now() - last;
          break;
        }
        await new Promise((resolve) => setTimeout(resolve, 2));
      }
    }

    await webhooks.close();
    closed = true;
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const tally = receivers.tally();
    return {
      ...spec,
      events,
      expected,
      received: tally.receipts.length,
      duplicates: tally.duplicates,
      malformed: tally.malformed,
      problems: [...tally.problems],
      missing: missingDeliveries(tally.receipts, events),
      elapsedMs: last - first,
      publishedMs,
      publishMs,
      receiptMs: tally.receipts.map((receipt) => receipt.at - (publishStarts[receipt.seq] as number)),
      recordedAfterMs,
      cpuShare,
      logged,
      loggedCount,
      calls: callsUntilReceived,
      journalBytes: journal === null ? null : statSync(journal, { throwIfNoEntry: false })?.size ?? null,
    };
  } finally {
    if (!closed) await webhooks.close().catch(() => undefined);
  }
}

/** A few (receiver, event) pairs that never arrived. */
function missingDeliveries(receipts: ReadonlyArray<{ receiver: number; seq: number }>, events: number): string[] {
  if (receipts.length >= events * ENDPOINTS) return [];
  const got = new Set(receipts.map((receipt) => receipt.receiver * events + receipt.seq));
  const missing: string[] = [];
  let count = 0;
  for (let receiver = 0; receiver < ENDPOINTS; receiver++) {
    for (let seq = 0; seq < events; seq++) {
      if (got.has(receiver * events + seq)) continue;
      count++;
      if (missing.length < 5) missing.push(`receiver ${receiver} event ${seq}`);
    }
  }
  if (count > missing.length) missing.push(`… ${count - missing.length} more`);
  return missing;
}

/** The median time of one small append + fdatasync in `directory`: what one flush of the file store costs at least. */
async function probeFsync(directory: string): Promise<number> {
  const path = join(directory, 'fsync-probe');
  const handle = await open(path, 'a', 0o600);
  const times: number[] = [];
  try {
    const line = `${JSON.stringify({ t: 'probe', padding: 'x'.repeat(200) })}\n`;
    for (let i = 0; i < FSYNC_PROBES; i++) {
      const start = performance.now();
      await handle.appendFile(line);
      await handle.datasync();
      times.push(performance.now() - start);
    }
  } finally {
    await handle.close();
    rmSync(path, { force: true });
  }
  return percentile(times, 0.5);
}

async function connectRedis(url: string): Promise<Redis | null> {
  let client: Redis;
  try {
    const { Redis: Client } = await loadIoredis('bench:webhooks');
    client = new Client(url, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => null });
  } catch (error) {
    console.error(String(error));
    return null;
  }
  client.on('error', () => undefined);
  try {
    await client.connect();
    await client.ping();
    return client;
  } catch {
    client.disconnect();
    return null;
  }
}

/** SCAN + DEL of every key matching `pattern`; the number deleted. */
async function deleteKeys(redis: Redis, pattern: string): Promise<number> {
  let cursor = '0';
  let deleted = 0;
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) deleted += await redis.del(...keys);
  } while (cursor !== '0');
  return deleted;
}

function readEvents(): number {
  const text = process.env.BENCH_WEBHOOKS_EVENTS;
  if (text === undefined || text === '') return DEFAULT_EVENTS;
  const events = Number(text);
  if (!Number.isInteger(events) || events < 1) throw new TypeError(`BENCH_WEBHOOKS_EVENTS must be a positive whole number, got "${text}".`);
  return events;
}

/** Nearest rank. */
function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(p * sorted.length) - 1))] as number;
}

function ms(value: number): string {
  if (!Number.isFinite(value)) return '–';
  return value < 10 ? value.toFixed(2) : value < 100 ? value.toFixed(1) : value.toFixed(0);
}

function rate(value: number): string {
  return Number.isFinite(value) ? Math.round(value).toLocaleString('en-US') : '–';
}

/** The command as typed, with the environment that changes what is measured. */
function command(): string {
  const env = ['BENCH_WEBHOOKS_EVENTS', 'BENCH_WEBHOOKS_DIR', 'REDIS_URL', 'NODE_ENV']
    .filter((name) => process.env[name] !== undefined && process.env[name] !== '')
    .map((name) => `${name}=${process.env[name]}`);
  const script = process.env.npm_lifecycle_event === 'bench:webhooks' ? 'npm run bench:webhooks' : `tsx bench/webhooks/index.ts`;
  return [...env, script].join(' ');
}

function fileSystemOf(directory: string): string {
  const result = spawnSync('stat', ['-f', '-c', '%T', directory], { encoding: 'utf8' });
  return result.status === 0 ? result.stdout.trim() : 'unknown file system';
}

function report(results: readonly RunResult[], lines: readonly string[], context: { events: number; directory: string; fileSystem: string; fsyncMs: number; redisUrl: string; seconds: number }): void {
  const cpus = os.cpus();
  console.log();
  console.log(
    `Node ${process.version} (${process.platform} ${process.arch}, ${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}); ` +
      `command: \`${command()}\`; ${ENDPOINTS} endpoints on loopback receivers (one node:http server each, in this process), one event type, ` +
      `${context.events} events per run; file store in ${context.directory} (${context.fileSystem}; one append + fdatasync there: ` +
      `median ${ms(context.fsyncMs)} ms); Redis at ${context.redisUrl}.`,
  );
  console.log();
  console.log('| store | mode | events | deliveries | events/s | deliveries/s | publish p50/p99 (ms) | receipt latency p50/p99/max (ms) |');
  console.log('|---|---|--:|--:|--:|--:|--:|--:|');
  for (const result of results) {
    const seconds = result.elapsedMs / 1000;
    const mode = `${result.mode}, maxConcurrency ${result.maxConcurrency}`;
    const deliveries = result.received === result.expected ? rate(result.received) : `**${rate(result.received)} of ${rate(result.expected)}**`;
    console.log(
      `| ${result.store} | ${mode} | ${result.events} | ${deliveries} | ${rate(result.events / seconds)} | ${rate(result.received / seconds)} | ` +
        `${ms(percentile(result.publishMs, 0.5))} / ${ms(percentile(result.publishMs, 0.99))} | ` +
        `${ms(percentile(result.receiptMs, 0.5))} / ${ms(percentile(result.receiptMs, 0.99))} / ${ms(Math.max(...result.receiptMs))} |`,
    );
  }
  console.log();

  const exact = results.filter((result) => result.received === result.expected && result.duplicates === 0 && result.malformed === 0);
  if (results.length > 0 && exact.length === results.length) {
    console.log(`Every delivery arrived exactly once: in each run, ${ENDPOINTS} receivers × ${context.events} events, counted by receiver and webhook-id.`);
  }
  for (const result of results) {
    if (exact.includes(result)) continue;
    const label = `${result.store} ${result.mode} (maxConcurrency ${result.maxConcurrency})`;
    console.log(`!!! ${label}: ${result.received} of ${result.expected} deliveries arrived, ${result.expected - result.received} LOST, ${result.duplicates} DUPLICATES, ${result.malformed} MALFORMED.`);
    for (const line of [...result.missing.map((each) => `missing: ${each}`), ...result.problems]) console.log(`!!!   ${line}`);
  }
  for (const result of results) {
    if (result.loggedCount === 0) continue;
    console.log(`!!! ${result.store} ${result.mode} (maxConcurrency ${result.maxConcurrency}): the engine logged ${result.loggedCount} error(s):`);
    for (const line of result.logged) console.log(`!!!   ${line}`);
  }
  for (const line of lines) console.log(line);
  console.log();

  console.log(
    'Per run: first publish to last receipt; CPU this process used over it (user + system, as a share of one core: above 100% with the thread pool and GC); ' +
      "the engine's calls to the store's claimDue and nextDue over it; when every outcome was recorded (nothing pending in the store).",
  );
  console.log();
  for (const result of results) {
    const journal = result.journalBytes === null ? '' : `; journal ${(result.journalBytes / 1024 / 1024).toFixed(1)} MB`;
    const recorded = result.recordedAfterMs === null ? 'NOT all recorded' : `all recorded ${ms(result.recordedAfterMs)} ms later`;
    console.log(
      `- ${result.store}, ${result.mode}, maxConcurrency ${result.maxConcurrency}: ${(result.elapsedMs / 1000).toFixed(2)} s ` +
        `(every publish resolved after ${(result.publishedMs / 1000).toFixed(2)} s), CPU ${(result.cpuShare * 100).toFixed(0)}%, ` +
        `claimDue ${result.calls.claimDue} calls, nextDue ${result.calls.nextDue} calls${result.calls.nextDue === 0 ? '' : ` (${ms(result.calls.nextDueMs)} ms before returning)`}, ${recorded}${journal}`,
    );
  }
  console.log();

  const sequentialFile = results.find((result) => result.store === 'file' && result.mode === 'sequential');
  const busiest = (store: StoreName) => results.filter((result) => result.store === store).reduce((most, result) => Math.max(most, result.cpuShare), 0);
  const cpuOf = (store: StoreName) => (results.some((result) => result.store === store) ? `${(busiest(store) * 100).toFixed(0)}% with the ${store} store` : null);
  console.log('What bounds each:');
  console.log(
    `- publish, file store: it resolves once the event's journal line (the event and its ${ENDPOINTS} deliveries) is appended and fdatasync'd, ` +
      `with group commit: the line waits for the flush under way (often of delivery outcomes) and goes out with the next one. One flush costs ` +
      `${ms(context.fsyncMs)} ms on this disk${sequentialFile === undefined ? '' : `, against a sequential publish p50 of ${ms(percentile(sequentialFile.publishMs, 0.5))} ms`}: ` +
      `the rest is the event loop, shared with the deliveries in flight. In a burst all ${context.events} events wait for a few flushes, not ${context.events}, ` +
      `and each publish resolves at about the same time, after the whole burst's lines are written.`,
  );
  console.log(
    `- publish, Redis store: HGETALL of the endpoints, then one MULTI/EXEC of ${ENDPOINTS * 5 + 1} commands per event; in a burst the ` +
      `${context.events} transactions queue on one connection, which Redis runs one after another.`,
  );
  console.log(
    '- deliveries: the dispatcher keeps at most maxConcurrency attempts in flight (and 4 per endpoint: 400 in all here), and an attempt holds its place ' +
      "until its outcome is recorded: for the file store until the outcome line is fdatasync'd (up to maxConcurrency outcomes per flush); for Redis, " +
      'one claim script per pump pass and one record script per attempt. So deliveries/s ≤ maxConcurrency ÷ (HTTP round trip + the recording); ' +
      `raising maxConcurrency to 256 shows how much that bound weighs. The engine, the ${ENDPOINTS} receivers and ioredis share one Node process, ` +
      `whose CPU is the other bound: at most ${[cpuOf('file'), cpuOf('Redis')].filter((each) => each !== null).join(', ')} ` +
      '(a share of one core: the main thread, plus the thread pool and GC); near or above 100%, the main thread is the limit. ' +
      'The Redis server runs in its own process, on another core when there is one.',
  );
  console.log(
    "- receipt latency: where every publish resolved well before the last receipt (above), publishing outran delivering and the later events' deliveries " +
      "queued behind the earlier ones': p99 and max are then close to the run's length, and measure the backlog rather than one delivery's path.",
  );
  console.log();
  console.log(`Took ${context.seconds.toFixed(1)} s.`);
}

await main();
