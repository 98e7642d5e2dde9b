/**
 * Differential test: for random valid operations over every fixture, our executor and graphql-js's
 * `execute` return the same result.
 *
 * "The same" means: the same `data` once serialized (so the order of response keys counts), a
 * `data` entry in both results or in neither, and the same errors — compared by message, path and
 * locations, in any order, since the spec does not order the errors list.
 *
 * One allowance, and only for executions that went asynchronous: inside a part of the response
 * that an error nulled, the two may report different errors. When a Non-Null error propagates,
 * the spec lets an executor cancel the sibling positions still running (6.4.4: they "may be
 * cancelled"); graphql-js keeps collecting their errors until its chain of promises has carried
 * the null up to the nulled position — a few microtasks per level — while ours nulls at once.
 * Which sibling errors land in that window, and which of two racing Non-Null errors gets there
 * first, is a matter of timing. So for an asynchronous execution whose errors differ, the law
 * checked is: every error raised *at* a position still present in the response (not inside a
 * nulled part) is reported by both, and every nulled part is explained by at least one error in
 * both. Synchronous executions have no such timing and must match exactly.
 *
 * Runs per fixture: DIFF_RUNS (default 2000). To replay a failure, set DIFF_SEED (and DIFF_PATH)
 * to the `seed` (and `path`) fast-check printed; DIFF_VERBOSE=1 also lists every failing operation
 * met while shrinking.
 */
import fc from 'fast-check';
import { execute as referenceExecute, GraphQLError, parse, validate } from 'graphql';
import type { ExecutionResult } from 'graphql';
import { afterAll, beforeAll, describe, it } from 'vitest';
import { fixtures } from '../fixtures/index.ts';
import type { Fixture } from '../fixtures/types.ts';
import { execute } from '../src/index.ts';
import { arbitraryOperation, describeOperation } from './support/arbitraryOperation.ts';
import { GRAPHQL_MAJOR } from './support/graphqlMajor.ts';
import type { GeneratedOperation } from './support/arbitraryOperation.ts';
import { outermostNull } from '../src/conformance/executor/differential.ts';

const RUNS = Number(process.env.DIFF_RUNS ?? 2000);
const SEED = process.env.DIFF_SEED === undefined ? undefined : Number(process.env.DIFF_SEED);
const PATH = process.env.DIFF_PATH;
const VERBOSITY = Number(process.env.DIFF_VERBOSE ?? fc.VerbosityLevel.None) as fc.VerbosityLevel;

/**
 * Fixtures read some Int arguments as counts and microtask-tick delays, so Ints stay small here;
 * Int coercion at the edges of the 32-bit range is still exercised by invalid variable values.
 */
const OPERATIONS = { intRange: [-2, 6] } as const;

describe('differential: our execute against graphql-js execute', () => {
  beforeAll(watchUnhandledRejections);
  afterAll(unwatchUnhandledRejections);

  for (const fixture of fixtures) {
    it(
      `returns the same data and errors as graphql-js (up to cancelled siblings) for random valid operations over ${fixture.name}`,
      async () => {
        const schema = fixture.run().schema;
        await fc.assert(
          fc.asyncProperty(arbitraryOperation(schema, OPERATIONS), (operation) => assertSameResult(fixture, operation)),
          {
            numRuns: RUNS,
            verbose: VERBOSITY,
            ...(SEED === undefined ? {} : { seed: SEED }),
            ...(PATH === undefined ? {} : { path: PATH }),
          },
        );
      },
      Math.max(120_000, RUNS * 150),
    );
  }
});

