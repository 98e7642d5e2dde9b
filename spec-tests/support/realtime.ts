/**
 * The real-time spec-tests' server and clients: GraphQL over WebSocket (graphql-transport-ws)
 * and over Server-Sent Events.
 *
 * - `startRealtimeServer`: `createServer` on 127.0.0.1, port 0, over a schema whose Subscription
 *   fields are fed by an in-memory pub/sub (`createPubSub`), so that a test publishes events
 *   itself and counts the live subscriptions at their source (`subscribers(topic)`), and the
 *   open WebSockets (`sockets()`). `close()` drops every connection, upgraded ones included.
 * - `RawClient`: a `ws` client with nothing implicit: it sends exactly what the test gives, and
 *   records every message the server sent and the close code and reason.
 * - `upgradeRefusal`: what an upgrade the server refuses gets: the HTTP status and body.
 * - `HandmadeSocket`: a WebSocket client written on a bare TCP socket, frame by frame: it
 *   completes the upgrade with the conformance kit's hand-written one (src/conformance/ws/
 *   handshake.ts) and never answers a ping, as a half-open peer would not; it can also stop
 *   reading altogether.
 * - `openEventStream` and `EventStreamReader`: a fetch of `text/event-stream` and a parser of
 *   its events and comments, as they arrive.
 * - `within`: a deadline, so that a hang fails the test instead of stalling the suite.
 */
import { randomBytes } from 'node:crypto';
import type { Socket } from 'node:net';
import { onTestFinished } from 'vitest';
import { WebSocket } from 'ws';
import type { ClientOptions, RawData } from 'ws';
import { nextFrame, upgrade } from '../../src/conformance/ws/handshake.ts';
import { createPubSub, createServer, makeSchema } from '../../src/index.ts';
import type { GraphQLServer, MemoryPubSub, ServerOptions } from '../../src/index.ts';
import { closeNow, listenOnLoopback } from './httpServer.ts';

/** The WebSocket subprotocol the server speaks. */
export const SUBPROTOCOL = 'graphql-transport-ws';

const TYPE_DEFS = /* GraphQL */ `
  type Query {
    hello(name: String): String!
  }

  type Mutation {
    "Publishes value to topic; answers how many subscribers it reached."
    publish(topic: String!, value: Int!): Int! @auth(public: true)
  }

  type Subscription {
    "Every value published to topic."
    ticks(topic: String!): Int!
    "Every value published to topic, as a report with a field only admins may read."
    reports(topic: String!): Report!
    "from, from - 1, ..., 1, then the source ends."
    countdown(from: Int!): Int!
    "One value, then the source throws an Error (not a GraphQLError)."
    failing: Int!
  }

  type Report {
    value: Int!
    secret: String @auth(roles: ["admin"])
  }
`;

/** What `Report.secret` holds, for those who may read it. */
export const SECRET = 'the launch codes';

/** The message of the Error `Subscription.failing`'s source throws. */
export const FEED_FAILURE = 'The feed broke.';

/** The real-time test schema, its subscriptions fed by `pubsub`. */
export function realtimeSchema(pubsub: MemoryPubSub) {
  return makeSchema({
    typeDefs: TYPE_DEFS,
    roles: ['admin', 'reader'],
    resolvers: {
      Query: {
        hello: (_parent: unknown, { name }: { name?: string | null }) => `Hello, ${name ?? 'world'}!`,
      },
      Mutation: {
        publish: async (_parent: unknown, { topic, value }: { topic: string; value: number }) => {
          const reached = pubsub.subscriberCount(topic);
          await pubsub.publish(topic, value);
          return reached;
        },
      },
      Subscription: {
        ticks: {
          subscribe: (_parent: unknown, { topic }: { topic: string }) => pubsub.subscribe<number>(topic),
          resolve: (value: number) => value,
        },
        reports: {
          subscribe: (_parent: unknown, { topic }: { topic: string }) => pubsub.subscribe<number>(topic),
          resolve: (value: number) => ({ value, secret: SECRET }),
        },
        countdown: {
          subscribe: async function* countdown(_parent: unknown, { from }: { from: number }) {
            for (let value = from; value > 0; value--) yield value;
          },
          resolve: (value: number) => value,
        },
        failing: {
          subscribe: async function* failing() {
            yield 1;
            throw new Error(FEED_FAILURE);
          },
          resolve: (value: number) => value,
        },
      },
    },
  });
}

