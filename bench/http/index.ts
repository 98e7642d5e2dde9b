/**
 * `npm run bench:http [-- scenario...]`: requests per second over real HTTP, for our server
 * against a bare `node:http` ceiling, a JSON floor (a bare server that parses the request and
 * stringifies a ready-made result: what any JSON API must pay, see servers/json-floor.ts), and
 * fastify + mercurius (with graphql-jit).
 *
 * Each server runs in its own child process (servers/*.ts) and is driven by autocannon from
 * this one. For each scenario the runner starts our server first and keeps the exact bytes
 * and headers it answers; the ceiling then serves those bytes, so it does everything our server
 * does at the HTTP level and nothing else, and the JSON floor stringifies what they parse to.
 * Before anything is timed, every server must return the `data` graphql-js computes for the
 * scenario, with no errors, on two requests in a row (the first may fill a cache or trigger a
 * compilation; the second takes the path the timed requests take). Then each server is warmed up and timed, one server under load at a time, in
 * interleaved rounds (see `measureServers`).
 *
 * `hello-auth` (run with the others unless scenarios are named) sends `{ hello }` with no
 * credential, with a JWT bearer token and with an API key, each to its own process of our
 * server, and reports each rate against the unauthenticated one (see runAuthenticated).
 * `hello-ratelimit` likewise sends `{ hello }` to our server with no rate limit, with the
 * memory limiter and with the Redis store (REDIS_URL, default redis://127.0.0.1:6379; left out
 * when Redis does not answer), each charging every request, and with a store whose charge is
 * one Redis PING: the floor of one round trip per request (see runRateLimited).
 *
 * The report is a Markdown table of requests per second, p99 latency and ratios against the
 * ceiling, the JSON floor and mercurius measured in the same run, then the CPU each side used. autocannon runs
 * on one core, and when it uses all of it the fastest servers are measured against its limit
 * rather than their own, which the report then says; when neither side is busy, round trips
 * bound the rate, and the server's CPU per request tells the servers apart instead. Nothing
 * is asserted about speed.
 *
 * Environment: BENCH_HTTP_SECONDS (timed seconds per server per scenario, default 10),
 * BENCH_HTTP_WARMUP_SECONDS (untimed seconds first, default 2), BENCH_HTTP_REPEATS (whole
 * measurements in a row, default 1: on a shared machine one run can land in a bad minute, so
 * the report ends with each bar's ratio in every repeat, and their median), BENCH_HTTP_CPU_PROF (a
 * directory: run every server under `--cpu-prof`, writing its profiles into the folder
 * `<server>-<scenario>` there; the main thread's is the largest), BENCH_HTTP_PIN (default 1: on a
 * machine with two cores or more and `taskset`, the server under test runs on one core and the
 * load generator on another; 0 leaves placement to the scheduler; see `cpuPlacement`).
 */
import '../production-mode.ts';
import autocannon from 'autocannon';
import { execute, parse } from 'graphql';
import type { ExecutionResult } from 'graphql';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { createBenchSchema, createDb } from '../schema.ts';
import { CONNECTIONS, REQUEST_HEADERS, SERVERS, cannedFrom, cpuPlacement, startServer } from './harness.ts';
import type { RunningServer, ServerName } from './harness.ts';
import { makeCredentials } from './credentials.ts';
import { SCENARIOS } from './scenarios.ts';
import type { HttpScenario } from './scenarios.ts';

/** The timed seconds are cut into rounds of about this long; see `measureServers`. */
const ROUND_SECONDS = 2;

interface Timing {
  /** Timed seconds per server per scenario, across all rounds. */
  seconds: number;
  /** Untimed seconds per server per scenario, first. */
  warmupSeconds: number;
}

/**
 * `{ hello }` sent by an authenticated client, against the same query sent with no credential:
 * what authentication costs per request once the credential has been verified (and cached).
 * Its rows are labelled by credential rather than by server.
 */
