/**
 * One check per case of fixtures/cases/<section>.json: the case's operation runs through the
 * executor under test on fresh fixture data, and its response must be the one the case expects
 * (responses.ts says what "the same" means). The expectations are checked against graphql-js by
 * the repository's own tests, so a case that fails here is a difference from graphql-js on a rule
 * of the spec section the file is named after.
 */
import { parse, versionInfo } from 'graphql';
import type { Check, CheckOutcome } from '../check.ts';
import { expectedFor } from './kitFiles.ts';
import type { KitCase, KitFixture, KitSection } from './kitFiles.ts';
import { difference, onTheWire, sameResponse } from './responses.ts';
import type { ExecutorTarget } from './target.ts';

const SPEC = 'https://spec.graphql.org/September2025/';

/** The spec section each case file covers. */
const SECTION_ANCHORS: Record<string, string> = {
  '4-introspection': '#sec-Introspection',
  '6.1-operations': '#sec-Executing-Requests',
  '6.2-variables': '#sec-Coercing-Variable-Values',
  '6.3-collect-fields': '#sec-Field-Collection',
  '6.4-arguments': '#sec-Coercing-Field-Arguments',
  '6.5-values': '#sec-Value-Completion',
  '6.6-abstract-types': '#sec-Value-Resolution',
  '6.7-errors': '#sec-Handling-Execution-Errors',
  '6.8-mutations': '#sec-Mutation',
  '6.9-async': '#sec-Normal-and-Serial-Execution',
};

/** A case's name in kebab case: the last segment of its check's id. */
export function slugOf(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** The checks of every case; throws if two cases of a section would share an id. */
export function caseChecks(sections: ReadonlyArray<KitSection>, fixtures: ReadonlyMap<string, KitFixture>): Array<Check<ExecutorTarget>> {
  const checks: Array<Check<ExecutorTarget>> = [];
  const ids = new Set<string>();
  for (const { section, cases } of sections) {
    for (const testCase of cases) {
      const id = `executor.${section}.${slugOf(testCase.name)}`;
      if (ids.has(id)) throw new Error(`Two cases of fixtures/cases/${section}.json have the id ${id}: rename one.`);
      ids.add(id);
      checks.push({ id, title: testCase.name, rule: `${SPEC}${SECTION_ANCHORS[section] ?? ''}`, requirement: 'MUST', run: (target) => runCase(target, testCase, fixtures) });
    }
  }
  return checks;
}

async function runCase(target: ExecutorTarget, testCase: KitCase, fixtures: ReadonlyMap<string, KitFixture>): Promise<CheckOutcome> {
  const fixture = fixtures.get(testCase.fixture);
  const expected = expectedFor(testCase, versionInfo.major);
  if (fixture === undefined || expected === undefined) throw new Error(`The case "${testCase.name}" names no fixture the kit has, or expects nothing.`);
  const sent = { fixture: testCase.fixture, query: testCase.query, variables: testCase.variables, operationName: testCase.operationName };
  const { schema, rootValue, contextValue } = fixture.run();
  let received;
  try {
    received = onTheWire(await target.execute({ schema, document: parse(testCase.query), rootValue, contextValue, variableValues: testCase.variables, operationName: testCase.operationName }));
  } catch (error) {
    return { status: 'fail', evidence: { why: `execute threw instead of returning a result: ${(error as Error).message}`, sent, expected } };
  }
  if (sameResponse(expected, received)) return { status: 'pass' };
  return { status: 'fail', evidence: { why: difference(expected, received), sent, expected, received } };
}
