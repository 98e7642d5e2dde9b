/**
 * What both HTTP benchmarks share: the servers and how they are started and placed on the
 * cores, the request every load sends, and the canned answer the ceiling and the floor repeat.
 * `index.ts` times the servers; `instructions.ts` counts their instructions under callgrind.
 */
import { spawn, spawnSync } from 'node:child_process';
import os from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { GRAPHQL_PATH } from './scenarios.ts';
import type { CannedResponse } from './servers/serve.ts';

export const REPO_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** Concurrent connections of every load. */
export const CONNECTIONS = 32;

/**
 * The headers of every request, verification and load alike: a JSON body, and the Accept that
 * the GraphQL-over-HTTP specification asks clients to send.
 */
export const REQUEST_HEADERS = {
  'content-type': 'application/json',
  accept: 'application/graphql-response+json, application/json;q=0.9',
};

/** In the order of the report. */
export const SERVERS = ['ceiling', 'json-floor', 'ours', 'mercurius'] as const;
/**
 * Servers started only to measure one thing, not raced by bench:http: `otel-floor`, the ceiling
 * making the two spans ours makes per request (servers/otel-floor.ts).
 */
export const FLOOR_SERVERS = ['otel-floor'] as const;
export type ServerName = (typeof SERVERS)[number] | (typeof FLOOR_SERVERS)[number];

/**
 * Where the processes run. Left to the scheduler, the server and autocannon (and the server's
 * GC threads) share two cores however it likes, and that placement, fixed early in a process's
 * life, made the same server measure up to 20% faster or slower from one process to the next
 * on the 2-core machine the issue was measured on: more than the differences being measured.
 * With the server on one core and the load generator on the other, two processes of the same
 * server measure within about 1% of each other. Every server is placed alike, so no one gains.
 */
interface CpuPlacement {
  /** What goes in front of a server's command: taskset when pinned. */
  wrapper: string[];
  /** For the report's first line. */
  description: string;
}

let placement: CpuPlacement | undefined;

/** Decided once per run (BENCH_HTTP_PIN, cores, taskset); moves this process to core 0 when pinned. */
export function cpuPlacement(): CpuPlacement {
  placement ??= decidePlacement();
  return placement;
}

function decidePlacement(): CpuPlacement {
  const unpinned = (why: string): CpuPlacement => ({ wrapper: [], description: `not pinned (${why})` });
  if (process.env.BENCH_HTTP_PIN === '0') return unpinned('BENCH_HTTP_PIN=0');
  if (os.availableParallelism() < 2) return unpinned('one core');
  // The runner, autocannon included, moves to core 0 with all its threads; servers start on core 1.
  const pinned = spawnSync('taskset', ['--all-tasks', '--cpu-list', '--pid', '0', String(process.pid)], { stdio: 'ignore' });
  if (pinned.error !== undefined || pinned.status !== 0) return unpinned('taskset is not available');
  return {
    wrapper: ['taskset', '--cpu-list', '1'],
    description: 'each server pinned to core 1 and the load generator to core 0 (taskset)',
  };
}

export interface RunningServer {
  name: ServerName;
  url: string;
  /** The server's process id (valgrind's tools run inside the same process). */
  pid: number;
  /** CPU microseconds (user + system) the server process has used so far. */
  cpuMicros(): Promise<number>;
  stop(): Promise<void>;
}

export interface StartOptions {
  /** A tool that runs node inside it, such as valgrind with its options. */
  tool?: string[];
  /** Options for node itself. */
  nodeFlags?: string[];
  /** Whether the server's own output goes to ours (the default) or nowhere. */
  quiet?: boolean;
}

/**
 * Starts `servers/<name>.ts` in a child process, placed as `cpuPlacement` says, and resolves
 * once it has printed its port. The child answers a `cpu` line on stdin with its
 * `process.cpuUsage()` and exits when stdin closes (see servers/serve.ts).
 */
export function startServer(name: ServerName, args: string[] = [], options: StartOptions = {}): Promise<RunningServer> {
  const script = join(REPO_ROOT, 'bench', 'http', 'servers', `${name}.ts`);
  const [command, ...rest] = [
    ...cpuPlacement().wrapper,
    ...(options.tool ?? []),
    process.execPath,
    ...(options.nodeFlags ?? []),
    '--import',
    'tsx',
    script,
    ...args,
  ];
  const child = spawn(command as string, rest, { cwd: REPO_ROOT, stdio: ['pipe', 'pipe', options.quiet === true ? 'ignore' : 'inherit'] });
  const exited = new Promise<void>((resolveExit) => child.once('exit', () => resolveExit()));
  const lines = createInterface({ input: child.stdout });
  // After the port, every line the child prints answers one `cpu` request, in order.
  const waitingForCpu: Array<(line: string) => void> = [];

  return new Promise((resolveStart, rejectStart) => {
    child.once('exit', (code, signal) => {
      rejectStart(new Error(`The ${name} server exited (${signal ?? `code ${code}`}) before it printed its port.`));
    });
    lines.once('line', (portLine) => {
      const port = Number(portLine);
      if (!Number.isInteger(port) || port <= 0) {
        child.kill();
        rejectStart(new Error(`The ${name} server printed "${portLine}" where its port was expected.`));
        return;
      }
      lines.on('line', (line) => waitingForCpu.shift()?.(line));
      resolveStart({
        name,
        url: `http://127.0.0.1:${port}${GRAPHQL_PATH}`,
        pid: child.pid as number,
        cpuMicros: () =>
          new Promise((resolveCpu) => {
            waitingForCpu.push((line) => {
              const { user, system } = JSON.parse(line) as NodeJS.CpuUsage;
              resolveCpu(user + system);
            });
            child.stdin.write('cpu\n');
          }),
        stop: async () => {
          child.stdin.end();
          // Writing a CPU profile can take a moment; a server that hangs is killed.
          const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
          await exited;
          clearTimeout(timer);
        },
      });
    });
  });
}

/** Headers that belong to one connection or one moment rather than to the response. */
const HOP_HEADERS = new Set(['connection', 'keep-alive', 'transfer-encoding', 'date', 'content-length']);

/** Our server's answer, for the ceiling and the floor to repeat: the same body and the same headers. */
export function cannedFrom(headers: Record<string, string>, body: Buffer): CannedResponse {
  return {
    headers: Object.fromEntries(Object.entries(headers).filter(([name]) => !HOP_HEADERS.has(name))),
    body: body.toString('base64'),
  };
}