const AUTH_SCENARIO = 'hello-auth';
const NO_CREDENTIAL = 'no credential';
const JWT_BEARER = 'JWT bearer';
const API_KEY = 'API key';

/** A resource route against the same operation over /graphql. */
const ROUTE_SCENARIO = 'route';
const ROUTE_PATH = '/api/v1/authors';
const ROUTE_QUERY = '{ authors { id name } }';
const VIA_GRAPHQL = 'POST /graphql';
/** The same query over GET: a cacheable read with an ETag, as the route is. */
const VIA_GRAPHQL_GET = 'GET /graphql';
const VIA_ROUTE = 'GET /api/v1/authors';

/** `{ hello }` through the rate limiter, against the same server without one. */
const RATE_LIMIT_SCENARIO = 'hello-ratelimit';
const NO_LIMITER = 'no limiter';
const MEMORY_LIMITER = 'memory limiter';
const REDIS_LIMITER = 'Redis limiter';
/** One Redis PING per request in the limiter's place: the floor of any limit shared through Redis. */
const REDIS_FLOOR = 'Redis round trip (floor)';

/** The bars the issues set. They are reported against the run, never asserted. */
const BARS = [
  { scenario: 'hello', server: 'ours', against: 'ceiling', atLeast: 0.9 },
  { scenario: 'nested-lists', server: 'ours', against: 'mercurius', atLeast: 1.5 },
  { scenario: AUTH_SCENARIO, server: JWT_BEARER, against: NO_CREDENTIAL, atLeast: 0.9 },
  { scenario: AUTH_SCENARIO, server: API_KEY, against: NO_CREDENTIAL, atLeast: 0.9 },
  { scenario: RATE_LIMIT_SCENARIO, server: MEMORY_LIMITER, against: NO_LIMITER, atLeast: 0.95 },
  // The route may cost at most 1.1× the GraphQL request: its rate at least 1/1.1 of it.
  { scenario: ROUTE_SCENARIO, server: VIA_ROUTE, against: VIA_GRAPHQL, atLeast: 0.91 },
] as const;

/** A server under load and the headers it is sent; rows are by label (a server's name, or a credential). */
interface Contender {
  label: string;
  server: RunningServer;
  headers: Record<string, string>;
  /** A resource route to GET instead of POSTing the scenario to /graphql. */
  route?: string;
}

const plainContender = (server: RunningServer): Contender => ({ label: server.name, server, headers: REQUEST_HEADERS });

/** Above this share of a core, the load generator is likely the bottleneck, not the server. */
const SATURATED_CPU = 0.9;

