/**
 * "Already a valid leaf value": the one test of whether a value is already what output coercion
 * (GraphQL spec, "Scalars", Result Coercion) of a built-in scalar returns, so that it can be
 * stored as it is. Result coercion of a value of the right JavaScript type is the identity, and
 * nearly every value a resolver returns has the right type; every other value takes the type's
 * own coercion, so results and error messages stay the installed graphql's.
 *
 * Three places ask it, all through `isCoercedLeaf`: the leaf serializers of the plan (plan.ts
 * `serializerFor`, on the reference path), plain reads (plainReads.ts `PlainRead`), and the code
 * compileFields.ts generates (which calls this very function).
 */

/** The leaf types plain reads handle: the built-in scalars (ID is read as String), and enums. */
export const enum LeafKind {
  String,
  Int,
  Float,
  Boolean,
  Enum,
}

/**
 * Whether `value` is already the coerced result of a built-in scalar of this kind: a string for
 * String and ID, a 32-bit integer for Int, a finite number for Float, a boolean for Boolean.
 * Never for an enum (its values are mapped to names: PlainRead does that).
 */
export function isCoercedLeaf(kind: LeafKind, value: unknown): boolean {
  switch (kind) {
    case LeafKind.String:
      return typeof value === 'string';
    case LeafKind.Int:
      // The typeof first: `|` on a BigInt or a Symbol throws.
      return typeof value === 'number' && (value | 0) === value;
    case LeafKind.Float:
      return typeof value === 'number' && Number.isFinite(value);
    case LeafKind.Boolean:
      return typeof value === 'boolean';
    case LeafKind.Enum:
      return false;
  }
}
