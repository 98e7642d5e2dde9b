/**
 * The HTTP part of `npm run bench:incremental`: a deferred query over `multipart/mixed`, ours
 * against GraphQL Yoga with its defer plugin (server.ts). Each server is started alone, on core 1
 * when taskset and two cores are there (the load generator on core 0), checked, then loaded.
 */
import autocannon from 'autocannon';
import { spawn, spawnSync } from 'node:child_process';
import os from 'node:os';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';

const SECONDS = Number(process.env.BENCH_INCREMENTAL_SECONDS ?? 5);
const CONNECTIONS = 32;
const SERVER_SCRIPT = fileURLToPath(new URL('./server.ts', import.meta.url));

/** Ten authors, each with its ten books deferred. */
export const DEFERRED_BOOKS = '{ authors { id name ... @defer { books { id title pages genre rating tags } } } }';
/** The 2022 format: the one Yoga's plugin writes, so that both send the same payloads. */
const ACCEPT = 'multipart/mixed; deferSpec=20220824, application/json;q=0.9';
const BODY = JSON.stringify({ query: DEFERRED_BOOKS });

interface Started {
  url: string;
  stop(): Promise<void>;
}

function pinned(): string[] {
  if (os.availableParallelism() < 2) return [];
  const self = spawnSync('taskset', ['--all-tasks', '--cpu-list', '--pid', '0', String(process.pid)], { stdio: 'ignore' });
  return self.error === undefined && self.status === 0 ? ['taskset', '--cpu-list', '1'] : [];
}

function start(which: string, wrapper: string[]): Promise<Started> {
  const [command, ...args] = [...wrapper, process.execPath, '--import', 'tsx', SERVER_SCRIPT, which];
  const child = spawn(command as string, args, { stdio: ['pipe', 'pipe', 'inherit'] });
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return new Promise((resolve, reject) => {
    child.once('exit', (code) => reject(new Error(`the ${which} server exited (${String(code)}) before it listened`)));
    createInterface({ input: child.stdout }).once('line', (line) => {
      resolve({
        url: `http://127.0.0.1:${Number(line)}/graphql`,
        stop: async () => {
          child.stdin.end();
          await exited;
        },
      });
    });
  });
}

/** The JSON payloads of one multipart answer, in order (whatever boundary the server chose). */
export function multipartPayloads(contentType: string, body: string): unknown[] {
  const boundary = /boundary="?([^";]+)"?/.exec(contentType)?.[1];
  if (boundary === undefined) throw new Error(`not a multipart answer: ${contentType}`);
  const payloads: unknown[] = [];
  for (const part of body.split(`--${boundary}`)) {
    const start = part.indexOf('\r\n\r\n');
    if (start === -1) continue;
    const json = part.slice(start + 4).trim();
    if (json !== '') payloads.push(JSON.parse(json));
  }
  return payloads;
}

/** The data the payloads make together, merged as a client would (the 2022 format: `path` and `data`). */
function merged(payloads: unknown[]): unknown {
  const [first, ...rest] = payloads as Array<{ data?: Record<string, unknown>; incremental?: Array<{ path: Array<string | number>; data: Record<string, unknown> }> }>;
  const data = structuredClone(first?.data ?? {});
  for (const payload of rest) {
    for (const part of payload.incremental ?? []) {
      let target: Record<string, unknown> = data;
      for (const key of part.path) target = target[key] as Record<string, unknown>;
      Object.assign(target, part.data);
    }
  }
  return data;
}

async function answerOf(url: string): Promise<{ contentType: string; payloads: unknown[] }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', accept: ACCEPT }, body: BODY });
  const contentType = response.headers.get('content-type') ?? '';
  const text = await response.text();
  if (response.status !== 200) throw new Error(`${url} answered ${response.status}: ${text.slice(0, 300)}`);
  return { contentType, payloads: multipartPayloads(contentType, text) };
}

async function load(url: string): Promise<number> {
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: ACCEPT },
    body: BODY,
    connections: CONNECTIONS,
    duration: SECONDS,
  });
  if (result.non2xx > 0 || result.errors > 0) throw new Error(`${url}: ${result.non2xx} non-2xx answers and ${result.errors} errors under load`);
  return result.requests.average;
}

export async function runHttp(): Promise<void> {
  const wrapper = pinned();
  const rows: Array<[string, number, number]> = [];
  let reference: string | null = null;
  for (const which of ['ours', 'yoga']) {
    const server = await start(which, wrapper);
    try {
      const { contentType, payloads } = await answerOf(server.url);
      const data = JSON.stringify(merged(payloads));
      if (reference !== null && data !== reference) throw new Error(`${which} merges to other data than ours: ${data.slice(0, 300)}`);
      reference ??= data;
      await load(server.url); // warm-up
      rows.push([`${which} (${contentType.split(';')[0]}, ${payloads.length} payloads)`, await load(server.url), payloads.length]);
    } finally {
      await server.stop();
    }
  }
  const ours = rows[0]?.[1] ?? NaN;
  console.log(`### HTTP: a deferred query over multipart/mixed (${CONNECTIONS} connections, ${SECONDS} s after a warm-up; ${wrapper.length > 0 ? 'servers on core 1, load on core 0' : 'not pinned'})\n`);
  console.log(`\`${DEFERRED_BOOKS}\`, Accept: \`${ACCEPT}\`\n`);
  console.log('| server | requests/s | ours ÷ server |');
  console.log('|---|--:|--:|');
  for (const [name, perSecond] of rows) console.log(`| ${name} | ${Math.round(perSecond).toLocaleString('en-US')} | ${(ours / perSecond).toFixed(2)} |`);
  console.log();
}
