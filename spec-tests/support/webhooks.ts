/**
 * The webhook spec-tests' receivers and helpers.
 *
 * `startReceiver` is a `node:http` server on 127.0.0.1 (port 0) playing a webhook receiver whose
 * answer to each request is scripted: a status (after a delay, with a body), no answer at all
 * (the request hangs until the client gives up or the receiver closes), a redirect, a reset
 * connection, or an endless body. It records every request (headers, body, arrival time) once
 * its body has arrived, and counts the requests open at once (arrived and not yet answered or
 * dropped), so a test can see how many attempts an endpoint had in flight.
 *
 * `verifyDelivery` is the receiver side of the signature: the `standardwebhooks` library, with
 * the secret `register` returned.
 */
import http from 'node:http';
import type { IncomingHttpHeaders } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { setTimeout as sleep } from 'node:timers/promises';
import { Webhook } from 'standardwebhooks';
import { FileStore } from '../../src/webhooks/fileStore.ts';
import { createWebhooks } from '../../src/webhooks/webhooks.ts';
import type { Webhooks, WebhooksOptions } from '../../src/webhooks/webhooks.ts';

/** What the receiver does with one request (once its body has arrived). */
export type Reply =
  /** Answers this status (after `delayMs`), with this body (default `ok`). */
  | { kind: 'status'; status: number; body?: string | Buffer; delayMs?: number; headers?: Record<string, string> }
  /** Never answers: the request stays open until the client drops it or the receiver closes. */
  | { kind: 'hang' }
  /** Answers a redirect (302 unless told) to `location`. */
  | { kind: 'redirect'; location: string; status?: number }
  /** Destroys the connection without answering. */
  | { kind: 'reset' }
  /** Answers this status (200 unless told) and a body that never ends, `chunk` after `chunk`. */
  | { kind: 'endless'; status?: number; chunk?: string };

export const ok = (status = 200, body?: string | Buffer, delayMs?: number): Reply => ({ kind: 'status', status, ...(body === undefined ? {} : { body }), ...(delayMs === undefined ? {} : { delayMs }) });
export const hang: Reply = { kind: 'hang' };
export const reset: Reply = { kind: 'reset' };

/** One request as the receiver got it. */
export interface Received {
  /** 0 for the receiver's first request, and so on. */
  readonly index: number;
  readonly method: string;
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  /** The body, as UTF-8 text. */
  readonly body: string;
  /** When its body had arrived (performance.now()). */
  readonly at: number;
  /** Its `webhook-id` header ('' when missing). */
  readonly webhookId: string;
  /** What the receiver did with it. */
  readonly reply: Reply;
}

export interface Receiver {
  /** `http://127.0.0.1:<port>/hook` */
  readonly url: string;
  readonly origin: string;
  readonly port: number;
  /** Every request so far, in order of arrival. */
  readonly requests: Received[];
  /** Requests open right now, and the most ever open at once. */
  readonly open: number;
  readonly maxOpen: number;
  /** From now on: `replies` in order, one per request, then `otherwise` for every later one. */
  script(replies: ReadonlyArray<Reply>, otherwise?: Reply): void;
  /** From now on: whatever `decide` says for each request. */
  respond(decide: (request: Omit<Received, 'reply'>) => Reply): void;
  /** Resolves with the requests once there are at least `count`; rejects after `timeoutMs`. */
  waitForRequests(count: number, timeoutMs?: number): Promise<Received[]>;
  /** The distinct webhook-ids received, and how many requests repeated one already received. */
  tally(): { distinct: Set<string>; duplicates: number };
  /** Stops at once: no new connection, the open ones dropped. */
  close(): Promise<void>;
}

export async function startReceiver(otherwise: Reply = ok()): Promise<Receiver> {
  let queue: Reply[] = [];
  let fallback = otherwise;
  let decide: ((request: Omit<Received, 'reply'>) => Reply) | null = null;
  const requests: Received[] = [];
  let open = 0;
  let maxOpen = 0;
  let closed = false;
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const waiter of [...waiters]) waiter();
  };

  const server = http.createServer((request, response) => {
    open++;
    maxOpen = Math.max(maxOpen, open);
    let counted = true;
    const done = () => {
      if (!counted) return;
      counted = false;
      open--;
      notify();
    };
    // Answered, or the connection dropped (by the client giving up, a reset, the receiver closing).
    response.on('close', done);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const seen = {
        index: requests.length,
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        at: performance.now(),
        webhookId: String(request.headers['webhook-id'] ?? ''),
      };
      const reply = decide !== null ? decide(seen) : (queue.shift() ?? fallback);
      requests.push({ ...seen, reply });
      notify();
      act(reply, request, response);
    });
  });
  // Keep-alive connections stay up as long as a test runs: a receiver closing an idle one while
  // the client reuses it would be an attempt's failure the test did not script.
  server.keepAliveTimeout = 60_000;
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const origin = `http://127.0.0.1:${port}`;

  return {
    url: `${origin}/hook`,
    origin,
    port,
    requests,
    get open() {
      return open;
    },
    get maxOpen() {
      return maxOpen;
    },
    script(replies, then) {
      decide = null;
      queue = [...replies];
      if (then !== undefined) fallback = then;
    },
    respond(decider) {
      decide = decider;
    },
    waitForRequests(count, timeoutMs = 5000) {
      return waitUntil(() => requests.length >= count, timeoutMs, () => `${count} requests at ${origin} (got ${requests.length})`, waiters).then(() => requests);
    },
    tally() {
      const distinct = new Set<string>();
      let duplicates = 0;
      for (const request of requests) {
        if (distinct.has(request.webhookId)) duplicates++;
        else distinct.add(request.webhookId);
      }
      return { distinct, duplicates };
    },
    close() {
      closed = true;
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };

  function act(reply: Reply, request: http.IncomingMessage, response: http.ServerResponse): void {
    switch (reply.kind) {
      case 'status': {
        const answer = () => {
          if (response.destroyed) return;
          response.writeHead(reply.status, { 'content-type': 'text/plain', ...reply.headers });
          response.end(reply.body ?? 'ok');
        };
        if (reply.delayMs === undefined || reply.delayMs <= 0) answer();
        else setTimeout(answer, reply.delayMs);
        break;
      }
      case 'hang':
        break;
      case 'redirect':
        response.writeHead(reply.status ?? 302, { location: reply.location, 'content-type': 'text/plain' });
        response.end('moved');
        break;
      case 'reset':
        request.socket.destroy();
        break;
      case 'endless': {
        response.writeHead(reply.status ?? 200, { 'content-type': 'text/plain' });
        const chunk = reply.chunk ?? 'x'.repeat(512);
        const pour = (): void => {
          while (!response.destroyed && !closed) {
            if (!response.write(chunk)) {
              response.once('drain', pour);
              return;
            }
          }
        };
        pour();
        break;
      }
    }
  }
}

