/**
 * graphql:resolve (language/tracingChannels.ts) for the executor: what one resolver call
 * publishes, with the fields graphql 17 gives it. Only an execution that found a subscriber at
 * its start publishes (execution.ts `publishesResolvers`); it runs on the reference path, where
 * every field, the default resolver's and `__typename` too, is one call of a resolver, as in
 * graphql-js. Executions nobody watches never reach this module.
 */
import { resolveChannel, traced } from '../language/tracingChannels.ts';
import type { ResolveContext } from '../language/tracingChannels.ts';
import type { ResponsePath } from './path.ts';
import { pathToArray } from './path.ts';
import type { FieldPlan } from './plan.ts';

/** Publishes one resolver call (`call`, made with `args`) on graphql:resolve, and returns what it returns. */
export function publishResolverCall(field: FieldPlan, path: ResponsePath, args: Record<string, unknown>, call: () => unknown): unknown {
  return traced(resolveChannel, resolveContext(field, path, args), call);
}

/** `__typename`, which graphql-js resolves with a resolver of its own (not the default one): published as that call. */
export function publishTypename(field: FieldPlan, path: ResponsePath): string {
  return traced(resolveChannel, resolveContext(field, path, {}), () => field.parentType.name);
}

/** The context of one call; the dotted path is written only if a subscriber reads it. */
function resolveContext(field: FieldPlan, path: ResponsePath, args: Record<string, unknown>): ResolveContext {
  let dotted: string | undefined;
  return {
    fieldName: field.fieldName,
    alias: field.responseName,
    parentType: field.parentType.name,
    fieldType: String(field.returnType),
    args,
    isDefaultResolver: field.resolve === undefined,
    get fieldPath() {
      return (dotted ??= pathToArray(path).join('.'));
    },
  };
}
