/**
 * createServer: the node:http (or node:https) adapter around the transport-free handler.
 *
 * It only converts: node request -> PlainRequest, `[body, init]` -> node response. What it
 * owns is what only a socket can know:
 *  - the body size limit, enforced while reading (413 before a large body is buffered);
 *  - UTF-8 decoding of the body (400 INVALID_UTF8 for bytes that are not UTF-8);
 *  - the client going away, which aborts the request's signal (and so its execution);
 *  - header and request timeouts against slow clients; TLS 1.2+;
 *  - graceful shutdown: stop accepting, let in-flight requests finish within a grace period.
 */
import http from 'node:http';
import https from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createHandler } from './handler.ts';
import type { HandlerOptions, PlainRequest } from './handler.ts';
import { HttpErrorCode, httpErrorBody } from './errors.ts';
import type { HttpError } from './errors.ts';

export interface ServerOptions extends HandlerOptions<IncomingMessage> {
  /** Largest request body accepted, in bytes (default 1 MiB). */
  maxBodyBytes?: number;
  /** Time allowed for a client to send its headers (default 10 s). */
  headersTimeoutMs?: number;
  /** Time allowed for a client to send its whole request (default 30 s). */
  requestTimeoutMs?: number;
  /** Serve HTTPS (TLS 1.2 or 1.3 only) with this key and certificate. */
  tls?: { key: string | Buffer; cert: string | Buffer };
  /** How long `shutdown()` waits for in-flight requests before closing their connections (default 10 s). */
  shutdownGraceMs?: number;
}

export interface GraphQLServer extends http.Server {
  /** Stops accepting connections, lets in-flight requests finish (within the grace period), then closes. */
  shutdown(): Promise<void>;
}

const JSON_RESPONSE = 'application/json; charset=utf-8';

export function createServer(options: ServerOptions): GraphQLServer {
  const handle = createHandler<IncomingMessage>(options);
  const maxBodyBytes = options.maxBodyBytes ?? 1_048_576;
  const decoder = new TextDecoder('utf-8', { fatal: true });
  let inFlight = 0;
  let onDrained: (() => void) | null = null;

  function respond(res: ServerResponse, status: number, headers: Record<string, string>, body: string | null): void {
    if (res.headersSent || res.destroyed) return;
    if (body !== null) headers['content-length'] = String(Buffer.byteLength(body));
    res.writeHead(status, headers);
    res.end(body ?? undefined);
  }

  function fail(res: ServerResponse, error: HttpError, message: string, closeConnection = false): void {
    const headers: Record<string, string> = { 'content-type': JSON_RESPONSE };
    if (closeConnection) headers['connection'] = 'close';
    respond(res, error[1], headers, httpErrorBody(error, message));
  }

  function finished(): void {
    inFlight--;
    if (inFlight === 0 && onDrained !== null) onDrained();
  }

  async function listener(req: IncomingMessage, res: ServerResponse): Promise<void> {
    inFlight++;
    let onClientGone: (() => void) | null = null;
    res.once('close', () => {
      finished();
      // The client went away before the response was complete: abandon its execution.
      if (!res.writableFinished && onClientGone !== null) onClientGone();
    });
    try {
      let body: string | null = null;
      if (req.method === 'POST') {
        const read = await readBody(req, maxBodyBytes);
        if (read === 'too large') {
          fail(res, HttpErrorCode.PayloadTooLarge, `The request body is larger than ${maxBodyBytes} bytes.`, true);
          req.resume();
          return;
        }
        if (read === 'aborted') return;
        if (read.length > 0) {
          try {
            body = decoder.decode(read);
          } catch {
            fail(res, HttpErrorCode.InvalidUtf8, 'The request body is not valid UTF-8.');
            return;
          }
        }
      }
      const request: PlainRequest<IncomingMessage> = {
        method: req.method ?? 'GET',
        url: req.url ?? '/',
        headers: req.headers,
        body,
        raw: req,
        onClientGone: (callback) => {
          onClientGone = callback;
        },
      };
      const [responseBody, init] = await handle(request);
      respond(res, init.status, init.headers, responseBody);
    } catch (error) {
      (options.log ?? ((entry) => console.error(entry.message, entry.error)))({
        level: 'error',
        message: 'The server failed outside execution.',
        error,
      });
      fail(res, HttpErrorCode.InternalServerError, 'The server failed to handle the request.');
    }
  }

  const onRequest = (req: IncomingMessage, res: ServerResponse) => void listener(req, res);
  const server = (
    options.tls
      ? https.createServer({ key: options.tls.key, cert: options.tls.cert, minVersion: 'TLSv1.2' }, onRequest)
      : http.createServer(onRequest)
  ) as GraphQLServer;
  server.headersTimeout = options.headersTimeoutMs ?? 10_000;
  server.requestTimeout = options.requestTimeoutMs ?? 30_000;

  server.shutdown = () =>
    new Promise<void>((resolve) => {
      const grace = setTimeout(() => server.closeAllConnections(), options.shutdownGraceMs ?? 10_000);
      server.close(() => {
        clearTimeout(grace);
        resolve();
      });
      // Idle keep-alive connections would hold close() open: end them now, and the busy ones
      // as soon as their last response is out.
      server.closeIdleConnections();
      onDrained = () => server.closeIdleConnections();
      if (inFlight === 0) onDrained();
    });
  return server;
}

/**
 * Reads a request body, but never more than `limit` bytes: a Content-Length over it is refused
 * before reading, and a body that grows past it is abandoned while it streams in.
 */
function readBody(req: IncomingMessage, limit: number): Promise<Buffer | 'too large' | 'aborted'> {
  const declared = Number(req.headers['content-length']);
  if (Number.isFinite(declared) && declared > limit) return Promise.resolve('too large');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let done = false;
    const finish = (value: Buffer | 'too large' | 'aborted') => {
      if (done) return;
      done = true;
      resolve(value);
    };
    req.on('data', (chunk: Buffer) => {
      if (done) return;
      size += chunk.length;
      if (size > limit) {
        finish('too large');
        return;
      }
      chunks.push(chunk);
    });
    req.on('end', () => finish(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    req.on('error', () => finish('aborted'));
    req.on('aborted', () => finish('aborted'));
  });
}