export interface RealtimeServerOptions extends Partial<ServerOptions> {
  /** The pub/sub's bufferSize (default the pub/sub's own, 1,000). */
  bufferSize?: number;
}

export interface RealtimeServer {
  readonly server: GraphQLServer;
  readonly pubsub: MemoryPubSub;
  /** `http://127.0.0.1:<port>/graphql` */
  readonly url: string;
  /** `ws://127.0.0.1:<port>/graphql` */
  readonly wsUrl: string;
  /** `http://127.0.0.1:<port>`, to build other paths. */
  readonly origin: string;
  readonly port: number;
  /** Live subscriptions to topic at the source: the pub/sub's subscriberCount. */
  subscribers(topic: string): number;
  /** WebSockets open now: server.websocket.size (0 when WebSockets are off). */
  sockets(): number;
  /** Stops the server at once, dropping every connection (WebSockets too); safe after shutdown(). */
  close(): Promise<void>;
}

/**
 * Starts `createServer` on 127.0.0.1 over the real-time schema, without the cost report (so
 * results are only `data` and `errors`) unless `options` say otherwise.
 */
export async function startRealtimeServer(options: RealtimeServerOptions = {}): Promise<RealtimeServer> {
  const { bufferSize, ...serverOptions } = options;
  const pubsub = createPubSub(bufferSize === undefined ? undefined : { bufferSize });
  // Each subscription its own source, unless a test asks for shared ones: the transport suites
  // count source subscriptions per client (shared subscriptions have a describe of their own).
  const server = createServer({ schema: realtimeSchema(pubsub), reportCost: false, shareSubscriptions: false, ...serverOptions });
  // Upgraded sockets leave node's own connection tracking (closeAllConnections): keep every one.
  const connections = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    connections.add(socket);
    socket.once('close', () => connections.delete(socket));
  });
  const port = await listenOnLoopback(server);
  const origin = `http://127.0.0.1:${port}`;
  const path = options.path ?? '/graphql';
  return {
    server,
    pubsub,
    url: `${origin}${path}`,
    wsUrl: `ws://127.0.0.1:${port}${path}`,
    origin,
    port,
    subscribers: (topic) => pubsub.subscriberCount(topic),
    sockets: () => server.websocket?.size ?? 0,
    close: async () => {
      for (const socket of connections) socket.destroy();
      await closeNow(server);
    },
  };
}

/** Resolves as `promise` does, or fails with `what` once `ms` have passed. */
export function within<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`Timed out after ${ms} ms waiting for ${what}.`)), ms);
  });
  return Promise.race([promise, deadline]).finally(() => clearTimeout(timer));
}

/** Readers waiting for something to arrive: `until` waits for the next `wake` (or fails after ms). */
class Waiting {
  #waiters: Array<() => void> = [];

  until(ms: number, what: string): Promise<void> {
    let waiter: () => void = () => undefined;
    const woken = new Promise<void>((resolve) => {
      waiter = resolve;
      this.#waiters.push(resolve);
    });
    return within(woken, ms, what).finally(() => {
      this.#waiters = this.#waiters.filter((each) => each !== waiter);
    });
  }

