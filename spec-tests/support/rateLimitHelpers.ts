/**
 * Helpers for the rate-limit HTTP spec-tests (ratelimit-http.test.ts): stopping a server with its
 * pipeline's stores (Redis connections), a port where nothing listens, a TCP proxy that delays
 * every chunk or goes down (a slow Redis, a Redis gone away), the Redis connections of the limiter by client name, and the
 * parsing of the IETF RateLimit headers.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import type { GraphQLServer } from '../../src/index.ts';
import type { SentResponse } from './httpServer.ts';

/**
 * Stops a server at once and releases what its pipeline holds (the rate limiter's store: a
 * Redis connection is quit or dropped): `shutdown()`, with every open connection closed now.
 */
export async function stopServer(server: GraphQLServer): Promise<void> {
  const done = server.shutdown();
  server.closeAllConnections();
  await done;
}

/** A port on 127.0.0.1 where nothing listens (one the OS handed out, then closed). */
export async function deadPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

export interface TcpProxy {
  readonly port: number;
  /**
   * Down: every connection is dropped, and new ones are dropped as soon as they are accepted
   * (Redis gone away); up again: connections are relayed as before.
   */
  setDown(down: boolean): void;
  /** Drops every connection, forgets every delayed chunk, stops listening. */
  close(): Promise<void>;
}

/**
 * A TCP proxy on 127.0.0.1 to `target`, which delivers every chunk, both ways, `delayMs` after
 * it arrived (a Redis that answers, but slowly; 0: at once), and can be taken down and up.
 */
export async function tcpProxy(target: { host: string; port: number }, delayMs: number): Promise<TcpProxy> {
  const sockets = new Set<net.Socket>();
  const timers = new Set<ReturnType<typeof setTimeout>>();
  let down = false;
  const server = net.createServer((client) => {
    if (down) {
      client.destroy();
      return;
    }
    const upstream = net.connect(target.port, target.host);
    sockets.add(client);
    sockets.add(upstream);
    const relay = (from: net.Socket, to: net.Socket): void => {
      from.on('data', (chunk: Buffer) => {
        if (delayMs === 0) {
          if (!to.destroyed) to.write(chunk);
          return;
        }
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!to.destroyed) to.write(chunk);
        }, delayMs);
        timers.add(timer);
      });
    };
    relay(client, upstream);
    relay(upstream, client);
    const end = (): void => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', end).on('close', end);
    upstream.on('error', end).on('close', end);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    port,
    setDown: (value) => {
      down = value;
      if (!down) return;
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      sockets.clear();
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      timers.clear();
      for (const socket of sockets) socket.destroy();
      sockets.clear();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The ids of the Redis connections whose client name is `name` (CLIENT LIST). */
export async function clientIdsNamed(admin: Redis, name: string): Promise<string[]> {
  const list = (await admin.call('CLIENT', 'LIST')) as string;
  const ids: string[] = [];
  for (const line of list.split('\n')) {
    const fields = new Map(
      line
        .trim()
        .split(' ')
        .map((field) => {
          const at = field.indexOf('=');
          return [field.slice(0, at), field.slice(at + 1)] as const;
        }),
    );
    if (fields.get('name') === name) ids.push(fields.get('id') as string);
  }
  return ids;
}

/** One budget of a `RateLimit` header: `"name";r=R;t=T`. */
export interface RateLimitItem {
  readonly name: string;
  readonly r: number;
  readonly t: number;
}

/** The `RateLimit` header's budgets, in order; fails on anything not of the exact form. */
export function rateLimitItems(response: Pick<SentResponse, 'status' | 'headers'>): RateLimitItem[] {
  const value = response.headers['ratelimit'];
  if (typeof value !== 'string') throw new Error(`No RateLimit header (status ${response.status}).`);
  return value.split(', ').map((item) => {
    const match = /^"(requests|cost)";r=(\d+);t=(\d+)$/.exec(item);
    if (match === null) throw new Error(`Not a RateLimit item: ${JSON.stringify(item)} in ${JSON.stringify(value)}.`);
    return { name: match[1] as string, r: Number(match[2]), t: Number(match[3]) };
  });
}

/** The 429 message for a wait of `seconds` (singular for one). */
export function rateLimitedMessage(seconds: number): string {
  return `Rate limit exceeded: try again in ${seconds} second${seconds === 1 ? '' : 's'}.`;
}

/** The body of a 429 for a wait of `seconds`, as the server writes it. */
export function rateLimitedBody(seconds: number): string {
  return JSON.stringify({ error: { code: 'RATE_LIMITED', message: rateLimitedMessage(seconds) } });
}

/** The body of a 503 when the limiter's store could not answer. */
export const UNAVAILABLE_BODY = '{"error":{"code":"RATE_LIMIT_UNAVAILABLE","message":"The rate limiter cannot reach its store; try again shortly."}}';
