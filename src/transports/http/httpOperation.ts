/**
 * One operation of an HTTP request (to /graphql or a resource route), as the pipeline takes it:
 * a class, so that no closure is made per request; where the request came from is read only
 * if the rate limiter asks (for an anonymous caller).
 */
import type { OperationRequest, RequestParams } from '../../server/pipeline.ts';
import type { ClientInfo } from '../../ratelimit/rateLimiter.ts';
import type { Identity } from '../../security/identity.ts';

/** What an HTTP operation reads of its request. */
export interface HttpRequestLike<Raw> {
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  readonly raw: Raw;
  readonly remoteAddress?: string | undefined;
  onClientGone?(callback: () => void): void;
}

export class HttpOperation<Raw> implements OperationRequest<Raw>, ClientInfo {
  readonly params: RequestParams;
  readonly identity: Identity;
  readonly raw: Raw;
  readonly readOnly: boolean;
  readonly streams: boolean;
  readonly uncharged: boolean;
  private readonly request: HttpRequestLike<Raw>;

  constructor(request: HttpRequestLike<Raw>, identity: Identity, params: RequestParams, readOnly: boolean, streams: boolean, uncharged = false) {
    this.params = params;
    this.identity = identity;
    this.raw = request.raw;
    this.readOnly = readOnly;
    this.streams = streams;
    this.uncharged = uncharged;
    this.request = request;
  }

  get client(): ClientInfo {
    return this;
  }

  get remoteAddress(): string | undefined {
    return this.request.remoteAddress;
  }

  get forwardedFor(): string | string[] | undefined {
    return this.request.headers['x-forwarded-for'];
  }

  onClientGone(callback: () => void): void {
    this.request.onClientGone?.(callback);
  }
}
