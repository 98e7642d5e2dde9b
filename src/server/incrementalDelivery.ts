/**
 * The execute phase of an operation whose `@defer` or `@stream` applies, on a request that can
 * carry incremental payloads: the incremental executor (execution/incremental/) in the format
 * the request asked for, every payload finished as a result is (finishResult.ts: codes, masking
 * in production, the cost report: `requested` and `limit` on the first payload, the whole report
 * with `actual` on the last, where the executor puts the cost of every part, and the trace).
 *
 * The timeout (`executionTimeoutMs`) bounds the whole operation, from its start to its last
 * payload, not each payload: deferred parts and streamed items are work of the same request, and
 * a stream whose items keep coming must not hold the server's resources for ever. Past it before
 * the first payload, the answer is the TIMEOUT result any operation gets. Past it later, the
 * payloads end with one that reports TIMEOUT: in the current format as the error of every part
 * still pending (`completed`), in the 2022 format, which names no pending part, in the payload's
 * own `errors`. Either way the operation's signal aborts and the executor's work is closed.
 *
 * The client going away (the transport's onClientGone), or the transport closing the later
 * payloads early (`return()`), does the same without a last payload: nothing is left running.
 */
import type { ExecutionResult, GraphQLError } from 'graphql';
import type { Analysis } from '../analysis/analyze.ts';
import { ErrorCode, codedError } from '../errors/codes.ts';
import { executePlanIncrementally } from '../execution/incremental/executeIncrementally.ts';
import type { PromiseOrValue } from '../jsutils/promiseOrValue.ts';
import type { RateStanding } from '../ratelimit/rateLimiter.ts';
import type { ResultFinisher } from './finishResult.ts';
import type { OperationAbort } from './operationScope.ts';
import { OperationCancelled } from './operationScope.ts';
import type { InitialPayload, OperationIncremental, OperationResult, SubsequentPayload } from './outcomes.ts';
import type { ReadyOperation } from './readyOperation.ts';
import { isTraced } from './request.ts';
import type { IncrementalFormat, OperationRequest } from './request.ts';

/** What the incremental executor answers: a plain result when nothing was left to defer, else the first payload and the rest. */
type Executed = ExecutionResult | { initialResult: InitialPayload; subsequentResults: AsyncGenerator<SubsequentPayload, void, void> };

const TIMED_OUT: unique symbol = Symbol('timed out');
const DONE: IteratorReturnResult<void> = { done: true, value: undefined };

export interface IncrementalOptions {
  readonly finisher: ResultFinisher;
  readonly timeoutMs: number;
  readonly measureCost: boolean;
  readonly hideSuggestions: boolean;
}

/**
 * Runs a checked operation through the incremental executor. `finishResult`: how the pipeline
 * finishes a plain result, for an operation that had nothing left to defer after all.
 */
export function executeIncrementally<Raw>(
  options: IncrementalOptions,
  ready: ReadyOperation,
  request: OperationRequest<Raw>,
  abort: OperationAbort,
  contextValue: unknown,
  rate: RateStanding | undefined,
  finishResult: (result: ExecutionResult) => OperationResult,
): PromiseOrValue<OperationResult | OperationIncremental> {
  const format: IncrementalFormat = request.incremental ?? 'current';
  const args = {
    variableValues: request.params.variables,
    contextValue,
    measureCost: options.measureCost,
    signal: abort,
    hideSuggestions: options.hideSuggestions,
    trace: isTraced(request.params),
  };
  const executed = executePlanIncrementally(ready.plan, args, format) as PromiseOrValue<Executed>;
  // The timeout starts once the executor has started (a synchronous first payload is not timed,
  // as a synchronous result is not), and runs to the last payload.
  const delivery = new Delivery(options, format, abort, request.requestId, ready.analysis);
  request.onClientGone?.(() => delivery.stop(new OperationCancelled('The client closed the connection.')));
  const settle = (settled: Executed | typeof TIMED_OUT): OperationResult | OperationIncremental => {
    if (settled === TIMED_OUT) {
      const error = codedError(`Execution timed out after ${options.timeoutMs} ms.`, ErrorCode.Timeout);
      return { kind: 'result', result: { errors: [error], data: null }, requestError: false, rate };
    }
    if (!('initialResult' in settled)) {
      delivery.over();
      return finishResult(settled);
    }
    const initial = options.finisher.finishInitial(settled.initialResult, ready.analysis, request.requestId);
    return { kind: 'incremental', format, initial, subsequent: delivery.start(initial, settled.subsequentResults), rate };
  };
  if (!(executed instanceof Promise)) return settle(executed);
  return Promise.race([executed, delivery.timedOut]).then(settle, (error: unknown) => {
    delivery.over();
    throw error;
  });
}

/**
 * The later payloads as a transport reads them: the executor's, finished one by one, ended by
 * the timeout, the client leaving or `return()` at once, even while a `next()` waits (the
 * executor's own generator acts on `return()` at once too: execution/incremental/abruptClose.ts).
 */
