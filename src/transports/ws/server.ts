/**
 * The `ws` adapter of graphql-transport-ws (protocol.ts): WebSocket upgrades on the HTTP
 * server's own port and path. It only converts, and owns what only a socket can know:
 *
 *   upgrade ── another path ─ 404     no graphql-transport-ws subprotocol ─ 400
 *           ── an Origin that may not connect ─ 403
 *           ── maxConnectionsPerClient open by this client ─ 429 (Retry-After)
 *           ── maxConnections open, or shutting down ─ 503
 *   frames  ── binary ─ 4400     larger than maxPayloadBytes ─ 1009 (by ws)
 *   a client that stops answering pings (a half-open socket) ─ terminated
 *   a client that reads slower than it is sent to, maxBufferedBytes behind ─ terminated
 *   shutdown ─ every socket closed with 1001
 */
import { STATUS_CODES } from 'node:http';
import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import type { RawData } from 'ws';
import type { OperationPipeline } from '../../server/pipeline.ts';
import { ErrorCode, WebSocketCloseCode, WebSocketCloseReason, errorBody, httpStatus } from '../../errors/codes.ts';
import { positiveInteger } from '../../jsutils/positiveInteger.ts';
import type { PromiseOrValue } from '../../jsutils/promiseOrValue.ts';
import { ClientSlots } from '../../server/clientSlots.ts';
import { createWebSocketProtocol } from './protocol.ts';
import { ReadingGate } from './readingGate.ts';
import type { Connection, WebSocketProtocolOptions } from './protocol.ts';
import { JSON_CONTENT_TYPE } from '../../jsutils/jsonContentType.ts';

/** The WebSocket subprotocol served (graphql-ws's PROTOCOL.md). */
export const SUBPROTOCOL = 'graphql-transport-ws';

export interface WebSocketOptions extends WebSocketProtocolOptions {
  /** Largest message accepted, in bytes (default 1 MiB); larger ones close the socket with 1009. */
  maxPayloadBytes?: number;
  /** Sockets open at once (default 20,000); past it upgrades get 503. */
  maxConnections?: number;
  /** Sockets one client (an address, trustProxy hops trusted) may have open (default 100); past it its upgrades get 429. */
  maxConnectionsPerClient?: number;
  /**
   * The web origins whose pages may open a socket: a browser sends its cookies and other ambient
   * credentials with an upgrade from any page, so a socket opened by another site's page would act
   * as the user (cross-site WebSocket hijacking). An upgrade whose `Origin` is neither listed nor
   * the server's own (its Host) is refused with 403. `'*'` lets every origin in; undefined checks
   * nothing. createServer sets it from `cors.origins`; without CORS, to same-origin only (under
   * `csrfPrevention`, on by default), or to undefined with `csrfPrevention: false`. Clients that
   * are not browsers send no Origin and are let in.
   */
  allowedOrigins?: ReadonlyArray<string> | '*';
  /** How often each socket is pinged; one that has not answered the last ping is terminated (default 30,000 ms). */
  keepAliveMs?: number;
  /** Bytes a socket may have waiting to be sent before it is terminated as too slow (default 4 MiB). */
  maxBufferedBytes?: number;
}

export interface WebSocketTransport {
  /** Sockets open now. */
  readonly size: number;
  /** Subscriptions streaming results now, over every socket (counted when read, for metrics). */
  readonly subscriptions: number;
  /**
   * Refuses new sockets, closes every open one with 1001 (going away) and ends their operations
   * at once; sockets that have not finished closing after `graceMs` are terminated. Resolves
   * once every socket is closed.
   */
  shutdown(graceMs: number): Promise<void>;
}

export function attachWebSocket(
  server: Server,
  pipeline: OperationPipeline<IncomingMessage>,
  path: string,
  options: WebSocketOptions = {},
): WebSocketTransport {
  const transport = new WebSocketServerTransport(pipeline, path, options);
  server.on('upgrade', transport.upgrade);
  return transport;
}

