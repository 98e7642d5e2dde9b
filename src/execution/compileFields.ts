/**
 * Fast path: generated readers. Once a selection plan has completed COMPILE_AFTER objects, one
 * JavaScript function is generated for its field list, which does what the interpreted loop does.
 *
 * Reference path it must agree with: execute.ts `executeSelectionSet` (the interpreted loop over
 * the fields, with its plain reads, plainReads.ts) and, for every field that is not a plain read
 * or whose value is not in shape, execute.ts `executeField` itself, called from the generated
 * code. Proved by spec-tests/compiled-fields.test.ts (the same operations before and after
 * compilation, against graphql-js) and spec-tests/plain-reads.test.ts.
 *
 * Why generate: the interpreted loop reads `source[field.fieldName]` and writes
 * `result[field.responseName]` with names that change from field to field, so V8 serves those
 * keyed accesses from its megamorphic stub cache. A closure made per field would not help: V8
 * shares the inline caches of every closure made from one function literal. Only code whose text
 * names the property gets monomorphic loads and stores, and an object literal allocates the
 * result in its final shape at once. (The figures are in docs/benchmarks.md.)
 *
 * For each field, in order, the generated function:
 *  - for a plain read: reads the property (propertyRead.ts), stores a value already in shape
 *    (leafValues.ts, else `PlainRead.completed`), and hands anything else (a
 *    thrown getter, a promise, a value needing coercion) to `executeField` with the value read;
 *  - for any other field: calls `executeField`, exactly as the loop would, so resolvers still
 *    run in field order and see earlier stores.
 * Errors, promises, cost and the deferred failures of pendingWork.ts are the reference path's.
 *
 * Safety: the generated text contains only field and response names, each checked to be a
 * GraphQL Name (`/^[_A-Za-z][_0-9A-Za-z]*$/`, which is also a JavaScript identifier), and
 * indices. Values never appear in it. A plan with any other name (a document built by hand
 * rather than parsed), a response name `__proto__`, or fields chosen per request by variables is
 * never compiled. Where code generation is disallowed (`--disallow-code-generation-from-strings`,
 * or a policy that forbids `new Function`), everything is interpreted.
 */
import type { FieldPlan, SelectionPlan } from './plan.ts';
import { coercedLeafTestName, isCoercedBoolean, isCoercedFloat, isCoercedInt, isCoercedString } from './leafValues.ts';
import { NOT_PLAIN } from './plainReads.ts';
import { FailedRead, NOT_READ } from './propertyRead.ts';
import { isGeneratedName, isGraphQLName } from './generatedNames.ts';
import type { ResultConstructor } from './resultObjects.ts';

/**
 * Runs every field of a selection plan on one source object (an object, with no custom default
 * resolver in play) and returns the new result object; throws what the interpreter would throw.
 */
export type CompiledFields = (exec: never, source: object, path: unknown) => Record<string, unknown>;

/** Objects a selection plan completes before it is compiled: a one-off query is not worth a compilation. */
export const COMPILE_AFTER = 32;

/**
 * The reference path the generated code calls for every field it does not store itself:
 * execute.ts `executeField(exec, field, source, result, path, alreadyRead)`.
 */
export type GeneralPath = (exec: never, field: FieldPlan, source: unknown, result: Record<string, unknown>, path: unknown, alreadyRead: unknown) => void;

/**
 * What this module keeps on each selection plan (SelectionPlan.reader), written by this module
 * only: how many objects were completed without generated code, and the generated function
 * (undefined until decided, null when it is not compiled).
 */
export interface GeneratedReader {
  uses: number;
  compiled: CompiledFields | null | undefined;
}

/**
 * The generated function for a selection plan's fixed field list, counting this use: undefined
 * until the plan has been used COMPILE_AFTER times, then the function, or null when it cannot be
 * compiled.
 */
export function generatedReaderFor(selections: SelectionPlan, general: GeneralPath): CompiledFields | null | undefined {
  const reader = selections.reader;
  const compiled = reader.compiled;
  if (compiled !== undefined || ++reader.uses < COMPILE_AFTER) return compiled;
  return (reader.compiled = compileFields(selections.fields as ReadonlyArray<FieldPlan>, selections.Result, general));
}

/**
 * Why this field list is never compiled, or null when it is (once used COMPILE_AFTER times, where
 * code generation is allowed): also what `npm run explain` says of it (explain.ts).
 */
export function whyNotCompiled(fields: ReadonlyArray<FieldPlan>): string | null {
  if (!fields.some((field) => field.plainRead !== null)) return 'no plain reads';
  for (const field of fields) {
    if (!isGeneratedName(field.responseName) || !isGraphQLName(field.fieldName)) return `the name ${field.responseName} cannot be written into code`;
  }
  return null;
}

/**
 * The generated function for this field list, or null when it cannot or should not be
 * compiled. The fields must be a selection plan's fixed list (not one chosen by variables).
 */
function compileFields(fields: ReadonlyArray<FieldPlan>, Result: ResultConstructor, general: GeneralPath): CompiledFields | null {
  if (whyNotCompiled(fields) !== null) return null;

  const lines: string[] = [];
  lines.push('const result = new Result();');
  lines.push('const measuring = exec.actualCost !== null;');
  lines.push('let value, completed;');
  fields.forEach((field, index) => {
    const store = `result.${field.responseName}`;
    const read = field.plainRead;
    if (read === null) {
      lines.push(`general(exec, F[${index}], source, result, path, NOT_READ);`);
      return;
    }
    lines.push(`try { value = source.${field.fieldName}; } catch (error) { value = new FailedRead(error); }`);
    // A single leaf asks the one in-shape test first (an enum never passes it); lists, enums
    // and values not in shape ask the field's PlainRead, which knows every rule.
    const test = read.list ? null : coercedLeafTestName(read.leaf);
    lines.push(
      test === null
        ? `completed = P[${index}].completed(value);`
        : `completed = ${test}(value) ? value : P[${index}].completed(value);`,
    );
    lines.push(
      `if (completed !== NOT_PLAIN) { ${store} = completed; if (measuring) exec.actualCost += F[${index}].plainReadWeight; }` +
        ` else general(exec, F[${index}], source, result, path, value);`,
    );
  });
  lines.push('return result;');

  // The result object in its final shape, made by the plan's constructor (resultObjects.ts):
  // every response name, in order, null until stored.
  const body = `"use strict";\nreturn function compiledFields(exec, source, path) {\n  ${lines.join('\n  ')}\n};`;
  const plainReads = fields.map((field) => field.plainRead);
  try {
    const factory = new Function(
      'Result',
      'general',
      'NOT_READ',
      'FailedRead',
      'NOT_PLAIN',
      'isCoercedString',
      'isCoercedInt',
      'isCoercedFloat',
      'isCoercedBoolean',
      'F',
      'P',
      body,
    ) as (...args: unknown[]) => CompiledFields;
    const tests = [isCoercedString, isCoercedInt, isCoercedFloat, isCoercedBoolean];
    return factory(Result, general, NOT_READ, FailedRead, NOT_PLAIN, ...tests, fields, plainReads);
  } catch {
    // Code generation is forbidden here (a flag or a policy): the plan stays interpreted.
    return null;
  }
}
