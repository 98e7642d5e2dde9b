/**
 * The fourth resolver argument (`info`): graphql-js's `GraphQLResolveInfo`, as the installed major
 * makes it.
 *
 * It is a plain object with exactly graphql-js's members, in graphql-js's order, so that
 * `Object.keys(info)`, `{ ...info }` and `JSON.stringify(info)` give what they give under
 * graphql-js: drop-in users copy, log and diff it. (A class reading its members through getters
 * on its prototype would be cheaper to make, but its own keys would not be these.) An object literal of
 * fixed members is one allocation from a fixed shape; every member but `path` is a reference the
 * plan or the request already holds. graphql 17 adds two members, `getAbortSignal` and
 * `getAsyncHelpers` (graphqlCompat.ts), functions shared by every `info` of one execution.
 */
import type { GraphQLResolveInfo, GraphQLSchema, OperationDefinitionNode } from 'graphql';
import type { FieldPlan } from './plan.ts';
import type { Fragments } from '../language/collectFields.ts';
import { INFO_HAS_EXECUTION_HELPERS } from '../language/graphqlCompat.ts';
import type { VariableValues } from '../language/graphqlCompat.ts';
import type { ResponsePath } from './path.ts';
import type { InfoHelpers } from './executionSignals.ts';

/** What `info` needs to know about the request it belongs to. */
export interface RequestScope {
  readonly schema: GraphQLSchema;
  readonly fragments: Fragments;
  readonly rootValue: unknown;
  readonly operation: OperationDefinitionNode;
  readonly variableValues: VariableValues;
  /** graphql 17's `info.getAbortSignal` and `info.getAsyncHelpers`, made when first asked for. */
  executionSignals(): InfoHelpers;
}

type InfoField = Pick<FieldPlan, 'fieldName' | 'fieldNodes' | 'returnType' | 'parentType'>;

/** BuildResolveInfo: the `info` of a field at a position. */
export const resolveInfo: (request: RequestScope, field: InfoField, path: ResponsePath) => GraphQLResolveInfo = INFO_HAS_EXECUTION_HELPERS
  ? resolveInfoWithHelpers
  : resolveInfoOfTenMembers;

/** graphql 16's `info`. */
function resolveInfoOfTenMembers(request: RequestScope, field: InfoField, path: ResponsePath): GraphQLResolveInfo {
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
    variableValues: request.variableValues as never,
  } as unknown as GraphQLResolveInfo;
}

/** graphql 17's `info`: the same ten, then the execution's two helpers. */
function resolveInfoWithHelpers(request: RequestScope, field: InfoField, path: ResponsePath): GraphQLResolveInfo {
  const signals = request.executionSignals();
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
    variableValues: request.variableValues as never,
    getAbortSignal: signals.getAbortSignal,
    getAsyncHelpers: signals.getAsyncHelpers,
  } as unknown as GraphQLResolveInfo;
}
