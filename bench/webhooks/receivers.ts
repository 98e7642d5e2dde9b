/**
 * The webhook receivers of bench/webhooks: one `node:http` server per endpoint, all on
 * 127.0.0.1 in this process, each with its own path (`/hook/<index>`). A receiver answers 204
 * as soon as a request's headers arrive, notes the time, and reads the body to learn which
 * published event it carries (`data.seq`, set by the runner) and to check that the body's `id`
 * is the `webhook-id` header.
 *
 * Receipts are counted per (receiver, webhook-id): the first is a delivery, any later one a
 * duplicate. A request on the wrong path, without a webhook-id, or whose body does not parse or
 * does not match its header, is counted as malformed.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';

/** One receipt: which receiver, which event (the runner's sequence number), and when (performance.now()). */
export interface Receipt {
  readonly receiver: number;
  readonly seq: number;
  readonly at: number;
}

export interface Tally {
  /** First receipts, in order of arrival. */
  readonly receipts: Receipt[];
  /** Receipts of a (receiver, webhook-id) already received. */
  readonly duplicates: number;
  /** Requests on a wrong path, without a webhook-id, or whose body did not parse or match. */
  readonly malformed: number;
  /** Some examples of what went wrong, for the report. */
  readonly problems: string[];
}

export class Receivers {
  readonly urls: readonly string[];
  private readonly servers: readonly http.Server[];
  private seen = new Set<string>();
  private receipts: Receipt[] = [];
  private duplicates = 0;
  private malformed = 0;
  private problems: string[] = [];
  private expected = Infinity;
  private waiter: (() => void) | null = null;

  private constructor(servers: readonly http.Server[], urls: readonly string[]) {
    this.servers = servers;
    this.urls = urls;
  }

  /** Starts `count` receivers on 127.0.0.1, each on a port of its own. */
  static async start(count: number): Promise<Receivers> {
    const servers: http.Server[] = [];
    const urls: string[] = [];
    let receivers: Receivers | null = null;
    for (let index = 0; index < count; index++) {
      const server = http.createServer((request, response) => receivers?.receive(index, request, response));
      server.keepAliveTimeout = 30_000;
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(0, '127.0.0.1', () => resolve());
      });
      servers.push(server);
      urls.push(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hook/${index}`);
    }
    receivers = new Receivers(servers, urls);
    return receivers;
  }

  /** Forgets the previous run's receipts and expects `deliveries` distinct ones. */
  reset(deliveries: number): void {
    this.seen = new Set();
    this.receipts = [];
    this.duplicates = 0;
    this.malformed = 0;
    this.problems = [];
    this.expected = deliveries;
    this.waiter = null;
  }

  /** Resolves true once the expected receipts have arrived, false after `timeoutMs`. */
  whenAllReceived(timeoutMs: number): Promise<boolean> {
    if (this.receipts.length >= this.expected) return Promise.resolve(true);
    return new Promise((resolve) => {
      const timer = setTimeout(() => {
        this.waiter = null;
        resolve(false);
      }, timeoutMs);
      this.waiter = () => {
        clearTimeout(timer);
        this.waiter = null;
        resolve(true);
      };
    });
  }

  tally(): Tally {
    return { receipts: this.receipts, duplicates: this.duplicates, malformed: this.malformed, problems: this.problems };
  }

  async close(): Promise<void> {
    await Promise.all(
      this.servers.map(
        (server) =>
          new Promise<void>((resolve) => {
            server.close(() => resolve());
            server.closeAllConnections();
          }),
      ),
    );
  }

  private receive(index: number, request: http.IncomingMessage, response: http.ServerResponse): void {
    const at = performance.now();
    response.writeHead(204).end();
    const id = request.headers['webhook-id'];
    const path = request.url;
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      let body: { id?: unknown; data?: { seq?: unknown } } | null = null;
      try {
        body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { id?: unknown; data?: { seq?: unknown } };
      } catch {
        body = null;
      }
      const seq = body?.data?.seq;
      if (path !== `/hook/${index}` || typeof id !== 'string' || body?.id !== id || typeof seq !== 'number') {
        this.malformed++;
        if (this.problems.length < 5) this.problems.push(`receiver ${index}: ${request.method} ${path}, webhook-id ${String(id)}, body id ${String(body?.id)}, seq ${String(seq)}`);
        return;
      }
      const key = `${index} ${id}`;
      if (this.seen.has(key)) {
        this.duplicates++;
        if (this.problems.length < 5) this.problems.push(`receiver ${index}: ${id} (event ${seq}) received again`);
        return;
      }
      this.seen.add(key);
      this.receipts.push({ receiver: index, seq, at });
      if (this.receipts.length >= this.expected) this.waiter?.();
    });
  }
}
