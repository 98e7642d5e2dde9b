/**
 * The differential run: operations generated over each fixture schema (operationFromTape.ts,
 * valid by construction, some with wrong variable values) run through the executor under test and
 * through the graphql-js that is installed, and both must answer the same. The tapes come from a
 * seeded generator, so a seed and a count name the same operations on every machine.
 *
 * "The same": `data` with its key order, `data` present in both or neither, the same errors as a
 * set (message, path, locations). One allowance, for executions that went asynchronous: when a
 * null propagates, the spec lets an executor cancel the sibling positions still running (6.4.4,
 * "may be cancelled"), so which sibling errors inside a nulled part get reported is timing. There,
 * the errors at positions still in the response must match, and each nulled part must be
 * explained by an error in both.
 */
import { execute as referenceExecute, parse, version } from 'graphql';
import type { ExecutionResult } from 'graphql';
import type { Check, CheckOutcome } from '../check.ts';
import type { KitFixture } from './kitFiles.ts';
import { CHOICE_RANGE, operationGenerator } from './operationFromTape.ts';
import type { GeneratedOperation } from './operationFromTape.ts';
import type { ExecuteFunction, ExecutorTarget } from './target.ts';

export interface DifferentialOptions {
  /** Operations per fixture. */
  count: number;
  seed: number;
}

/** Fixtures read some Int arguments as counts and microtask delays, so generated Ints stay small. */
const OPERATIONS = { intRange: [-2, 6] } as const;

/** A small seeded generator (mulberry32): the same seed, the same numbers, everywhere. */
export function seededRandom(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let mixed = Math.imul(state ^ (state >>> 15), 1 | state);
    mixed = (mixed + Math.imul(mixed ^ (mixed >>> 7), 61 | mixed)) ^ mixed;
    return ((mixed ^ (mixed >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` operations over the schema, from `seed`. */
export function generatedOperations(fixture: KitFixture, { count, seed }: DifferentialOptions): GeneratedOperation[] {
  const generator = operationGenerator(fixture.run().schema, OPERATIONS);
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => {
    const length = Math.floor(random() * (generator.maxChoices + 1));
    return generator.build(Array.from({ length }, () => Math.floor(random() * CHOICE_RANGE)));
  });
}

/** One check per fixture; each fixture's operations come from its own seed (the run's seed plus its index). */
export function differentialChecks(fixtures: ReadonlyArray<KitFixture>, options: DifferentialOptions): Array<Check<ExecutorTarget>> {
  return fixtures.map((fixture, index) => ({
    id: `executor.differential.${fixture.name}`,
    title: `Generated operations over the ${fixture.name} fixture get the response graphql-js gives`,
    rule: 'https://spec.graphql.org/September2025/#sec-Execution',
    requirement: 'SHOULD',
    run: (target) => runDifferential(target, fixture, { count: options.count, seed: options.seed + index }),
  }));
}

async function runDifferential(target: ExecutorTarget, fixture: KitFixture, options: DifferentialOptions): Promise<CheckOutcome> {
  const operations = generatedOperations(fixture, options);
  for (const [index, operation] of operations.entries()) {
    const expected = await outcome(referenceExecute as ExecuteFunction, fixture, operation);
    const received = await outcome(target.execute, fixture, operation);
    const why = 'thrown' in received ? `execute threw: ${received.thrown}` : 'thrown' in expected ? null : differs(expected, received);
    if (why !== null) {
      return {
        status: 'fail',
        evidence: { why: `operation ${index + 1} of ${options.count} (seed ${options.seed}): ${why}`, sent: operation, expected: 'result' in expected ? shown(expected.result) : expected.thrown, received: 'result' in received ? shown(received.result) : received.thrown },
      };
    }
  }
  return { status: 'pass' };
}

type Outcome = { result: ExecutionResult; synchronous: boolean } | { thrown: string };

const macrotask = () => new Promise((resolve) => setImmediate(resolve));

/** Runs the operation on fresh data; waits a macrotask after, so errors still landing in the result are in. */
async function outcome(execute: ExecuteFunction, fixture: KitFixture, operation: GeneratedOperation): Promise<Outcome> {
  const { schema, rootValue, contextValue } = fixture.run();
  try {
    const returned = execute({ schema, document: parse(operation.document), rootValue, contextValue, variableValues: operation.variables, operationName: operation.operationName });
    const result = await returned;
    await macrotask();
    return { result, synchronous: !(returned instanceof Promise) };
  } catch (error) {
    return { thrown: error instanceof Error ? error.message : String(error) };
  }
}

/** Why two results differ, or null when they agree (up to cancelled siblings). */
function differs(expected: { result: ExecutionResult; synchronous: boolean }, received: { result: ExecutionResult; synchronous: boolean }): string | null {
  if (received.result === null || typeof received.result !== 'object') return 'the result is not an object';
  if ('data' in expected.result !== 'data' in received.result) return `"data" is present in only one result (graphql-js ${version})`;
  if (JSON.stringify(expected.result.data) !== JSON.stringify(received.result.data)) return `data differs from graphql-js ${version}'s`;
  if (JSON.stringify(errorSet(expected.result.errors)) === JSON.stringify(errorSet(received.result.errors))) return null;
  if (expected.synchronous && received.synchronous) return `errors differ from graphql-js ${version}'s`;
  const [ours, theirs] = [anchored(received.result), anchored(expected.result)];
  if (JSON.stringify(ours.atOwnPosition) !== JSON.stringify(theirs.atOwnPosition)) return 'errors raised at positions still in the response differ';
  if (JSON.stringify(ours.anchors) !== JSON.stringify(theirs.anchors)) return 'the nulled parts of the response are not explained by the same errors';
  return null;
}

type ResultError = NonNullable<ExecutionResult['errors']>[number];

function comparable(error: ResultError): string {
  return JSON.stringify({ message: error.message, path: error.path, locations: error.locations });
}

function errorSet(errors: ExecutionResult['errors']): string[] {
  return (errors ?? []).map(comparable).sort();
}

/** The errors at positions still in the response, and the nulled parts (outermost null on each error's path). */
function anchored(result: ExecutionResult): { atOwnPosition: string[]; anchors: string[] } {
  const atOwnPosition: string[] = [];
  const anchors = new Set<string>();
  for (const error of result.errors ?? []) {
    const path = error.path ?? [];
    const anchor = outermostNull(result.data, path);
    if (anchor.length === path.length && result.data !== null) atOwnPosition.push(comparable(error));
    anchors.add(JSON.stringify(anchor));
  }
  return { atOwnPosition: atOwnPosition.sort(), anchors: [...anchors].sort() };
}

/** The shortest prefix of `path` whose value in `data` is null (the root, [], when data is null). */
export function outermostNull(data: unknown, path: ReadonlyArray<string | number>): Array<string | number> {
  let value: unknown = data;
  for (let depth = 0; depth <= path.length; depth++) {
    if (value === null || value === undefined) return path.slice(0, depth);
    if (depth === path.length) break;
    value = (value as Record<string | number, unknown>)[path[depth] as string | number];
  }
  return [...path];
}

function shown(result: ExecutionResult): unknown {
  return JSON.parse(JSON.stringify({ data: result.data, errors: result.errors?.map((error) => ({ message: error.message, path: error.path, locations: error.locations })) }));
}
