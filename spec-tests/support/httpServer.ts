/**
 * The HTTP spec-tests' server and client.
 *
 * `startServer` runs `createServer` on 127.0.0.1 with an ephemeral port (never any other
 * address) over a small schema built to be observed: its `Probe` records which resolvers ran,
 * the context and signal each request got, and the error a resolver threw. `send` is a client
 * on `node:http` (or `node:https`) with nothing implicit: no Accept or Content-Type unless given,
 * a fresh connection per request, and a deadline, so that a test sees exactly what the server
 * answered to exactly what was sent, and a hang fails instead of stalling the suite.
 */
import http from 'node:http';
import https from 'node:https';
import type { IncomingHttpHeaders, IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TLSSocket } from 'node:tls';
import { GraphQLError } from 'graphql';
import type { GraphQLSchema } from 'graphql';
import { createServer, makeSchema } from '../../src/index.ts';
import type { GraphQLServer, ServerOptions } from '../../src/index.ts';
import { afterAll, afterEach, beforeAll } from 'vitest';

const TYPE_DEFS = /* GraphQL */ `
  type Query {
    hello(name: String): String!
    "A chain of nodes as deep as the query asks: for depth limits."
    node: Node
    "At most three nodes, however many are asked for: so the actual cost can be less than the requested one."
    items(count: Int!): [Node!]! @listSize(slicingArguments: ["count"])
    "Resolves after ms milliseconds, or rejects as soon as the request's signal is aborted."
    wait(ms: Int!): String
    "Throws an Error a client must never see in production."
    fail: String
    "Throws a GraphQLError with a code of its own."
    forbidden: String
    "The method of the request the context was made for."
    requestMethod: String
    "The user the context factory (if any) read from the request."
    viewer: String
  }

  type Node {
    id: ID!
    child: Node
  }

  type Mutation {
    increment: Int!
  }
`;

/** What the test schema's resolvers saw; one per server. */
export class Probe {
  /** Field coordinates of every resolver call, in order. */
  readonly calls: string[] = [];
  /** The error `Query.fail` threw, the last time it ran. */
  thrown: Error | null = null;
  /** The signal of every `Query.wait` call. */
  readonly waitSignals: AbortSignal[] = [];
  #waitListeners: Array<(signal: AbortSignal) => void> = [];
  #counter = 0;