class Delivery {
  private readonly finisher: ResultFinisher;
  private readonly timeoutMs: number;
  private readonly timer: ReturnType<typeof setTimeout>;
  /** Resolves when the timeout passes (the first payload races it). */
  readonly timedOut: Promise<typeof TIMED_OUT>;
  private passTimeout!: (value: typeof TIMED_OUT) => void;
  /** Resolves when the delivery is stopped or times out, so that a waiting next() returns. */
  private readonly interrupted: Promise<null>;
  private interrupt!: (value: null) => void;
  private source: AsyncGenerator<SubsequentPayload, void, void> | null = null;
  /** Whether no more payloads come from the executor (done, stopped, timed out or failed). */
  private ended = false;
  /** A payload still to send once the executor's are over: the one reporting the timeout or a failure. */
  private last: SubsequentPayload | null = null;
  /** The current format's parts announced and not completed yet, by id: where a timeout is reported. */
  private readonly pending = new Set<string>();

  constructor(
    options: IncrementalOptions,
    private readonly format: IncrementalFormat,
    private readonly abort: OperationAbort,
    private readonly requestId: string | undefined,
    /** For the cost report the last payload completes. */
    private readonly analysis: Analysis | null,
  ) {
    this.finisher = options.finisher;
    this.timeoutMs = options.timeoutMs;
    this.timedOut = new Promise((resolve) => {
      this.passTimeout = resolve;
    });
    this.interrupted = new Promise((resolve) => {
      this.interrupt = resolve;
    });
    this.timer = setTimeout(() => this.timeOut(), this.timeoutMs);
  }

  /** The executor's later payloads, once the first has come: this delivery, as an async generator. */
  start(initial: InitialPayload, source: AsyncGenerator<SubsequentPayload, void, void>): AsyncGenerator<SubsequentPayload, void, void> {
    this.source = source;
    for (const part of initial.pending ?? []) this.pending.add(part.id);
    // Stopped while the first payload was being made (the client left): close the rest at once.
    if (this.ended) void source.return().catch(() => undefined);
    const generator = {
      [Symbol.asyncIterator]: () => generator,
      next: () => this.next(),
      return: () => this.closed(),
      throw: () => this.closed(),
    };
    return generator as unknown as AsyncGenerator<SubsequentPayload, void, void>;
  }

  /** Nothing more to deliver (the last payload went, or there was none to defer): the timer goes. */
  over(): void {
    this.ended = true;
    clearTimeout(this.timer);
  }

  /** The client left: the work stops (the signal aborts, the executor's generator is closed) and nothing more is sent. */
  stop(reason: Error): void {
    if (this.ended) return;
    this.over();
    this.abort.abort(reason);
    void this.source?.return().catch(() => undefined);
    this.interrupt(null);
  }

  private closed(): Promise<IteratorReturnResult<void>> {
    this.last = null;
    this.stop(new Error('The client stopped reading the payloads.'));
    return Promise.resolve(DONE);
  }

  private timeOut(): void {
    if (this.ended) return;
    const error = codedError(`Execution timed out after ${this.timeoutMs} ms.`, ErrorCode.Timeout);
    this.stop(new Error(error.message));
    // Before the first payload, the operation's answer is the TIMEOUT result (executeIncrementally).
    if (this.source !== null) this.last = this.lastPayload(error);
    this.passTimeout(TIMED_OUT);
  }

  private async next(): Promise<IteratorResult<SubsequentPayload, void>> {
    if (!this.ended) {
      const source = this.source as AsyncGenerator<SubsequentPayload, void, void>;
      const step = source.next();
      // Once interrupted, what the executor's generator still answers is no one's: its failure too.
      step.catch(() => undefined);
      try {
        const settled = await Promise.race([step, this.interrupted]);
        if (settled !== null) return this.received(settled);
      } catch (error) {
        this.over();
        this.abort.abort(error);
        this.last = this.lastPayload(this.finisher.streamError(error));
      }
    }
    const last = this.last;
    this.last = null;
    return last === null ? DONE : { done: false, value: last };
  }

  private received(step: IteratorResult<SubsequentPayload, void>): IteratorResult<SubsequentPayload, void> {
    if (step.done === true) {
      this.over();
      return DONE;
    }
    const payload = this.finisher.finishSubsequent(step.value, this.requestId, this.analysis);
    for (const part of payload.pending ?? []) this.pending.add(part.id);
    for (const part of payload.completed ?? []) this.pending.delete(part.id);
    if (!payload.hasNext) this.over();
    return { done: false, value: payload };
  }

  /** The payload that ends a delivery cut short: the error on every pending part (current format), else on the payload. */
  private lastPayload(error: GraphQLError): SubsequentPayload {
    if (this.format === 'current' && this.pending.size > 0) {
      return { hasNext: false, completed: [...this.pending].map((id) => ({ id, errors: [error] })) };
    }
    return { hasNext: false, errors: [error] };
  }
}

/** Every payload of an incremental outcome, the first included, as one generator (for the transports that send each as a message). */
export function incrementalPayloads(outcome: OperationIncremental): AsyncGenerator<InitialPayload | SubsequentPayload, void, void> {
  let first: InitialPayload | null = outcome.initial;
  const { subsequent } = outcome;
  const generator = {
    [Symbol.asyncIterator]: () => generator,
    next: (): Promise<IteratorResult<InitialPayload | SubsequentPayload, void>> => {
      if (first === null) return subsequent.next();
      const value = first;
      first = null;
      return Promise.resolve({ done: false, value });
    },
    return: () => {
      first = null;
      return subsequent.return();
    },
    throw: (error: unknown) => {
      first = null;
      return subsequent.throw(error);
    },
  };
  return generator as unknown as AsyncGenerator<InitialPayload | SubsequentPayload, void, void>;
}
