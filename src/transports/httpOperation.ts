/**
 * One operation of an HTTP request (to /graphql or a resource route), as the pipeline takes it:
 * a class, so that no closure is made per request; where the request came from is read only
 * if the rate limiter asks (for an anonymous caller).
 */
import type { OperationTypeNode } from 'graphql';
import type { IncrementalFormat, OperationRequest, RequestParams } from '../server/pipeline.ts';
import type { ClientInfo } from '../ratelimit/rateLimiter.ts';
import type { Identity } from '../security/identity.ts';
import { fastClass } from '../jsutils/fastClass.ts';

/** What an HTTP operation reads of its request. */
export interface HttpRequestLike<Raw> {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly raw: Raw;
  readonly remoteAddress?: string | undefined;
  onClientGone?(callback: () => void): void;
  /** Told of the request's operation once it is known (for its request line and metrics). */
  observe?(operation: HttpOperation<Raw>): void;
  /** The request's id, when the transport gives its requests one. */
  readonly requestId?: string;
  /** Whether the transport found no tracer provider when the request arrived (see OperationRequest). */
  readonly untraced?: boolean;
}

export class HttpOperation<Raw> implements OperationRequest<Raw>, ClientInfo {
  readonly params: RequestParams;
  readonly identity: Identity;
  readonly raw: Raw;
  readonly readOnly: boolean;
  readonly streams: boolean;
  readonly uncharged: boolean;
  readonly incremental: IncrementalFormat | undefined;
  readonly size: number | undefined;
  /** The chosen operation's type and name, once the pipeline has chosen it. */
  operationType: OperationTypeNode | null;
  operationName: string | undefined;
  private readonly request: HttpRequestLike<Raw>;

  constructor(
    request: HttpRequestLike<Raw>,
    identity: Identity,
    params: RequestParams,
    readOnly: boolean,
    streams: boolean,
    uncharged = false,
    incremental: IncrementalFormat | undefined = undefined,
    size: number | undefined = undefined,
  ) {
    this.params = params;
    this.identity = identity;
    this.raw = request.raw;
    this.readOnly = readOnly;
    this.streams = streams;
    this.uncharged = uncharged;
    this.incremental = incremental;
    this.size = size;
    this.request = request;
    this.operationType = null;
    this.operationName = undefined;
  }

  /**
   * Read by the rate limiter for every operation it counts, before anything else: the request
   * learns its caller then, so that a refusal's request line names who was refused. (Not in the
   * constructor: one call more there keeps V8 from inlining it, which costs more than the rest
   * of the request's bookkeeping.)
   */
  get client(): ClientInfo {
    this.observed();
    return this;
  }

  get remoteAddress(): string | undefined {
    return this.request.remoteAddress;
  }

  get requestId(): string | undefined {
    return this.request.requestId;
  }

  get untraced(): boolean {
    return this.request.untraced === true;
  }

  get forwardedFor(): string | string[] | undefined {
    return this.request.headers['x-forwarded-for'];
  }

  onClientGone(callback: () => void): void {
    this.request.onClientGone?.(callback);
  }

  chosen(type: OperationTypeNode, name: string | undefined): void {
    this.operationType = type;
    this.operationName = name;
    this.observed();
  }

  private observed(): void {
    // A read made on the way to another operation (uncharged) is not what the request ran.
    if (!this.uncharged) this.request.observe?.(this);
  }
}
fastClass(HttpOperation);
