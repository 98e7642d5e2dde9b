/**
 * "Already a valid leaf value": the one test of whether a value is already what output coercion
 * (GraphQL spec, "Scalars", Result Coercion) of a built-in scalar returns, so that it can be
 * stored as it is. Result coercion of a value of the right JavaScript type is the identity, and
 * nearly every value a resolver returns has the right type; every other value takes the type's
 * own coercion, so results and error messages stay the installed graphql's.
 *
 * Three places ask it, all through the functions below: the leaf serializers of the plan (plan.ts
 * `serializerFor`, on the reference path), plain reads (plainReads.ts `PlainRead`), and the code
 * compileFields.ts generates (which calls these very functions by name).
 */

/** The leaf types plain reads handle: the built-in scalars (ID is read as String), and enums. */
export const enum LeafKind {
  String,
  Int,
  Float,
  Boolean,
  Enum,
}

/** A coerced String or ID. */
export function isCoercedString(value: unknown): boolean {
  return typeof value === 'string';
}

/** A coerced Int: a 32-bit integer. (The typeof first: `|` on a BigInt or a Symbol throws.) */
export function isCoercedInt(value: unknown): boolean {
  return typeof value === 'number' && (value | 0) === value;
}

/** A coerced Float: a finite number. */
export function isCoercedFloat(value: unknown): boolean {
  return typeof value === 'number' && Number.isFinite(value);
}

/** A coerced Boolean. */
export function isCoercedBoolean(value: unknown): boolean {
  return typeof value === 'boolean';
}

/**
 * Whether `value` is already the coerced result of a built-in scalar of this kind. Never for an
 * enum (its values are mapped to names: PlainRead does that).
 */
export function isCoercedLeaf(kind: LeafKind, value: unknown): boolean {
  switch (kind) {
    case LeafKind.String:
      return isCoercedString(value);
    case LeafKind.Int:
      return isCoercedInt(value);
    case LeafKind.Float:
      return isCoercedFloat(value);
    case LeafKind.Boolean:
      return isCoercedBoolean(value);
    case LeafKind.Enum:
      return false;
  }
}

/** The name of this kind's test among the functions above, for generated code; null for an enum. */
export function coercedLeafTestName(kind: LeafKind): string | null {
  switch (kind) {
    case LeafKind.String:
      return 'isCoercedString';
    case LeafKind.Int:
      return 'isCoercedInt';
    case LeafKind.Float:
      return 'isCoercedFloat';
    case LeafKind.Boolean:
      return 'isCoercedBoolean';
    case LeafKind.Enum:
      return null;
  }
}