interface Response {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

interface Row {
  scenario: string;
  /** The contender's label. */
  server: string;
  requestsPerSecond: number;
  p99Ms: number;
  /** Shares of one core, over the timed run. */
  serverCpu: number;
  loadGeneratorCpu: number;
}

/**
 * BENCH_HTTP_CPU_PROF: node's flags to write the server's CPU profiles into the folder
 * `<server>-<scenario>` there (a folder each: tsx's loader thread writes a profile of its own).
 */
function profileFlags(name: ServerName, scenario: HttpScenario): string[] {
  const profileDir = process.env.BENCH_HTTP_CPU_PROF;
  if (profileDir === undefined || profileDir === '') return [];
  return ['--cpu-prof', `--cpu-prof-dir=${resolve(profileDir, `${name}-${scenario.name}`)}`];
}

function requestBody(scenario: HttpScenario): string {
  return JSON.stringify({ query: scenario.query });
}

async function post(url: string, headers: Record<string, string>, body: string): Promise<Response> {
  const response = await fetch(url, { method: 'POST', headers, body });
  return {
    status: response.status,
    headers: Object.fromEntries(response.headers),
    body: Buffer.from(await response.arrayBuffer()),
  };
}

/** The `data` graphql-js computes for the scenario, as JSON: what every server must answer. */
function expectedData(scenario: HttpScenario): string {
  const result = execute({
    schema: createBenchSchema('sync'),
    document: parse(scenario.query),
    contextValue: { db: createDb() },
  }) as ExecutionResult;
  if (result.errors !== undefined) {
    throw new Error(`${scenario.name}: graphql-js returned errors, so the scenario itself is broken: ${JSON.stringify(result.errors)}`);
  }
  return JSON.stringify(result.data);
}

/**
 * Throws unless the server answers 200 with exactly the expected `data` and no errors, on two
 * requests in a row. Answers the second response.
 */
async function assertServerAnswers(contender: Contender, scenario: HttpScenario, expected: string): Promise<Response> {
  let response: Response | undefined;
  for (const call of ['first', 'second']) {
    response = await post(contender.server.url, contender.headers, requestBody(scenario));
    const text = response.body.toString('utf8');
    const where = `${scenario.name}: the ${contender.label} server's ${call} response`;
    if (response.status !== 200) throw new Error(`${where} has status ${response.status}: ${text.slice(0, 500)}`);
    let parsed: ExecutionResult;
    try {
      parsed = JSON.parse(text) as ExecutionResult;
    } catch (error) {
      throw new Error(`${where} is not JSON: ${text.slice(0, 500)}`, { cause: error });
    }
    if (parsed.errors !== undefined) throw new Error(`${where} has errors: ${JSON.stringify(parsed.errors)}`);
    const actual = JSON.stringify(parsed.data);
    if (actual !== expected) throw new Error(`${where} has different data from graphql-js.\n${describeDifference(expected, actual)}`);
  }
  return response as Response;
}

/** Shows both JSON texts around their first differing character, so a mismatch can be read. */
function describeDifference(expected: string, actual: string): string {
  let at = 0;
  while (at < expected.length && expected[at] === actual[at]) at++;
  const excerpt = (text: string) => text.slice(Math.max(0, at - 60), at + 60);
  return `First difference at character ${at}:\n  expected …${excerpt(expected)}…\n  actual   …${excerpt(actual)}…`;
}

function load(contender: Contender, scenario: HttpScenario, seconds: number) {
  if (contender.route !== undefined) {
    return autocannon({
      url: new URL(contender.route, contender.server.url).href,
      method: 'GET',
      // The header CSRF prevention (on by default) asks of a GET to /graphql (the route ignores it).
      headers: { accept: 'application/json', 'x-graphql-csrf': '1' },
      connections: CONNECTIONS,
      pipelining: 1,
      duration: seconds,
    });
  }
  return autocannon({
    url: contender.server.url,
    method: 'POST',
    headers: contender.headers,
    body: requestBody(scenario),
    connections: CONNECTIONS,
    pipelining: 1,
    duration: seconds,
  });
}

interface Round {
  requestsPerSecond: number;
  p99Ms: number;
  serverCpuMicros: number;
  loadGeneratorCpuMicros: number;
  wallMicros: number;
}

/** One timed autocannon run against one server, with the CPU both sides used during it. */
async function timeRound(contender: Contender, scenario: HttpScenario, seconds: number): Promise<Round> {
  const { server } = contender;
  const serverBefore = await server.cpuMicros();
  const ownBefore = process.cpuUsage();
  const startedAt = performance.now();
  const result = await load(contender, scenario, seconds);
  const wallMicros = (performance.now() - startedAt) * 1000;
  const own = process.cpuUsage(ownBefore);
  const serverCpuMicros = (await server.cpuMicros()) - serverBefore;
  const failures = result.errors + result.timeouts + result.non2xx;
  if (failures > 0) {
    throw new Error(
      `${scenario.name}: the ${contender.label} server failed under load (${result.errors} errors, ` +
        `${result.timeouts} timeouts, ${result.non2xx} non-2xx responses), so its rate means nothing.`,
    );
  }
  return {
    requestsPerSecond: result.requests.total / result.duration,
    p99Ms: result.latency.p99,
    serverCpuMicros,
    loadGeneratorCpuMicros: own.user + own.system,
    wallMicros,
  };
}

function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? (sorted[middle] as number) : ((sorted[middle - 1] as number) + (sorted[middle] as number)) / 2;
}