  /** Resolves with the signal of the next `Query.wait` call, once that resolver has started. */
  nextWait(): Promise<AbortSignal> {
    return new Promise((resolve) => this.#waitListeners.push(resolve));
  }

  /** Called by `Query.wait`. */
  waitStarted(signal: AbortSignal): void {
    this.waitSignals.push(signal);
    const listeners = this.#waitListeners;
    this.#waitListeners = [];
    for (const listener of listeners) listener(signal);
  }

  /** Called by `Mutation.increment`. */
  increment(): number {
    this.#counter += 1;
    return this.#counter;
  }
}

/** The context the test schema's resolvers read: the default one, or a factory's that extends it. */
export interface TestContext {
  request?: IncomingMessage;
  signal?: AbortSignal;
  user?: string;
}

/** The small schema every HTTP test runs against, reporting to `probe`. */
export function testSchema(probe: Probe): GraphQLSchema {
  return makeSchema({
    typeDefs: TYPE_DEFS,
    resolvers: {
      Query: {
        hello: (_parent: unknown, { name }: { name?: string | null }) => {
          probe.calls.push('Query.hello');
          return `Hello, ${name ?? 'world'}!`;
        },
        node: () => {
          probe.calls.push('Query.node');
          return { id: '1' };
        },
        items: (_parent: unknown, { count }: { count: number }) => {
          probe.calls.push('Query.items');
          return Array.from({ length: Math.min(count, 3) }, (_, index) => ({ id: String(index + 1) }));
        },
        wait: (_parent: unknown, { ms }: { ms: number }, context: TestContext) => {
          probe.calls.push('Query.wait');
          const signal = context.signal;
          if (signal === undefined) throw new Error('Query.wait needs context.signal.');
          probe.waitStarted(signal);
          return delayUnlessAborted(ms, signal, `waited ${ms} ms`);
        },
        fail: () => {
          probe.calls.push('Query.fail');
          probe.thrown = new Error('db password leaked');
          throw probe.thrown;
        },
        forbidden: () => {
          probe.calls.push('Query.forbidden');
          throw new GraphQLError('You may not read this field.', { extensions: { code: 'FORBIDDEN' } });
        },
        requestMethod: (_parent: unknown, _args: unknown, context: TestContext) => context.request?.method ?? null,
        viewer: (_parent: unknown, _args: unknown, context: TestContext) => context.user ?? null,
      },
      Node: {
        child: (node: { id: string }) => {
          probe.calls.push('Node.child');
          return { id: `${node.id}.1` };
        },
      },
      Mutation: {
        increment: () => {
          probe.calls.push('Mutation.increment');
          return probe.increment();
        },
      },
    },
  });
}

export interface StartedServer {
  /** The endpoint, `http://127.0.0.1:<port>/graphql` (https for a TLS server). */
  url: string;
  /** `http://127.0.0.1:<port>`, to build other paths. */
  origin: string;
  port: number;
  server: GraphQLServer;
  probe: Probe;
  /** Stops the server at once, dropping open connections; safe to call after `shutdown()`. */
  close(): Promise<void>;
}

/**
 * Starts `createServer` on 127.0.0.1, port 0, over the test schema (unless `options.schema`
 * is given). `options` are passed on as they are.
 */
export async function startServer(options: Partial<ServerOptions> = {}): Promise<StartedServer> {
  const probe = new Probe();
  const server = createServer({ schema: testSchema(probe), ...options });
  const port = await listenOnLoopback(server);
  const origin = `${options.tls === undefined ? 'http' : 'https'}://127.0.0.1:${port}`;
  return {
    url: `${origin}${options.path ?? '/graphql'}`,
    origin,
    port,
    server,
    probe,
    close: () => closeNow(server),
  };
}

/** Starts a server listening on 127.0.0.1 (never any other address), at a port the OS picks; answers the port. */
export async function listenOnLoopback(server: http.Server): Promise<number> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  return (server.address() as AddressInfo).port;
}

/** Stops a server at once: it accepts nothing more, and its open connections are closed. */
export function closeNow(server: http.Server): Promise<void> {
  return new Promise<void>((resolve) => {
    if (!server.listening) {
      server.closeAllConnections();
      resolve();
      return;
    }
    server.close(() => resolve());
    server.closeAllConnections();
  });
}

/**
 * One server for a whole `describe` block: started before its first test, closed after its last,
 * with the probe's record of resolver calls cleared between tests. Read it inside the tests.
 */
export function serveDuringSuite(options: Partial<ServerOptions> = {}): StartedServer {
  let started: StartedServer | undefined;
  beforeAll(async () => {
    started = await startServer(options);
  });
  afterAll(async () => {
    await started?.close();
  });
  afterEach(() => {
    started?.probe.calls.splice(0);
  });
  const current = (): StartedServer => {
    if (started === undefined) throw new Error('serveDuringSuite: the server is read before the suite started it.');
    return started;
  };
  return {
    get url() {
      return current().url;
    },
    get origin() {
      return current().origin;
    },
    get port() {
      return current().port;
    },
    get server() {
      return current().server;
    },
    get probe() {
      return current().probe;
    },
    close: () => current().close(),
  };
}

export interface SendOptions {
  method?: string;
  headers?: Record<string, string | number>;
  body?: string | Buffer;
  /** The request fails if no complete response arrived by then. Default 5000 ms. */
  timeoutMs?: number;
  /** For https: options of the TLS connection (ca, minVersion, maxVersion, ...). */
  tls?: https.RequestOptions;
  /** The path and query sent byte for byte instead of the URL's (which URL parsing normalizes: dot segments, escapes). */
  rawPath?: string;
}