/** The sockets of one HTTP server: upgrades admitted, messages handed to the protocol, liveness, shutdown. */
class WebSocketServerTransport implements WebSocketTransport {
  private readonly maxConnections: number;
  private readonly maxBufferedBytes: number;
  /** Sockets open per client. */
  private readonly slots: ClientSlots;
  private readonly originAllowed: (origin: string | undefined, host: string | undefined) => boolean;
  private readonly protocol: ReturnType<typeof createWebSocketProtocol>;
  private readonly wss: WebSocketServer;
  /** Open sockets and their protocol connections. */
  private readonly sockets = new Map<WebSocket, Connection>();
  /** Sockets that answered the last ping. */
  private readonly alive = new WeakSet<WebSocket>();
  private readonly keepAlive: ReturnType<typeof setInterval>;
  private closing = false;
  /** Set by shutdown(): called when the last socket has closed. */
  private allClosed: (() => void) | null = null;

  constructor(
    private readonly pipeline: OperationPipeline<IncomingMessage>,
    private readonly path: string,
    options: WebSocketOptions,
  ) {
    this.maxConnections = positiveInteger(options.maxConnections ?? 20_000, 'websocket.maxConnections');
    this.maxBufferedBytes = positiveInteger(options.maxBufferedBytes ?? 4 * 1024 * 1024, 'websocket.maxBufferedBytes');
    const keepAliveMs = positiveInteger(options.keepAliveMs ?? 30_000, 'websocket.keepAliveMs');
    this.slots = new ClientSlots(positiveInteger(options.maxConnectionsPerClient ?? 100, 'websocket.maxConnectionsPerClient'));
    this.originAllowed = originCheck(options.allowedOrigins);
    this.protocol = createWebSocketProtocol(pipeline, options);
    this.wss = new WebSocketServer({
      noServer: true,
      maxPayload: positiveInteger(options.maxPayloadBytes ?? 1024 * 1024, 'websocket.maxPayloadBytes'),
      // Compression costs CPU and memory per socket (and opens the door to zip bombs); messages are small.
      perMessageDeflate: false,
      handleProtocols: (protocols) => (protocols.has(SUBPROTOCOL) ? SUBPROTOCOL : false),
    });
    this.keepAlive = setInterval(() => this.ping(), keepAliveMs);
    this.keepAlive.unref();
  }

  get size(): number {
    return this.sockets.size;
  }

  get subscriptions(): number {
    let count = 0;
    for (const connection of this.sockets.values()) count += connection.streaming;
    return count;
  }

