/**
 * What an operation's resolvers and context factory can know of the operation itself: who is
 * calling, what a WebSocket client said when it connected, and a signal that aborts when the
 * operation is abandoned (timeout, client gone, subscription ended).
 */
import type { Identity } from '../security/identity.ts';
import { fastClass } from '../jsutils/fastClass.ts';

/** What a context factory receives beside the transport's request. */
export interface OperationScope {
  /**
   * Aborts when the execution times out or the client goes away. Made on first read (an
   * AbortSignal is costly to create), so read it only where it is used, or keep the scope itself.
   */
  readonly signal: AbortSignal;
  /** Who is calling (the anonymous identity when nobody signed in). */
  readonly identity: Identity;
  /** What a WebSocket client sent with `connection_init` (undefined over HTTP). */
  readonly connectionParams: Readonly<Record<string, unknown>> | undefined;
}

/**
 * Why the server stopped an operation itself (its client left, its time ran out, its
 * subscription ended): a resolver that fails with it did not fail by its own fault, so it is
 * not logged as an unexpected error.
 */
export class OperationCancelled extends Error {}
fastClass(OperationCancelled);

/**
 * Whether an operation was abandoned, readable as a plain flag by the executor and as an
 * AbortSignal by resolvers (made only if one asks for it); and who is calling.
 */
export class OperationAbort implements OperationScope {
  aborted = false;
  reason: unknown = undefined;
  readonly identity: Identity;
  readonly connectionParams: Readonly<Record<string, unknown>> | undefined;
  private controller: AbortController | null = null;

  constructor(identity: Identity, connectionParams: Readonly<Record<string, unknown>> | undefined) {
    this.identity = identity;
    this.connectionParams = connectionParams;
  }

  get signal(): AbortSignal {
    if (this.controller === null) {
      this.controller = new AbortController();
      if (this.aborted) this.controller.abort(this.reason);
    }
    return this.controller.signal;
  }

  abort(reason: unknown): void {
    if (this.aborted) return;
    this.aborted = true;
    this.reason = reason;
    this.controller?.abort(reason);
  }
}

/** The context when there is no factory: the transport's request, the caller, and the operation's signal (made when read). */
export class DefaultContext<Raw> {
  readonly request: Raw;
  readonly identity: Identity;
  private readonly scope: OperationScope;

  constructor(request: Raw, scope: OperationScope) {
    this.request = request;
    this.identity = scope.identity;
    this.scope = scope;
  }

  get signal(): AbortSignal {
    return this.scope.signal;
  }
}
