/**
 * Response positions (spec 7.1.2 "Path"): where in the response a value goes.
 *
 * A `ResponsePath` is exactly graphql-js's `Path` (`prev`, `key`, `typename`), so resolvers that
 * read `info.path` or call `responsePathAsArray` see what they expect. It carries one more fact,
 * `nullable`: whether null may be stored at this position. That is what lets a field error that
 * surfaces asynchronously, long after the call stack that built its ancestors has unwound, find
 * the nearest nullable ancestor to null out (spec 6.4.4 "Handling Execution Errors").
 *
 * Paths are built lazily: a leaf field gets one only when something asks (its resolver's info,
 * or an error), since most leaves never need one.
 */
import type { GraphQLResolveInfo } from 'graphql';
import type { FieldPlan, ValuePlan } from './plan.ts';

type Path = GraphQLResolveInfo['path'];

export class ResponsePath implements Path {
  readonly prev: ResponsePath | undefined;
  readonly key: string | number;
  readonly typename: string | undefined;
  readonly nullable: boolean;

  constructor(prev: ResponsePath | undefined, key: string | number, typename: string | undefined, nullable: boolean) {
    this.prev = prev;
    this.key = key;
    this.typename = typename;
    this.nullable = nullable;
  }
}

/** The position of a field's value: under its parent's, at its response name. */
export function fieldPath(field: FieldPlan, parentPath: ResponsePath | undefined): ResponsePath {
  return new ResponsePath(parentPath, field.responseName, field.parentType.name, field.value.nullable);
}

/** The position of a list's item: under the list's, at its index. */
export function itemPath(listPath: ResponsePath, index: number, item: ValuePlan): ResponsePath {
  return new ResponsePath(listPath, index, undefined, item.nullable);
}

/** The `path` member of an error: response names and list indices from the root. */
export function pathToArray(path: ResponsePath | undefined): Array<string | number> {
  const keys: Array<string | number> = [];
  for (let node = path; node !== undefined; node = node.prev) keys.push(node.key);
  return keys.reverse();
}
