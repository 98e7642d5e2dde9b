/**
 * Incremental delivery (`@defer`, `@stream`): the whole sequence of payloads of ours against
 * graphql 17's, for both formats (fixtures/incremental/cases.ts).
 *
 * Under graphql 17 each case runs through graphql's own `experimentalExecuteIncrementally` and
 * `legacyExecuteIncrementally` and through ours, on the same schema, document and fresh root
 * values, and the payloads must be equal, one by one (as JSON: errors by message, locations and
 * path). graphql 17's sequences are recorded in fixtures/incremental/expected.json (rewritten
 * with INCREMENTAL_RECORD=1 under graphql 17), and under graphql 16, which has no incremental
 * delivery of its own, ours must give those recorded sequences.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import * as graphql from 'graphql';
import { parse } from 'graphql';
import { describe, expect, it } from 'vitest';
import { deferCases, schema, streamCases } from '../fixtures/incremental/cases.ts';
import type { IncrementalCase } from '../fixtures/incremental/cases.ts';
import { experimentalExecuteIncrementally, legacyExecuteIncrementally } from '../src/index.ts';
import { GRAPHQL_MAJOR } from './support/graphqlMajor.ts';

type Run = (args: Record<string, unknown>) => unknown;

const EXPECTED_FILE = new URL('../fixtures/incremental/expected.json', import.meta.url);
const RECORD = process.env.INCREMENTAL_RECORD === '1' && GRAPHQL_MAJOR >= 17;
const recorded: Record<string, unknown> = JSON.parse(readFileSync(EXPECTED_FILE, 'utf8'));
const reference = graphql as unknown as { experimentalExecuteIncrementally?: Run; legacyExecuteIncrementally?: Run };

/** Every payload of a run, as JSON would carry them. */
async function payloads(run: Run, testCase: IncrementalCase): Promise<unknown[]> {
  const result = (await run({
    schema,
    document: parse(testCase.query),
    rootValue: testCase.root(),
    variableValues: testCase.variables,
    enableEarlyExecution: testCase.early === true,
  })) as Record<string, unknown>;
  const sequence: unknown[] = [];
  if (!('initialResult' in result)) sequence.push(result);
  else {
    sequence.push(result['initialResult']);
    for await (const payload of result['subsequentResults'] as AsyncIterable<unknown>) sequence.push(payload);
  }
  return JSON.parse(JSON.stringify(sequence));
}

const formats = [
  { format: 'current', ours: experimentalExecuteIncrementally as unknown as Run, theirs: reference.experimentalExecuteIncrementally },
  { format: 'legacy', ours: legacyExecuteIncrementally as unknown as Run, theirs: reference.legacyExecuteIncrementally },
] as const;

for (const [kind, cases] of [['@defer', deferCases], ['@stream', streamCases]] as const) {
  describe(`incremental delivery: ${kind}`, () => {
    for (const testCase of cases) {
      for (const { format, ours, theirs } of formats) {
        const key = `${kind} ${testCase.name} (${format})`;
        it(`${testCase.name} (${format} format)`, async () => {
          const our = await payloads(ours, testCase);
          if (GRAPHQL_MAJOR >= 17) {
            const their = await payloads(theirs as Run, testCase);
            expect(our, 'ours against graphql 17').toEqual(their);
            if (RECORD) recorded[key] = their;
            else expect(their, 'graphql 17 against the recording').toEqual(recorded[key]);
          } else {
            expect(our, 'ours against the recording of graphql 17').toEqual(recorded[key]);
          }
        });
      }
    }
  });
}

if (RECORD) {
  describe('recording', () => {
    it('writes expected.json', () => {
      const sorted = Object.fromEntries(Object.entries(recorded).sort(([a], [b]) => a.localeCompare(b)));
      writeFileSync(EXPECTED_FILE, JSON.stringify(sorted, null, 1) + '\n');
    });
  });
}
