/**
 * The fourth resolver argument (`info`): graphql-js's `GraphQLResolveInfo`.
 *
 * It is a plain object with exactly graphql-js's ten members, in graphql-js's order, so that
 * `Object.keys(info)`, `{ ...info }` and `JSON.stringify(info)` give what they give under
 * graphql-js: drop-in users copy, log and diff it. (A class reading its members through getters
 * on its prototype was cheaper to make, but its own keys were not these.) An object literal of
 * ten members is one allocation from a fixed shape; every member but `path` is a reference the
 * plan or the request already holds.
 */
import type { GraphQLResolveInfo, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import type { FieldPlan } from './plan.ts';
import type { Fragments } from '../language/collectFields.ts';
import type { ResponsePath } from './path.ts';

/** What `info` needs to know about the request it belongs to. */
export interface RequestScope {
  readonly schema: GraphQLSchema;
  readonly fragments: Fragments;
  readonly rootValue: unknown;
  readonly operation: OperationDefinitionNode;
  readonly variableValues: Record<string, unknown>;
}

/** BuildResolveInfo: the `info` of a field at a position. */
export function resolveInfo(
  request: RequestScope,
  field: Pick<FieldPlan, 'fieldName' | 'fieldNodes' | 'returnType' | 'parentType'>,
  path: ResponsePath,
): GraphQLResolveInfo {
  return {
    fieldName: field.fieldName,
    fieldNodes: field.fieldNodes,
    returnType: field.returnType,
    parentType: field.parentType,
    path,
    schema: request.schema,
    fragments: request.fragments,
    rootValue: request.rootValue,
    operation: request.operation,
    variableValues: request.variableValues,
  };
}