/** Runs `operation` through both executors, each on fresh fixture data, and throws a readable report if they differ. */
async function assertSameResult(fixture: Fixture, operation: GeneratedOperation): Promise<void> {
  const validationErrors = validate(fixture.run().schema, parse(operation.document));
  if (validationErrors.length > 0) {
    throw new Error(
      `The generator produced an invalid operation (a bug in arbitraryOperation, not in the executor):\n` +
        `${validationErrors.map((error) => error.message).join('\n')}\n\n${describeOperation(operation)}`,
    );
  }

  let expected: Outcome;
  let actual: Outcome;
  let leftBehind: unknown[];
  try {
    running = 'graphql-js';
    expected = await run(fixture, operation, referenceExecute);
    // graphql-js resolves as soon as a null propagates past a list or an object, while sibling
    // fields that were already running go on and may still add their errors to the very array it
    // returned. Fixtures only ever wait on microtasks, so after one macrotask all of them are in
    // (and any promise graphql-js left unhandled has been reported, under its name).
    await macrotask();
    running = 'ours';
    actual = await run(fixture, operation, execute);
    await macrotask();
  } finally {
    running = undefined;
    leftBehind = ourUnhandledRejections.splice(0);
  }

  const differences = compare(expected, actual);
  if (leftBehind.length > 0) {
    differences.push(`our executor left ${leftBehind.length} rejected promise(s) unhandled: ${leftBehind.map(String).join(' | ')}`);
  }
  if (differences.length > 0) {
    throw new Error(
      [
        `Our executor differs from graphql-js (${differences.join('; ')}).`,
        '',
        describeOperation(operation),
        '',
        `graphql-js: ${show(expected)}`,
        `ours:       ${show(actual)}`,
      ].join('\n'),
    );
  }
}

/** What an executor gave back, and whether it gave it synchronously. */
type Outcome = { result: ExecutionResult; synchronous: boolean } | { thrown: unknown };

const macrotask = () => new Promise((resolve) => setImmediate(resolve));

/*
 * graphql-js 16 can leave a rejected promise with no handler: in `completeListValue`, when an item
 * of a list of non-null items fails synchronously while an earlier item is still a pending
 * promise, the error escapes the `Array.from` loop and that earlier promise is abandoned; if it
 * rejects too, nobody listens. graphql-js 17 stops every continuation that resumes after it has
 * built its result, so the promises such a continuation would have awaited (items of a list that
 * resolves after its parent was nulled) are left too, with the resolver's own error. Vitest counts
 * such a rejection as an error of the whole run. So, while this file's tests run, rejections that
 * surface while graphql-js is executing are ignored (under 16, those carrying a GraphQLError);
 * those that surface while our executor is executing fail the property (ours must not leave
 * any); anything else goes to the listeners that were there before.
 */
let running: 'graphql-js' | 'ours' | undefined;
const ourUnhandledRejections: unknown[] = [];
let previousListeners: NodeJS.UnhandledRejectionListener[] = [];

function onUnhandledRejection(reason: unknown, promise: Promise<unknown>): void {
  if (running === 'graphql-js' && (reason instanceof GraphQLError || GRAPHQL_MAJOR >= 17)) {
    return;
  }
  if (running === 'ours') {
    ourUnhandledRejections.push(reason);
    return;
  }
  for (const listener of previousListeners) {
    listener(reason, promise);
  }
}

function watchUnhandledRejections(): void {
  previousListeners = process.listeners('unhandledRejection');
  process.removeAllListeners('unhandledRejection');
  process.on('unhandledRejection', onUnhandledRejection);
}

function unwatchUnhandledRejections(): void {
  process.off('unhandledRejection', onUnhandledRejection);
  for (const listener of previousListeners) {
    process.on('unhandledRejection', listener);
  }
}

async function run(
  fixture: Fixture,
  operation: GeneratedOperation,
  executor: typeof referenceExecute | typeof execute,
): Promise<Outcome> {
  const { schema, rootValue, contextValue } = fixture.run();
  try {
    const returned = executor({
      schema,
      document: parse(operation.document),
      rootValue,
      contextValue,
      variableValues: operation.variables,
      operationName: operation.operationName,
    });
    const synchronous = !(returned instanceof Promise);
    return { result: await returned, synchronous };
  } catch (thrown) {
    // `execute` must never throw or reject; recorded so that the report shows it.
    return { thrown };
  }
}

