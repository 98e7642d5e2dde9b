/**
 * The finish phase: what every result gets before a transport writes it. Every error carries a
 * code; in production an unexpected error (anything a resolver threw that is not a
 * GraphQLError) is masked as "Unexpected error." with an id that its log entry carries too; the
 * cost report goes in `extensions.cost`. Such an error is logged with its stack outside
 * production as in production: the log is where a developer trying the server sees a resolver
 * fail, not only the client's INTERNAL_SERVER_ERROR. The errors of a stream's events and later
 * payloads are counted here, by code, as they are sent (the pipeline counts its outcomes').
 */
import { randomUUID } from 'node:crypto';
import { GraphQLError } from 'graphql';
import type { ExecutionResult } from 'graphql';
import type { Analysis } from '../analysis/analyze.ts';
import type { Limits } from '../analysis/limits.ts';
import { ErrorCode, codedError, withCode } from '../errors/codes.ts';
import type { ErrorCounts } from '../observability/errorCounts.ts';
import type { LogEntry } from '../observability/logEntry.ts';
import { OperationCancelled } from './operationScope.ts';
import type { InitialPayload, SubsequentPayload } from './outcomes.ts';

export class ResultFinisher {
  constructor(
    private readonly production: boolean,
    /** Whether results carry `extensions.cost = { requested, actual, limit }`. */
    private readonly reportCost: boolean,
    private readonly limits: Limits,
    private readonly log: (entry: LogEntry) => void,
    /** Where the errors of events and later payloads are counted. */
    private readonly errorCounts: ErrorCounts,
  ) {}

  /** A subscription event's result, finished as a result is, its errors counted. */
  finishEvent(result: ExecutionResult, analysis: Analysis | null, requestId: string | undefined): ExecutionResult {
    const finished = this.finish(result, analysis, requestId);
    this.errorCounts.addErrors(finished.errors);
    return finished;
  }

  /** Codes on every error, unexpected errors masked in production, and the cost report. */
  finish(result: ExecutionResult, analysis: Analysis | null, requestId: string | undefined): ExecutionResult {
    let errors = result.errors;
    if (errors !== undefined) {
      // Without `data`, the errors are the variables' (a request error): the client's input.
      const isVariableError = !('data' in result);
      errors = errors.map((error) => (isVariableError ? withCode(error, ErrorCode.BadUserInput) : this.fieldError(error, requestId)));
    }
    // Nothing to add (no errors to code, no cost report): the executor's result is answered as it is.
    if (errors === undefined && result.extensions === undefined && !(this.reportCost && analysis !== null)) return result;
    const finished: ExecutionResult = errors === undefined ? { data: result.data } : { errors, data: result.data };
    if (this.reportCost && analysis !== null) {
      const actual = (result.extensions?.['cost'] as { actual?: number } | undefined)?.actual ?? 0;
      finished.extensions = { cost: { requested: analysis.cost, actual, limit: this.limits.cost === false ? null : this.limits.cost } };
    }
    const trace = result.extensions?.['trace'];
    if (trace !== undefined) (finished.extensions ??= {})['trace'] = trace;
    return finished;
  }

  /**
   * The first payload of an incremental delivery: its errors coded and masked as a result's,
   * the cost report added: `requested` and `limit` (what the executor measured, `actual`, is known
   * only once the last part is done, so the executor puts it on the last payload: finishSubsequent).
   */
  finishInitial(payload: InitialPayload, analysis: Analysis | null, requestId: string | undefined): InitialPayload {
    const errors = payload.errors?.map((error) => this.fieldError(error, requestId));
    const finished: { -readonly [K in keyof InitialPayload]: InitialPayload[K] } = errors === undefined ? { ...payload } : { ...payload, errors };
    if (this.reportCost && analysis !== null) {
      const actual = (payload.extensions?.['cost'] as { actual?: number } | undefined)?.actual;
      const limit = this.limits.cost === false ? null : this.limits.cost;
      finished.extensions = { ...payload.extensions, cost: actual === undefined ? { requested: analysis.cost, limit } : { requested: analysis.cost, actual, limit } };
    }
    return finished;
  }

