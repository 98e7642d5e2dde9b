/**
 * `npm run bench:subscriptions`: one published event fanned out to many WebSocket subscribers
 * on one server instance, for our server (createServer's graphql-transport-ws transport) and
 * for graphql-ws's `useServer` with graphql-js's `subscribe`, on the same schema and the same
 * event source (servers/ours.ts), measured in the same run.
 *
 * For each number of subscribers N and each server, in fresh processes:
 *  1. The server starts in its own child process, pinned to one core as bench/http's are (see
 *     harness.ts `cpuPlacement`; BENCH_HTTP_PIN=0 leaves placement to the scheduler here too),
 *     with --expose-gc, and reports its memory after a full GC before any socket opens.
 *  2. The clients (clients.ts: raw `ws` sockets speaking graphql-transport-ws) start in another
 *     child process, on the runner's core, and open N sockets, each with one subscription to
 *     the one topic; every socket must be acknowledged.
 *  3. Warm-up ticks are published until the server offers one to N subscribers and all N
 *     sockets receive it: every subscription is then live. A few more warm-up ticks follow,
 *     each waiting for all N deliveries, so the timed events find both servers warmed up.
 *  4. The server's memory after a full GC, the subscriptions open and idle: minus step 1's,
 *     divided by N, is the memory per idle subscription.
 *  5. BENCH_SUB_EVENTS timed events, published by the server process when the runner asks,
 *     one at a time, each once every socket has received the previous one. Each carries the
 *     server's CLOCK_MONOTONIC reading at publication (`at`); the clients read the same clock
 *     as each message arrives. Every delivery is checked to be exactly the expected `next`
 *     message (clients.ts), and the run fails at the first missing or wrong one.
 *     deliveries/s = N × events ÷ (last delivery − first publication), the runner's hand-offs
 *     between events included (reported as "between events"); p50/p99 over every delivery.
 *     The CPU both processes used over the timed events is reported as a share of one core.
 * Runs are interleaved (for each N, both servers, in an order that rotates from one repeat to
 * the next), the whole repeated BENCH_SUB_REPEATS times, and the report gives the medians.
 * Nothing about speed is asserted; the issue's bar is reported against the run.
 *
 * Every child is started through `bash -c 'ulimit -n …; exec …'`, which raises its limit on
 * open files to the hard limit (at most 65,536): N sockets need N descriptors in each process.
 * When the hard limit is too low for the largest N the run stops before starting, and says so.
 *
 * Environment: BENCH_SUB_SHARE (default 1; 0 starts our server with shareSubscriptions: false,
 * so that every subscription has its own source and execution), BENCH_SUB_SUBSCRIBERS (comma-separated, default "1000,10000"), BENCH_SUB_EVENTS
 * (timed events per run, default 20), BENCH_SUB_REPEATS (default 3), BENCH_SUB_CPU_PROF (a
 * directory: run every server under --cpu-prof, writing into `<server>-<N>-r<repeat>` there,
 * and the clients into `clients-of-<server>-<N>-r<repeat>`; the main thread's profile is the
 * largest), BENCH_HTTP_PIN (see harness.ts).
 */
import '../production-mode.ts';
import { spawn, spawnSync } from 'node:child_process';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { setTimeout as sleep } from 'node:timers/promises';
import { REPO_ROOT, cpuPlacement } from '../http/harness.ts';
import type { ClientCommand, EventReply, OpenReply, ResultsReply, WarmUpReply } from './clients.ts';
import { GRAPHQL_PATH, tickFor } from './servers/ours.ts';
import type { ControlCommand, MemoryReply, PublishReply } from './servers/ours.ts';

/** In the order of the report; the runs rotate through them. */
const SERVERS = ['ours', 'graphql-ws'] as const;
type ServerName = (typeof SERVERS)[number];
const PEER: ServerName = 'graphql-ws';

/** The issue's bar: ours ÷ graphql-ws deliveries/s at this many subscribers. Reported, never asserted. */
const BAR = { subscribers: 10_000, atLeast: 2 } as const;