function compare(expected: Outcome, actual: Outcome): string[] {
  if (!('result' in expected) || !('result' in actual)) {
    return ['an executor threw or rejected instead of returning a result'];
  }
  const differences = [];
  if ('data' in expected.result !== 'data' in actual.result) {
    differences.push('"data" is present in only one result');
  }
  if (JSON.stringify(expected.result.data) !== JSON.stringify(actual.result.data)) {
    differences.push('data differs');
  }
  const duplicated = duplicatePaths(actual.result);
  if (duplicated.length > 0) {
    differences.push(`ours reports more than one error at ${duplicated.join(', ')}`);
  }
  if (JSON.stringify(errorSet(expected.result)) === JSON.stringify(errorSet(actual.result))) {
    return differences;
  }
  if (expected.synchronous && actual.synchronous) {
    differences.push('errors differ');
    return differences;
  }
  if (differences.length === 0) differences.push(...propagationLawViolations(expected.result, actual.result));
  return differences;
}

/**
 * For asynchronous executions with the same data but different errors: errors raised at a
 * position still present in the response must be the same; each nulled part (identified by the
 * outermost null on an error's path) must be explained by at least one error in both results.
 */
function propagationLawViolations(expected: ExecutionResult, actual: ExecutionResult): string[] {
  const violations: string[] = [];
  const anchored = (result: ExecutionResult) => {
    const byAnchor = new Map<string, string[]>();
    const atOwnPosition: string[] = [];
    for (const error of result.errors ?? []) {
      const path = error.path ?? [];
      const anchor = outermostNull(result.data, path);
      const key = JSON.stringify(anchor);
      if (anchor.length === path.length && result.data !== null) atOwnPosition.push(JSON.stringify(comparable(error)));
      byAnchor.set(key, [...(byAnchor.get(key) ?? []), error.message]);
    }
    return { byAnchor, atOwnPosition: atOwnPosition.sort() };
  };
  const ref = anchored(expected);
  const ours = anchored(actual);
  if (JSON.stringify(ref.atOwnPosition) !== JSON.stringify(ours.atOwnPosition)) {
    violations.push('errors raised at positions still in the response differ');
  }
  const refAnchors = [...ref.byAnchor.keys()].sort();
  const ourAnchors = [...ours.byAnchor.keys()].sort();
  if (JSON.stringify(refAnchors) !== JSON.stringify(ourAnchors)) {
    violations.push(`nulled parts explained by errors differ (graphql-js: ${refAnchors.join(' ')}; ours: ${ourAnchors.join(' ')})`);
  }
  return violations;
}

function duplicatePaths(result: ExecutionResult): string[] {
  const seen = new Set<string>();
  const duplicated: string[] = [];
  for (const error of result.errors ?? []) {
    const key = JSON.stringify(error.path ?? null);
    if (seen.has(key) && error.path !== undefined) duplicated.push(key);
    seen.add(key);
  }
  return duplicated;
}

/** The errors as sorted JSON strings of message, path and locations. */
function errorSet(result: ExecutionResult): string[] {
  return (result.errors ?? []).map(comparable).map((error) => JSON.stringify(error)).sort();
}

function comparable(error: GraphQLError): Pick<GraphQLError, 'message' | 'path' | 'locations'> {
  return { message: error.message, path: error.path, locations: error.locations };
}

function show(outcome: Outcome): string {
  if ('thrown' in outcome) {
    return `threw ${outcome.thrown instanceof Error ? (outcome.thrown.stack ?? outcome.thrown.message) : String(outcome.thrown)}`;
  }
  const { result } = outcome;
  const shown: Record<string, unknown> = {};
  if ('data' in result) {
    shown.data = result.data;
  }
  if (result.errors !== undefined) {
    shown.errors = result.errors.map(comparable);
  }
  return JSON.stringify(shown);
}
