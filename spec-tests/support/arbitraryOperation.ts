/**
 * A fast-check arbitrary of random operations that pass `validate()` against any schema: fast-check
 * draws the tape of decisions, src/conformance/executor/operationFromTape.ts builds the operation
 * from it (its opening comment says how each validation rule is kept). When fast-check shrinks a
 * failing tape, the operation shrinks with it, so a counterexample comes back as a small document.
 */
import fc from 'fast-check';
import type { GraphQLSchema } from 'graphql';
import { CHOICE_RANGE, describeOperation, operationGenerator } from '../../src/conformance/executor/operationFromTape.ts';
import type { ArbitraryOperationOptions, GeneratedOperation } from '../../src/conformance/executor/operationFromTape.ts';

export { describeOperation };
export type { ArbitraryOperationOptions, GeneratedOperation };

/**
 * Random operations that pass `validate(schema, parse(document))`. The generated values print
 * (in fast-check counterexamples) as the operation name, the variables and the document.
 */
export function arbitraryOperation(
  schema: GraphQLSchema,
  options: ArbitraryOperationOptions = {},
): fc.Arbitrary<GeneratedOperation> {
  const generator = operationGenerator(schema, options);
  const tape = fc.array(fc.noBias(fc.nat({ max: CHOICE_RANGE - 1 })), { maxLength: generator.maxChoices, size: 'max' });
  return tape.map((numbers) => printable(generator.build(numbers)));
}

function printable(operation: GeneratedOperation): GeneratedOperation {
  Object.defineProperty(operation, fc.toStringMethod, { value: () => describeOperation(operation) });
  return operation;
}