  /** An upgrade: on the endpoint's path, with the subprotocol, from an allowed origin, within the connection limits. */
  readonly upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const url = req.url ?? '/';
    const queryStart = url.indexOf('?');
    const pathname = queryStart === -1 ? url : url.slice(0, queryStart);
    if (pathname !== this.path) return refuse(req, socket, ErrorCode.NotFound, `Nothing is served at ${pathname}; the GraphQL endpoint is ${this.path}.`);
    const offered = (req.headers['sec-websocket-protocol'] ?? '').split(',').map((name) => name.trim());
    if (!offered.includes(SUBPROTOCOL)) {
      return refuse(req, socket, ErrorCode.SubprotocolNotAcceptable, `WebSocket connections must use the ${SUBPROTOCOL} subprotocol.`);
    }
    if (!this.originAllowed(req.headers.origin, req.headers.host)) {
      return refuse(req, socket, ErrorCode.OriginNotAllowed, `Pages from ${String(req.headers.origin)} may not open a WebSocket here.`);
    }
    if (this.closing) return refuse(req, socket, ErrorCode.ServiceUnavailable, 'The server is shutting down.');
    if (this.sockets.size >= this.maxConnections) {
      return refuse(req, socket, ErrorCode.ServiceUnavailable, `The server has ${this.maxConnections} WebSocket connections open already.`);
    }
    const release = this.slots.take(this.pipeline.addressOf({ remoteAddress: req.socket.remoteAddress, forwardedFor: req.headers['x-forwarded-for'] }));
    if (release === null) {
      return refuse(req, socket, ErrorCode.TooManyConnections, `This client has ${this.slots.perClient} WebSocket connections open already.`, { 'Retry-After': '5' });
    }
    this.wss.handleUpgrade(req, socket, head, (ws) => this.opened(ws, req, release));
  };

  private opened(ws: WebSocket, req: IncomingMessage, release: () => void): void {
    this.alive.add(ws);
    const client = { remoteAddress: req.socket.remoteAddress, forwardedFor: req.headers['x-forwarded-for'] };
    const gate = new ReadingGate(ws);
    const connection = this.protocol.open(this.socketOf(ws, gate), { headers: req.headers, raw: req, client });
    this.sockets.set(ws, connection);
    // Large messages wait in lanes by address, as large HTTP bodies do (server.ts).
    const preparation = this.pipeline.preparation;
    const address = this.pipeline.addressOf(client);
    const inTurn = (job: () => void) => preparation.runOrQueue(() => address, job);
    ws.on('message', inTurns(gate, (data, isBinary) => this.message(ws, connection, data, isBinary), inTurn));
    ws.on('pong', () => this.alive.add(ws));
    ws.on('close', () => {
      release();
      gate.closed();
      this.sockets.delete(ws);
      connection.closed();
      if (this.sockets.size === 0) this.allClosed?.();
    });
    // ws closes the socket itself on a protocol error (an oversized or malformed frame): nothing to add.
    ws.on('error', () => undefined);
  }

  /** The socket as the protocol writes to it. */
  private socketOf(ws: WebSocket, gate: ReadingGate): Parameters<typeof this.protocol.open>[0] {
    const maxBufferedBytes = this.maxBufferedBytes;
    return {
      send(text) {
        if (ws.readyState !== WebSocket.OPEN) return;
        // A client that does not read would make the server hold its messages for ever.
        if (ws.bufferedAmount > maxBufferedBytes) {
          ws.terminate();
          return;
        }
        ws.send(text);
      },
      close(code, reason) {
        ws.close(code, reason);
      },
      holdReading(ms) {
        gate.hold(ms);
      },
    };
  }

  private message(ws: WebSocket, connection: Connection, data: RawData, isBinary: boolean): void {
    if (isBinary) {
      ws.close(WebSocketCloseCode.BadRequest, WebSocketCloseReason.BinaryMessage);
      connection.closed();
      return;
    }
    try {
      connection.message(Array.isArray(data) ? Buffer.concat(data).toString('utf8') : data.toString('utf8'));
    } catch (error) {
      // A fault of ours on one message must not escape into ws's event handler (an uncaught
      // exception, and a socket nobody closes): the one connection ends, as the protocol says.
      this.pipeline.log({ level: 'error', message: 'A WebSocket message could not be handled.', error });
      ws.close(WebSocketCloseCode.InternalServerError, WebSocketCloseReason.InternalServerError);
      connection.closed();
    }
  }

  /** Terminates the sockets that did not answer the last ping (half-open ones), and pings the others. */
  private ping(): void {
    for (const ws of this.sockets.keys()) {
      if (!this.alive.has(ws)) {
        ws.terminate();
        continue;
      }
      this.alive.delete(ws);
      ws.ping();
    }
  }

  shutdown(graceMs: number): Promise<void> {
    this.closing = true;
    clearInterval(this.keepAlive);
    if (this.sockets.size === 0) return Promise.resolve();
    const closed = new Promise<void>((resolve) => {
      this.allClosed = resolve;
    });
    for (const [ws, connection] of this.sockets) {
      ws.close(1001, 'The server is shutting down');
      connection.closed();
    }
    // A peer that never answers the close frame would hold its socket open for ws's own 30 s.
    const grace = setTimeout(() => {
      for (const ws of this.sockets.keys()) ws.terminate();
    }, graceMs);
    return closed.then(() => clearTimeout(grace));
  }
}

/**
 * How long a refused upgrade's socket may stay open after its answer: long enough for the client
 * to read the answer and close its side, short enough that no client can hold it.
 */
const REFUSED_LINGER_MS = 2000;