  /**
   * A later payload: the errors of its parts (`incremental[].errors`, `completed[].errors`) coded
   * and masked; on the last, the executor's `extensions.cost.actual` made the whole cost report
   * (`{ requested, actual, limit }`, completing the first payload's). Unchanged when it has none.
   */
  finishSubsequent(payload: SubsequentPayload, requestId: string | undefined, analysis: Analysis | null = null): SubsequentPayload {
    const finish = <P extends { readonly errors?: ReadonlyArray<GraphQLError> }>(part: P): P =>
      part.errors === undefined ? part : { ...part, errors: part.errors.map((error) => this.fieldError(error, requestId)) };
    const { incremental, completed, errors } = payload;
    const extensions = this.lastCost(payload.extensions, analysis);
    if (errors === undefined && extensions === undefined && !incremental?.some((part) => part.errors !== undefined) && !completed?.some((part) => part.errors !== undefined)) return payload;
    const finished: { -readonly [K in keyof SubsequentPayload]: SubsequentPayload[K] } = { ...payload };
    if (extensions !== undefined) finished.extensions = extensions;
    if (incremental !== undefined) finished.incremental = incremental.map(finish);
    if (completed !== undefined) finished.completed = completed.map(finish);
    if (errors !== undefined) finished.errors = errors.map((error) => this.fieldError(error, requestId));
    this.errorCounts.addErrors(finished.errors);
    for (const part of finished.incremental ?? []) this.errorCounts.addErrors(part.errors);
    for (const part of finished.completed ?? []) this.errorCounts.addErrors(part.errors);
    return finished;
  }

  /** The last payload's extensions with the whole cost report, when the executor measured it there; else undefined. */
  private lastCost(extensions: Record<string, unknown> | undefined, analysis: Analysis | null): Record<string, unknown> | undefined {
    const actual = (extensions?.['cost'] as { actual?: number } | undefined)?.actual;
    if (actual === undefined || !this.reportCost || analysis === null) return undefined;
    return { ...extensions, cost: { requested: analysis.cost, actual, limit: this.limits.cost === false ? null : this.limits.cost } };
  }

  /**
   * The error to send when a subscription's stream fails (its source threw, or overflowed): a
   * GraphQLError as it is, coded; anything else is a fault, masked in production and logged.
   */
  streamError(error: unknown): GraphQLError {
    const sent = this.streamFailure(error);
    this.errorCounts.add(sent.extensions['code']);
    return sent;
  }

  private streamFailure(error: unknown): GraphQLError {
    if (error instanceof GraphQLError) return withCode(error, ErrorCode.InternalServerError);
    const requestId = randomUUID();
    this.log({ level: 'error', message: 'A subscription stream failed.', requestId, error });
    const message = this.production || !(error instanceof Error) ? 'Unexpected error.' : error.message;
    return codedError(message, ErrorCode.InternalServerError, { requestId });
  }

  /**
   * A field error: a resolver's GraphQLError is meant for the client (and keeps its code:
   * located errors carry their original's extensions); anything else thrown is a fault, hidden
   * in production.
   */
  private fieldError(error: GraphQLError, requestId: string | undefined): GraphQLError {
    const original = error.originalError;
    // The server's own stop (the client left) is no resolver's fault: not logged, and not masked as one.
    if (original == null || original instanceof GraphQLError || original instanceof OperationCancelled) return withCode(error, ErrorCode.InternalServerError);
    const errorId = requestId ?? randomUUID();
    this.log({ level: 'error', message: `Unexpected error in a resolver: ${error.message}`, requestId: errorId, error: original });
    if (!this.production) return withCode(error, ErrorCode.InternalServerError);
    return new GraphQLError('Unexpected error.', {
      nodes: error.nodes,
      source: error.source,
      positions: error.positions,
      path: error.path,
      extensions: { code: ErrorCode.InternalServerError, requestId: errorId },
    });
  }
}
