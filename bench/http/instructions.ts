/**
 * `npm run bench:http:instructions [-- scenario]`: what one request costs each server in
 * instructions and cache misses, counted by valgrind's callgrind, where `bench:http` measures
 * time. `hello-auth` counts our server's `{ hello }` with no credential, a JWT and an API key;
 * `hello-ratelimit` with no rate limit, the memory limiter and the Redis store; `route` the
 * resource route `GET /api/v1/authors` against the same operation POSTed and sent with GET to /graphql;
 * `hello-observability` with metrics off, on (the default), and with a request line each;
 * `hello-otel` without OpenTelemetry, with its spans, with a span per resolver too, and the
 * SDK's floor (a bare server making the same two spans) against the bare server without them.
 *
 * Why: on a shared machine, time is noisy. In a bad hour the same server measures 20–30% apart
 * from one run to the next, and neighbours slow the servers unevenly, which no number of rounds
 * fully cancels. Instruction counts do not depend on the neighbours: two runs of the same server
 * agree within about 0.5%. So this is the instrument for choosing between two versions of the
 * code, and for cross-checking a ratio that `bench:http` reports. It does not replace
 * `bench:http`: kernel time (the socket writes) is not counted, and cycles are only estimated.
 *
 * How: each server runs under callgrind with instrumentation off, is warmed up with autocannon
 * (32 connections, as in bench:http), then counted over a fixed number of requests. Only the
 * main thread is counted: V8's background threads (compilation, concurrent marking) run at
 * different moments under valgrind than at full speed, and their counts vary from run to run.
 * The young generation is fixed at 16 MB for every server, so that each counts its share of
 * scavenges rather than where its semi-space happened to have grown. The estimate of cycles
 * weighs each first-level cache miss as 10 instructions, as cachegrind's documentation suggests.
 *
 * Needs valgrind (`apt-get install valgrind`). Takes a few minutes: valgrind runs a server
 * about 50 times slower than normal.
 */
import autocannon from 'autocannon';
import type { Result } from 'autocannon';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { makeCredentials } from './credentials.ts';
import { CONNECTIONS, REQUEST_HEADERS, SERVERS, cannedFrom, startServer } from './harness.ts';
import type { ServerName } from './harness.ts';
import { SCENARIOS } from './scenarios.ts';

/** Requests before counting (until the JIT has settled), and requests counted, by scenario. */
const REQUESTS: Record<string, { warmup: number; counted: number }> = {
  hello: { warmup: 30_000, counted: 12_000 },
  'nested-lists': { warmup: 800, counted: 200 },
  route: { warmup: 10_000, counted: 4_000 },
};

/** The servers to count, the first being the base of the ratio. */
function selectServers(): ServerName[] {
  const names = (process.env.BENCH_HTTP_SERVERS ?? 'ceiling,ours').split(',');
  for (const name of names) {
    if (!(SERVERS as readonly string[]).includes(name)) throw new TypeError(`Unknown server "${name}"; the servers are: ${SERVERS.join(', ')}.`);
  }
  return names as ServerName[];
}

interface Counts {
  instructions: number;
  l1Misses: number;
}

/** Under callgrind, instrumentation off until the warm-up is over; every server with the same young generation. */
function callgrind(outFile: string) {
  return {
    tool: ['valgrind', '--tool=callgrind', '--instr-atstart=no', '--cache-sim=yes', '--separate-threads=yes', `--callgrind-out-file=${outFile}`],
    nodeFlags: ['--max-semi-space-size=16', '--min-semi-space-size=16'],
    quiet: true,
  };
}

function load(url: string, row: Counted, body: string, amount: number): PromiseLike<Result> {
  // A generous timeout: under valgrind a slow scenario's queued requests wait for seconds.
  if (row.get !== undefined) return autocannon({ url: new URL(row.get, url).href, method: 'GET', headers: row.headers, connections: CONNECTIONS, amount, timeout: 600 });
  return autocannon({ url, method: 'POST', headers: row.headers, body, connections: CONNECTIONS, amount, timeout: 600 });
}

/** One row of the report: a server process, started with its arguments, sent these headers. */
interface Counted {
  label: string;
  server: ServerName;
  args: string[];
  headers: Record<string, string>;
  /** A path (and query) to GET instead of POSTing the scenario's body. */
  get?: string;
}

/**
 * `hello-auth`: `{ hello }` to our plain server with no credential, and to our authenticating
 * server (see servers/ours.ts) with a JWT bearer token and with an API key, as in bench:http.
 * Two more rows send the same credentials to the plain server, where authentication is off and
 * the headers go unread: what node's parsing of the larger request costs by itself, apart from
 * what authenticating it costs.
 */
