/**
 * `npm run bench:hostile`: what an anonymous client can do to the demo server, attack by attack.
 *
 * The server runs in its own process (server.ts). Each attack runs for a bounded time while a
 * well-behaved client sends `{ __typename }` one request after another beside it, and the report
 * says, per attack: the server's resident memory before, at once after, and once it has been
 * idle for a while (settle(); each measured after a collection), the longest the server's event
 * loop was held (monitorEventLoopDelay), and the well-behaved client's p99 latency against its
 * own p99 on the idle server, measured first. The targets: what the attack leaves the server
 * holding (memory once idle) is less than 50 MB more, no delay reaches 50 ms, and the good
 * client's p99 stays within twice its idle p99. Nothing is asserted: the table says which
 * targets each attack met.
 *
 * Two servers, one after the other: `open`, as `npm start` serves by default (no rate limits:
 * the bounds on memory and on the event loop must hold without them), and `limited`, as a
 * deployment behind a proxy would run it (RATE_LIMIT_PER_MINUTE=600, TRUST_PROXY=1, and the
 * demo's 1 s hold of a 429), the attacker from one forwarded address and the good client from
 * many, each within its budget (goodClient.ts). An attacker that may use all
 * of the server's CPU slows everyone on it; what keeps a good client's latency is a budget per
 * client, and the second table measures that.
 *
 * Environment: BENCH_HOSTILE_SECONDS (seconds per attack, default 5), BENCH_HOSTILE_CONCURRENCY
 * (attacking loops, default 8), BENCH_HOSTILE_ATTACKS (the attacks to run, by name, separated by
 * commas; default all), BENCH_HOSTILE_SERVERS (open, limited or both, the default),
 * BENCH_HOSTILE_SETTLE_SECONDS (the longest the server idles after an attack while its memory
 * settles, default 40).
 */
import { fork } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { fileURLToPath } from 'node:url';
import { WebSocket } from 'ws';

const SECONDS = Number(process.env.BENCH_HOSTILE_SECONDS ?? 5);
const CONCURRENCY = Number(process.env.BENCH_HOSTILE_CONCURRENCY ?? 8);
/** The longest the server idles after an attack while its memory settles (settle()). */
const SETTLE_SECONDS = Number(process.env.BENCH_HOSTILE_SETTLE_SECONDS ?? 40);
const MB = 1024 * 1024;
/** The names listed in an environment variable (separated by commas), or null for all. */
const chosen = (name: string): string[] | null => process.env[name]?.split(',').map((item) => item.trim()).filter(Boolean) ?? null;
const ONLY_ATTACKS = chosen('BENCH_HOSTILE_ATTACKS');
const ONLY_SERVERS = chosen('BENCH_HOSTILE_SERVERS');

interface Measure {
  rss: number;
  heapUsed: number;
  worstDelayMs: number;
}

interface Target {
  readonly base: string;
  readonly port: number;
}

/** One attack: what it sends, over and over, from CONCURRENCY loops, until `until`. */
interface Attack {
  readonly name: string;
  readonly what: string;
  run(target: Target, until: number): Promise<number>;
}

/** A counter that makes every document of an attack distinct (so no cache answers it). */
let serial = 0;
const distinct = () => `${process.pid}_${serial++}`;

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

/** The addresses the proxy in front of the `limited` server would forward (ignored by `open`). */
const ATTACKER = { 'x-forwarded-for': '203.0.113.7' };

/** One request (the attacker's unless its headers say otherwise); resolves with the status once the whole answer is read (never rejects). */
function request(target: Target, method: string, path: string, body: string | null, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((resolve) => {
    const sent = { ...ATTACKER, ...headers, ...(body === null ? {} : { 'content-length': String(Buffer.byteLength(body)) }) };
    const req = http.request({ host: '127.0.0.1', port: target.port, method, path, agent, headers: sent }, (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
      res.on('error', () => resolve(0));
    });
    req.on('error', () => resolve(0));
    req.end(body ?? undefined);
  });
}

const postGraphql = (target: Target, payload: unknown, headers: Record<string, string> = {}) =>
  request(target, 'POST', '/graphql', JSON.stringify(payload), { 'content-type': 'application/json', ...headers });

