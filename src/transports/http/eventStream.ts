/**
 * GraphQL over Server-Sent Events, the graphql-sse protocol's distinct-connections mode: one
 * HTTP response per operation, `text/event-stream`, carrying
 *
 *   event: next       data: <an ExecutionResult>      one per result (request errors included:
 *                                                      the connection was accepted, so even a
 *                                                      validation failure is a `next`)
 *   event: complete   data:                           once, at the end (the empty data line
 *                                                      makes EventSource dispatch it)
 *   :                                                 a comment every heartbeatMs, so proxies and
 *                                                      clients see the connection alive
 *
 * A subscription ends when its source ends, or when the client goes away: the adapter then calls
 * close(), which closes the source stream at its publisher.
 *
 * The adapter pulls: next() answers the next chunk of text to write, or null at the end, so a
 * slow client is never sent more than it reads (server.ts waits for `drain` between chunks).
 */
import type { ExecutionResult, GraphQLError } from 'graphql';
import { sharedResultText } from '../sharedResultText.ts';
import { fastClass } from '../../jsutils/fastClass.ts';

const COMPLETE = 'event: complete\ndata:\n\n';
const HEARTBEAT = ':\n\n';
const STOPPED = Symbol('stopped');

export class EventStream {
  private readonly source: AsyncGenerator<ExecutionResult, void, void> | null;
  private readonly heartbeatMs: number;
  private readonly streamError: (error: unknown) => GraphQLError;
  /** Chunks ready to write before the source is asked again. */
  private readonly queued: string[] = [];
  private pending: Promise<IteratorResult<ExecutionResult, void> | { failed: unknown }> | null = null;
  private ended = false;
  /** Resolved by close() and finish(), so that a next() waiting on the source returns at once. */
  private readonly stopped: Promise<typeof STOPPED>;
  private stop!: () => void;

  /** Told once, when the stream is over (its end written, or the client gone): gives back the client's slot. */
  private onEnd: (() => void) | null;
  private readonly isSubscription: boolean;

  /**
   * A stream of one result (a query, a mutation, a request error), of an incremental delivery's
   * payloads, or of a subscription's results (`subscription`).
   */
  constructor(
    results: ExecutionResult | AsyncGenerator<ExecutionResult, void, void>,
    heartbeatMs: number,
    streamError: (error: unknown) => GraphQLError,
    onEnd: (() => void) | null = null,
    subscription = true,
  ) {
    this.onEnd = onEnd;
    this.isSubscription = subscription;
    this.heartbeatMs = heartbeatMs;
    this.streamError = streamError;
    this.stopped = new Promise((resolve) => {
      this.stop = () => resolve(STOPPED);
    });
    if (Symbol.asyncIterator in results) {
      this.source = results as AsyncGenerator<ExecutionResult, void, void>;
    } else {
      this.source = null;
      this.queued.push(nextEvent(results as ExecutionResult), COMPLETE);
    }
  }

  /** Whether it serves a subscription's results (rather than one result, or an incremental delivery's payloads, sent as events). */
  get subscription(): boolean {
    return this.source !== null && this.isSubscription;
  }

  /** The next chunk of text to write, or null when the stream is over. */
  async next(): Promise<string | null> {
    if (this.queued.length > 0) return this.queued.shift() as string;
    if (this.ended || this.source === null) {
      this.ended = true;
      this.over();
      return null;
    }
    const source = this.source;
    this.pending ??= source.next().then(
      (step) => step,
      (failed: unknown) => ({ failed }),
    );
    let timer: ReturnType<typeof setTimeout> | undefined;
    const beat = new Promise<typeof HEARTBEAT>((resolve) => {
      timer = setTimeout(resolve, this.heartbeatMs, HEARTBEAT);
    });
    const step = await Promise.race([this.pending, beat, this.stopped]);
    clearTimeout(timer);
    if (this.ended) return this.queued.shift() ?? null;
    if (step === HEARTBEAT || step === STOPPED) return HEARTBEAT;
    this.pending = null;
    if ('failed' in step) {
      // The source failed (it overflowed, say): the error is the last result, then complete.
      this.ended = true;
      this.queued.push(COMPLETE);
      return nextEvent({ errors: [this.streamError(step.failed)] });
    }
    if (step.done === true) {
      this.ended = true;
      return COMPLETE;
    }
    return nextEvent(step.value);
  }

  /** The client went away: the source stream is closed, and nothing more is written. */
  close(): void {
    this.end([]);
  }

  /** The server is shutting down: the source stream is closed, and the client is told the stream completed. */
  finish(): void {
    this.end([COMPLETE]);
  }

  private over(): void {
    const onEnd = this.onEnd;
    this.onEnd = null;
    onEnd?.();
  }

  private end(last: string[]): void {
    this.over();
    if (this.ended) return;
    this.ended = true;
    this.queued.splice(0, this.queued.length, ...last);
    this.stop();
    void this.source?.return().catch(() => undefined);
  }
}
fastClass(EventStream);

function nextEvent(result: ExecutionResult): string {
  // JSON.stringify escapes line breaks, so the data fits on the one line SSE needs.
  return `event: next\ndata: ${sharedResultText(result)}\n\n`;
}
