/**
 * Fast path: plain reads. A field read straight off its parent (no resolver, no arguments, not
 * denied) whose type is a built-in scalar, an enum, or a one-level list of those, and whose value
 * is already in shape, is stored as it is: no resolver call, no CompleteValue, no path.
 *
 * Reference path it must agree with: execute.ts `executeField` with the default resolver
 * (`resolveByDefault`) and `completeValue` for the same field and value. Anything this path is
 * not sure of (a promise, an Error, a function, a value needing coercion, a null where Non-Null is
 * required, a thenable array) is handed to `executeField` together with the value already read.
 * Proved by spec-tests/plain-reads.test.ts (every case through our execute and graphql-js's, and
 * against a literal) and spec-tests/graphql-js-parity.test.ts.
 *
 * Used by execute.ts `executeSelectionSet` (the interpreted loop) and by the code compileFields.ts
 * generates.
 */
import { GraphQLBoolean, GraphQLFloat, GraphQLID, GraphQLInt, GraphQLString, isEnumType, isListType, isNonNullType } from 'graphql';
import type { GraphQLEnumType, GraphQLOutputType } from 'graphql';
import { isPlainArray } from '../jsutils/isPlainArray.ts';
import { hasBuiltInEnumCoercion } from '../language/graphqlCompat.ts';
import { LeafKind, isCoercedLeaf } from './leafValues.ts';
import { newList } from './newList.ts';

/** What `PlainRead.completed` returns for a value that must go the general way. */
export const NOT_PLAIN: unique symbol = Symbol('not plain');

/**
 * Completes a value read straight off its parent when it is already what CompleteValue would
 * return: a coerced built-in scalar (leafValues.ts), a known internal value of an enum (mapped to
 * its name), null where the type allows it, or an array of those for a list. Anything else gets
 * NOT_PLAIN, and the reference path produces the value or the very error graphql-js would.
 */
export class PlainRead {
  readonly leaf: LeafKind;
  /** Whether the field's own type is nullable. */
  readonly nullable: boolean;
  /** Whether the field is a list of leaves (one level), rather than a leaf. */
  readonly list: boolean;
  readonly itemNullable: boolean;
  /** For enums: internal value -> name, built as graphql-js builds its lookup (the last value wins). */
  private readonly enumNames: Map<unknown, string> | undefined;

  constructor(leaf: LeafKind, nullable: boolean, list: boolean, itemNullable: boolean, enumType: GraphQLEnumType | undefined) {
    this.leaf = leaf;
    this.nullable = nullable;
    this.list = list;
    this.itemNullable = itemNullable;
    this.enumNames = enumType === undefined ? undefined : new Map(enumType.getValues().map((value) => [value.value, value.name]));
  }

  completed(value: unknown): unknown {
    if (value == null) return this.nullable ? null : NOT_PLAIN;
    if (!this.list) return this.leafValue(value);
    // An array with a `then` method is a thenable to graphql-js: the general way awaits it.
    if (!isPlainArray(value) || typeof (value as { then?: unknown }).then === 'function') return NOT_PLAIN;
    if (this.leaf !== LeafKind.Enum) {
      // Most lists need no mapping at all: check every item, then copy the array in one go.
      let i = 0;
      for (; i < value.length; i++) {
        const item: unknown = value[i];
        if (item === null ? !this.itemNullable : !isCoercedLeaf(this.leaf, item)) break;
      }
      if (i === value.length) return value.slice();
    }
    const items = newList();
    for (let i = 0; i < value.length; i++) {
      const item: unknown = value[i];
      let completed: unknown;
      if (item == null) {
        if (!this.itemNullable) return NOT_PLAIN;
        completed = null;
      } else {
        completed = this.leafValue(item);
        if (completed === NOT_PLAIN) return NOT_PLAIN;
      }
      items.push(completed);
    }
    return items;
  }

  private leafValue(value: unknown): unknown {
    if (this.leaf !== LeafKind.Enum) return isCoercedLeaf(this.leaf, value) ? value : NOT_PLAIN;
    // An Error is a field error, and a function a method to call, even if it is an internal value.
    if (typeof value === 'function' || value instanceof Error) return NOT_PLAIN;
    return (this.enumNames as Map<unknown, string>).get(value) ?? NOT_PLAIN;
  }
}

/** The plain read of a field of this type, or null when its type is not one plain reads handle. */
export function plainReadOf(type: GraphQLOutputType): PlainRead | null {
  const nullable = !isNonNullType(type);
  const inner = isNonNullType(type) ? type.ofType : type;
  if (isListType(inner)) {
    const itemNullable = !isNonNullType(inner.ofType);
    const item = isNonNullType(inner.ofType) ? inner.ofType.ofType : inner.ofType;
    const leaf = plainLeafOf(item);
    return leaf === null ? null : new PlainRead(leaf, nullable, true, itemNullable, isEnumType(item) ? item : undefined);
  }
  const leaf = plainLeafOf(inner);
  return leaf === null ? null : new PlainRead(leaf, nullable, false, false, isEnumType(inner) ? inner : undefined);
}

/** The built-in scalars, and enums whose output coercion is graphql-js's own (not overridden). */
function plainLeafOf(type: GraphQLOutputType): LeafKind | null {
  switch (type) {
    case GraphQLString:
    case GraphQLID:
      return LeafKind.String;
    case GraphQLInt:
      return LeafKind.Int;
    case GraphQLFloat:
      return LeafKind.Float;
    case GraphQLBoolean:
      return LeafKind.Boolean;
  }
  if (isEnumType(type) && hasBuiltInEnumCoercion(type)) return LeafKind.Enum;
  return null;
}
