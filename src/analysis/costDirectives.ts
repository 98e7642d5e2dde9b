/**
 * The IBM "GraphQL Cost Directives" as the schema states them: `@cost(weight:)` on fields,
 * arguments, input fields, objects, scalars and enums, and `@listSize(...)` on fields.
 *
 * They are read from the SDL's AST (`astNode` and `extensionASTNodes`) rather than from
 * coerced directive values, because graphql-js does not keep directive applications on built
 * types. A weight is a string holding a number (the IBM spec's form); an Int or Float literal
 * is accepted too. Each definition is read once and remembered.
 */
import { Kind } from 'graphql';
import type { ConstValueNode } from 'graphql';
import { findDirective } from '../language/schemaDirectives.ts';
import type { Annotated } from '../language/schemaDirectives.ts';

/** The definitions makeSchema adds when an SDL uses the directives without declaring them (language/schemaDirectives.ts). */
export const COST_DIRECTIVES_SDL = /* GraphQL */ `
  "The cost of a field, argument, input field or type (IBM GraphQL Cost Directives)."
  directive @cost(weight: String!) on ARGUMENT_DEFINITION | ENUM | FIELD_DEFINITION | INPUT_FIELD_DEFINITION | OBJECT | SCALAR

  "How many items a list field returns (IBM GraphQL Cost Directives)."
  directive @listSize(
    assumedSize: Int
    slicingArguments: [String!]
    sizedFields: [String!]
    requireOneSlicingArgument: Boolean = true
  ) on FIELD_DEFINITION
`;

export interface ListSize {
  readonly assumedSize: number | undefined;
  readonly slicingArguments: ReadonlyArray<string>;
  readonly sizedFields: ReadonlyArray<string>;
  readonly requireOneSlicingArgument: boolean;
}

const weights = new WeakMap<object, number | null>();
const listSizes = new WeakMap<object, ListSize | null>();

/** The `@cost` weight of a schema element, or undefined when it has none. */
export function costWeight(element: Annotated): number | undefined {
  let weight = weights.get(element);
  if (weight === undefined) {
    const directive = findDirective(element, 'cost');
    const value = directive?.arguments?.find((argument) => argument.name.value === 'weight')?.value;
    weight = value === undefined ? null : numberOf(value);
    weights.set(element, weight);
  }
  return weight ?? undefined;
}

/** The `@listSize` of a field definition, or undefined when it has none. */
export function listSize(element: Annotated): ListSize | undefined {
  let size = listSizes.get(element);
  if (size === undefined) {
    const directive = findDirective(element, 'listSize');
    if (directive === undefined) {
      size = null;
    } else {
      const argument = (name: string) => directive.arguments?.find((node) => node.name.value === name)?.value;
      const slicingArguments = stringsOf(argument('slicingArguments'));
      const require = argument('requireOneSlicingArgument');
      size = {
        assumedSize: numberOf(argument('assumedSize')) ?? undefined,
        slicingArguments,
        sizedFields: stringsOf(argument('sizedFields')),
        requireOneSlicingArgument: slicingArguments.length > 0 && (require?.kind !== Kind.BOOLEAN || require.value),
      };
    }
    listSizes.set(element, size);
  }
  return size ?? undefined;
}

function numberOf(value: ConstValueNode | undefined): number | null {
  if (value === undefined) return null;
  if (value.kind === Kind.STRING || value.kind === Kind.INT || value.kind === Kind.FLOAT) {
    const number = Number(value.value);
    return Number.isFinite(number) ? number : null;
  }
  return null;
}

function stringsOf(value: ConstValueNode | undefined): string[] {
  if (value === undefined) return [];
  if (value.kind === Kind.STRING) return [value.value];
  if (value.kind === Kind.LIST) return value.values.flatMap((item) => (item.kind === Kind.STRING ? [item.value] : []));
  return [];
}
