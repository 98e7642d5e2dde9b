/**
 * Conformance: every case in `fixtures/cases/<section>.json` runs through our `execute` and through
 * graphql-js's, and both must give the response the case expects. The second run keeps the
 * committed expectations honest: an expectation only the in-house executor meets is a wrong one.
 *
 * Where graphql 17's response differs from graphql 16's (the wording of variable coercion, the
 * name of output coercion, `@deprecated`'s argument type), a case also holds `expectedGraphql17`,
 * and the installed major's is expected.
 *
 * "The same response" is the conformance kit's (src/conformance/executor/responses.ts), as the spec
 * fixes it (§7.1): `data` with its key order, since the response must list fields in the order they
 * were asked for; whether `data` and `errors` are present at all, exactly; `errors` as a set, since
 * the spec does not order them, each error's keys whatever order they were written in.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { execute as referenceExecute, parse, validate, versionInfo } from 'graphql';
import type { ExecutionArgs, ExecutionResult } from 'graphql';
import { describe, expect, it } from 'vitest';
import { expectedFor } from '../fixtures/cases/case.ts';
import type { ConformanceCase, ExpectedResponse } from '../fixtures/cases/case.ts';
import { fixtureByName } from '../fixtures/index.ts';
import { comparableResponse, onTheWire } from '../src/conformance/executor/responses.ts';
import { execute } from '../src/index.ts';

const MINIMUM_CASES = 150;

interface Section {
  title: string;
  cases: ConformanceCase[];
}

const casesDirectory = new URL('../fixtures/cases/', import.meta.url);

const sections: Section[] = readdirSync(casesDirectory)
  .filter((file) => file.endsWith('.json'))
  .sort()
  .map((file) => ({
    title: file.replace(/\.json$/, ''),
    cases: JSON.parse(readFileSync(new URL(file, casesDirectory), 'utf8')) as ConformanceCase[],
  }));

type Executor = (args: ExecutionArgs) => ExecutionResult | Promise<ExecutionResult>;

/** Runs one case on fresh fixture data and returns the response as it would go over the wire. */
async function run(executor: Executor, testCase: ConformanceCase): Promise<ExpectedResponse> {
  const fixture = fixtureByName(testCase.fixture);
  const { schema, rootValue, contextValue } = fixture.run();
  const result = await executor({
    schema,
    document: parse(testCase.query),
    rootValue,
    contextValue,
    variableValues: testCase.variables,
    operationName: testCase.operationName,
  });
  return onTheWire(result);
}

describe('conformance cases', () => {
  const total = sections.reduce((sum, section) => sum + section.cases.length, 0);

  it(`holds at least ${MINIMUM_CASES} cases`, () => {
    expect(total).toBeGreaterThanOrEqual(MINIMUM_CASES);
  });

  it('names every case uniquely within its section', () => {
    for (const section of sections) {
      const names = section.cases.map((testCase) => testCase.name);
      const repeated = names.filter((name, index) => names.indexOf(name) !== index);
      expect(repeated, section.title).toEqual([]);
    }
  });
});

for (const section of sections) {
  describe(section.title, () => {
    for (const testCase of section.cases) {
      it(testCase.name, async () => {
        const expected = expectedFor(testCase, versionInfo.major);
        expect(expected, 'the case has an expected response').toBeDefined();
        const want = comparableResponse(expected ?? {});

        const { schema } = fixtureByName(testCase.fixture).run();
        const validationErrors = validate(schema, parse(testCase.query)).map((error) => error.message);
        expect(validationErrors, 'the case is a valid document for its schema').toEqual([]);

        expect(comparableResponse(await run(execute, testCase)), 'our execute').toBe(want);
        expect(comparableResponse(await run(referenceExecute, testCase)), 'graphql-js execute').toBe(want);
      });
    }
  });
}
