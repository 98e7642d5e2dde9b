/**
 * Response positions (GraphQL spec, "Response", the error result's "path"): where in the response a value goes.
 *
 * A `ResponsePath` is exactly graphql-js's `Path`: its own members are `prev`, `key` and
 * `typename`, nothing else, so resolvers that read `info.path`, spread it, serialize it or call
 * `responsePathAsArray` see what they see under graphql-js. It knows one more fact, `nullable`:
 * whether null may be stored at this position. That is what lets a field error that surfaces
 * asynchronously, long after the call stack that built its ancestors has unwound, find the
 * nearest nullable ancestor to null out (GraphQL spec, "Handling Execution Errors"). The fact is
 * carried by the node's class, not by a member of its own: a position is made as a
 * `NullablePosition` or a `NonNullPosition`, whose prototypes answer `nullable`. (An own member
 * would show in `Object.keys`; a non-enumerable one costs a property definition per node.)
 *
 * Paths are built lazily: a leaf field gets one only when something asks (its resolver's info,
 * or an error), since most leaves never need one.
 */
import type { GraphQLResolveInfo } from 'graphql';
import type { FieldPlan, ValuePlan } from './plan.ts';

type Path = GraphQLResolveInfo['path'];

/** A response position, as resolvers see it (graphql-js's Path), and whether null may be stored there. */
export interface ResponsePath extends Path {
  readonly prev: ResponsePath | undefined;
  readonly key: string | number;
  readonly typename: string | undefined;
  /** Whether null may be stored here: answered by the node's class (see the module comment). */
  readonly nullable: boolean;
}

// Two classes of the same shape rather than subclasses of one: a transpiler that keeps function
// names adds a static block per class, and on Node 20 constructing a subclass with such a block
// through its default constructor is many times slower than constructing a plain class.
class NullablePosition {
  readonly prev: ResponsePath | undefined;
  readonly key: string | number;
  readonly typename: string | undefined;
  declare readonly nullable: true;

  constructor(prev: ResponsePath | undefined, key: string | number, typename: string | undefined) {
    this.prev = prev;
    this.key = key;
    this.typename = typename;
  }
}

class NonNullPosition {
  readonly prev: ResponsePath | undefined;
  readonly key: string | number;
  readonly typename: string | undefined;
  declare readonly nullable: false;

  constructor(prev: ResponsePath | undefined, key: string | number, typename: string | undefined) {
    this.prev = prev;
    this.key = key;
    this.typename = typename;
  }
}

Object.defineProperty(NullablePosition.prototype, 'nullable', { value: true });
Object.defineProperty(NonNullPosition.prototype, 'nullable', { value: false });

/** A position under `prev` at `key` (a response name, with its parent type's name; or a list index). */
export function newPath(prev: ResponsePath | undefined, key: string | number, typename: string | undefined, nullable: boolean): ResponsePath {
  return nullable ? new NullablePosition(prev, key, typename) : new NonNullPosition(prev, key, typename);
}

/** The position of a field's value: under its parent's, at its response name. */
export function fieldPath(field: FieldPlan, parentPath: ResponsePath | undefined): ResponsePath {
  return newPath(parentPath, field.responseName, field.parentType.name, field.value.nullable);
}

/** The position of a list's item: under the list's, at its index. */
export function itemPath(listPath: ResponsePath, index: number, item: ValuePlan): ResponsePath {
  return newPath(listPath, index, undefined, item.nullable);
}

/** The `path` member of an error: response names and list indices from the root. */
export function pathToArray(path: ResponsePath | undefined): Array<string | number> {
  const keys: Array<string | number> = [];
  for (let node = path; node !== undefined; node = node.prev) keys.push(node.key);
  return keys.reverse();
}