  wake(): void {
    for (const waiter of this.#waiters.splice(0)) waiter();
  }
}

/** How a WebSocket closed, as its peer saw it. */
export interface Closed {
  readonly code: number;
  readonly reason: string;
}

/** A message the server sent, parsed. */
export interface ServerMessage {
  readonly type: string;
  readonly id?: string;
  readonly payload?: unknown;
}

export interface RawClientOptions {
  /** Subprotocols offered (default `['graphql-transport-ws']`). */
  protocols?: string[];
  /** Headers of the upgrade request. */
  headers?: Record<string, string>;
}

/**
 * A `ws` client that sends exactly what it is given and records what comes back. Messages are
 * read in order with `next()`; `closed` settles with the close code and reason.
 */
export class RawClient {
  readonly socket: WebSocket;
  /** Every message received, in order. */
  readonly received: ServerMessage[] = [];
  /** Settles when the socket has closed. */
  readonly closed: Promise<Closed>;
  #read = 0;
  #waiting = new Waiting();
  #closedWith: Closed | null = null;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    this.closed = new Promise((resolve) => {
      socket.on('close', (code: number, reason: Buffer) => {
        this.#closedWith = { code, reason: reason.toString('utf8') };
        resolve(this.#closedWith);
        this.#waiting.wake();
      });
    });
    socket.on('message', (data: RawData) => {
      this.received.push(JSON.parse(rawText(data)) as ServerMessage);
      this.#waiting.wake();
    });
    // A write after the server closed (a test that goes on sending) is not the test's failure.
    socket.on('error', () => undefined);
  }

  /** Opens a socket to url; resolves once it is open. */
  static open(url: string, options: RawClientOptions = {}): Promise<RawClient> {
    const socket = new WebSocket(url, options.protocols ?? [SUBPROTOCOL], options.headers === undefined ? {} : { headers: options.headers });
    const client = new RawClient(socket);
    return within(
      new Promise<RawClient>((resolve, reject) => {
        socket.once('open', () => resolve(client));
        socket.once('error', reject);
        socket.once('unexpected-response', (_request, response) => reject(new Error(`The upgrade was refused with ${response.statusCode}.`)));
      }),
      2000,
      `a WebSocket to open at ${url}`,
    );
  }

  /** Sends a text message: an object as JSON, a string as it is. */
  send(message: object | string): void {
    this.socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Sends a binary message. */
  sendBinary(data: Buffer): void {
    this.socket.send(data, { binary: true });
  }

  /** The next message not read yet; fails if the socket closes first, or none comes within timeoutMs. */
  async next(timeoutMs = 2000): Promise<ServerMessage> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const message = this.received[this.#read];
      if (message !== undefined) {
        this.#read += 1;
        return message;
      }
      if (this.#closedWith !== null) {
        throw new Error(`The socket closed (${this.#closedWith.code} ${this.#closedWith.reason}) before another message arrived.`);
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`No message arrived within ${timeoutMs} ms.`);
      await this.#waiting.until(left, 'the next message');
    }
  }

  /** Messages received and not read yet, read now. */
  unread(): ServerMessage[] {
    const rest = this.received.slice(this.#read);
    this.#read = this.received.length;
    return rest;
  }

  /** Sends connection_init (with payload, when given) and waits for connection_ack. */
  async init(payload?: Record<string, unknown>): Promise<void> {
    this.send(payload === undefined ? { type: 'connection_init' } : { type: 'connection_init', payload });
    const ack = await this.next();
    if (ack.type !== 'connection_ack') throw new Error(`Expected connection_ack, got ${JSON.stringify(ack)}.`);
  }

  /**
   * Everything the server sent before answering a ping sent now: the server handles messages in
   * order, so once the pong is back every answer to what was sent before it has arrived.
   */
  async settle(): Promise<ServerMessage[]> {
    const marker = { settle: randomBytes(6).toString('hex') };
    this.send({ type: 'ping', payload: marker });
    const before: ServerMessage[] = [];
    for (;;) {
      const message = await this.next();
      if (message.type === 'pong' && JSON.stringify(message.payload) === JSON.stringify(marker)) return before;
      before.push(message);
    }
  }

  /** Waits for the socket to close; fails after timeoutMs. */
  closedWithin(timeoutMs = 2000): Promise<Closed> {
    return within(this.closed, timeoutMs, 'the socket to close');
  }

  /** Closes the socket normally (1000) and waits for the close to complete. */
  async close(): Promise<Closed> {
    if (this.socket.readyState === WebSocket.OPEN || this.socket.readyState === WebSocket.CONNECTING) this.socket.close(1000);
    return this.closedWithin();
  }

  /** Drops the TCP connection without a close frame. */
  terminate(): void {
    this.socket.terminate();
  }
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.from(data as ArrayBuffer).toString('utf8');
}

/** A refused upgrade: the status and body the server answered. */
export interface Refusal {
  readonly status: number;
  readonly contentType: string | undefined;
  readonly body: string;
}

/** Asks for an upgrade the test expects refused; fails if the socket opens. */
export function upgradeRefusal(url: string, options: RawClientOptions = {}): Promise<Refusal> {
  const clientOptions: ClientOptions = options.headers === undefined ? {} : { headers: options.headers };
  const socket = new WebSocket(url, options.protocols ?? [SUBPROTOCOL], clientOptions);
  return within(
    new Promise<Refusal>((resolve, reject) => {
      socket.on('error', (error) => reject(error));
      socket.once('open', () => {
        socket.terminate();
        reject(new Error('The upgrade was accepted.'));
      });
      socket.once('unexpected-response', (_request, response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => {
          resolve({ status: response.statusCode ?? 0, contentType: response.headers['content-type'], body: Buffer.concat(chunks).toString('utf8') });
          socket.removeAllListeners('error');
          socket.on('error', () => undefined);
          socket.terminate();
        });
      });
    }),
    2000,
    `the upgrade at ${url} to be refused`,
  );
}

