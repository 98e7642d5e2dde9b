/**
 * The execute phase of a subscription: its variables held to the client's budget, the source
 * stream shared with the subscribers of the same operation (sharedSubscriptions.ts), and each
 * event's result finished like a query's.
 */
import { createHash } from 'node:crypto';
import type { GraphQLError, OperationDefinitionNode } from 'graphql';
import { subscribePlan } from '../execution/subscribe.ts';
import { ErrorCode, codedError } from '../errors/codes.ts';
import { NO_ROOT_FIELD_MESSAGE } from '../language/graphqlCompat.ts';
import { isAsyncIterable } from '../jsutils/isAsyncIterable.ts';
import { jsonSize } from '../jsutils/jsonSize.ts';
import { mapAsyncIterable } from '../jsutils/mapAsyncIterable.ts';
import type { ClientSlots } from './clientSlots.ts';
import type { ResultFinisher } from './finishResult.ts';
import { OperationAbort, OperationCancelled } from './operationScope.ts';
import { requestErrors } from './outcomes.ts';
import type { OperationResult, OperationStream } from './outcomes.ts';
import type { ReadyOperation } from './readyOperation.ts';
import { isTraced } from './request.ts';
import type { OperationRequest } from './request.ts';
import type { SubscriptionGroups } from './sharedSubscriptions.ts';

/** What the pipeline gives its subscriptions. */
export interface SubscriptionSettings<Raw> {
  /** Shared source streams (null: `shareSubscriptions: false`). */
  groups: SubscriptionGroups | null;
  /** Characters of variables each client's open subscriptions keep (maxSubscriptionBytesPerClient). */
  variableBytes: ClientSlots;
  finisher: ResultFinisher;
  /** The operation's context (the pipeline's context factory, or its default). */
  contextFor(request: OperationRequest<Raw>, scope: OperationAbort): unknown;
  /** Who a request counts as, for bounds per client. */
  clientOf(request: OperationRequest<Raw>): string;
  measureCost: boolean;
  hideSuggestions: boolean;
}

export class SubscriptionStarter<Raw> {
  constructor(private readonly settings: SubscriptionSettings<Raw>) {}

  /** The response stream, or the errors that kept it from starting. */
  start(ready: ReadyOperation, request: OperationRequest<Raw>): OperationResult | Promise<OperationResult | OperationStream> {
    // A subscription keeps its variables for its lifetime: only those its operation declares,
    // within the client's budget of them.
    const variables = declaredVariables(ready.plan.operation, request.params.variables);
    const held = this.hold(variables, request);
    if (held === null) return requestErrors([this.budgetError(variables)]);
    const { groups } = this.settings;
    // A traced subscriber gets executions of its own: a group's results are shared as they are.
    const key = groups === null || isTraced(request.params) ? null : groupKey(variables);
    const subscribed =
      groups === null || key === null
        ? this.subscribe(ready, request, variables)
        : groups.join(ready.plan, request.identity, key, () => this.subscribe(ready, request, variables));
    return held === NOTHING_HELD ? subscribed : releasedAtEnd(subscribed, held);
  }

  /**
   * Takes the characters a subscription's variables keep from its client's budget: the function
   * that gives them back, NOTHING_HELD for a subscription without variables, null when the
   * budget has not that much left.
   */
  private hold(variables: Readonly<Record<string, unknown>> | null, request: OperationRequest<Raw>): (() => void) | null {
    const size = variablesSize(variables);
    if (size === 0) return NOTHING_HELD;
    return this.settings.variableBytes.take(this.settings.clientOf(request), size);
  }

  private budgetError(variables: Readonly<Record<string, unknown>> | null): GraphQLError {
    return codedError(
      `This client's subscriptions keep as many characters of variables as one client may (${this.settings.variableBytes.perClient}); this one's would be ${variablesSize(variables)} more. End a subscription before starting another.`,
      ErrorCode.SubscriptionVariablesLimit,
    );
  }

