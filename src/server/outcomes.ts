/**
 * What running an operation through the pipeline comes to: one tagged union, so that every
 * transport switches on `kind` and the compiler proves each case is handled.
 *
 *   result        a GraphQL result: executed, or refused with request errors (no `data`)
 *   stream        a subscription's response stream: one finished result per event
 *   incremental   an operation whose `@defer`/`@stream` applies: its first payload, then the others
 *   notAllowed    an operation this request may not carry (a mutation over GET)
 *   rateLimited   refused by the rate limiter before anything ran
 */
import type { ExecutionResult, GraphQLError } from 'graphql';
import type { SelectionPlan } from '../execution/plan.ts';
import type { CompletedResult, IncrementalResult, PendingResult } from '../execution/incremental/publisher.ts';
import type { LegacyIncrementalResult } from '../execution/incremental/legacyPublisher.ts';
import type { IncrementalFormat } from './request.ts';
import type { RateRefusal, RateStanding } from '../ratelimit/rateLimiter.ts';
import type { OperationDenials } from '../security/access.ts';

export type OperationOutcome = OperationResult | OperationStream | OperationIncremental | NotAllowed | RateLimited;

export interface OperationResult {
  readonly kind: 'result';
  readonly result: ExecutionResult;
  /** Whether the result is a request error (no `data`): 400 under application/graphql-response+json. */
  readonly requestError: boolean;
  /** Set when the operation was refused for fields the caller may not use (onDenied: 'reject'): a 403. */
  readonly denied?: OperationDenials;
  /**
   * For a result known to be small: the operation's root selection plan, whose generated writer
   * writes `data` (compileStringify.ts). Otherwise the native JSON.stringify does.
   */
  readonly writer?: SelectionPlan | null;
  /** The caller's rate-limit standing after this operation, when limits are on (for RateLimit headers). */
  readonly rate?: RateStanding;
}

/**
 * A subscription's response stream: one finished result per event. Closing it (`return()`)
 * closes the source stream and aborts the operation's signal.
 */
export interface OperationStream {
  readonly kind: 'stream';
  readonly stream: AsyncGenerator<ExecutionResult, void, void>;
  /** The caller's rate-limit standing, when limits are on. */
  readonly rate?: RateStanding;
}

/**
 * An operation delivered incrementally (`@defer`, `@stream`): its first payload, finished, and
 * the later ones, each finished as it comes (codes, masking; the cost report is on the first).
 * Closing `subsequent` early (`return()`) stops the rest of the work and aborts the operation's
 * signal; a transport whose client goes away must call it. The operation's timeout runs from its
 * start to its last payload (server/incrementalDelivery.ts).
 */
export interface OperationIncremental {
  readonly kind: 'incremental';
  /** The format the payloads are in (the request's `incremental`). */
  readonly format: IncrementalFormat;
  readonly initial: InitialPayload;
  readonly subsequent: AsyncGenerator<SubsequentPayload, void, void>;
  /** The caller's rate-limit standing, when limits are on. */
  readonly rate?: RateStanding;
}

/** The first payload: the result without what is deferred, with `hasNext: true` (and `pending`, in the current format). */
export interface InitialPayload extends ExecutionResult {
  readonly pending?: ReadonlyArray<PendingResult>;
  readonly hasNext: true;
}

/** A later payload, in either format; the last has `hasNext: false`. */
export interface SubsequentPayload {
  readonly hasNext: boolean;
  readonly pending?: ReadonlyArray<PendingResult>;
  readonly incremental?: ReadonlyArray<IncrementalResult | LegacyIncrementalResult>;
  readonly completed?: ReadonlyArray<CompletedResult>;
  /** Only on the last payload of an operation cut short (its timeout, a failure) when no pending part can carry the error. */
  readonly errors?: ReadonlyArray<GraphQLError>;
  readonly extensions?: Record<string, unknown>;
}

/** An operation this request may not carry: a mutation over GET. */
export interface NotAllowed {
  readonly kind: 'notAllowed';
  readonly operation: 'mutation';
}

/** Refused by the rate limiter: over budget (429) or the limiter's store away (503). Nothing ran. */
export interface RateLimited {
  readonly kind: 'rateLimited';
  readonly refusal: RateRefusal;
}

/** A request error: the errors, no `data`, nothing executed. */
export function requestErrors(errors: ReadonlyArray<GraphQLError>): OperationResult {
  return { kind: 'result', result: { errors: [...errors] }, requestError: true };
}

export function rateLimited(refusal: RateRefusal): RateLimited {
  return { kind: 'rateLimited', refusal };
}

/** The outcome, with the caller's rate-limit standing for the transport to report. */
export function withStanding<O extends OperationOutcome>(outcome: O, standing: RateStanding): O;
export function withStanding(outcome: OperationOutcome, standing: RateStanding): OperationOutcome {
  switch (outcome.kind) {
    case 'result': {
      // Written out rather than spread: this runs on every rate-limited request.
      const { result, requestError, denied, writer } = outcome;
      return denied === undefined
        ? { kind: 'result', result, requestError, writer, rate: standing }
        : { kind: 'result', result, requestError, denied, writer, rate: standing };
    }
    case 'stream':
      return { kind: 'stream', stream: outcome.stream, rate: standing };
    case 'incremental':
      return { ...outcome, rate: standing };
    case 'notAllowed':
    case 'rateLimited':
      return outcome;
    default:
      return unreachable(outcome);
  }
}

/** The default of an exhaustive switch: the compiler proves it is never reached. */
export function unreachable(value: never): never {
  throw new TypeError(`Unexpected outcome: ${JSON.stringify(value)}`);
}