export interface SentResponse {
  status: number;
  headers: IncomingHttpHeaders;
  /** The body, decoded as UTF-8. */
  text: string;
  /** The TLS version of the connection, for https. */
  protocol: string | null;
}

/** One request on a fresh connection; resolves with the whole response. */
export function send(url: string, options: SendOptions = {}): Promise<SentResponse> {
  const target = new URL(url);
  const transport = target.protocol === 'https:' ? https : http;
  const timeoutMs = options.timeoutMs ?? 5000;
  return new Promise((resolve, reject) => {
    const request = transport.request(target, {
      method: options.method ?? 'GET',
      headers: options.headers ?? {},
      agent: false,
      ...(options.rawPath === undefined ? {} : { path: options.rawPath }),
      ...options.tls,
    });
    const deadline = setTimeout(() => {
      request.destroy(new Error(`No complete response to ${options.method ?? 'GET'} ${url} within ${timeoutMs} ms.`));
    }, timeoutMs);
    request.on('response', (response) => {
      const chunks: Buffer[] = [];
      const socket = response.socket as TLSSocket;
      const protocol = typeof socket.getProtocol === 'function' ? socket.getProtocol() : null;
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('error', (error) => {
        clearTimeout(deadline);
        reject(error);
      });
      response.on('end', () => {
        clearTimeout(deadline);
        resolve({ status: response.statusCode ?? 0, headers: response.headers, text: Buffer.concat(chunks).toString('utf8'), protocol });
      });
    });
    request.on('error', (error) => {
      clearTimeout(deadline);
      reject(error);
    });
    // A server may answer (413, 415) and close before it has read the whole body; the response
    // is what the test wants, so a write that fails after it must not fail the request.
    request.end(options.body);
  });
}

/** Resolves with `value` after `ms`, unless `signal` aborts first: then rejects with its reason (a resolver that honours the request's signal). */
export function delayUnlessAborted<T>(ms: number, signal: AbortSignal, value: T): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => resolve(value), ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        reject(signal.reason);
      },
      { once: true },
    );
  });
}

/** POSTs a JSON body with `Content-Type: application/json` and the given Accept (none if null). */
export function postJson(url: string, body: unknown, accept: string | null = 'application/json', headers: Record<string, string> = {}): Promise<SentResponse> {
  return send(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(accept === null ? {} : { accept }), ...headers },
    body: JSON.stringify(body),
  });
}

/** The body as JSON. */
export function json(response: SentResponse): unknown {
  return JSON.parse(response.text) as unknown;
}

/** What V8 says about a text that is not JSON: the message the server passes on in a 400. */
export function jsonSyntaxMessage(text: string): string {
  try {
    JSON.parse(text);
  } catch (error) {
    return (error as Error).message;
  }
  throw new Error(`${text} is valid JSON.`);
}

/**
 * A JSON POST sent with `Transfer-Encoding: chunked` (so no Content-Length), one chunk at a time,
 * `gapMs` apart so that the server sees them arrive separately (0: all at once).
 */
export function postChunked(url: string, chunks: ReadonlyArray<string | Buffer>, gapMs = 20): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const request = http.request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', 'transfer-encoding': 'chunked' },
      agent: false,
    });
    request.on('response', (res) => {
      const received: Buffer[] = [];
      res.on('data', (chunk: Buffer) => received.push(chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(received).toString('utf8') }));
    });
    request.on('error', reject);
    const writeFrom = (index: number): void => {
      if (index === chunks.length - 1) {
        request.end(chunks[index]);
        return;
      }
      request.write(chunks[index]);
      if (gapMs === 0) writeFrom(index + 1);
      else setTimeout(() => writeFrom(index + 1), gapMs);
    };
    writeFrom(0);
  });
}
