/**
 * Fast path: generated JSON writers. The text of a small result's `data`, written by generated
 * code instead of the native JSON.stringify.
 *
 * Reference path it must agree with: `JSON.stringify` of the same `data` (and, before a plan is
 * compiled or when it cannot be, jsutils/stringifySmall.ts `stringifyMember`, which follows
 * JSON.stringify's algorithm). Proved by spec-tests/compiled-stringify.test.ts, which compares
 * the text with JSON.stringify's for every case, before and after compilation.
 *
 * Why: a one-field query's whole execution costs less than one call of the native
 * JSON.stringify, mostly its fixed cost, and a generic writer in JavaScript is hardly cheaper,
 * because it builds the text from many small pieces. But the executor knows each result
 * object's exact keys, in order, before it exists: a selection plan's result objects are made
 * from its field list (execute.ts, compileFields.ts). So its text is a fixed skeleton,
 * `{"name":…,"friend":{"id":…}}`, with only the values to fill in, and generated code can write
 * it with one concatenation per value. (The figures are in docs/benchmarks.md.)
 *
 * Same text as JSON.stringify, by construction:
 *  - keys and their order are the plan's response names, which are the result object's own
 *    keys in order; a plan with a response name that is not a GraphQL Name, or is `__proto__`
 *    or `toJSON` (JSON.stringify would ask for it), or whose fields are chosen by variables, is
 *    not compiled;
 *  - a nested object of a concrete object type is written by that type's own writer; every
 *    other value by stringifyMember, which follows JSON.stringify's algorithm with the member's
 *    key (a string, number, boolean or null at once, without a walk);
 *  - a value that JSON would leave out (undefined) makes the object's writer hand the whole
 *    object to stringifyMember instead, so no key is written for it. Completed values are never
 *    undefined, so this does not happen in practice; it keeps the writer exact regardless.
 * Every call checks that nothing gave Object.prototype a `toJSON` (JSON.stringify would call it
 * on every result object); if something did, the native serializer writes the whole result.
 *
 * Safety: as in compileFields.ts, the generated text contains only response names checked to be
 * GraphQL Names, and indices; where code generation is disallowed nothing is compiled.
 */
import type { FieldPlan, SelectionPlan } from './plan.ts';
import { ValueKind } from './plan.ts';
import { stringifyMember } from '../jsutils/stringifySmall.ts';
import { isGeneratedName } from './generatedNames.ts';

/** Writes one result object of a selection plan; undefined only for an object JSON would leave out. */
export type ObjectWriter = (result: Record<string, unknown>, key: string) => string | undefined;

/**
 * What this module keeps on each selection plan (SelectionPlan.json), written by this module
 * only: how many results were written without generated code, and the generated writer
 * (undefined until decided, null when it is not compiled).
 */
export interface GeneratedWriter {
  writes: number;
  writer: ObjectWriter | null | undefined;
}

/** Results of a plan written before its writer is generated: a one-off query is not worth it. */
export const STRINGIFY_COMPILE_AFTER = 16;

/** Nesting of object fields followed into generated writers; deeper objects are written generically. */
const MAX_NESTING = 8;

/**
 * The text of a result's `data` (a root result object of `selections`, or null), as
 * JSON.stringify would write it as the member `data`. Generated code once the plan has been
 * written STRINGIFY_COMPILE_AFTER times; stringifyMember before that, and for plans that cannot
 * be compiled.
 */
export function stringifyData(selections: SelectionPlan, data: unknown): string | undefined {
  if ((Object.prototype as { toJSON?: unknown }).toJSON !== undefined) return stringifyMember(data, 'data');
  const json = selections.json;
  let writer = json.writer;
  if (writer === undefined) {
    if (++json.writes < STRINGIFY_COMPILE_AFTER) return stringifyMember(data, 'data');
    writer = json.writer = compileWriter(selections, 0);
  }
  if (writer === null || data === null || typeof data !== 'object') return stringifyMember(data, 'data');
  return writer(data as Record<string, unknown>, 'data');
}

/** The writer of one selection plan's result objects, or null when it cannot be generated. */
function compileWriter(selections: SelectionPlan, nesting: number): ObjectWriter | null {
  const fields = selections.fields;
  if (fields === undefined || fields.length === 0) return null;
  for (const field of fields) {
    const name = field.responseName;
    if (!isGeneratedName(name) || name === 'toJSON') return null;
  }
  const nested: Array<ObjectWriter | null> = [];
  const lines: string[] = ['let value, text;'];
  fields.forEach((field, index) => {
    const name = field.responseName;
    const prefix = JSON.stringify((index === 0 ? '{' : ',') + `"${name}":`);
    lines.push(`value = result.${name};`);
    const writer = objectWriterOf(field, nesting);
    if (writer !== null) {
      nested.push(writer);
      const at = nested.length - 1;
      lines.push(`text = value === null ? 'null' : typeof value === 'object' ? N[${at}](value, '${name}') : member(value, '${name}');`);
    } else {
      lines.push(`text = member(value, '${name}');`);
    }
    // JSON leaves this member out: let the generic writer decide the whole object.
    lines.push(`if (text === undefined) return member(result, key);`);
    lines.push(index === 0 ? `let out = ${prefix} + text;` : `out += ${prefix} + text;`);
  });
  lines.push("return out + '}';");
  const body = `"use strict";\nreturn function writeObject(result, key) {\n  ${lines.join('\n  ')}\n};`;
  try {
    const factory = new Function('member', 'N', body) as (...args: unknown[]) => ObjectWriter;
    return factory(stringifyMember, nested);
  } catch {
    // Code generation is forbidden here: results are written generically.
    return null;
  }
}

/** The generated writer for a field's objects, when its type is a concrete object type and its plan compiles. */
function objectWriterOf(field: FieldPlan, nesting: number): ObjectWriter | null {
  const value = field.value;
  if (value.kind !== ValueKind.Object || nesting + 1 >= MAX_NESTING) return null;
  return compileWriter(field.selectionsFor(value.type), nesting + 1);
}