/** Handshakes the clients keep in flight while opening sockets (the server's listen backlog is 511). */
const OPEN_CONCURRENCY = 256;
/** Warm-up ticks after every subscription is live, each waiting for all deliveries: untimed. */
const WARM_UP_EVENTS = 5;
/** Warm-up ticks published, 50 ms apart, before giving up on subscriptions becoming live. */
const MAX_LIVENESS_TICKS = 200;
/** How long one event may take to reach every subscriber before the run fails. */
const DELIVERY_TIMEOUT_MS = 60_000;
/** How long a liveness tick waits for every socket before another is published. */
const LIVENESS_TIMEOUT_MS = 1_000;
/** Descriptors a process needs beyond its sockets (stdio, the listening socket, node's own). */
const DESCRIPTOR_MARGIN = 64;
/** Above this share of a core, the clients are likely the bottleneck, not the server. */
const SATURATED_CPU = 0.9;

/** Raises the soft limit on open files to the hard one (at most 65,536), then runs the command. */
const RAISE_FILE_LIMIT =
  'hard=$(ulimit -Hn); if [ "$hard" = unlimited ] || [ "$hard" -gt 65536 ]; then hard=65536; fi; ulimit -n "$hard" 2>/dev/null;';

/** The limit on open files every child gets. */
function childFileLimit(): number {
  const result = spawnSync('bash', ['-c', `${RAISE_FILE_LIMIT} ulimit -n`], { encoding: 'utf8' });
  const limit = Number(result.stdout.trim());
  if (result.status !== 0 || !Number.isInteger(limit)) throw new Error(`Could not read the limit on open files: ${result.stderr}`);
  return limit;
}

/**
 * A child process driven over JSON lines: each command written to its stdin carries an `id`,
 * and the line it answers with carries the same (or `error`). A server prints its port first.
 */
class Controlled {
  readonly label: string;
  readonly pid: number;
  /** The port a server printed first (never resolves for a child that prints none). */
  readonly port: Promise<number>;
  private readonly child: ReturnType<typeof spawn>;
  private readonly exited: Promise<void>;
  private readonly pending = new Map<number, { resolve: (body: unknown) => void; reject: (error: Error) => void }>();
  private nextId = 1;
  private stopping = false;

  constructor(label: string, script: string, options: { wrapper: string[]; nodeFlags: string[]; printsPort: boolean }) {
    this.label = label;
    const command = [...options.wrapper, process.execPath, ...options.nodeFlags, '--import', 'tsx', script];
    this.child = spawn('bash', ['-c', `${RAISE_FILE_LIMIT} exec "$@"`, 'bash', ...command], {
      cwd: REPO_ROOT,
      stdio: ['pipe', 'pipe', 'inherit'],
    });
    this.pid = this.child.pid as number;
    this.exited = new Promise((resolveExit) => this.child.once('exit', () => resolveExit()));
    let resolvePort: (port: number) => void = () => undefined;
    let rejectPort: (error: Error) => void = () => undefined;
    this.port = new Promise((resolvePromise, rejectPromise) => {
      resolvePort = resolvePromise;
      rejectPort = rejectPromise;
    });
    this.port.catch(() => undefined);
    let awaitingPort = options.printsPort;
    const lines = createInterface({ input: this.child.stdout as NodeJS.ReadableStream });
    lines.on('line', (line) => {
      if (awaitingPort) {
        awaitingPort = false;
        const port = Number(line);
        if (Number.isInteger(port) && port > 0) resolvePort(port);
        else rejectPort(new Error(`${label} printed "${line}" where its port was expected.`));
        return;
      }
      let body: { id?: number; error?: string };
      try {
        body = JSON.parse(line) as { id?: number; error?: string };
      } catch {
        console.error(`${label}: ${line}`);
        return;
      }
      const waiter = body.id === undefined ? undefined : this.pending.get(body.id);
      if (waiter === undefined) return;
      this.pending.delete(body.id as number);
      if (body.error !== undefined) waiter.reject(new Error(`${label}: ${body.error}`));
      else waiter.resolve(body);
    });
    this.child.once('exit', (code, signal) => {
      const error = new Error(`${label} exited (${signal ?? `code ${code}`})${this.stopping ? '' : ' in the middle of the run'}.`);
      rejectPort(error);
      for (const waiter of this.pending.values()) waiter.reject(error);
      this.pending.clear();
    });
  }

  /** Sends a command and resolves with the answer, or rejects after timeoutMs. */
  call<T>(command: DistributiveOmit<ControlCommand | ClientCommand, 'id'>, timeoutMs = 30_000): Promise<T> {
    const id = this.nextId++;
    return new Promise<T>((resolveCall, rejectCall) => {
      const timer = setTimeout(() => {
        this.pending.delete(id);
        rejectCall(new Error(`${this.label} did not answer ${JSON.stringify(command)} within ${timeoutMs} ms.`));
      }, timeoutMs);
      this.pending.set(id, {
        resolve: (body) => {
          clearTimeout(timer);
          resolveCall(body as T);
        },
        reject: (error) => {
          clearTimeout(timer);
          rejectCall(error);
        },
      });
      this.child.stdin?.write(`${JSON.stringify({ id, ...command })}\n`);
    });
  }

