/**
 * What a subscriber of `subscribe` sees, step by step, as plain data: the subscription suites
 * compare our engine's transcript with graphql-js's.
 */
import type { ExecutionResult } from 'graphql';
import type { SubscribeArgs } from '../../src/index.ts';
import type { PromiseOrValue } from '../../src/jsutils/promiseOrValue.ts';

/** graphql 17's `subscribe` (and ours under it) answers at once unless the subscribe resolver answers with a promise. */
export type SubscribeFn = (args: SubscribeArgs) => PromiseOrValue<AsyncIterable<ExecutionResult> | ExecutionResult>;

/** A result as it goes over the wire: each error as { message, locations, path, extensions }. */
export type WireResult = {
  data?: unknown;
  errors?: Array<{ message: string; locations?: Array<{ line: number; column: number }>; path?: Array<string | number>; extensions?: Record<string, unknown> }>;
};

export function wire(result: ExecutionResult): WireResult {
  return JSON.parse(JSON.stringify(result)) as WireResult;
}

/** An error that was thrown or rejected rather than reported: its class and message. */
export interface Thrown {
  name: string;
  message: string;
}

export function thrown(error: unknown): Thrown {
  return error instanceof Error ? { name: error.constructor.name, message: error.message } : { name: typeof error, message: String(error) };
}

/** One thing a subscriber saw. */
export type Step =
  | { subscribed: 'stream' }
  | { subscribed: 'result'; result: WireResult }
  | { subscribeRejected: Thrown }
  | { next: WireResult }
  | { nextRejected: Thrown }
  | { done: true };

export function isAsyncIterable<T = ExecutionResult>(value: unknown): value is AsyncIterable<T> {
  return typeof (value as { [Symbol.asyncIterator]?: unknown } | null)?.[Symbol.asyncIterator] === 'function';
}

/**
 * Subscribes, then pulls every event until the stream is done (a rejection ends it too: then it
 * pulls once more), at most `maxSteps` steps: a stream that does not end is cut off, not waited on forever.
 */
export async function transcript(subscribe: SubscribeFn, args: SubscribeArgs, maxSteps: number): Promise<Step[]> {
  let subscribed: AsyncIterable<ExecutionResult> | ExecutionResult;
  try {
    subscribed = await subscribe(args);
  } catch (error) {
    return [{ subscribeRejected: thrown(error) }];
  }
  if (!isAsyncIterable(subscribed)) return [{ subscribed: 'result', result: wire(subscribed) }];
  const steps: Step[] = [{ subscribed: 'stream' }];
  const iterator = subscribed[Symbol.asyncIterator]();
  while (steps.length < maxSteps) {
    try {
      const step = await iterator.next();
      if (step.done === true) {
        steps.push({ done: true });
        break;
      }
      steps.push({ next: wire(step.value) });
    } catch (error) {
      steps.push({ nextRejected: thrown(error) });
    }
  }
  return steps;
}