/** A frame the server sent to a HandmadeSocket. */
export interface Frame {
  readonly opcode: number;
  readonly payload: Buffer;
}

export const Opcode = { Text: 0x1, Binary: 0x2, Close: 0x8, Ping: 0x9, Pong: 0xa } as const;

/**
 * A WebSocket client on a bare TCP socket: the upgrade is written and checked by hand, frames are
 * masked and unmasked by hand, and nothing is answered automatically: a ping gets no pong, a
 * close frame no close frame. What a peer behind a dead NAT or a crashed machine looks like.
 */
export class HandmadeSocket {
  readonly socket: Socket;
  /** Every frame received, in order. */
  readonly frames: Frame[] = [];
  /** Settles when the TCP connection has closed. */
  readonly ended: Promise<void>;
  #buffer: Buffer = Buffer.alloc(0);
  #waiting = new Waiting();

  private constructor(socket: Socket, rest: Buffer) {
    this.socket = socket;
    this.ended = new Promise((resolve) => socket.once('close', () => resolve()));
    socket.on('data', (chunk: Buffer) => this.#receive(chunk));
    socket.on('error', () => undefined);
    if (rest.length > 0) this.#receive(rest);
  }

  /** Connects to port and completes the upgrade to graphql-transport-ws at path. */
  static async open(port: number, path = '/graphql'): Promise<HandmadeSocket> {
    const answer = await upgrade({ url: `ws://127.0.0.1:${port}${path}`, protocol: SUBPROTOCOL, timeoutMs: 2000 });
    if (answer.kind === 'switched' && answer.keyAccepted) return new HandmadeSocket(answer.socket, answer.head);
    if (answer.kind === 'switched') answer.socket.destroy();
    const why = answer.kind === 'refused' ? `${answer.status} ${answer.body}` : answer.kind === 'switched' ? 'the 101 does not accept the key' : answer.message;
    throw new Error(`The upgrade failed: ${why}`);
  }

  /** Sends one masked text frame (an object as JSON). */
  sendText(message: object | string): void {
    const payload = Buffer.from(typeof message === 'string' ? message : JSON.stringify(message), 'utf8');
    this.socket.write(maskedFrame(Opcode.Text, payload));
  }

  /** Text frames received so far, parsed. */
  messages(): ServerMessage[] {
    return this.frames.filter((frame) => frame.opcode === Opcode.Text).map((frame) => JSON.parse(frame.payload.toString('utf8')) as ServerMessage);
  }

  /** Pings received so far. */
  pings(): number {
    return this.frames.filter((frame) => frame.opcode === Opcode.Ping).length;
  }

  /** Waits until some frame satisfies the predicate; fails after timeoutMs. */
  async waitFor(predicate: (frames: ReadonlyArray<Frame>) => boolean, timeoutMs = 2000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.frames)) {
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`The frames awaited did not arrive within ${timeoutMs} ms.`);
      await this.#waiting.until(left, 'a frame');
    }
  }

  /** Stops reading from the socket: what the server sends piles up in the kernel, then in ws. */
  stopReading(): void {
    this.socket.pause();
  }

  destroy(): void {
    this.socket.destroy();
  }

  #receive(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      const frame = readFrame(this.#buffer);
      if (frame === null) break;
      this.frames.push(frame.frame);
      this.#buffer = this.#buffer.subarray(frame.size);
    }
    this.#waiting.wake();
  }
}

/** A client frame: FIN set, masked with a random key (RFC 6455 section 5.3). */
function maskedFrame(opcode: number, payload: Buffer): Buffer {
  const length = payload.length;
  const header = length < 126 ? Buffer.alloc(2) : length < 65536 ? Buffer.alloc(4) : Buffer.alloc(10);
  header[0] = 0x80 | opcode;
  if (length < 126) {
    header[1] = 0x80 | length;
  } else if (length < 65536) {
    header[1] = 0x80 | 126;
    header.writeUInt16BE(length, 2);
  } else {
    header[1] = 0x80 | 127;
    header.writeBigUInt64BE(BigInt(length), 2);
  }
  const mask = randomBytes(4);
  const masked = Buffer.alloc(length);
  for (let i = 0; i < length; i++) masked[i] = (payload[i] as number) ^ (mask[i % 4] as number);
  return Buffer.concat([header, mask, masked]);
}