  /** Closes its stdin, which it exits on; one that hangs is killed. */
  async stop(): Promise<void> {
    this.stopping = true;
    this.child.stdin?.end();
    // Writing a CPU profile, or closing many sockets, can take a moment.
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 20_000);
    await this.exited;
    clearTimeout(timer);
  }
}

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;

interface CpuUsage {
  user: number;
  system: number;
}

const cpuMicros = (usage: CpuUsage) => usage.user + usage.system;

/** One server's run with one number of subscribers. */
interface Measurement {
  server: ServerName;
  subscribers: number;
  deliveriesPerSecond: number;
  /** The quickest delivery of all (ms). */
  minMs: number;
  p50Ms: number;
  p99Ms: number;
  /** V8 heap used + external memory, after a full GC, per idle subscription (bytes). */
  heapPerSubscription: number;
  /** Resident set size per idle subscription (bytes). */
  rssPerSubscription: number;
  /** Shares of one core over the timed events. */
  serverCpu: number;
  clientCpu: number;
  serverCpuMicrosPerDelivery: number;
  /** Median time from one event's publication to its last delivery (ms). */
  fanOutMs: number;
  /** The share of the timed span between one event's last delivery and the next one's publication. */
  betweenEvents: number;
  openSeconds: number;
}

/** BENCH_SUB_CPU_PROF: node's flags to write a process's CPU profiles into the folder `name` there. */
function profileFlags(name: string): string[] {
  const directory = process.env.BENCH_SUB_CPU_PROF;
  if (directory === undefined || directory === '') return [];
  return ['--cpu-prof', `--cpu-prof-dir=${resolve(directory, name)}`];
}

function memoryOf(usage: MemoryReply): { heap: number; rss: number } {
  return { heap: usage.heapUsed + usage.external, rss: usage.rss };
}