/** Runs `send` from CONCURRENCY loops until `until`; answers how many were sent. */
async function loops(until: number, send: () => Promise<unknown>): Promise<number> {
  let sent = 0;
  await Promise.all(
    Array.from({ length: CONCURRENCY }, async () => {
      while (Date.now() < until) {
        await send();
        sent++;
      }
    }),
  );
  return sent;
}

const pad = (characters: number) => `# ${'x'.repeat(characters)}`;
/** The costliest document to validate within the default limits that we know of: 63 same-named fields with sub-selections. */
const worstValid = () => `query W${distinct()} { ${'me { id kind roles scopes } '.repeat(63)}}`;

const ATTACKS: Attack[] = [
  {
    name: 'refused-large',
    what: '1 MB documents, each new, refused as DOCUMENT_TOO_LARGE',
    run: (target, until) => loops(until, () => postGraphql(target, { query: `{ __typename } ${pad(1_000_000)} ${distinct()}` })),
  },
  {
    name: 'distinct-documents',
    what: 'valid documents of 99 KB (a comment), each new: the document cache fills to its byte bound',
    run: (target, until) => loops(until, () => postGraphql(target, { query: `query Q${distinct()} { __typename } ${pad(99_000)}` })),
  },
  {
    name: 'apq-registrations',
    what: 'persisted-query registrations of new 99 KB documents, and of invalid ones',
    run: (target, until) =>
      loops(until, () => {
        const valid = Math.random() < 0.5;
        const query = valid ? `query P${distinct()} { __typename } ${pad(99_000)}` : `{ nosuchfield${distinct()} } ${pad(99_000)}`;
        const sha256Hash = createHash('sha256').update(query).digest('hex');
        return postGraphql(target, { query, extensions: { persistedQuery: { version: 1, sha256Hash } } });
      }),
  },
  {
    name: 'validation',
    what: '{ me { id } } 1,249 times (refused before validation), and the costliest valid documents, each new',
    run: (target, until) => loops(until, () => postGraphql(target, { query: Math.random() < 0.5 ? `{ ${'me { id } '.repeat(1249)}}` : worstValid() })),
  },
  {
    name: 'batches',
    what: 'batches of ten of the costliest valid documents, each new',
    run: (target, until) => loops(until, () => postGraphql(target, Array.from({ length: 10 }, () => ({ query: worstValid() })))),
  },
  {
    name: 'bad-credentials',
    what: 'requests with a new invalid API key or bearer token each',
    run: (target, until) =>
      loops(until, () =>
        postGraphql(target, { query: '{ __typename }' }, Math.random() < 0.5 ? { 'x-api-key': `key-${distinct()}` } : { authorization: `Bearer ${distinct()}.${distinct()}.x` }),
      ),
  },
  {
    name: 'origins',
    what: 'WebSocket upgrades and POSTs from other sites, Origin spelled anew each time',
    run: (target, until) =>
      loops(until, () => request(target, 'POST', '/api/v1/books/b1/reviews?stars=1', 'stars=1', { 'content-type': 'application/x-www-form-urlencoded', origin: `https://EVIL${distinct()}.example` })),
  },
  {
    name: 'websocket-subscriptions',
    what: 'sockets up to the per-client cap and past it, each with 100 subscriptions whose variable holds 900 KB',
    run: (target, until) => websocketFlood(target, until),
  },
  {
    name: 'event-streams',
    what: 'subscriptions over Server-Sent Events, held open, up to the per-client cap and past it',
    run: (target, until) => eventStreamFlood(target, until),
  },
];