/**
 * Warms every server up, then times them in rounds of about ROUND_SECONDS each, every round
 * visiting every server in an order that rotates from round to round. Whatever else the
 * machine is doing meanwhile then falls on all servers much alike, and the median of the
 * rounds shrugs off the round it spoiled most.
 */
async function measureServers(servers: readonly Contender[], scenario: HttpScenario, timing: Timing, label = scenario.name): Promise<Row[]> {
  for (const server of servers) {
    console.error(`${label}: warming up ${server.label}…`);
    await load(server, scenario, timing.warmupSeconds);
  }
  const roundCount = Math.max(1, Math.round(timing.seconds / ROUND_SECONDS));
  const rounds: Round[][] = servers.map(() => []);
  for (let round = 0; round < roundCount; round++) {
    console.error(`${label}: round ${round + 1} of ${roundCount}…`);
    for (let turn = 0; turn < servers.length; turn++) {
      const index = (round + turn) % servers.length;
      (rounds[index] as Round[]).push(await timeRound(servers[index] as Contender, scenario, timing.seconds / roundCount));
    }
  }
  return servers.map((server, index) => {
    const measured = rounds[index] as Round[];
    const wallMicros = measured.reduce((sum, round) => sum + round.wallMicros, 0);
    return {
      scenario: label,
      server: server.label,
      requestsPerSecond: median(measured.map((round) => round.requestsPerSecond)),
      p99Ms: median(measured.map((round) => round.p99Ms)),
      serverCpu: measured.reduce((sum, round) => sum + round.serverCpuMicros, 0) / wallMicros,
      loadGeneratorCpu: measured.reduce((sum, round) => sum + round.loadGeneratorCpuMicros, 0) / wallMicros,
    };
  });
}

async function runScenario(scenario: HttpScenario, timing: Timing, scratch: string): Promise<Row[]> {
  const expected = expectedData(scenario);
  const started: RunningServer[] = [];
  try {
    const start = (name: ServerName, args: string[] = []) => startServer(name, args, { nodeFlags: profileFlags(name, scenario) });
    const ours = await start('ours');
    started.push(ours);
    const oursResponse = await assertServerAnswers(plainContender(ours), scenario, expected);
    const cannedPath = join(scratch, `${scenario.name}.json`);
    writeFileSync(cannedPath, JSON.stringify(cannedFrom(oursResponse.headers, oursResponse.body)));
    started.push(await start('ceiling', [cannedPath]));
    started.push(await start('json-floor', [cannedPath]));
    started.push(await start('mercurius'));
    for (const server of started) {
      if (server !== ours) await assertServerAnswers(plainContender(server), scenario, expected);
    }
    console.error(`${scenario.name}: every server answers the expected ${oursResponse.body.length} bytes of JSON; measuring…`);

    const inReportOrder = SERVERS.map((name) => plainContender(started.find((server) => server.name === name) as RunningServer));
    return await measureServers(inReportOrder, scenario, timing);
  } finally {
    await Promise.all(started.map((server) => server.stop()));
  }
}

/** A positive whole number from the environment (`unit` names what it counts, for the error). */
function readCount(name: string, defaultValue: number, unit: string): number {
  const raw = process.env[name];
  if (raw === undefined || raw === '') return defaultValue;
  const value = Number(raw);
  if (!Number.isInteger(value) || value <= 0) {
    throw new TypeError(`${name} must be a positive whole number of ${unit}, but got "${raw}".`);
  }
  return value;
}