async function measure(name: ServerName, subscribers: number, events: number, repeat: number): Promise<Measurement> {
  const where = `${subscribers.toLocaleString('en-US')} subscribers, ${name}`;
  const server = new Controlled(`the ${name} server`, join(REPO_ROOT, 'bench', 'subscriptions', 'servers', `${name}.ts`), {
    wrapper: cpuPlacement().wrapper,
    nodeFlags: ['--expose-gc', ...profileFlags(`${name}-${subscribers}-r${repeat + 1}`)],
    printsPort: true,
  });
  try {
    const port = await server.port;
    const before = memoryOf(await server.call<MemoryReply>({ cmd: 'memory' }));
    // The clients stay on this process's core: children inherit its placement.
    const clients = new Controlled('the clients', join(REPO_ROOT, 'bench', 'subscriptions', 'clients.ts'), {
      wrapper: [],
      nodeFlags: profileFlags(`clients-of-${name}-${subscribers}-r${repeat + 1}`),
      printsPort: false,
    });
    try {
      console.error(`${where}: opening sockets…`);
      const opened = await clients.call<OpenReply>(
        { cmd: 'open', url: `ws://127.0.0.1:${port}${GRAPHQL_PATH}`, count: subscribers, concurrency: OPEN_CONCURRENCY },
        150_000,
      );

      // Warm-up ticks until every socket receives one. (How many subscribers the pub/sub has says
      // nothing here: our server shares one source among identical subscriptions.)
      let sequence = 0;
      const warmUp = async (timeoutMs: number): Promise<number> => {
        sequence++;
        await server.call<PublishReply>({ cmd: 'publish', tick: tickFor('warm-up', sequence) });
        const { received } = await clients.call<WarmUpReply>({ cmd: 'warm-up', sequence, expected: subscribers, timeoutMs }, timeoutMs + 5_000);
        return received;
      };
      for (;;) {
        const received = await warmUp(LIVENESS_TIMEOUT_MS);
        if (received === subscribers) break;
        if (sequence >= MAX_LIVENESS_TICKS) {
          throw new Error(`${where}: only ${received} of ${subscribers} sockets received warm-up tick ${sequence}.`);
        }
        await sleep(50);
      }
      console.error(`${where}: ${subscribers} sockets acknowledged and live (warm-up tick ${sequence}); warming up…`);
      for (let i = 0; i < WARM_UP_EVENTS; i++) {
        const received = await warmUp(DELIVERY_TIMEOUT_MS);
        if (received !== subscribers) throw new Error(`${where}: warm-up tick ${sequence} reached only ${received} of ${subscribers} sockets.`);
      }

      const idle = memoryOf(await server.call<MemoryReply>({ cmd: 'memory' }));
      await clients.call({ cmd: 'time', events });

      console.error(`${where}: ${events} timed events…`);
      const serverBefore = await server.call<CpuUsage>({ cmd: 'cpu' });
      const clientsBefore = await clients.call<CpuUsage>({ cmd: 'cpu' });
      const startedAt = performance.now();
      for (let m = 1; m <= events; m++) {
        const [published, delivered] = await Promise.all([
          server.call<PublishReply>({ cmd: 'publish', tick: tickFor('event', m) }),
          clients.call<EventReply>({ cmd: 'event', sequence: m, timeoutMs: DELIVERY_TIMEOUT_MS }, DELIVERY_TIMEOUT_MS + 5_000),
        ]);
        if (delivered.at !== published.at) {
          throw new Error(`${where}: event ${m} was published at ${published.at}, but its deliveries carried at = ${delivered.at}.`);
        }
      }
      const wallMicros = (performance.now() - startedAt) * 1000;
      const serverCpuMicros = cpuMicros(await server.call<CpuUsage>({ cmd: 'cpu' })) - cpuMicros(serverBefore);
      const clientCpuMicros = cpuMicros(await clients.call<CpuUsage>({ cmd: 'cpu' })) - cpuMicros(clientsBefore);
      const results = await clients.call<ResultsReply>({ cmd: 'results' });
      if (results.deliveries !== subscribers * events) {
        throw new Error(`${where}: ${results.deliveries} deliveries were counted, not ${subscribers * events}.`);
      }

      const timedMs = results.lastDeliveredAt - results.firstPublishedAt;
      const fanOutTotal = results.spansMs.reduce((sum, span) => sum + span, 0);
      return {
        server: name,
        subscribers,
        deliveriesPerSecond: results.deliveries / (timedMs / 1000),
        minMs: results.minMs,
        p50Ms: results.p50Ms,
        p99Ms: results.p99Ms,
        heapPerSubscription: (idle.heap - before.heap) / subscribers,
        rssPerSubscription: (idle.rss - before.rss) / subscribers,
        serverCpu: serverCpuMicros / wallMicros,
        clientCpu: clientCpuMicros / wallMicros,
        serverCpuMicrosPerDelivery: serverCpuMicros / results.deliveries,
        fanOutMs: median(results.spansMs),
        betweenEvents: 1 - fanOutTotal / timedMs,
        openSeconds: opened.ms / 1000,
      };
    } finally {
      await clients.stop();
    }
  } finally {
    await server.stop();
  }
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/** A positive whole number from the environment (`unit` names what it counts, for the error). */
function readCount(name: string, defaultValue: number, unit: string): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return defaultValue;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) throw new TypeError(`${name} must be a positive whole number of ${unit}, but got "${raw}".`);
  return value;
}

function readSubscriberCounts(): number[] {
  const raw = process.env.BENCH_SUB_SUBSCRIBERS;
  if (raw === undefined || raw.trim() === '') return [1_000, 10_000];
  const counts = raw.split(',').map((part) => Number(part.trim().replaceAll('_', '')));
  if (counts.some((count) => !Number.isInteger(count) || count <= 0)) {
    throw new TypeError(`BENCH_SUB_SUBSCRIBERS must be positive whole numbers separated by commas, but got "${raw}".`);
  }
  return counts;
}

const formatCount = (count: number) => count.toLocaleString('en-US');
const formatRate = (rate: number) => rate.toLocaleString('en-US', { maximumFractionDigits: 0 });
const formatShare = (share: number) => `${Math.round(share * 100)}%`;
const formatMs = (ms: number) => ms.toFixed(ms < 10 ? 2 : 1);
const formatKb = (bytes: number) => (bytes / 1024).toFixed(1);

