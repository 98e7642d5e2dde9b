/**
 * The graphql major the suites run on (graphql is a peer dependency: `npm test` runs every suite
 * on graphql 16, then on graphql 17). Where the two majors answer differently, a test writes down
 * both answers and expects the installed major's: `byMajor({ 16: ..., 17: ... })`.
 */
import { getVariableValues, versionInfo } from 'graphql';
import type { GraphQLSchema, VariableDefinitionNode } from 'graphql';

export const GRAPHQL_MAJOR = versionInfo.major;

/** The value for the installed major. */
export function byMajor<T>(values: { readonly 16: T; readonly 17: T }): T {
  return GRAPHQL_MAJOR >= 17 ? values[17] : values[16];
}

/**
 * graphql-js's coercion of a request's variables, whichever shape the installed major gives it
 * (16: the values by name; 17: `{ sources, coerced }`): the values by name, and what graphql-js's
 * getDirectiveValues and getArgumentValues take. Undefined when they do not coerce.
 */
export function coercedVariables(
  schema: GraphQLSchema,
  definitions: ReadonlyArray<VariableDefinitionNode>,
  inputs: Readonly<Record<string, unknown>>,
): { values: Readonly<Record<string, unknown>>; forGraphql: never } | undefined {
  const result = getVariableValues(schema, definitions, inputs) as { errors?: unknown; coerced?: Record<string, unknown>; variableValues?: { coerced: Record<string, unknown> } };
  if (result.errors !== undefined) return undefined;
  const forGraphql = GRAPHQL_MAJOR >= 17 ? result.variableValues : result.coerced;
  const values = GRAPHQL_MAJOR >= 17 ? result.variableValues?.coerced : result.coerced;
  return { values: values ?? {}, forGraphql: forGraphql as never };
}
