/**
 * Writes the handler's `[body, init]` to a node response: a text body at once (as Latin-1 when
 * it is short ASCII, as bytes encoded in one pass when it is large), Server-Sent Events and
 * multipart payloads as the stream gives them and never faster than the client reads. Every answer is observed (request
 * log, metrics) as it is written, and while the server shuts down each one closes its connection.
 * An answer to a client over its rate limit may be held a while before it is written (hold()).
 */
import type { ServerResponse } from 'node:http';
import type { LogEntry } from '../../observability/logEntry.ts';
import type { RequestObserver } from '../../observability/observedRequest.ts';
import { EventStream } from './eventStream.ts';
import { MultipartStream } from './multipartStream.ts';
import type { NodeRequest } from './nodeRequest.ts';

export class ResponseWriter {
  /** Set when the server shuts down: from then on every response closes its connection. */
  closing = false;
  /** Server-Sent Events responses in progress: shutdown ends them. */
  readonly eventStreams = new Set<EventStream>();
  /** Answers being held (hold()), each with the timer that writes it. */
  private readonly held = new Map<ServerResponse, { timer: ReturnType<typeof setTimeout>; write: () => void }>();

  constructor(
    private readonly observer: RequestObserver | null,
    private readonly log: (entry: LogEntry) => void,
    /** Called when an event stream ends during shutdown: its connection, kept alive before, can now close. */
    private readonly closeIdleConnections: () => void,
  ) {}

  /** `request`: the answered request, when it is observed (for metrics and its request line). */
  respond(res: ServerResponse, status: number, headers: Record<string, string>, body: string | null | EventStream | MultipartStream, request: NodeRequest | null): void {
    const observer = this.observer;
    if (res.headersSent || res.destroyed) {
      if (body instanceof EventStream || body instanceof MultipartStream) body.close();
      // The client left before its answer: counted and logged as 499, as proxies do.
      if (observer !== null && request !== null && !res.headersSent) observer.answered(request, 499, null, null);
      return;
    }
    if (observer !== null && request !== null) observer.answered(request, status, headers, body);
    if (this.closing) headers['connection'] = 'close';
    if (typeof body === 'string') writeText(res, status, headers, body);
    else if (body === null) {
      res.writeHead(status, headers);
      res.end();
    } else if (body instanceof EventStream) this.writeEvents(res, status, headers, body);
    else this.writeStream(res, status, headers, body);
  }

  /**
   * Writes an answer after `ms` (RateLimitOptions.holdRefusalsMs): a client that waits for each
   * answer before its next request then sends fewer of them. At most MAX_HELD answers wait at
   * once, whoever their clients are (each keeps its request and response alive): past that, and
   * while the server shuts down, answers are written at once. A client that leaves meanwhile
   * is counted as 499 when the time comes, as any other.
   */
  hold(ms: number, res: ServerResponse, status: number, headers: Record<string, string>, body: string | null | EventStream | MultipartStream, request: NodeRequest | null): void {
    if (this.closing || this.held.size >= MAX_HELD) {
      this.respond(res, status, headers, body, request);
      return;
    }
    const write = () => {
      this.held.delete(res);
      this.respond(res, status, headers, body, request);
    };
    this.held.set(res, { timer: setTimeout(write, ms), write });
  }

  /** Writes every held answer now (the server shuts down). */
  releaseHeld(): void {
    // (Each write deletes its own entry: a Map's iteration goes on past deleted entries.)
    for (const { timer, write } of this.held.values()) {
      clearTimeout(timer);
      write();
    }
  }

  /**
   * Server-Sent Events, written as the stream gives them and never faster than the client reads
   * (the next chunk is asked for once the socket has drained): a client that stops reading
   * stops the stream, whose source then overflows and ends, so nothing piles up here. The
   * client going away closes the stream at its source.
   */
  private writeEvents(res: ServerResponse, status: number, headers: Record<string, string>, events: EventStream): void {
    this.eventStreams.add(events);
    res.once('close', () => this.eventStreams.delete(events));
    this.writeStream(res, status, headers, events);
  }

