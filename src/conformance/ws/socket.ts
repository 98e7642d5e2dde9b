/**
 * The WebSocket client the graphql-transport-ws checks speak through: a `ws` socket that sends
 * exactly what a check gives it and records everything, so that a failing check can show what was
 * sent and what came back (messages in order, then the close code and reason).
 *
 * It does one thing on its own: a `ping` the server sends is answered with a `pong` at once, as the
 * protocol asks of every party, and is not handed to the check (a server that keeps the socket
 * alive with pings must not make a check read the wrong message). The ping and its pong stay in
 * the transcript.
 */
import { randomBytes } from 'node:crypto';
import { WebSocket } from 'ws';
import type { RawData } from 'ws';
import { fastClass } from '../../jsutils/fastClass.ts';

/** The subprotocol of the GraphQL over WebSocket protocol. */
export const SUBPROTOCOL = 'graphql-transport-ws';

/** A socket that could not be opened: the upgrade was refused, or no server answered. */
export class SocketOpenError extends Error {}
fastClass(SocketOpenError);

/** How a socket closed. */
export interface Closed {
  code: number;
  reason: string;
}

/** A message the server sent: parsed JSON, or the text itself when it was not JSON. */
export type Received = { type?: unknown; id?: unknown; payload?: unknown } | string;

/** Where to connect and with what. */
export interface SocketTarget {
  url: string;
  headers?: Record<string, string>;
  /** Subprotocols offered (default graphql-transport-ws alone). */
  protocols?: string[];
  /** How long any single wait lasts. */
  timeoutMs: number;
}

/** What a check saw: shown as `sent` and `received` when it fails. */
export interface Transcript {
  sent: unknown[];
  received: { messages: Received[]; closed: Closed | 'still open' };
}

export class ProtocolSocket {
  readonly #socket: WebSocket;
  readonly #timeoutMs: number;
  readonly #sent: unknown[] = [];
  readonly #received: Received[] = [];
  /** Messages for the check (server pings left out), and how many of them it has read. */
  readonly #forCheck: Received[] = [];
  #read = 0;
  #closed: Closed | null = null;
  /** Waits to end when a message or the close arrives. */
  readonly #waiting = new Set<() => void>();

