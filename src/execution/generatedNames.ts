/**
 * Which names generated code may contain (compileFields.ts, compileStringify.ts, resultObjects.ts).
 * Generated code holds names and indices only, never values; a name is written into it only
 * after one of these tests, so that no text a client sent can become code.
 */

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/** A GraphQL Name (GraphQL spec, "Names"): also a JavaScript identifier. A document built by hand, rather than parsed, may hold others. */
export function isGraphQLName(name: string): boolean {
  return GRAPHQL_NAME.test(name);
}

/**
 * Whether a name may be written into generated code as a property name: a GraphQL Name, and not
 * `__proto__`, which as a literal key or a `result.__proto__` store would set the prototype
 * instead.
 */
export function isGeneratedName(name: string): boolean {
  return isGraphQLName(name) && name !== '__proto__';
}