  /**
   * A body written chunk by chunk (events, multipart payloads), each as soon as the stream gives
   * it and the socket has drained; the client going away closes the stream.
   */
  private writeStream(res: ServerResponse, status: number, headers: Record<string, string>, stream: EventStream | MultipartStream): void {
    res.writeHead(status, headers);
    // Clients wait for the headers before anything else: send them now, not with the first chunk.
    res.flushHeaders();
    res.once('close', () => stream.close());
    const pump = async (): Promise<void> => {
      for (;;) {
        const chunk = await stream.next();
        if (chunk === null || res.destroyed) break;
        if (stream instanceof MultipartStream && stream.complete) {
          res.end(chunk);
          break;
        }
        if (!res.write(chunk)) await drained(res);
      }
      if (!res.destroyed && !res.writableEnded) res.end();
      // Shutting down: this connection, written before, did not say `Connection: close`.
      if (this.closing) this.closeIdleConnections();
    };
    pump().catch((error: unknown) => {
      this.log({ level: 'error', message: stream instanceof EventStream ? 'An event stream failed.' : 'A multipart response failed.', error });
      res.destroy();
    });
  }
}

/** The most answers held at once (hold()): each keeps its request and response alive until it is written. */
export const MAX_HELD = 1024;

/** A text body, with its length in bytes. */
function writeText(res: ServerResponse, status: number, headers: Record<string, string>, body: string): void {
  if (body.length <= SHORT_BODY && isAscii(body)) {
    // One byte per character: its length is its size, and Latin-1 costs the socket less than UTF-8.
    headers['content-length'] = String(body.length);
    res.writeHead(status, headers);
    res.end(body, 'latin1');
  } else if (body.length < LARGE_BODY) {
    headers['content-length'] = String(Buffer.byteLength(body));
    res.writeHead(status, headers);
    res.end(body);
  } else {
    writeLarge(res, status, headers, body);
  }
}

/** A large body, encoded in one pass into a reused buffer (see LARGE_BODY). */
function writeLarge(res: ServerResponse, status: number, headers: Record<string, string>, body: string): void {
  const buffer = bodyBuffers.take(body.length);
  const { read, written } = encoder.encodeInto(body, buffer);
  if (read === body.length) {
    headers['content-length'] = String(written);
    res.writeHead(status, headers);
    // Once the response is out, the socket no longer holds the bytes: the buffer is free again.
    res.end(buffer.subarray(0, written), () => bodyBuffers.give(buffer));
    return;
  }
  // Some character takes more than one byte, and the buffer was sized for one each.
  bodyBuffers.give(buffer);
  const bytes = Buffer.from(body, 'utf8');
  headers['content-length'] = String(bytes.length);
  res.writeHead(status, headers);
  res.end(bytes);
}

/** Resolves when the response can take more, or has closed (then nothing more will be written). */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * Bodies up to this many characters are checked for ASCII in JavaScript: for a short body that
 * costs less than measuring its UTF-8 size (`Buffer.byteLength`, a call into C++) and encoding
 * it as UTF-8, which an ASCII body does not need.
 */
const SHORT_BODY = 256;

function isAscii(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    if (text.charCodeAt(i) > 0x7f) return false;
  }
  return true;
}

/**
 * From this many characters on, a body is encoded to bytes before it is written. A small body
 * goes out as a string, in one write with the headers. A large one would be measured
 * (`Buffer.byteLength`), then copied behind the headers and encoded by the socket: three
 * passes with V8's character-at-a-time encoder. `encodeInto` does it in one pass, with SIMD,
 * into a buffer kept from earlier responses (fresh memory for each one costs more than the
 * encoding).
 */
const LARGE_BODY = 16 * 1024;
const encoder = new TextEncoder();

/**
 * Byte buffers for large bodies, reused: a response takes one and gives it back once the socket
 * has taken its bytes. A few are kept, the smallest that fits is used; one lost with a failed
 * socket is simply collected.
 */
class BufferPool {
  private readonly free: Buffer[] = [];
  private static readonly KEPT = 8;
  private static readonly LARGEST_KEPT = 16 * 1024 * 1024;

  /** A buffer of at least `size` bytes. */
  take(size: number): Buffer {
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      const length = (this.free[i] as Buffer).length;
      if (length >= size && (best === -1 || length < (this.free[best] as Buffer).length)) best = i;
    }
    if (best !== -1) return this.free.splice(best, 1)[0] as Buffer;
    // Room to grow: the next, slightly larger response of the same query fits too.
    return Buffer.allocUnsafeSlow(Math.max(size + (size >> 3), LARGE_BODY));
  }

  give(buffer: Buffer): void {
    if (buffer.length > BufferPool.LARGEST_KEPT) return;
    if (this.free.length >= BufferPool.KEPT) this.free.shift();
    this.free.push(buffer);
  }
}

const bodyBuffers = new BufferPool();
