/**
 * A node request as the handler sees it (handler.ts's PlainRequest), and as the request log and
 * metrics see it (ObservedRequest): a class, so that no closure is made per request.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ObservedRequest } from '../../observability/observedRequest.ts';
import { requestIdFrom } from '../../observability/requestLog.ts';
import type { LoggedOperation } from '../../observability/requestLog.ts';
import type { PlainRequest } from '../plainRequest.ts';
import type { Route } from './router.ts';
import { fastClass } from '../../jsutils/fastClass.ts';

/**
 * Node keeps only the first of several Authorization headers and drops the rest. A request
 * that sends two is ambiguous about who is calling, so authentication must see both and refuse
 * it: they are found in the raw headers, and given as a list.
 */
function withEveryAuthorization(req: IncomingMessage, headers: IncomingMessage['headers']): IncomingMessage['headers'] {
  const raw = req.rawHeaders;
  let values: string[] | null = null;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (name.length === 13 && (name === 'Authorization' || name === 'authorization' || name.toLowerCase() === 'authorization')) {
      (values ??= []).push(raw[i + 1] as string);
    }
  }
  if (values === null || values.length < 2) return headers;
  return { ...headers, authorization: values as unknown as string };
}

/**
 * A node request as the handler sees it: a class, so that no closure is made per request. It
 * is made when the request arrives, with where the router sent it, and carried through reading
 * its body (which it then holds) to its answer.
 */
export class NodeRequest implements PlainRequest<IncomingMessage>, ObservedRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingMessage['headers'];
  /** The body as UTF-8 text, once read (null: none). */
  body: string | null;
  readonly raw: IncomingMessage;
  readonly res: ServerResponse;
  /** performance.now() when the server was given the request (0 when requests are not observed). */
  readonly startedAt: number;
  /** Where the router sent it. */
  readonly route: Route;
  /** The operation it ran (a batch's first), once known: for its request line and metrics. */
  operation: LoggedOperation | null;
  /** Its OpenTelemetry server span, when a tracer provider is registered (observability/openTelemetry.ts). */
  span: unknown;
  private id: string | null;

  /**
   * `method`, `url` and `headers`: the request line and headers as the router read them, not read
   * again. (Read here, node's getter that builds the headers would be part of this constructor's
   * optimized code, which V8 counts against its inlining budget when deciding whether to inline
   * the constructor into the request handler.)
   */
  constructor(
    req: IncomingMessage,
    res: ServerResponse,
    method: string,
    url: string,
    headers: IncomingMessage['headers'],
    startedAt: number,
    route: Route,
  ) {
    this.method = method;
    this.url = url;
    this.headers = headers.authorization === undefined ? headers : withEveryAuthorization(req, headers);
    this.body = null;
    this.raw = req;
    this.res = res;
    this.startedAt = startedAt;
    this.route = route;
    this.operation = null;
    this.span = null;
    this.id = null;
  }

  /** Its X-Request-ID when sane, else one made on first read. */
  get requestId(): string {
    this.id ??= requestIdFrom(this.headers['x-request-id']);
    return this.id;
  }

  /** No tracer provider was registered when it arrived (it has no span): its operations get none either. */
  get untraced(): boolean {
    return this.span === null;
  }

  observe(operation: LoggedOperation): void {
    if (this.operation === null) this.operation = operation;
  }

  /** Read only when rate limits count an anonymous caller by address. */
  get remoteAddress(): string | undefined {
    return this.raw.socket.remoteAddress;
  }

  /** The response closing before it was complete means the client went away. */
  onClientGone(callback: () => void): void {
    const res = this.res;
    if (res.closed) {
      if (!res.writableFinished) callback();
      return;
    }
    res.once('close', () => {
      if (!res.writableFinished) callback();
    });
  }
}
fastClass(NodeRequest);
