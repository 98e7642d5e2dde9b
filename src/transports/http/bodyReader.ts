/**
 * Reads a request's body, never more than `maxBodyBytes`, and decodes it (UTF-8 only), then
 * hands it on. 413 PAYLOAD_TOO_LARGE before a large body is buffered; 400 INVALID_UTF8 for
 * bytes that are not UTF-8.
 *
 * A body over LARGE_BODY bytes is put together and decoded in its client's turn (`inTurn`, the
 * preparation queue's lanes: server/preparationQueue.ts), and handed on within it. Joining a
 * megabyte of chunks, decoding it and parsing its JSON each take milliseconds; bodies that
 * finish arriving in the same turn of the event loop would otherwise hold it for all of them
 * together.
 *
 * Callbacks rather than promises: most requests arrive whole in one read from the socket, and
 * are then answered in the same turn of the event loop that read them.
 */
import { isUtf8 } from 'node:buffer';
import { ErrorCode } from '../../errors/codes.ts';
import type { NodeRequest } from './nodeRequest.ts';

export interface BodyHandlers {
  /** The whole body has been read into `request.body` (null: none). */
  received(request: NodeRequest): void;
  /** A refusal the server writes itself; `closeConnection` when the rest of the body is not read. */
  refuse(request: NodeRequest, code: ErrorCode, message: string, closeConnection?: boolean): void;
  /** Runs `job` at once while the turn has time for such work, else in the request's client's turn. */
  inTurn(request: NodeRequest, job: () => void): void;
}

const EMPTY = Buffer.alloc(0);

/** Bodies larger than this (bytes) are put together, decoded and handled in their client's turn. */
export const LARGE_BODY = 64 * 1024;

export class BodyReader {
  private readonly maxBodyDigits: number;

  constructor(
    private readonly maxBodyBytes: number,
    private readonly handlers: BodyHandlers,
  ) {
    this.maxBodyDigits = String(maxBodyBytes).length;
  }

  /**
   * Starts reading a request. POST always has a body to read (an empty one is refused by the
   * handler); other methods when they declare one (PUT, PATCH and DELETE of resource routes; a
   * GET with a body, which the resource routes refuse). A request without one is handed on in
   * the check phase (setImmediate), like a complete POST's (see readParsed): the requests parsed
   * from one turn's reads are then answered one after another, once the parser is done, rather
   * than each in the middle of parsing the next.
   */
  read(request: NodeRequest): void {
    const req = request.raw;
    const declaresBody = req.headers['transfer-encoding'] !== undefined || (req.headers['content-length'] !== undefined && req.headers['content-length'] !== '0');
    if (req.method !== 'POST' && !declaresBody) {
      setImmediate(this.handlers.received, request);
      return;
    }
    const declared = req.headers['content-length'];
    // Shorter than the limit's own digits, a length cannot exceed it (the parser allows digits only).
    if (declared !== undefined && declared.length >= this.maxBodyDigits && Number(declared) > this.maxBodyBytes) {
      this.tooLarge(request);
      return;
    }
    if (declared !== undefined) setImmediate(this.readParsed, request);
    else this.stream(request);
  }

  /**
   * Node emits 'request' once the headers are parsed, then parses the body of the same read and
   * keeps it in the request's buffer (nothing is listening yet). In the check phase that follows
   * (setImmediate; a process.nextTick would still run before the body is parsed) the parser is
   * done with that read, so a complete request's body is taken from the buffer in one call,
   * without the listeners, events and closures of streaming it. A request still incomplete then
   * (a larger body, a slow client, `Expect: 100-continue`) is streamed, starting with what is
   * buffered.
   */
  private readonly readParsed = (request: NodeRequest): void => {
    const req = request.raw;
    if (!req.complete) {
      this.stream(request);
      return;
    }
    // All of it is buffered and no larger than the limit (checked against its declared length,
    // which the parser enforces): read() returns it whole (joining what it holds), or null if empty.
    this.handOn(request, req.readableLength, () => (req.read() as Buffer | null) ?? EMPTY);
  };

  /** Streams a body in, abandoning it once it grows past the limit. */
  private stream(request: NodeRequest): void {
    const req = request.raw;
    let first: Buffer | null = null;
    let chunks: Buffer[] | null = null;
    let size = 0;
    let done = false;
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > this.maxBodyBytes) {
        done = true;
        this.tooLarge(request);
      } else if (first === null) {
        first = chunk;
      } else {
        (chunks ??= [first]).push(chunk);
      }
    });
    // A client that leaves mid-body never gets here: there is no one to answer. (With no
    // 'error' listener, node emits no error for it either.)
    req.on('end', () => {
      if (done) return;
      done = true;
      this.handOn(request, size, () => (chunks !== null ? Buffer.concat(chunks, size) : (first ?? EMPTY)));
    });
  }

  /** The whole body (`size` bytes, put together by `take`) is read: joined and decoded at once, or in its client's turn when large. */
  private handOn(request: NodeRequest, size: number, take: () => Buffer): void {
    if (size > LARGE_BODY) this.handlers.inTurn(request, () => this.decode(request, take()));
    else this.decode(request, take());
  }

  /** The whole body has arrived: decode it (UTF-8 only) and hand it on. */
  private decode(request: NodeRequest, bytes: Buffer): void {
    if (bytes.length === 0) {
      this.handlers.received(request);
      return;
    }
    if (isSmallAscii(bytes)) request.body = bytes.toString('latin1');
    else if (isUtf8(bytes)) request.body = bytes.toString('utf8');
    else {
      this.handlers.refuse(request, ErrorCode.InvalidUtf8, 'The request body is not valid UTF-8.');
      return;
    }
    this.handlers.received(request);
  }

  private tooLarge(request: NodeRequest): void {
    this.handlers.refuse(request, ErrorCode.PayloadTooLarge, `The request body is larger than ${this.maxBodyBytes} bytes.`, true);
    request.raw.resume();
  }
}

/**
 * A short body of ASCII bytes (the usual small query) is checked here, byte by byte, and read
 * as Latin-1: cheaper than two calls into C++ (validate, then decode) for a few dozen bytes.
 */
function isSmallAscii(bytes: Buffer): boolean {
  if (bytes.length > 512) return false;
  for (let i = 0; i < bytes.length; i++) {
    if ((bytes[i] as number) > 0x7f) return false;
  }
  return true;
}