async function authenticatedRows(scratch: string): Promise<Counted[]> {
  const credentialsPath = join(scratch, 'credentials.json');
  const client = await makeCredentials(credentialsPath);
  return [
    { label: 'no credential', server: 'ours', args: [], headers: REQUEST_HEADERS },
    { label: 'JWT bearer', server: 'ours', args: [credentialsPath], headers: { ...REQUEST_HEADERS, authorization: `Bearer ${client.jwt}` } },
    { label: 'API key', server: 'ours', args: [credentialsPath], headers: { ...REQUEST_HEADERS, 'x-api-key': client.apiKey } },
    { label: 'JWT bearer, unread', server: 'ours', args: [], headers: { ...REQUEST_HEADERS, authorization: `Bearer ${client.jwt}` } },
    { label: 'API key, unread', server: 'ours', args: [], headers: { ...REQUEST_HEADERS, 'x-api-key': client.apiKey } },
  ];
}

/**
 * `hello-ratelimit`: `{ hello }` to our server without a limiter, with the memory one, with the
 * Redis store (REDIS_URL), and with one Redis PING per request in its place (the floor).
 */
function rateLimitedRows(): Counted[] {
  return [
    { label: 'no limiter', server: 'ours', args: [], headers: REQUEST_HEADERS },
    { label: 'memory limiter', server: 'ours', args: ['--rate-limit=memory'], headers: REQUEST_HEADERS },
    { label: 'Redis limiter', server: 'ours', args: ['--rate-limit=redis'], headers: REQUEST_HEADERS },
    { label: 'Redis round trip (floor)', server: 'ours', args: ['--rate-limit=redis-ping'], headers: REQUEST_HEADERS },
  ];
}

/**
 * `hello-observability`: `{ hello }` to our server with metrics off, with the defaults (metrics
 * counted, request lines off), and with a JSON request line each (`logLevel: 'info'`).
 */
function observedRows(): Counted[] {
  return [
    { label: 'metrics off', server: 'ours', args: ['--no-metrics'], headers: REQUEST_HEADERS },
    { label: 'defaults (metrics on)', server: 'ours', args: [], headers: REQUEST_HEADERS },
    { label: 'request lines (info)', server: 'ours', args: ['--log-info'], headers: REQUEST_HEADERS },
  ];
}

/**
 * `hello-otel`: `{ hello }` to our server without OpenTelemetry, with it (the SDK's batch span
 * processor and in-memory exporter: servers/otelSdk.ts), and with a span per resolver too; then
 * the ceiling and the ceiling making the same two spans (servers/otel-floor.ts): what ours adds
 * over the SDK's own cost is the difference of the two differences.
 */
function tracedRows(canned: string): Counted[] {
  return [
    { label: 'ours, no OpenTelemetry', server: 'ours', args: [], headers: REQUEST_HEADERS },
    { label: 'ours, OpenTelemetry', server: 'ours', args: ['--otel=batch'], headers: REQUEST_HEADERS },
    { label: 'ours, OpenTelemetry + resolver spans', server: 'ours', args: ['--otel=batch', '--otel-resolvers'], headers: REQUEST_HEADERS },
    { label: 'bare node:http (ceiling)', server: 'ceiling', args: [canned], headers: REQUEST_HEADERS },
    { label: 'bare node:http + the same 2 spans (floor)', server: 'otel-floor', args: [canned], headers: REQUEST_HEADERS },
  ];
}

/** The resource route's operation, as in bench:http's `route` scenario. */
const ROUTE_QUERY = '{ authors { id name } }';

/**
 * `route`: `GET /api/v1/authors` (servers/ours.ts with `--resources`) against the same
 * operation POSTed to /graphql and sent to it with GET, to the same kind of server process.
 */
function routedRows(): Counted[] {
  return [
    { label: 'POST /graphql', server: 'ours', args: ['--resources'], headers: REQUEST_HEADERS },
    { label: 'GET /graphql', server: 'ours', args: ['--resources'], headers: REQUEST_HEADERS, get: `/graphql?query=${encodeURIComponent(ROUTE_QUERY)}` },
    { label: 'GET /api/v1/authors', server: 'ours', args: ['--resources'], headers: REQUEST_HEADERS, get: '/api/v1/authors' },
  ];
}

/** The main thread's totals in a callgrind output (the file of thread 1). */
function mainThreadCounts(dir: string, outFile: string): Counts {
  const name = readdirSync(dir).find((file) => file.startsWith(`${outFile.split('/').pop()}.`) && file.endsWith('-01'));
  if (name === undefined) throw new Error(`callgrind wrote no main-thread file for ${outFile}.`);
  const text = readFileSync(join(dir, name), 'utf8');
  const events = /^events: (.*)$/m.exec(text)?.[1]?.split(' ') ?? [];
  const totals = (/^totals: (.*)$/m.exec(text)?.[1]?.split(' ') ?? []).map(Number);
  const of = (event: string) => totals[events.indexOf(event)] ?? 0;
  return { instructions: of('Ir'), l1Misses: of('I1mr') + of('D1mr') + of('D1mw') };
}