/** The first whole server frame in buffer, copied out of it, and how many bytes it took; null if incomplete. */
function readFrame(buffer: Buffer): { frame: Frame; size: number } | null {
  const frame = nextFrame(buffer);
  return frame === null ? null : { frame: { opcode: frame.opcode, payload: Buffer.from(frame.payload) }, size: frame.size };
}

/** One thing an event stream carried: an event, or a comment (a heartbeat). */
export type StreamItem = { readonly event: string; readonly data: string } | { readonly comment: string };

/**
 * Reads a `text/event-stream` body as it arrives. `text` is every character received so far;
 * `next()` answers the next event or comment, or null once the stream has ended.
 */
export class EventStreamReader {
  text = '';
  #pending = '';
  #items: StreamItem[] = [];
  #ended = false;
  #failure: unknown = null;
  #waiting = new Waiting();
  readonly #reader: ReadableStreamDefaultReader<Uint8Array>;

  constructor(body: ReadableStream<Uint8Array>) {
    this.#reader = body.getReader();
    void this.#pump();
  }

  async #pump(): Promise<void> {
    const decoder = new TextDecoder();
    try {
      for (;;) {
        const { done, value } = await this.#reader.read();
        if (done) break;
        const chunk = decoder.decode(value, { stream: true });
        this.text += chunk;
        this.#pending += chunk;
        let end = this.#pending.indexOf('\n\n');
        while (end !== -1) {
          this.#items.push(parseBlock(this.#pending.slice(0, end)));
          this.#pending = this.#pending.slice(end + 2);
          end = this.#pending.indexOf('\n\n');
        }
        this.#waiting.wake();
      }
    } catch (error) {
      this.#failure = error;
    }
    this.#ended = true;
    this.#waiting.wake();
  }

  /** The next event or comment; null once the stream has ended; fails after timeoutMs. */
  async next(timeoutMs = 2000): Promise<StreamItem | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const item = this.#items.shift();
      if (item !== undefined) return item;
      if (this.#ended) {
        if (this.#failure !== null) throw this.#failure;
        return null;
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`No event arrived within ${timeoutMs} ms.`);
      await this.#waiting.until(left, 'the next event');
    }
  }

  /** Every remaining item, up to the end of the stream. */
  async rest(timeoutMs = 2000): Promise<StreamItem[]> {
    const items: StreamItem[] = [];
    for (;;) {
      const item = await this.next(timeoutMs);
      if (item === null) return items;
      items.push(item);
    }
  }
}

/** One block of an event stream (the lines between blank lines), by the SSE field rules this server uses. */
function parseBlock(block: string): StreamItem {
  let event: string | null = null;
  const data: string[] = [];
  const comments: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith(':')) {
      comments.push(line.slice(1));
      continue;
    }
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '');
    if (field === 'event') event = value;
    else if (field === 'data') data.push(value);
  }
  if (event === null && data.length === 0) return { comment: comments.join('\n') };
  return { event: event ?? 'message', data: data.join('\n') };
}

/** An event stream opened with fetch: its response, a reader of its body, and how to abort it. */
export interface OpenedStream {
  readonly response: Response;
  readonly reader: EventStreamReader;
  abort(): void;
}

/**
 * POSTs a GraphQL request asking for `text/event-stream` (the Accept and headers can be
 * overridden); resolves once the response headers are in.
 */
export async function openEventStream(url: string, body: unknown, headers: Record<string, string> = {}): Promise<OpenedStream> {
  const controller = new AbortController();
  const response = await within(
    fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'text/event-stream', ...headers },
      body: typeof body === 'string' ? body : JSON.stringify(body),
      signal: controller.signal,
    }),
    2000,
    `the response headers from ${url}`,
  );
  if (response.body === null) throw new Error('The response has no body.');
  return { response, reader: new EventStreamReader(response.body), abort: () => controller.abort() };
}

/** The headers of a fetch response, as a plain object (lower-case names). */
export function headersOf(response: Response): Record<string, string> {
  return Object.fromEntries(response.headers.entries());
}

/** A real-time server for the running test only, closed when it finishes. */
export async function serveForTest(options: RealtimeServerOptions = {}): Promise<RealtimeServer> {
  const server = await startRealtimeServer(options);
  onTestFinished(() => server.close());
  return server;
}

/** A raw protocol client of the running test only, terminated when it finishes. */
export async function rawClientForTest(server: RealtimeServer): Promise<RawClient> {
  const client = await RawClient.open(server.wsUrl);
  onTestFinished(() => client.terminate());
  return client;
}
