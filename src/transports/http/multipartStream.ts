/**
 * Incremental delivery over HTTP: `multipart/mixed; boundary="-"`, as the GraphQL-over-HTTP
 * incremental delivery RFC describes it and as Apollo Client, GraphiQL (meros) and Relay's
 * fetchers read it. Each payload is one part:
 *
 *   \r\n---                                                the first delimiter
 *   \r\nContent-Type: application/json; charset=utf-8\r\n\r\n<payload>\r\n---      one per payload
 *   --\r\n                                                 after the last: the close delimiter `-----`
 *
 * A part is written with the delimiter that ends it, so a client can read it as soon as it
 * arrives, without waiting for the next one. The adapter pulls, as for Server-Sent Events
 * (eventStream.ts): next() answers the next chunk of text, or null at the end, and is asked again
 * only once the socket has drained; the client going away calls close(), which closes the later
 * payloads at their source (the pipeline then aborts the operation's signal).
 */
import type { GraphQLError } from 'graphql';
import { fastClass } from '../../jsutils/fastClass.ts';

const FIRST_DELIMITER = '\r\n---';
const PART_HEADERS = '\r\nContent-Type: application/json; charset=utf-8\r\n\r\n';
const DELIMITER = '\r\n---';
/** Turns the delimiter just written into the close delimiter (`-----`), then ends the body. */
const CLOSE = '--\r\n';
const STOPPED = Symbol('stopped');

/** A payload: `hasNext: false` on the last one. */
interface Payload {
  readonly hasNext?: boolean;
  readonly errors?: ReadonlyArray<GraphQLError>;
}

export class MultipartStream {
  private readonly rest: AsyncGenerator<Payload, void, void>;
  private readonly streamError: (error: unknown) => GraphQLError;
  private first: string | null;
  private ended = false;
  private readonly stopped: Promise<typeof STOPPED>;
  private stop!: () => void;

  /** `first`: the first payload; `rest`: the later ones. */
  constructor(first: Payload, rest: AsyncGenerator<Payload, void, void>, streamError: (error: unknown) => GraphQLError) {
    this.rest = rest;
    this.streamError = streamError;
    this.stopped = new Promise((resolve) => {
      this.stop = () => resolve(STOPPED);
    });
    this.first = FIRST_DELIMITER + this.part(first, first.hasNext === false);
  }

  /** The next chunk of text to write, or null when the body is complete. */
  async next(): Promise<string | null> {
    const first = this.first;
    if (first !== null) {
      this.first = null;
      return first;
    }
    if (this.ended) return null;
    let step: IteratorResult<Payload, void> | typeof STOPPED;
    try {
      step = await Promise.race([this.rest.next(), this.stopped]);
    } catch (error) {
      // The payloads failed (the pipeline reports its own failures as a last payload; this is a
      // fault): the error is the last part.
      return this.part({ errors: [this.streamError(error)], hasNext: false }, true);
    }
    if (step === STOPPED || this.ended) return null;
    if (step.done === true) {
      this.ended = true;
      return CLOSE;
    }
    return this.part(step.value, step.value.hasNext === false);
  }

  /**
   * Whether the chunk next() answered last was the body's end: the adapter then ends the response
   * with it, in one write, so that a client which stops reading at the close delimiter (meros,
   * Apollo Client) does not cancel a response whose last chunk is still to come.
   */
  get complete(): boolean {
    return this.ended && this.first === null;
  }

  /** The client went away: the later payloads are closed at their source, and nothing more is written. */
  close(): void {
    if (this.ended) return;
    this.ended = true;
    this.first = null;
    this.stop();
    void this.rest.return().catch(() => undefined);
  }

  /** One part, with the delimiter after it (the close delimiter after the last). */
  private part(payload: Payload, last: boolean): string {
    if (last) this.ended = true;
    return PART_HEADERS + JSON.stringify(payload) + DELIMITER + (last ? CLOSE : '');
  }
}
fastClass(MultipartStream);