/** The medians of one server's repeats at one number of subscribers. */
function summarize(runs: readonly Measurement[]): Measurement {
  const first = runs[0] as Measurement;
  const mid = (pick: (run: Measurement) => number) => median(runs.map(pick));
  return {
    server: first.server,
    subscribers: first.subscribers,
    deliveriesPerSecond: mid((run) => run.deliveriesPerSecond),
    minMs: mid((run) => run.minMs),
    p50Ms: mid((run) => run.p50Ms),
    p99Ms: mid((run) => run.p99Ms),
    heapPerSubscription: mid((run) => run.heapPerSubscription),
    rssPerSubscription: mid((run) => run.rssPerSubscription),
    serverCpu: mid((run) => run.serverCpu),
    clientCpu: mid((run) => run.clientCpu),
    serverCpuMicrosPerDelivery: mid((run) => run.serverCpuMicrosPerDelivery),
    fanOutMs: mid((run) => run.fanOutMs),
    betweenEvents: mid((run) => run.betweenEvents),
    openSeconds: mid((run) => run.openSeconds),
  };
}

function printReport(measurements: readonly Measurement[][], subscriberCounts: readonly number[], events: number, fileLimit: number): void {
  const all = measurements.flat();
  const runsOf = (server: ServerName, subscribers: number) => all.filter((run) => run.server === server && run.subscribers === subscribers);
  const rows = subscriberCounts.flatMap((subscribers) => SERVERS.map((server) => summarize(runsOf(server, subscribers))));
  const rowOf = (server: ServerName, subscribers: number) => rows.find((row) => row.server === server && row.subscribers === subscribers) as Measurement;
  const ratio = (row: Measurement) => row.deliveriesPerSecond / rowOf(PEER, row.subscribers).deliveriesPerSecond;
  const cpus = os.cpus();

  console.log(
    `Node ${process.version} (${process.platform} ${process.arch}, ${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}), ` +
      `NODE_ENV=${process.env.NODE_ENV}; one topic, one subscription per WebSocket, the subscribers raw \`ws\` sockets in one client process; ` +
      `our server's identical subscriptions ${process.env.BENCH_SUB_SHARE === '0' ? 'not shared (BENCH_SUB_SHARE=0)' : 'shared (one execution per event)'}; ` +
      `${events} timed events per run, published by the server process one at a time, each once every subscriber has received the previous one; ` +
      `${measurements.length} repeat${measurements.length === 1 ? '' : 's'}, the two servers' runs interleaved in rotating order, each run in fresh processes; ` +
      `${cpuPlacement().description}; open files per process: ${formatCount(fileLimit)}. Figures are the medians of the repeats.`,
  );
  console.log();
  console.log('| subscribers | server | deliveries/s | p50 (ms) | p99 (ms) | memory per idle subscription (KB) | server CPU | client CPU | ÷ graphql-ws |');
  console.log('|--:|---|--:|--:|--:|--:|--:|--:|--:|');
  for (const row of rows) {
    console.log(
      `| ${formatCount(row.subscribers)} | ${row.server} | ${formatRate(row.deliveriesPerSecond)} | ${formatMs(row.p50Ms)} | ${formatMs(row.p99Ms)} ` +
        `| ${formatKb(row.heapPerSubscription)} | ${formatShare(row.serverCpu)} | ${formatShare(row.clientCpu)} | ${ratio(row).toFixed(2)} |`,
    );
  }
  console.log();
  console.log(
    'deliveries/s: subscribers × events ÷ (last delivery − first publication). Latency: from the server stamping the event as it publishes ' +
      'to the client reading the message, over every delivery. Memory: the server\'s V8 heap used + external memory after a full GC with the ' +
      'subscriptions open and idle, minus the same before any socket opened, per subscription (RSS below). CPU: shares of one core over the timed events.',
  );

  console.log();
  console.log('| subscribers | server | RSS per idle subscription (KB) | server CPU per delivery (µs) | quickest delivery (ms) | one event to every subscriber (ms) | between events | sockets opened in (s) |');
  console.log('|--:|---|--:|--:|--:|--:|--:|--:|');
  for (const row of rows) {
    console.log(
      `| ${formatCount(row.subscribers)} | ${row.server} | ${formatKb(row.rssPerSubscription)} | ${row.serverCpuMicrosPerDelivery.toFixed(1)} ` +
        `| ${formatMs(row.minMs)} | ${formatMs(row.fanOutMs)} | ${formatShare(row.betweenEvents)} | ${row.openSeconds.toFixed(1)} |`,
    );
  }
  console.log();
  console.log(
    '"quickest delivery": the shortest publish-to-receive time of all deliveries (how long the first subscriber to get an event waited). ' +
      '"one event to every subscriber": the median, over the timed events, of the time from publication to the last delivery. ' +
      '"between events": the share of the timed span spent handing over from one event\'s last delivery to the next publication (runner and pipes).',
  );

  if (measurements.length > 1) {
    console.log();
    console.log('deliveries/s in each repeat:');
    console.log();
    console.log(`| subscribers | server | ${measurements.map((_, index) => `repeat ${index + 1}`).join(' | ')} |`);
    console.log(`|--:|---|${measurements.map(() => '--:').join('|')}|`);
    for (const subscribers of subscriberCounts) {
      for (const server of SERVERS) {
        const cells = measurements.map((runs) => {
          const run = runs.find((candidate) => candidate.server === server && candidate.subscribers === subscribers);
          return run === undefined ? '' : formatRate(run.deliveriesPerSecond);
        });
        console.log(`| ${formatCount(subscribers)} | ${server} | ${cells.join(' | ')} |`);
      }
    }
  }

  const saturated = rows.filter((row) => row.clientCpu >= SATURATED_CPU);
  if (saturated.length > 0) {
    console.log();
    console.log(
      `The client process used ${formatShare(SATURATED_CPU)} of a core or more while measuring ` +
        `${saturated.map((row) => `${row.server} with ${formatCount(row.subscribers)} subscribers`).join(', ')}: those rates may be the ` +
        "clients' limit on this machine rather than the server's, and ratios between them understate the differences.",
    );
  }

  console.log();
  console.log("The issue's bar (reported, not asserted):");
  console.log();
  const barSubscribers = formatCount(BAR.subscribers);
  if (!subscriberCounts.includes(BAR.subscribers)) {
    console.log(`- ${barSubscribers} subscribers: not measured in this run (BENCH_SUB_SUBSCRIBERS)`);
    return;
  }
  const measured = ratio(rowOf('ours', BAR.subscribers));
  console.log(
    `- ${barSubscribers} subscribers: ours ÷ graphql-ws deliveries/s = ${measured.toFixed(2)}, bar ≥ ${BAR.atLeast.toFixed(2)}: ` +
      `${measured >= BAR.atLeast ? 'met' : 'not met'}`,
  );
  if (measurements.length > 1) {
    const ratios = measurements.map((runs) => {
      const of = (server: ServerName) => runs.find((run) => run.server === server && run.subscribers === BAR.subscribers) as Measurement;
      return of('ours').deliveriesPerSecond / of(PEER).deliveriesPerSecond;
    });
    const met = ratios.filter((value) => value >= BAR.atLeast).length;
    console.log(`  (in each repeat: ${ratios.map((value) => value.toFixed(2)).join(', ')}; met in ${met} of ${ratios.length})`);
  }
}

