/**
 * How result objects are made: one constructor per selection plan (SelectionPlan.Result), whose
 * objects already hold every response name, in order, set to null until the field is stored.
 * Making the final shape up front fixes the key order (the response's field order, GraphQL spec
 * "Executing Selection Sets") and spares the object a map transition per stored field.
 *
 * Why a constructor, and one made from text where code generation is allowed:
 *  - `new Result()` is an allocation and one store per field, inlined where the call site has
 *    seen one plan. Cloning a template (`{ ...template }`) takes V8's CloneObjectIC, a builtin
 *    call at every object, slower still once one site has cloned many shapes (as execute.ts's
 *    sites do, for the plans of every operation a server runs).
 *  - V8 never allocates objects made by `new` in the old generation on the strength of one
 *    collection (it may, for good, for an object literal's: docs/benchmarks.md, "Results are
 *    allocated young").
 * Where code generation is forbidden, or a name cannot be written into code, the constructor
 * returns a clone of the template instead: the same objects, made the slower way.
 *
 * compileFields.ts's generated readers make their objects with the same constructor. The
 * reference for both is the shape test in spec-tests/result-objects.test.ts.
 */
import type { ResultObject } from './execution.ts';
import { isGeneratedName } from './generatedNames.ts';

/** Makes a selection plan's result objects (`new plan.Result()`). */
export type ResultConstructor = new () => ResultObject;

/**
 * The constructor of result objects holding `responseNames` (in that order), or, for `undefined`
 * (a field list chosen per request by variables), of empty objects that grow as fields are
 * stored. A response name `__proto__` needs a null prototype, so that it is an own key.
 */
export function resultConstructor(responseNames: ReadonlyArray<string> | undefined): ResultConstructor {
  if (responseNames === undefined) return EmptyResult;
  if (responseNames.includes('__proto__')) return NullPrototypeResult;
  return (responseNames.every(isGeneratedName) && generatedConstructor(responseNames)) || clonedConstructor(responseNames);
}

/** Objects with Object's prototype and no own keys yet (instances of a function whose prototype is Object.prototype are plain objects). */
const EmptyResult = function Result() {} as unknown as ResultConstructor;
EmptyResult.prototype = Object.prototype;

/** Objects without a prototype: their keys are all own ones, `__proto__` included. */
const NullPrototypeResult = function Result() {
  return Object.create(null) as ResultObject;
} as unknown as ResultConstructor;

/** `function Result() { this.a = null; … }`, or null where code generation is forbidden (a flag or a policy). */
function generatedConstructor(responseNames: ReadonlyArray<string>): ResultConstructor | null {
  const body = `"use strict";\nfunction Result() { ${responseNames.map((name) => `this.${name} = null;`).join(' ')} }\nResult.prototype = Object.prototype;\nreturn Result;`;
  try {
    return (new Function(body) as () => ResultConstructor)();
  } catch {
    return null;
  }
}

/** A constructor returning a clone of the template (what `new` returns when the constructor returns an object). */
function clonedConstructor(responseNames: ReadonlyArray<string>): ResultConstructor {
  const template: Record<string, null> = {};
  for (const name of responseNames) template[name] = null;
  return function Result() {
    return { ...template };
  } as unknown as ResultConstructor;
}