/** Polls `check` (sync or async) every few ms until it is true; rejects, saying `what`, after `timeoutMs`. */
export async function waitUntil(
  check: () => boolean | Promise<boolean>,
  timeoutMs: number,
  what: string | (() => string),
  wakers?: Set<() => void>,
): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (await check()) return;
    const left = deadline - performance.now();
    if (left <= 0) throw new Error(`Timed out after ${timeoutMs} ms waiting for ${typeof what === 'string' ? what : what()}.`);
    if (wakers === undefined) {
      await sleep(Math.min(10, left));
    } else {
      await new Promise<void>((resolve) => {
        const wake = () => {
          wakers.delete(wake);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(wake, Math.min(50, left));
        wakers.add(wake);
      });
    }
  }
}

/** A port on 127.0.0.1 nothing listens on (it was free a moment ago): connections to it are refused. */
export async function closedPort(): Promise<number> {
  const server = http.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** The request's headers as the verifier takes them (single values). */
export function headersOf(request: Received): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) if (value !== undefined) headers[name] = Array.isArray(value) ? value.join(', ') : value;
  return headers;
}

/** Verifies the request with the `standardwebhooks` library and this secret; the parsed body (throws if the signature does not match). */
export function verifyDelivery(secret: string, request: Received): unknown {
  return new Webhook(secret).verify(request.body, headersOf(request));
}

/** What verifying with this secret throws (its message), or null when it verifies. */
export function verificationFailure(secret: string, request: Received): string | null {
  try {
    verifyDelivery(secret, request);
    return null;
  } catch (error) {
    return (error as Error).message;
  }
}

/** A fresh temporary directory, removed by the returned function. */
export function tempDir(prefix = 'webhooks-test-'): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** The event types the spec-tests declare. */
export const EVENT_TYPES = ['review.created', 'review.deleted'] as const;

/** Compressed defaults: retries after 50, 100, 100 ms, no jitter, 300 ms per attempt, loopback allowed, nothing logged. */
export const FAST: Omit<WebhooksOptions, 'store'> = {
  eventTypes: EVENT_TYPES,
  allowedHosts: ['127.0.0.1', 'localhost'],
  retrySchedule: [0.05, 0.1, 0.1],
  jitter: 0,
  attemptTimeoutMs: 300,
  pollMs: 0,
  log: () => undefined,
};

export interface TestWebhooks {
  webhooks: Webhooks;
  store: FileStore;
  dir: string;
  /** Closes the webhooks (idempotent) and removes the directory. */
  close(): Promise<void>;
}

/** createWebhooks over a FileStore in a fresh temporary directory, with FAST and `overrides`; started. */
export async function startWebhooks(overrides: Partial<WebhooksOptions> = {}): Promise<TestWebhooks> {
  const { dir, remove } = tempDir();
  // No fdatasync: these suites time the engine (a retry due in 50 ms), and a flush queued
  // behind other suites' fsyncs on a busy disk would time the disk. The durability suite
  // keeps fsync on.
  const store = new FileStore({ dir, fsync: false });
  const webhooks = createWebhooks({ ...FAST, store, ...overrides });
  await webhooks.start();
  let closing: Promise<void> | null = null;
  return {
    webhooks,
    store,
    dir,
    close() {
      closing ??= webhooks.close().finally(remove);
      return closing;
    },
  };
}

/** Runs the cleanups registered during a test, last first. */
export class Cleanup {
  private readonly steps: Array<() => unknown> = [];
  add<T extends { close(): Promise<void> | void }>(thing: T): T {
    this.steps.push(() => thing.close());
    return thing;
  }
  defer(step: () => unknown): void {
    this.steps.push(step);
  }
  async run(): Promise<void> {
    const errors: unknown[] = [];
    for (const step of this.steps.splice(0).reverse()) {
      try {
        await step();
      } catch (error) {
        errors.push(error);
      }
    }
    if (errors.length > 0) throw errors[0];
  }
}