async function main(): Promise<void> {
  const subscriberCounts = readSubscriberCounts();
  const events = readCount('BENCH_SUB_EVENTS', 20, 'events');
  const repeats = readCount('BENCH_SUB_REPEATS', 3, 'repeats');
  // Decided before any child starts: it moves this process, and so the clients it spawns, to core 0.
  cpuPlacement();
  const fileLimit = childFileLimit();
  const largest = Math.max(...subscriberCounts);
  if (fileLimit < largest + DESCRIPTOR_MARGIN) {
    throw new Error(
      `${formatCount(largest)} subscribers need about ${formatCount(largest + DESCRIPTOR_MARGIN)} open files in the server and in the client process, ` +
        `but the hard limit here is ${formatCount(fileLimit)} (ulimit -Hn), which a process cannot raise. Raise it, or lower BENCH_SUB_SUBSCRIBERS.`,
    );
  }

  const measurements: Measurement[][] = [];
  for (let repeat = 0; repeat < repeats; repeat++) {
    console.error(`repeat ${repeat + 1} of ${repeats}…`);
    const runs: Measurement[] = [];
    for (const subscribers of subscriberCounts) {
      for (let turn = 0; turn < SERVERS.length; turn++) {
        const server = SERVERS[(repeat + turn) % SERVERS.length] as ServerName;
        runs.push(await measure(server, subscribers, events, repeat));
        const run = runs[runs.length - 1] as Measurement;
        console.error(
          `${formatCount(subscribers)} subscribers, ${server}: ${formatRate(run.deliveriesPerSecond)} deliveries/s, ` +
            `p50 ${formatMs(run.p50Ms)} ms, p99 ${formatMs(run.p99Ms)} ms, server CPU ${formatShare(run.serverCpu)}, client CPU ${formatShare(run.clientCpu)}`,
        );
      }
    }
    measurements.push(runs);
  }
  printReport(measurements, subscriberCounts, events, fileLimit);
}

await main();
