/**
 * Incremental delivery (`@defer`, `@stream`), for a module that exports
 * `experimentalExecuteIncrementally`: each case of fixtures/incremental/cases.ts runs through it,
 * and the whole sequence of payloads (the initial result, then every subsequent one, as JSON)
 * must be the one graphql-js 17 gives, recorded in fixtures/incremental/expected.json. Without
 * the export, each check is skipped, saying so. SHOULD: incremental delivery is an RFC of the
 * GraphQL working group, not yet a section of the spec.
 */
import { parse } from 'graphql';
import type { Check, CheckOutcome } from '../check.ts';
import { slugOf } from './caseChecks.ts';
import type { IncrementalCases, KitIncrementalCase } from './kitFiles.ts';
import type { ExecutorTarget } from './target.ts';

const RULE = 'https://github.com/graphql/graphql-wg/blob/main/rfcs/DeferStream.md';

/** One check per case of each directive. */
export function incrementalChecks(incremental: IncrementalCases): Array<Check<ExecutorTarget>> {
  const checks: Array<Check<ExecutorTarget>> = [];
  for (const [directive, cases] of [['defer', incremental.deferCases], ['stream', incremental.streamCases]] as const) {
    for (const testCase of cases) {
      const expected = incremental.expected[`@${directive} ${testCase.name} (current)`];
      if (expected === undefined) continue;
      checks.push({
        id: `executor.incremental.${directive}.${slugOf(testCase.name)}`,
        title: `@${directive}: ${testCase.name}`,
        rule: RULE,
        requirement: 'SHOULD',
        run: (target) => runIncremental(target, incremental, testCase, expected),
      });
    }
  }
  return checks;
}

async function runIncremental(target: ExecutorTarget, incremental: IncrementalCases, testCase: KitIncrementalCase, expected: unknown): Promise<CheckOutcome> {
  const sent = { query: testCase.query, variables: testCase.variables };
  const run = target.experimentalExecuteIncrementally;
  if (run === undefined) return { status: 'skip', evidence: { why: 'The module exports no experimentalExecuteIncrementally.', sent } };
  const result = (await run({ schema: incremental.schema, document: parse(testCase.query), rootValue: testCase.root(), variableValues: testCase.variables, enableEarlyExecution: testCase.early === true } as Parameters<typeof run>[0])) as Record<string, unknown>;
  const sequence: unknown[] = [];
  if (result === null || typeof result !== 'object' || !('initialResult' in result)) sequence.push(result);
  else {
    sequence.push(result['initialResult']);
    for await (const payload of result['subsequentResults'] as AsyncIterable<unknown>) sequence.push(payload);
  }
  const received = JSON.parse(JSON.stringify(sequence)) as unknown[];
  if (JSON.stringify(received) === JSON.stringify(expected)) return { status: 'pass' };
  const length = (expected as unknown[]).length;
  const why = received.length !== length ? `${received.length} payloads where graphql-js 17 gives ${length}` : `payload ${received.findIndex((payload, index) => JSON.stringify(payload) !== JSON.stringify((expected as unknown[])[index])) + 1} differs from graphql-js 17's`;
  return { status: 'fail', evidence: { why, sent, expected, received } };
}
