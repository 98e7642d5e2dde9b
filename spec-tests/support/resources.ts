/**
 * The resource-route spec-tests' servers and client.
 *
 * `startDemoResources` starts the demo as main.ts does (createServer over demoSchema with
 * `resources: DEMO_RESOURCES`, a context from createDemoContext, `...demoSecurity(env)`) on
 * 127.0.0.1, port 0, over a store of its own; `startResources` starts any ServerOptions the same
 * way. `call` sends one request with the path exactly as given (no URL normalisation, so `..`,
 * `%2e%2e` and `%2f` reach the server as written), on a fresh connection, with a deadline.
 */
import { createHash } from 'node:crypto';
import { createServer } from '../../src/index.ts';
import type { GraphQLServer, ServerOptions } from '../../src/index.ts';
import { demoSecurity } from '../../src/demo/config.ts';
import { createDemoContext, createDemoData, demoSchema } from '../../src/demo/librarySchema.ts';
import type { DemoData } from '../../src/demo/librarySchema.ts';
import { DEMO_RESOURCES } from '../../src/demo/resources.ts';
import type { ResourcesOptions } from '../../src/transports/rest/resourceHandler.ts';
import { closeNow, listenOnLoopback, send } from './httpServer.ts';
import type { SentResponse } from './httpServer.ts';

export interface ResourceServer {
  /** `http://127.0.0.1:<port>` */
  readonly origin: string;
  readonly port: number;
  readonly server: GraphQLServer;
  close(): Promise<void>;
}

export interface DemoResourceServer extends ResourceServer {
  readonly data: DemoData;
}

/** Starts createServer with these options on 127.0.0.1, port 0. */
export async function startResources(options: ServerOptions): Promise<ResourceServer> {
  const server = createServer({ log: () => undefined, ...options });
  const port = await listenOnLoopback(server);
  let closed = false;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    server,
    async close() {
      if (closed) return;
      closed = true;
      await closeNow(server);
      // Releases the pipeline's stores (the rate limiter's timers); the HTTP side is closed already.
      await server.shutdown();
    },
  };
}

export interface DemoOptions {
  /** Environment variables for demoSecurity (default none: anonymous callers and the demo API keys). */
  env?: Record<string, string>;
  /** Other options, over the demo's (resources, rateLimit, production, ...). */
  extra?: Partial<ServerOptions>;
  resources?: ResourcesOptions;
}

/** The demo, started as main.ts starts it, over a fresh store. */
export async function startDemoResources(options: DemoOptions = {}): Promise<DemoResourceServer> {
  const data = createDemoData();
  const started = await startResources({
    schema: demoSchema,
    context: (_request, { identity }) => createDemoContext(data, identity),
    resources: options.resources ?? DEMO_RESOURCES,
    ...demoSecurity(options.env ?? {}),
    ...options.extra,
  });
  return { ...started, close: () => started.close(), data };
}

export interface CallOptions {
  headers?: Record<string, string>;
  /** Sent as it is (set content-type yourself). */
  body?: string;
  /** A JSON body, sent with `content-type: application/json`. */
  json?: unknown;
  timeoutMs?: number;
}

export type CallResponse = Pick<SentResponse, 'status' | 'headers' | 'text'>;

/** One request, the path sent byte for byte as given. */
export function call(port: number, method: string, path: string, options: CallOptions = {}): Promise<CallResponse> {
  const headers: Record<string, string> = { ...options.headers };
  let body = options.body;
  if (options.json !== undefined) {
    body = JSON.stringify(options.json);
    headers['content-type'] ??= 'application/json';
  }
  // Node's client declares no length for a body of GET, HEAD, DELETE or OPTIONS by itself, and
  // the bytes would then be read as the next request: the length is always declared.
  if (body !== undefined && headers['transfer-encoding'] === undefined) headers['content-length'] ??= String(Buffer.byteLength(body));
  return send(`http://127.0.0.1:${port}/`, { method, headers, body, timeoutMs: options.timeoutMs, rawPath: path });
}

/** The body parsed as JSON (the test fails with the text when it is not JSON). */
export function bodyOf(response: CallResponse): unknown {
  try {
    return JSON.parse(response.text) as unknown;
  } catch {
    throw new Error(`The body is not JSON: ${JSON.stringify(response.text.slice(0, 200))} (status ${response.status}).`);
  }
}

/** The `{ error }` body of a failure. */
export function errorBody(code: string, message: string): { error: { code: string; message: string } } {
  return { error: { code, message } };
}

/** The strong entity tag the resource surface gives a body text: the SHA-1 of the text, base64url, quoted. */
export function etagOf(text: string): string {
  return `"${createHash('sha1').update(text).digest('base64url')}"`;
}

/** The demo's GraphQL answer to an operation (POST /graphql, application/json). */
export async function graphqlAnswer(
  port: number,
  query: string,
  variables: Record<string, unknown>,
  headers: Record<string, string> = {},
): Promise<{ data?: Record<string, unknown> | null; errors?: Array<{ message: string; extensions?: { code?: string } }> }> {
  const response = await call(port, 'POST', '/graphql', { json: { query, variables }, headers: { accept: 'application/json', ...headers } });
  if (response.status !== 200) throw new Error(`/graphql answered ${response.status}: ${response.text}`);
  return bodyOf(response) as { data?: Record<string, unknown> | null; errors?: Array<{ message: string; extensions?: { code?: string } }> };
}