/** The scenarios named on the command line (all of them when none is), and whether the authenticated run is one. */
function selectScenarios(names: string[]): { scenarios: HttpScenario[]; authenticated: boolean; rateLimited: boolean; routed: boolean } {
  if (names.length === 0) return { scenarios: [...SCENARIOS], authenticated: true, rateLimited: true, routed: true };
  const known = [...SCENARIOS.map((scenario) => scenario.name), AUTH_SCENARIO, RATE_LIMIT_SCENARIO, ROUTE_SCENARIO];
  for (const name of names) {
    if (!known.includes(name)) throw new TypeError(`Unknown scenario "${name}"; the scenarios are: ${known.join(', ')}.`);
  }
  return {
    scenarios: SCENARIOS.filter((scenario) => names.includes(scenario.name)),
    authenticated: names.includes(AUTH_SCENARIO),
    rateLimited: names.includes(RATE_LIMIT_SCENARIO),
    routed: names.includes(ROUTE_SCENARIO),
  };
}

/**
 * `{ hello }` with no credential, with a JWT bearer token and with an API key, each to its own
 * server process: the first is our plain server (no authentication configured at all), the
 * other two authenticate with jwtAuth and apiKeyAuth. The token and the key are verified on the
 * first request and served from the credential cache after, as a client sending the same
 * credential again and again finds them.
 */
async function runAuthenticated(timing: Timing, scratch: string): Promise<Row[]> {
  const credentialsPath = join(scratch, 'credentials.json');
  const client = await makeCredentials(credentialsPath);
  return measureOurVariants(
    AUTH_SCENARIO,
    timing,
    async (start) => [
      { label: NO_CREDENTIAL, server: await start(), headers: REQUEST_HEADERS },
      { label: JWT_BEARER, server: await start([credentialsPath]), headers: { ...REQUEST_HEADERS, authorization: `Bearer ${client.jwt}` } },
      { label: API_KEY, server: await start([credentialsPath]), headers: { ...REQUEST_HEADERS, 'x-api-key': client.apiKey } },
    ],
    // The authenticating servers must really check: a wrong credential is refused.
    async (contender, body) => {
      const refused = await post(contender.server.url, { ...REQUEST_HEADERS, 'x-api-key': 'not-the-key' }, body);
      if (refused.status !== 401) throw new Error(`${AUTH_SCENARIO}: the ${contender.label} server answered a wrong key with ${refused.status}, not 401.`);
    },
    'refuses a wrong key',
  );
}

/**
 * `{ hello }` to processes of our server started with different arguments: each must answer
 * the expected data, and every one but the first (the base) must pass `check`; then they are
 * measured in interleaved rounds.
 */
async function measureOurVariants(
  label: string,
  timing: Timing,
  contendersOf: (start: (args?: string[]) => Promise<RunningServer>) => Promise<Contender[]>,
  check: (contender: Contender, body: string) => Promise<void>,
  checked: string,
): Promise<Row[]> {
  const scenario = SCENARIOS.find((candidate) => candidate.name === 'hello') as HttpScenario;
  const expected = expectedData(scenario);
  const started: RunningServer[] = [];
  try {
    const contenders = await contendersOf(async (args: string[] = []) => {
      const server = await startServer('ours', args);
      started.push(server);
      return server;
    });
    for (const contender of contenders) await assertServerAnswers(contender, scenario, expected);
    for (const contender of contenders.slice(1)) await check(contender, requestBody(scenario));
    console.error(`${label}: every server answers the expected data, and ${checked}; measuring…`);
    return await measureServers(contenders, scenario, timing, label);
  } finally {
    await Promise.all(started.map((server) => server.stop()));
  }
}

/**
 * `{ hello }` to our server without a rate limit, with the memory limiter, and with the Redis
 * store (one round trip to Redis per request: the floor for a limit shared by instances), each
 * in its own process. Every request is charged; the budget is never exhausted.
 */
