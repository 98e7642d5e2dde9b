/**
 * A request as any transport can describe it to the handlers that know no `node:http`: the
 * GraphQL-over-HTTP handler (http/handler.ts) and the resource routes (rest/).
 */
export interface PlainRequest<Raw = unknown> {
  readonly method: string;
  /** Path and query string, as on the request line: `/graphql?query=...`. */
  readonly url: string;
  /** Header values by lower-case name. */
  readonly headers: Readonly<Record<string, string | string[] | undefined>>;
  /** The body as UTF-8 text, or null when there is none. */
  readonly body: string | null;
  /** The transport's own request object, handed to the context factory. */
  readonly raw: Raw;
  /** The address of the socket's peer (for rate limits by address). */
  readonly remoteAddress?: string | undefined;
  /**
   * Registers a callback for the client going away before the response is complete; called
   * at once if it already has. The handler registers only for executions that go asynchronous:
   * a synchronous one is over before the transport could notice anything. (A hook rather than
   * an AbortSignal: on Node 20 creating a signal costs several microseconds, a tenth of a small
   * request's whole time, so signals are made only when someone asks; see OperationAbort.)
   */
  onClientGone?(callback: () => void): void;
  /** The request's id (for its request line), when the transport gives one: masked errors carry it. */
  readonly requestId?: string;
}