  /**
   * Subscribes (the spec's Subscribe: CreateSourceEventStream, then MapSourceToResponseEvent):
   * each event's result finished, or the errors that kept the stream from starting. Ending the
   * stream aborts the operation's signal, so resolvers waiting on it stop too.
   */
  private async subscribe(
    ready: ReadyOperation,
    request: OperationRequest<Raw>,
    variables: Readonly<Record<string, unknown>> | null,
  ): Promise<OperationResult | OperationStream> {
    const { finisher } = this.settings;
    const abort = new OperationAbort(request.identity, request.connectionParams);
    const contextValue = await this.settings.contextFor(request, abort);
    let subscribed: Awaited<ReturnType<typeof subscribePlan>>;
    try {
      subscribed = await subscribePlan(ready.plan, {
        variableValues: variables,
        contextValue,
        measureCost: this.settings.measureCost,
        signal: abort,
        hideSuggestions: this.settings.hideSuggestions,
        trace: isTraced(request.params),
      });
    } catch (error) {
      if (leftNoRootField(error)) return requestErrors([noRootField()]);
      throw error;
    }
    const { analysis } = ready;
    if (!isAsyncIterable(subscribed)) {
      if (leftNoRootField(subscribed.errors?.[0])) return requestErrors([noRootField()]);
      return { kind: 'result', result: finisher.finish(subscribed, analysis, request.requestId), requestError: !('data' in subscribed) };
    }
    // The stream keeps the request's id, not the request: its unused variables are let go.
    const requestId = request.requestId;
    const stream = mapAsyncIterable(
      subscribed,
      (result) => finisher.finishEvent(result, analysis, requestId),
      () => abort.abort(new OperationCancelled('The subscription ended.')),
    );
    return { kind: 'stream', stream };
  }
}

/** The characters of JSON a subscription's variables take (their values'; names are the operation's). */
function variablesSize(variables: Readonly<Record<string, unknown>> | null): number {
  let size = 0;
  for (const name in variables) size += jsonSize(variables[name]);
  return size;
}

/** What hold() answers for a subscription that keeps no variables. */
const NOTHING_HELD = (): void => undefined;

/** The subscription's outcome, with `release` called once its stream ends, or at once when it did not start. */
function releasedAtEnd(started: Promise<OperationResult | OperationStream>, release: () => void): Promise<OperationResult | OperationStream> {
  return started.then(
    (outcome): OperationResult | OperationStream => {
      if (outcome.kind === 'result') {
        release();
        return outcome;
      }
      return { ...outcome, stream: mapAsyncIterable(outcome.stream, (result) => result, release) };
    },
    (error: unknown) => {
      release();
      throw error;
    },
  );
}

/** The variables an operation declares, from those a request sent: the others are never read. */
function declaredVariables(operation: OperationDefinitionNode, variables: Readonly<Record<string, unknown>> | null): Readonly<Record<string, unknown>> | null {
  if (variables === null) return null;
  const declared: Record<string, unknown> = {};
  for (const definition of operation.variableDefinitions ?? []) {
    const name = definition.variable.name.value;
    if (Object.hasOwn(variables, name)) declared[name] = variables[name];
  }
  return declared;
}

/**
 * The key of a subscription's group among those of one operation and identity: a hash of its
 * variables' JSON (a fixed 43 characters, however large the variables). Null (no group: the
 * subscription runs on its own) when they are too deeply nested to write out.
 */
function groupKey(variables: Readonly<Record<string, unknown>> | null): string | null {
  if (variables === null) return '';
  let text: string;
  try {
    text = JSON.stringify(variables);
  } catch {
    return null;
  }
  return createHash('sha256').update(text).digest('base64url');
}

/**
 * `@skip`/`@include` left a subscription no root field: graphql-js fails taking the first one
 * apart (graphqlCompat.ts NO_ROOT_FIELD_MESSAGE: 16 throws it, 17 answers with it). The client
 * chose the variables: a request error, said plainly.
 */
function leftNoRootField(error: unknown): boolean {
  return error instanceof Error && error.message === NO_ROOT_FIELD_MESSAGE;
}

function noRootField(): GraphQLError {
  return codedError('The subscription selects no root field: its @skip and @include directives left none.', ErrorCode.BadRequest);
}
