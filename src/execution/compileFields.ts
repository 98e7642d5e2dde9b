/**
 * Generated code for the plain reads of a selection plan, and why. (The engine writes
 * JavaScript at run time in one other place, the JSON writers of compileStringify.ts.)
 *
 * The interpreter (execute.ts `executeFields`) reads `source[field.fieldName]` and writes
 * `result[field.responseName]` for every field of every object. Those are keyed accesses with
 * names that change from field to field, so V8 serves them from its megamorphic stub cache. A
 * closure made per field would not help: V8 shares the inline caches of every closure made
 * from one function literal. Only code whose text names the property gets monomorphic loads
 * and stores, and an object literal allocates the result in its final shape at once. Measured
 * on the nested-lists benchmark, a plan interpreter reduced to its bare loop spends 2.4× the
 * time of the same loop generated this way.
 *
 * So, once a selection plan has completed enough objects to be worth it (COMPILE_AFTER), we
 * generate one function for it. For each field, in order:
 *  - a plain read (plan.ts `PlainRead`): read the property, store a value already in shape, and
 *    hand anything else (a thrown getter, a promise, a value needing coercion) to the general
 *    path with the value already read;
 *  - any other field: call the general path (execute.ts `executeField`), exactly as the
 *    interpreter would, so resolvers still run in field order and see earlier stores.
 * Nothing else changes: errors, promises, cost and the deferred failures of pendingWork.ts are
 * the interpreter's, called from the generated code.
 *
 * Safety: the generated text contains only field and response names, each checked to be a
 * GraphQL Name (`/^[_A-Za-z][_0-9A-Za-z]*$/`, which is also a JavaScript identifier), and
 * indices. Values never appear in it. A plan with any other name (a document built by hand
 * rather than parsed), a response name `__proto__`, or fields chosen per request by variables is
 * never compiled. Where code generation is disallowed (`--disallow-code-generation-from-strings`,
 * or a policy that forbids `new Function`), everything is interpreted.
 */
import type { FieldPlan } from './plan.ts';
import { PlainLeaf } from './plan.ts';

/**
 * Runs every field of a selection plan on one source object (an object, with no custom default
 * resolver in play) and returns the new result object; throws what the interpreter would throw.
 */
export type CompiledFields<Exec> = (exec: Exec, source: object, path: unknown) => Record<string, unknown>;

/** Objects a selection plan completes before it is compiled: a one-off query is not worth a compilation. */
export const COMPILE_AFTER = 32;

const GRAPHQL_NAME = /^[_A-Za-z][_0-9A-Za-z]*$/;

/**
 * Whether a response name may be written into generated code as a property name: a GraphQL
 * Name (also a JavaScript identifier), and not `__proto__`, which as a literal key or a
 * `result.__proto__` store would set the prototype instead. compileStringify.ts uses it too.
 */
export function isGeneratedName(name: string): boolean {
  return GRAPHQL_NAME.test(name) && name !== '__proto__';
}

/** `value` already in shape for a built-in scalar, as PlainRead checks it. */
const INLINE_CHECKS: Partial<Record<PlainLeaf, string>> = {
  [PlainLeaf.String]: "typeof value === 'string'",
  [PlainLeaf.Int]: "typeof value === 'number' && (value | 0) === value",
  [PlainLeaf.Float]: "typeof value === 'number' && Number.isFinite(value)",
  [PlainLeaf.Boolean]: "typeof value === 'boolean'",
};

/** What the generated code calls back into, supplied by execute.ts. */
export interface CompilerRuntime<Exec> {
  /** execute.ts `executeField(exec, field, source, result, path, alreadyRead)`. */
  general: (exec: Exec, field: FieldPlan, source: unknown, result: Record<string, unknown>, path: unknown, alreadyRead: unknown) => void;
  /** The marker for "not read yet": the general path reads the property itself. */
  notRead: unknown;
  /** Wraps an error thrown by a getter, so that the general path raises it as the field's error. */
  failedRead: (error: unknown) => unknown;
  /** What `PlainRead.completed` returns for a value that must go the general way. */
  notPlain: unknown;
}

/**
 * Why this field list is never compiled, or null when it is (once used COMPILE_AFTER times, where
 * code generation is allowed): also what `npm run explain` says of it (explain.ts).
 */
export function whyNotCompiled(fields: ReadonlyArray<FieldPlan>): string | null {
  if (!fields.some((field) => field.plainRead !== null)) return 'no plain reads';
  for (const field of fields) {
    if (!isGeneratedName(field.responseName) || !GRAPHQL_NAME.test(field.fieldName)) return `the name ${field.responseName} cannot be written into code`;
  }
  return null;
}

/**
 * The generated function for this field list, or null when it cannot or should not be
 * compiled. The fields must be a selection plan's fixed list (not one chosen by variables).
 */
export function compileFields<Exec extends { actualCost: number | null }>(
  fields: ReadonlyArray<FieldPlan>,
  runtime: CompilerRuntime<Exec>,
): CompiledFields<Exec> | null {
  if (whyNotCompiled(fields) !== null) return null;

  const lines: string[] = [];
  // The result object in its final shape: every response name, in order, null until stored.
  lines.push(`const result = { ${fields.map((field) => `${field.responseName}: null`).join(', ')} };`);
  lines.push('const measuring = exec.actualCost !== null;');
  lines.push('let value, completed;');
  fields.forEach((field, index) => {
    const store = `result.${field.responseName}`;
    const read = field.plainRead;
    if (read === null) {
      lines.push(`general(exec, F[${index}], source, result, path, NOT_READ);`);
      return;
    }
    lines.push(`try { value = source.${field.fieldName}; } catch (error) { value = failedRead(error); }`);
    // A built-in scalar already in shape is checked inline (the same test as PlainRead's);
    // anything else, and enums and lists, ask the field's PlainRead, which knows every rule.
    const inShape = read.list ? undefined : INLINE_CHECKS[read.leaf];
    lines.push(
      inShape === undefined
        ? `completed = P[${index}].completed(value);`
        : `completed = ${inShape} ? value : P[${index}].completed(value);`,
    );
    lines.push(
      `if (completed !== NOT_PLAIN) { ${store} = completed; if (measuring) exec.actualCost += F[${index}].plainReadWeight; }` +
        ` else general(exec, F[${index}], source, result, path, value);`,
    );
  });
  lines.push('return result;');

  const body = `"use strict";\nreturn function compiledFields(exec, source, path) {\n  ${lines.join('\n  ')}\n};`;
  const plainReads = fields.map((field) => field.plainRead);
  try {
    const factory = new Function('general', 'NOT_READ', 'failedRead', 'NOT_PLAIN', 'F', 'P', body) as (
      ...args: unknown[]
    ) => CompiledFields<Exec>;
    return factory(runtime.general, runtime.notRead, runtime.failedRead, runtime.notPlain, fields, plainReads);
  } catch {
    // Code generation is forbidden here (a flag or a policy): the plan stays interpreted.
    return null;
  }
}