async function runRateLimited(timing: Timing): Promise<Row[]> {
  return measureOurVariants(
    RATE_LIMIT_SCENARIO,
    timing,
    async (start) => {
      const contenders: Contender[] = [
        { label: NO_LIMITER, server: await start(), headers: REQUEST_HEADERS },
        { label: MEMORY_LIMITER, server: await start(['--rate-limit=memory']), headers: REQUEST_HEADERS },
      ];
      const redis = await start(['--rate-limit=redis']);
      const probe = await post(redis.url, REQUEST_HEADERS, requestBody(SCENARIOS.find((candidate) => candidate.name === 'hello') as HttpScenario));
      if (probe.status === 200) {
        contenders.push({ label: REDIS_LIMITER, server: redis, headers: REQUEST_HEADERS });
        contenders.push({ label: REDIS_FLOOR, server: await start(['--rate-limit=redis-ping']), headers: REQUEST_HEADERS });
      } else {
        console.error(`${RATE_LIMIT_SCENARIO}: the Redis store answered ${probe.status} (is Redis running at REDIS_URL?); measured without it.`);
      }
      return contenders;
    },
    // The limiting servers must really limit: their answers say where the budget stands.
    async (contender, body) => {
      const answer = await post(contender.server.url, REQUEST_HEADERS, body);
      if (answer.headers['ratelimit'] === undefined) throw new Error(`${RATE_LIMIT_SCENARIO}: the ${contender.label} server sent no RateLimit header.`);
    },
    'the limiters send RateLimit headers',
  );
}

/**
 * `GET /api/v1/authors` (a resource route, `--resources` in servers/ours.ts) against the same
 * operation POSTed to /graphql and sent to it with GET, to the same server process: what the
 * resource surface costs on top of the operation it runs.
 */
async function runRouted(timing: Timing): Promise<Row[]> {
  const scenario: HttpScenario = { name: ROUTE_SCENARIO, query: ROUTE_QUERY };
  const server = await startServer('ours', ['--resources']);
  try {
    const graphql = await post(server.url, REQUEST_HEADERS, requestBody(scenario));
    const routed = await fetch(new URL(ROUTE_PATH, server.url));
    const viaGraphql = JSON.stringify((JSON.parse(graphql.body.toString('utf8')) as { data: { authors: unknown } }).data.authors);
    const viaRoute = JSON.stringify(((await routed.json()) as { data: unknown }).data);
    if (graphql.status !== 200 || routed.status !== 200 || viaGraphql !== viaRoute) {
      throw new Error(`${ROUTE_SCENARIO}: the route and /graphql answer differently (${routed.status}, ${graphql.status}).`);
    }
    console.error(`${ROUTE_SCENARIO}: the route answers what /graphql answers; measuring…`);
    return await measureServers(
      [
        { label: VIA_GRAPHQL, server, headers: REQUEST_HEADERS },
        { label: VIA_GRAPHQL_GET, server, headers: REQUEST_HEADERS, route: `/graphql?query=${encodeURIComponent(ROUTE_QUERY)}` },
        { label: VIA_ROUTE, server, headers: REQUEST_HEADERS, route: ROUTE_PATH },
      ],
      scenario,
      timing,
      ROUTE_SCENARIO,
    );
  } finally {
    await server.stop();
  }
}

const formatRate = (rate: number) => rate.toLocaleString('en-US', { maximumFractionDigits: 0 });
const formatShare = (share: number) => `${Math.round(share * 100)}%`;

function rowOf(rows: readonly Row[], scenario: string, server: string): Row {
  const row = rows.find((candidate) => candidate.scenario === scenario && candidate.server === server);
  if (row === undefined) throw new Error(`No measurement of ${server} on ${scenario}.`);
  return row;
}

function ratio(rows: readonly Row[], row: Row, against: string): number {
  return row.requestsPerSecond / rowOf(rows, row.scenario, against).requestsPerSecond;
}