/** Opens sockets (past the per-client cap: the rest are refused) and fills each with subscriptions, until `until`. */
async function websocketFlood(target: Target, until: number): Promise<number> {
  const query = 'subscription S($book: ID) { reviewAdded(bookId: $book) { id } }';
  const sockets: WebSocket[] = [];
  let sent = 0;
  while (Date.now() < until && sockets.length < 120) {
    const socket = new WebSocket(`ws://127.0.0.1:${target.port}/graphql`, 'graphql-transport-ws', { headers: ATTACKER });
    const opened = await new Promise<boolean>((resolve) => {
      socket.once('open', () => resolve(true));
      socket.once('error', () => resolve(false));
      socket.once('unexpected-response', () => resolve(false));
    });
    if (!opened) break;
    sockets.push(socket);
    socket.send(JSON.stringify({ type: 'connection_init' }));
    for (let i = 0; i < 100 && Date.now() < until; i++) {
      // Each a book id of its own, so that no two subscriptions share a group at the pub/sub.
      const book = `${distinct()}${'b'.repeat(900 * 1024)}`;
      socket.send(JSON.stringify({ id: `s${i}`, type: 'subscribe', payload: { query, variables: { book } } }));
      sent++;
      // Let the socket drain: a client that floods its own socket measures nothing of the server.
      if (socket.bufferedAmount > 8 * MB) await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, until - Date.now())));
  for (const socket of sockets) socket.terminate();
  return sent;
}

/** Opens event streams and holds them, until `until`. */
async function eventStreamFlood(target: Target, until: number): Promise<number> {
  const open: http.ClientRequest[] = [];
  let sent = 0;
  while (Date.now() < until && open.length < 300) {
    const body = JSON.stringify({ query: 'subscription { reviewAdded { id } }' });
    const req = http.request({ host: '127.0.0.1', port: target.port, method: 'POST', path: '/graphql', headers: { ...ATTACKER, 'content-type': 'application/json', accept: 'text/event-stream', 'content-length': String(body.length) } });
    req.on('response', (res) => res.resume());
    req.on('error', () => undefined);
    req.end(body);
    open.push(req);
    sent++;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  await new Promise((resolve) => setTimeout(resolve, Math.max(0, until - Date.now())));
  for (const req of open) req.destroy();
  return sent;
}

/** The well-behaved client (goodClient.ts, its own process): its latencies in ms over the time until `until`. */
function goodClient(client: ChildProcess, target: Target, until: number): Promise<number[]> {
  return new Promise((resolve) => {
    client.once('message', (latencies) => resolve(latencies as number[]));
    client.send({ port: target.port, ms: Math.max(0, until - Date.now()) });
  });
}

function p99(latencies: number[]): number {
  const sorted = [...latencies].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] ?? NaN;
}

/**
 * The server's memory once it has been idle after an attack: what the attack left it holding.
 * Under an attack's allocation rate V8 commits more of its heap than it keeps in use, and
 * returns those pages only once the server has been idle for some seconds (its memory reducer:
 * 10–20 s here). RSS measured at once counts them, though nothing holds them. So the memory is
 * measured again every 5 s, until it is within 10 MB of where it was before the attack (nothing
 * left to return) or SETTLE_SECONDS have passed. An attack that grew it by less than that at
 * once is not waited for.
 */
async function settle(server: ChildProcess, before: Measure, after: Measure): Promise<{ measure: Measure; seconds: number }> {
  let latest = after;
  let seconds = 0;
  while (latest.rss - before.rss >= 10 * MB && seconds < SETTLE_SECONDS) {
    await new Promise((resolve) => setTimeout(resolve, 5000));
    seconds += 5;
    latest = await measure(server);
  }
  return { measure: latest, seconds };
}

function measure(server: ChildProcess): Promise<Measure> {
  return new Promise((resolve) => {
    server.once('message', (message) => resolve(message as Measure));
    server.send('measure');
  });
}