async function main(): Promise<void> {
  if (spawnSync('valgrind', ['--version']).status !== 0) throw new Error('valgrind is not installed (apt-get install valgrind).');
  const requested = process.argv[2] ?? 'hello';
  const authenticated = requested === 'hello-auth';
  const rateLimited = requested === 'hello-ratelimit';
  const routed = requested === 'route';
  const observed = requested === 'hello-observability';
  const traced = requested === 'hello-otel';
  const scenario = routed ? { name: 'route', query: ROUTE_QUERY } : SCENARIOS.find((candidate) => candidate.name === (authenticated || rateLimited || observed || traced ? 'hello' : requested));
  if (scenario === undefined) {
    throw new TypeError(`Unknown scenario; the scenarios are: ${[...SCENARIOS.map((s) => s.name), 'hello-auth', 'hello-ratelimit', 'hello-observability', 'hello-otel', 'route'].join(', ')}.`);
  }
  const { warmup, counted } = REQUESTS[scenario.name] as { warmup: number; counted: number };
  const body = JSON.stringify({ query: scenario.query });
  const scratch = mkdtempSync(join(os.tmpdir(), 'bench-instructions-'));
  try {
    let rows: Counted[];
    if (authenticated) {
      rows = await authenticatedRows(scratch);
    } else if (rateLimited) {
      rows = rateLimitedRows();
    } else if (routed) {
      rows = routedRows();
    } else if (observed) {
      rows = observedRows();
    } else {
      // The ceiling and the floors repeat our server's exact answer, as in bench:http.
      const ours = await startServer('ours');
      const response = await fetch(ours.url, { method: 'POST', headers: REQUEST_HEADERS, body });
      const canned = join(scratch, 'canned.json');
      writeFileSync(canned, JSON.stringify(cannedFrom(Object.fromEntries(response.headers), Buffer.from(await response.arrayBuffer()))));
      await ours.stop();
      rows = traced
        ? tracedRows(canned)
        : selectServers().map((name) => ({
            label: name,
            server: name,
            args: name === 'ceiling' || name === 'json-floor' ? [canned] : [],
            headers: REQUEST_HEADERS,
          }));
    }

    const counts = new Map<string, Counts>();
    for (const [index, row] of rows.entries()) {
      console.error(`${requested}: counting ${row.label} (${warmup} requests to warm up, then ${counted})…`);
      const outFile = join(scratch, `row${index}`);
      const server = await startServer(row.server, row.args, callgrind(outFile));
      await load(server.url, row, body, warmup);
      execFileSync('callgrind_control', ['--instr=on', String(server.pid)], { stdio: 'ignore' });
      const result = await load(server.url, row, body, counted);
      execFileSync('callgrind_control', ['--instr=off', String(server.pid)], { stdio: 'ignore' });
      execFileSync('callgrind_control', ['--dump', String(server.pid)], { stdio: 'ignore' });
      await server.stop();
      // Under valgrind on a busy machine a few connections can be reset (autocannon counts them as
      // errors and opens new ones): tolerated up to 1% of the requests, said, and left out of the count.
      const failed = result.non2xx + result.errors + result.timeouts;
      if (result.non2xx + result.timeouts > 0 || failed > result.requests.total / 100) {
        throw new Error(`${row.label} failed requests while counted (${result.non2xx} not 2xx, ${result.errors} errors, ${result.timeouts} timeouts).`);
      }
      if (failed > 0) console.error(`${row.label}: ${result.errors} connection errors while counted (of ${result.requests.total} requests).`);
      const total = mainThreadCounts(scratch, outFile);
      counts.set(row.label, { instructions: total.instructions / result.requests.total, l1Misses: total.l1Misses / result.requests.total });
    }

    const estimate = (c: Counts) => c.instructions + 10 * c.l1Misses;
    const first = (rows[0] as Counted).label;
    const base = counts.get(first) as Counts;
    console.log(`${requested}: per request, main thread, ${counted} requests after ${warmup}, ${CONNECTIONS} connections (callgrind)`);
    console.log();
    const rowName = authenticated ? 'credential' : rateLimited ? 'limiter' : routed ? 'request' : 'server';
    console.log(`| ${rowName} | instructions | L1 misses | estimated cycles | ${first} ÷ ${rowName} |`);
    console.log('|---|--:|--:|--:|--:|');
    for (const [name, c] of counts) {
      const format = (value: number) => Math.round(value).toLocaleString('en-US');
      console.log(`| ${name} | ${format(c.instructions)} | ${format(c.l1Misses)} | ${format(estimate(c))} | ${(estimate(base) / estimate(c)).toFixed(3)} |`);
    }
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

await main();