function printReport(allRows: readonly Row[], { seconds, warmupSeconds }: Timing): void {
  const rows = allRows.filter((row) => row.scenario !== AUTH_SCENARIO && row.scenario !== RATE_LIMIT_SCENARIO && row.scenario !== ROUTE_SCENARIO);
  const routedRows = allRows.filter((row) => row.scenario === ROUTE_SCENARIO);
  const authRows = allRows.filter((row) => row.scenario === AUTH_SCENARIO);
  const limitedRows = allRows.filter((row) => row.scenario === RATE_LIMIT_SCENARIO);
  const cpus = os.cpus();
  console.log(
    `Node ${process.version} (${process.platform} ${process.arch}, ${cpus.length} × ${cpus[0]?.model ?? 'unknown CPU'}), ` +
      `NODE_ENV=${process.env.NODE_ENV}; autocannon, ${CONNECTIONS} connections, no pipelining; ` +
      `${seconds} s timed per server per scenario, in interleaved rounds of about ${ROUND_SECONDS} s, after ${warmupSeconds} s ` +
      `of warm-up; one server under load at a time, ${cpuPlacement().description}. req/s and p99 are the medians of the rounds.`,
  );
  if (rows.length > 0) printServers(rows);
  if (authRows.length > 0) {
    printVariants(authRows, `${AUTH_SCENARIO}: \`{ hello }\` to our server, by the credential sent (each to its own server process):`, 'credential', NO_CREDENTIAL);
  }
  if (routedRows.length > 0) {
    printVariants(routedRows, `${ROUTE_SCENARIO}: \`${ROUTE_QUERY}\` as a resource route and over /graphql (one server process):`, 'request', VIA_GRAPHQL);
  }
  if (limitedRows.length > 0) {
    printVariants(limitedRows, `${RATE_LIMIT_SCENARIO}: \`{ hello }\` to our server, by rate limiter (each in its own server process):`, 'limiter', NO_LIMITER);
  }
  printBars(allRows);
}

function printServers(rows: readonly Row[]): void {
  console.log();
  console.log('| scenario | server | req/s | p99 latency (ms) | ÷ ceiling | ÷ json-floor | ÷ mercurius |');
  console.log('|---|---|--:|--:|--:|--:|--:|');
  for (const row of rows) {
    console.log(
      `| ${row.scenario} | ${row.server} | ${formatRate(row.requestsPerSecond)} | ${row.p99Ms} ` +
        `| ${ratio(rows, row, 'ceiling').toFixed(2)} | ${ratio(rows, row, 'json-floor').toFixed(2)} | ${ratio(rows, row, 'mercurius').toFixed(2)} |`,
    );
  }

  console.log();
  // When neither side uses a whole core, the rate is bounded by round trips rather than by
  // work, and the CPU each request cost the server is the better comparison.
  console.log('CPU used during the timed runs (shares of one core; GC threads can take a server past 100%):');
  console.log();
  console.log('| scenario | server | server CPU | server CPU per request (µs) | load generator CPU |');
  console.log('|---|---|--:|--:|--:|');
  for (const row of rows) {
    const perRequest = Math.round((row.serverCpu * 1e6) / row.requestsPerSecond);
    console.log(
      `| ${row.scenario} | ${row.server} | ${formatShare(row.serverCpu)} | ${perRequest} | ${formatShare(row.loadGeneratorCpu)} |`,
    );
  }
  const saturated = rows.filter((row) => row.loadGeneratorCpu >= SATURATED_CPU);
  if (saturated.length > 0) {
    console.log();
    console.log(
      `The load generator used ${formatShare(SATURATED_CPU)} of a core or more while measuring ` +
        `${saturated.map((row) => `${row.server} on ${row.scenario}`).join(', ')}: those rates may be autocannon's ` +
        'limit on this machine rather than the server\'s, and ratios between them understate the differences.',
    );
  }

}