function startGoodClient(): ChildProcess {
  return fork(fileURLToPath(new URL('./goodClient.ts', import.meta.url)), [], { execArgv: ['--import', 'tsx/esm'], stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
}

async function startServer(env: Record<string, string>): Promise<{ server: ChildProcess; target: Target }> {
  const server = fork(fileURLToPath(new URL('./server.ts', import.meta.url)), [], {
    execArgv: ['--import', 'tsx/esm', '--expose-gc'],
    stdio: ['ignore', 'pipe', 'inherit', 'ipc'],
    env: { ...process.env, ...env },
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.stdout?.once('data', (chunk: Buffer) => resolve((JSON.parse(chunk.toString()) as { port: number }).port));
    server.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
  });
  return { server, target: { base: `http://127.0.0.1:${port}`, port } };
}

const SERVERS: ReadonlyArray<{ name: string; env: Record<string, string> }> = [
  { name: 'open (npm start: no rate limits)', env: {} },
  { name: 'limited (RATE_LIMIT_PER_MINUTE=600, TRUST_PROXY=1)', env: { RATE_LIMIT_PER_MINUTE: '600', TRUST_PROXY: '1' } },
];

/**
 * This process is the attacker. An attacker on another machine does not take the server's CPU;
 * on one shared machine it would, and the server's delays would be those of the scheduler. So
 * the servers and the good client are started first, at this process's priority, and then this
 * process lowers its own (nice ATTACKER_NICENESS): it still uses every cycle they leave idle.
 */
const ATTACKER_NICENESS = 10;

async function main(): Promise<void> {
  console.log(`Node ${process.version}; ${SECONDS} s per attack from ${CONCURRENCY} loops (the attacker at nice ${ATTACKER_NICENESS}). Targets: memory growth once idle < 50 MB, worst event-loop delay < 50 ms, good p99 ≤ 2 × idle.`);
  const servers = SERVERS.filter(({ name }) => ONLY_SERVERS === null || ONLY_SERVERS.includes(name.split(' ')[0] as string));
  const started = await Promise.all(servers.map(({ env }) => startServer(env)));
  const client = startGoodClient();
  os.setPriority(ATTACKER_NICENESS);
  try {
    for (const [index, { name }] of servers.entries()) {
      console.log();
      console.log(`### ${name}`);
      console.log();
      for (const line of await attackServer(started[index] as Started, client)) console.log(line);
      started[index]?.server.disconnect();
    }
  } finally {
    client.disconnect();
    for (const { server } of started) if (server.connected) server.disconnect();
  }
  agent.destroy();
}

type Started = Awaited<ReturnType<typeof startServer>>;

/** Every attack against one server: the lines of its table. */
async function attackServer({ server, target }: Started, client: ChildProcess): Promise<string[]> {
  const rows: string[] = [];
  const warm = Date.now() + SECONDS * 1000;
  await goodClient(client, target, warm);
  await measure(server);
  const idle = p99(await goodClient(client, target, Date.now() + SECONDS * 1000));
  const idleMeasure = await measure(server);
  console.error(`idle: p99 ${idle.toFixed(2)} ms, worst delay ${idleMeasure.worstDelayMs.toFixed(1)} ms`);
  for (const attack of ATTACKS) {
    if (ONLY_ATTACKS !== null && !ONLY_ATTACKS.includes(attack.name)) continue;
    const before = await measure(server);
    const until = Date.now() + SECONDS * 1000;
    const [sent, latencies] = await Promise.all([attack.run(target, until), goodClient(client, target, until)]);
    // What the attack left behind, once its connections are gone.
    await new Promise((resolve) => setTimeout(resolve, 500));
    const after = await measure(server);
    const growth = (after.rss - before.rss) / MB;
    const settled = await settle(server, before, after);
    const settledGrowth = (settled.measure.rss - before.rss) / MB;
    const heapGrowth = (settled.measure.heapUsed - before.heapUsed) / MB;
    const goodP99 = p99(latencies);
    const met = [settledGrowth < 50 ? 'memory' : null, after.worstDelayMs < 50 ? 'delay' : null, goodP99 <= 2 * idle ? 'p99' : null].filter(Boolean);
    console.error(`${attack.name}: done`);
    rows.push(
      `| ${attack.name} | ${attack.what} | ${sent} | ${(before.rss / MB).toFixed(0)} | ${(after.rss / MB).toFixed(0)} | ${growth.toFixed(1)} | ${settledGrowth.toFixed(1)} (${settled.seconds} s) | ${heapGrowth.toFixed(1)} | ${after.worstDelayMs.toFixed(1)} | ${goodP99.toFixed(2)} | ${(goodP99 / idle).toFixed(2)} | ${met.length === 3 ? 'all' : met.join(', ') || 'none'} |`,
    );
  }
  return [
    `The good client's idle p99: ${idle.toFixed(2)} ms.`,
    '',
    '| attack | what it sends | requests | RSS before (MB) | RSS after (MB) | growth at once (MB) | growth once idle (MB, after) | heap growth (MB) | worst event-loop delay (ms) | good client p99 (ms) | ÷ idle p99 | targets met |',
    '|---|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|---|',
    ...rows,
  ];
}

await main();