/**
 * Refuses an upgrade with a plain HTTP answer, in the service's error shape, and lets the socket
 * go. Node has handed the socket over (it is no longer one of the HTTP server's connections, so
 * closeAllConnections() and the request timeouts do not reach it): what node did for it is done
 * here. A body the request carried is read and dropped, or a client still sending it would never
 * finish and close, and the socket is destroyed REFUSED_LINGER_MS later if the client has not
 * closed by then (else it would hold the server's close() for ever). An error on it (the client
 * reset the connection) ends it: node removed its own listener, and ws adds one only on a handshake.
 */
function refuse(req: IncomingMessage, socket: Duplex, code: ErrorCode, message: string, headers: Record<string, string> = {}): void {
  socket.on('error', () => socket.destroy());
  const linger = setTimeout(() => socket.destroy(), REFUSED_LINGER_MS);
  linger.unref();
  socket.once('close', () => clearTimeout(linger));
  socket.resume();
  const body = errorBody(code, message);
  const status = httpStatus(code);
  const extra = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
  // The answer to a HEAD has the headers a GET's would have, and no body (RFC 9110, 9.3.2).
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${extra}` +
      `Content-Type: ${JSON_CONTENT_TYPE}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${req.method === 'HEAD' ? '' : body}`,
  );
}

/**
 * Whether a page of `origin` may open a socket: allowed origins compare as browsers serialize
 * them (lower case, no trailing slash); a page of the server's own origin (its Host) always may,
 * and so may a client that sends no Origin (not a browser).
 */
function originCheck(allowed: ReadonlyArray<string> | '*' | undefined): (origin: string | undefined, host: string | undefined) => boolean {
  if (allowed === undefined || allowed === '*') return () => true;
  const listed = new Set(allowed.map((origin) => origin.trim().toLowerCase().replace(/\/$/, '')));
  return (origin, host) => {
    if (origin === undefined) return true;
    const normalized = origin.toLowerCase();
    if (listed.has(normalized)) return true;
    return host !== undefined && URL.canParse(normalized) && new URL(normalized).host === host.toLowerCase();
  };
}

/** A message at least this large is handled in its client's turn, and the connection's next ones after it. */
const TURN_BYTES = 64 * 1024;

/**
 * ws reads every frame a socket has buffered in one go, and emits each as a message at once:
 * clients that send near-1 MiB subscribes in a burst, over several connections, would hold the
 * event loop for all of them (each is parsed, hashed and checked). So a large message is handled
 * in its client's turn of the preparation queue (`inTurn`: server/preparationQueue.ts, where
 * large HTTP bodies and new documents wait too), and the connection's next messages after it,
 * one per turn, each in its client's turn, the socket paused meanwhile so that what waits is no
 * more than what was already read. Small messages, the usual ones, are handled at once as before,
 * unless a refusal holds the socket (readingGate.ts): what ws had read before the hold waits it out.
 */
function inTurns(
  gate: ReadingGate,
  handle: (data: RawData, isBinary: boolean) => void,
  inTurn: (job: () => void) => PromiseOrValue<void>,
): (data: RawData, isBinary: boolean) => void {
  /** Messages waiting for their turn; null when none wait and none is being handled in turn. */
  let queue: Array<[RawData, boolean]> | null = null;
  const next = (): void => {
    const waiting = queue?.shift();
    if (waiting === undefined) {
      queue = null;
      gate.turnsDone();
      return;
    }
    // A message read before its client was refused waits out the hold, as the unread ones do.
    gate.afterHold(() => handleInTurn(waiting[0], waiting[1]));
  };
  // The next message waits for a later turn of the event loop, whatever the queue's state.
  const afterwards = (): void => void setImmediate(next);
  const handleInTurn = (data: RawData, isBinary: boolean): void => {
    const handled = inTurn(() => handle(data, isBinary));
    if (handled instanceof Promise) handled.then(afterwards, afterwards);
    else afterwards();
  };
  return (data, isBinary) => {
    if (queue !== null) {
      queue.push([data, isBinary]);
      return;
    }
    if (sizeOf(data) < TURN_BYTES && !gate.holding) {
      handle(data, isBinary);
      return;
    }
    queue = [];
    gate.waitForTurns();
    gate.afterHold(() => handleInTurn(data, isBinary));
  };
}

function sizeOf(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((total, part) => total + part.length, 0);
  return data.byteLength;
}