/**
 * `{ hello }` to variants of our server (by credential, by rate limiter): rates, the ratio to
 * the first, and the server's CPU per request.
 */
function printVariants(rows: readonly Row[], title: string, column: string, base: string): void {
  console.log();
  console.log(title);
  console.log();
  console.log(`| ${column} | req/s | p99 latency (ms) | ÷ ${base} | server CPU per request (µs) | load generator CPU |`);
  console.log('|---|--:|--:|--:|--:|--:|');
  for (const row of rows) {
    const perRequest = Math.round((row.serverCpu * 1e6) / row.requestsPerSecond);
    console.log(
      `| ${row.server} | ${formatRate(row.requestsPerSecond)} | ${row.p99Ms} | ${ratio(rows, row, base).toFixed(2)} ` +
        `| ${perRequest} | ${formatShare(row.loadGeneratorCpu)} |`,
    );
  }
}

function printBars(rows: readonly Row[]): void {
  const bars = BARS.filter((bar) => rows.some((row) => row.scenario === bar.scenario));
  if (bars.length === 0) return;
  console.log();
  console.log("The issues' bars (reported, not asserted):");
  console.log();
  for (const bar of bars) {
    const measured = ratio(rows, rowOf(rows, bar.scenario, bar.server), bar.against);
    const verdict = measured >= bar.atLeast ? 'met' : 'not met';
    console.log(`- ${bar.scenario}: ${bar.server} ÷ ${bar.against} = ${measured.toFixed(2)}, bar ≥ ${bar.atLeast.toFixed(2)}: ${verdict}`);
  }
}

async function main(): Promise<void> {
  const timing: Timing = {
    seconds: readCount('BENCH_HTTP_SECONDS', 10, 'seconds'),
    warmupSeconds: readCount('BENCH_HTTP_WARMUP_SECONDS', 2, 'seconds'),
  };
  const repeats = readCount('BENCH_HTTP_REPEATS', 1, 'repeats');
  const { scenarios, authenticated, rateLimited, routed } = selectScenarios(process.argv.slice(2));
  const scratch = mkdtempSync(join(os.tmpdir(), 'bench-http-'));
  try {
    const measurements: Row[][] = [];
    for (let repeat = 0; repeat < repeats; repeat++) {
      if (repeats > 1) console.error(`repeat ${repeat + 1} of ${repeats}…`);
      const rows: Row[] = [];
      for (const scenario of scenarios) rows.push(...(await runScenario(scenario, timing, scratch)));
      if (authenticated) rows.push(...(await runAuthenticated(timing, scratch)));
      if (rateLimited) rows.push(...(await runRateLimited(timing)));
      if (routed) rows.push(...(await runRouted(timing)));
      measurements.push(rows);
      if (repeats > 1) console.log(`\n## Repeat ${repeat + 1} of ${repeats}\n`);
      printReport(rows, timing);
    }
    if (repeats > 1) printBarsAcrossRepeats(measurements);
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

/** Each bar's ratio in every repeat, and the median: what one run on a shared machine cannot show. */
function printBarsAcrossRepeats(measurements: readonly Row[][]): void {
  console.log();
  console.log("The issues' bars across repeats (reported, not asserted):");
  console.log();
  for (const bar of BARS) {
    const ratios = measurements
      .filter((rows) => rows.some((row) => row.scenario === bar.scenario))
      .map((rows) => ratio(rows, rowOf(rows, bar.scenario, bar.server), bar.against));
    if (ratios.length === 0) continue;
    const middle = median(ratios);
    const met = ratios.filter((value) => value >= bar.atLeast).length;
    console.log(
      `- ${bar.scenario}: ${bar.server} ÷ ${bar.against} = ${ratios.map((value) => value.toFixed(2)).join(', ')}; ` +
        `median ${middle.toFixed(2)}, bar ≥ ${bar.atLeast.toFixed(2)}: met in ${met} of ${ratios.length}`,
    );
  }
}

await main();
