/**
 * Executors made wrong in exactly one way each, for the conformance kit's own tests: every kind of
 * executor check must fail against the one that breaks its rule, so that no check can pass
 * vacuously. Each wraps graphql-js's execute and changes one thing.
 */
import { execute, subscribe, visit } from 'graphql';
import type { ExecutionArgs, ExecutionResult } from 'graphql';
import type { ExecutorTarget } from '../../src/conformance/executor/index.ts';
import { execute as glassboxExecute, experimentalExecuteIncrementally as glassboxIncrementally } from '../../src/index.ts';

/** Answers without its errors, as an executor that loses them would. */
export const dropsErrors: ExecutorTarget = {
  execute: async (args) => {
    const { errors: _dropped, ...rest } = await execute(args);
    return rest;
  },
};

function reversed(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(reversed);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).reverse().map(([key, inner]) => [key, reversed(inner)]));
}

/** Lists every object's fields in the reverse of the order they were asked for. */
export const reordersFields: ExecutorTarget = {
  execute: async (args) => {
    const result = await execute(args);
    return 'data' in result ? { ...result, data: reversed(result.data) as ExecutionResult['data'] } : result;
  },
};

/** Runs the document as if no field had `@skip`. */
export const ignoresSkip: ExecutorTarget = {
  execute: (args: ExecutionArgs) =>
    execute({ ...args, document: visit(args.document, { Directive: (node) => (node.name.value === 'skip' ? null : undefined) }) }),
};

/** Coerces variables wrongly: every variable value that is a number arrives as a string. */
export const coercesVariablesWrongly: ExecutorTarget = {
  execute: (args) =>
    execute({ ...args, variableValues: args.variableValues == null ? args.variableValues : Object.fromEntries(Object.entries(args.variableValues).map(([name, value]) => [name, typeof value === 'number' ? String(value) : value])) }),
};

/** Answers every operation with nothing at all: every check of the kit must fail against it. */
export const answersNothing: ExecutorTarget = {
  execute: () => ({ data: { nothing: true } }) as ExecutionResult,
  subscribe: () => ({ data: { nothing: true } }),
  experimentalExecuteIncrementally: () => ({ data: { nothing: true } }),
};

/** graphql-js's subscribe, but a stream ends after its first event. */
export const deliversOneEvent: ExecutorTarget = {
  execute,
  subscribe: async (args) => {
    const answer = await subscribe(args);
    if (!(Symbol.asyncIterator in answer)) return answer;
    return (async function* () {
      for await (const event of answer) {
        yield event;
        return;
      }
    })();
  },
};

/** Ours, but incremental delivery stops after the initial result: what was deferred never comes. */
export const dropsSubsequentPayloads: ExecutorTarget = {
  execute: glassboxExecute,
  experimentalExecuteIncrementally: async (args) => {
    const result = (await glassboxIncrementally(args)) as unknown as Record<string, unknown>;
    return 'initialResult' in result ? { ...(result['initialResult'] as object), hasNext: false } : result;
  },
};

/** Throws instead of answering. */
export const throws: ExecutorTarget = {
  execute: () => {
    throw new Error('this executor throws');
  },
};

/** Drops the `locations` of every error (the kind of shortcut a fast executor takes). */
export const dropsLocations: ExecutorTarget = {
  execute: async (args) => {
    const result = await execute(args);
    return result.errors === undefined ? result : { ...result, errors: result.errors.map((error) => ({ ...error.toJSON(), locations: undefined }) as never) };
  },
};

