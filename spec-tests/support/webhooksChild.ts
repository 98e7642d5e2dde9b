/**
 * The test's side of spec-tests/support/webhookPublisher.ts: its config, the options it runs
 * with, and `spawnPublisher`, which starts it (`node --import tsx`, cwd the repository) and
 * reads the JSON lines it prints.
 */
import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { waitUntil } from './webhooks.ts';

export interface PublisherConfig {
  store: 'file' | 'redis';
  dir?: string;
  redisUrl?: string;
  keyPrefix?: string;
  receiverUrl: string;
  mode: 'publish' | 'publish-first' | 'drain';
  count?: number;
  attemptTimeoutMs?: number;
}

/** The event type the publisher uses. */
export const PUBLISHER_EVENT_TYPE = 'test.numbered';

/** The options the child (and the test's own instances next to it) run with. */
export const PUBLISHER_OPTIONS = {
  eventTypes: [PUBLISHER_EVENT_TYPE],
  allowedHosts: ['127.0.0.1'],
  retrySchedule: [0.05, 0.1, 0.2, 0.5, 1, 1, 1],
  jitter: 0,
  pollMs: 100,
} as const;

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const SCRIPT = fileURLToPath(new URL('./webhookPublisher.ts', import.meta.url));

export interface Publisher {
  readonly child: ChildProcess;
  /** Every JSON line printed so far. */
  readonly facts: Array<Record<string, unknown>>;
  /** The ids of the events it said were published (publish resolved), in order. */
  readonly published: string[];
  /** What it wrote on stderr. */
  stderr(): string;
  /** The first fact with this key, once printed (rejects if the child exits first or after timeoutMs). */
  fact(key: string, timeoutMs?: number): Promise<Record<string, unknown>>;
  /** Resolves once `published` has at least `count` ids. */
  publishedAtLeast(count: number, timeoutMs?: number): Promise<void>;
  /** Kills it (SIGKILL unless told) and resolves once it has exited and all it printed is read. */
  kill(signal?: NodeJS.Signals): Promise<void>;
  /** Resolves when it has exited and its output is read. */
  readonly exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

export function spawnPublisher(config: PublisherConfig): Publisher {
  const child = spawn(process.execPath, ['--import', 'tsx', SCRIPT, JSON.stringify(config)], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  const facts: Array<Record<string, unknown>> = [];
  const published: string[] = [];
  let pending = '';
  let errors = '';
  let gone = false;
  child.stdout!.setEncoding('utf8');
  child.stdout!.on('data', (chunk: string) => {
    pending += chunk;
    let newline = pending.indexOf('\n');
    while (newline !== -1) {
      const line = pending.slice(0, newline);
      pending = pending.slice(newline + 1);
      if (line.trim() !== '') {
        const fact = JSON.parse(line) as Record<string, unknown>;
        facts.push(fact);
        if (typeof fact['published'] === 'string') published.push(fact['published']);
      }
      newline = pending.indexOf('\n');
    }
  });
  child.stderr!.setEncoding('utf8');
  child.stderr!.on('data', (chunk: string) => {
    errors += chunk;
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => {
    child.on('close', (code, signal) => {
      gone = true;
      resolve({ code, signal });
    });
  });
  const describeChild = () => `(child ${child.pid}${gone ? ', exited' : ''}; stderr: ${errors.slice(-2000)})`;
  return {
    child,
    facts,
    published,
    stderr: () => errors,
    async fact(key, timeoutMs = 20_000) {
      await waitUntil(
        () => {
          if (facts.some((fact) => key in fact)) return true;
          if (gone) throw new Error(`The publisher exited before printing "${key}" ${describeChild()}.`);
          return false;
        },
        timeoutMs,
        () => `the publisher to print "${key}" ${describeChild()}`,
      );
      return facts.find((fact) => key in fact) as Record<string, unknown>;
    },
    async publishedAtLeast(count, timeoutMs = 20_000) {
      await waitUntil(
        () => {
          if (published.length >= count) return true;
          if (gone) throw new Error(`The publisher exited after ${published.length} events ${describeChild()}.`);
          return false;
        },
        timeoutMs,
        () => `${count} published events (have ${published.length}) ${describeChild()}`,
      );
    },
    async kill(signal = 'SIGKILL') {
      if (!gone) child.kill(signal);
      await exited;
    },
    exited,
  };
}