  private constructor(socket: WebSocket, timeoutMs: number) {
    this.#socket = socket;
    this.#timeoutMs = timeoutMs;
    socket.on('message', (data: RawData) => this.#receive(data));
    socket.on('close', (code: number, reason: Buffer) => {
      this.#closed = { code, reason: reason.toString('utf8') };
      this.#wake();
    });
    // A send after the server closed is the server's doing, seen through the close code.
    socket.on('error', () => undefined);
  }

  /** Opens a socket; rejects with the reason when the upgrade fails or takes longer than timeoutMs. */
  static open(target: SocketTarget): Promise<ProtocolSocket> {
    const socket = new WebSocket(target.url, target.protocols ?? [SUBPROTOCOL], { headers: target.headers ?? {}, handshakeTimeout: target.timeoutMs });
    const client = new ProtocolSocket(socket, target.timeoutMs);
    return new Promise((resolve, reject) => {
      socket.once('open', () => resolve(client));
      socket.once('unexpected-response', (_request, response) => {
        socket.terminate();
        reject(new SocketOpenError(`The upgrade was answered with HTTP ${response.statusCode ?? '?'} instead of 101.`));
      });
      socket.once('error', (error) => reject(new SocketOpenError(error.message)));
    });
  }

  /** How long one wait lasts. */
  get timeoutMs(): number {
    return this.#timeoutMs;
  }

  /** The subprotocol the server selected ('' when none). */
  get protocol(): string {
    return this.#socket.protocol;
  }

  /** Sends a message: an object as JSON, a string as it is (to send text that is not JSON). */
  send(message: object | string): void {
    this.#sent.push(message);
    if (this.#socket.readyState === WebSocket.OPEN) this.#socket.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Sends connection_init (with the payload, when given); true once connection_ack came back. */
  async init(payload?: Record<string, unknown>): Promise<boolean> {
    this.send(payload === undefined ? { type: 'connection_init' } : { type: 'connection_init', payload });
    const ack = await this.next();
    return typeof ack === 'object' && ack !== null && ack.type === 'connection_ack';
  }

  /** The next message not read yet; null if the socket closed or nothing came within the timeout. */
  async next(timeoutMs = this.#timeoutMs): Promise<Received | null> {
    const deadline = Date.now() + timeoutMs;
    while (this.#read === this.#forCheck.length) {
      if (this.#closed !== null || Date.now() >= deadline) return null;
      await this.#until(deadline);
    }
    return this.#forCheck[this.#read++] ?? null;
  }

  /** Reads messages until one satisfies the predicate; null on close or timeout. */
  async nextMatching(predicate: (message: Received) => boolean, timeoutMs = this.#timeoutMs): Promise<Received | null> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const message = await this.next(Math.max(0, deadline - Date.now()));
      if (message === null || predicate(message)) return message;
    }
  }

  /**
   * Everything the server sent before answering a ping sent now, or null if no pong came back (the
   * socket closed, or the timeout). A server handles a socket's messages in order, so once that
   * pong is here every answer to what was sent before it has arrived (or is not coming). The ping
   * carries a marker, but any pong ends the wait: echoing the payload is not required.
   */
  async settle(): Promise<Received[] | null> {
    const marker = { settle: randomBytes(6).toString('hex') };
    this.send({ type: 'ping', payload: marker });
    const before: Received[] = [];
    // One deadline for the whole wait: a server streaming events must not keep it going forever.
    const deadline = Date.now() + this.#timeoutMs;
    for (;;) {
      const message = await this.next(Math.max(0, deadline - Date.now()));
      if (message === null) return null;
      if (typeof message === 'object' && message.type === 'pong') return before;
      before.push(message);
    }
  }

  /** How the socket closed, or null if it is still open after timeoutMs. */
  async closed(timeoutMs = this.#timeoutMs): Promise<Closed | null> {
    const deadline = Date.now() + timeoutMs;
    while (this.#closed === null && Date.now() < deadline) await this.#until(deadline);
    return this.#closed;
  }

  /** True while the socket is open. */
  get open(): boolean {
    return this.#closed === null && this.#socket.readyState === WebSocket.OPEN;
  }

  /** What was sent and what came back so far. */
  transcript(): Transcript {
    return { sent: [...this.#sent], received: { messages: [...this.#received], closed: this.#closed ?? 'still open' } };
  }

  /** Closes the socket at once (no closing handshake): the check is over. */
  drop(): void {
    this.#socket.terminate();
  }

  #receive(data: RawData): void {
    const text = Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
    const message = parse(text);
    this.#received.push(message);
    if (typeof message === 'object' && message.type === 'ping') {
      const pong = message.payload === undefined ? { type: 'pong' } : { type: 'pong', payload: message.payload };
      this.send(pong);
    } else {
      this.#forCheck.push(message);
    }
    this.#wake();
  }

  /** Waits for the next message or close, or the deadline. */
  #until(deadline: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        clearTimeout(timer);
        this.#waiting.delete(done);
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, deadline - Date.now()));
      this.#waiting.add(done);
    });
  }

  #wake(): void {
    for (const done of [...this.#waiting]) done();
  }
}

/** A message as JSON when it is a JSON object, else its text. */
function parse(text: string): Received {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Received) : text;
  } catch {
    return text;
  }
}

/** Opens a socket for one check and always drops it afterwards. */
export async function withSocket<T>(target: SocketTarget, use: (socket: ProtocolSocket) => Promise<T>): Promise<T> {
  const socket = await ProtocolSocket.open(target);
  try {
    return await use(socket);
  } finally {
    socket.drop();
  }
}
