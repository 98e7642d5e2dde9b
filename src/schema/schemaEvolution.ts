/**
 * Schema evolution: what changed between a published schema and the current one, and which
 * part of its version (Semantic Versioning 2.0.0: major, minor, patch) that asks to raise.
 *
 *   breaking (graphql-js's findBreakingChanges: a removed type or field, a changed type, a new
 *            required argument, ...) ─ major
 *   dangerous (findDangerousChanges: a new enum value, a new optional argument, a changed
 *            default, ...) or an addition (a new type, field, input field) ─ minor
 *   nothing ─ none: the schema asks for no new version
 *
 * And whether every published route's operation still validates against the current schema:
 * a route that no longer does would break its clients whatever the version says, so the check
 * fails on it.
 */
import { buildSchema, findBreakingChanges, findDangerousChanges, isEnumType, isSpecifiedScalarType, isInputObjectType, isInterfaceType, isObjectType, parse, validate } from 'graphql';
import type { GraphQLNamedType, GraphQLSchema } from 'graphql';

export interface SchemaChange {
  readonly kind: 'breaking' | 'dangerous' | 'addition';
  readonly type: string;
  readonly description: string;
}

export interface EvolutionReport {
  readonly changes: ReadonlyArray<SchemaChange>;
  /** The version part to raise; none when the schema did not change. */
  readonly bump: 'major' | 'minor' | 'none';
  /** Routes whose operation no longer validates: `GET /books (v1): message`. */
  readonly brokenRoutes: ReadonlyArray<string>;
}

export function compareSchemas(
  published: GraphQLSchema | string,
  current: GraphQLSchema,
  routes: ReadonlyArray<{ version: string; routes: Record<string, string> }> = [],
): EvolutionReport {
  const old = typeof published === 'string' ? buildSchema(published, { assumeValidSDL: false }) : published;
  const changes: SchemaChange[] = [
    ...findBreakingChanges(old, current).map((change) => ({ kind: 'breaking' as const, type: change.type, description: change.description })),
    ...findDangerousChanges(old, current).map((change) => ({ kind: 'dangerous' as const, type: change.type, description: change.description })),
    ...additions(old, current),
  ];
  const brokenRoutes: string[] = [];
  for (const version of routes) {
    for (const [key, query] of Object.entries(version.routes)) {
      const errors = validate(current, parse(query));
      if (errors.length > 0) brokenRoutes.push(`${key} (${version.version}): ${errors.map((error) => error.message).join(' ')}`);
    }
  }
  const bump = changes.some((change) => change.kind === 'breaking') ? 'major' : changes.length > 0 ? 'minor' : 'none';
  return { changes, bump, brokenRoutes };
}

/** What the current schema has that the published one did not: types, fields, enum values. */
function additions(old: GraphQLSchema, current: GraphQLSchema): SchemaChange[] {
  const added: SchemaChange[] = [];
  const oldTypes = old.getTypeMap();
  for (const [name, type] of Object.entries(current.getTypeMap())) {
    // Built-in scalars are everyone's, whether a schema uses them or not.
    if (name.startsWith('__') || isSpecifiedScalarType(type)) continue;
    const before = oldTypes[name];
    if (before === undefined) {
      added.push({ kind: 'addition', type: 'TYPE_ADDED', description: `${name} was added.` });
      continue;
    }
    // New arguments are graphql-js's already (a required one breaking, an optional one dangerous).
    const previous = fieldsOf(before);
    for (const field of fieldsOf(type)) {
      if (!previous.has(field)) added.push({ kind: 'addition', type: 'FIELD_ADDED', description: `${name}.${field} was added.` });
    }
  }
  return added;
}

/** A type's fields (object, interface, input) or enum values. */
function fieldsOf(type: GraphQLNamedType): Set<string> {
  if (isObjectType(type) || isInterfaceType(type) || isInputObjectType(type)) return new Set(Object.keys(type.getFields()));
  if (isEnumType(type)) return new Set(type.getValues().map((value) => value.name));
  return new Set();
}

/** The report as lines for a terminal. */
export function formatReport(report: EvolutionReport): string {
  const lines: string[] = [];
  for (const kind of ['breaking', 'dangerous', 'addition'] as const) {
    const of = report.changes.filter((change) => change.kind === kind);
    if (of.length === 0) continue;
    lines.push(`${kind === 'addition' ? 'Additions' : kind === 'breaking' ? 'Breaking changes' : 'Dangerous changes'} (${of.length}):`);
    for (const change of of) lines.push(`  ${change.type}: ${change.description}`);
  }
  if (report.bump === 'none') lines.push('No changes: the schema asks for no new version.');
  else lines.push(`Version: raise the ${report.bump} part${report.bump === 'major' ? ' (breaking changes)' : ' (additions or dangerous changes, none breaking)'}.`);
  if (report.brokenRoutes.length > 0) {
    lines.push(`Published routes that no longer validate (${report.brokenRoutes.length}):`);
    for (const route of report.brokenRoutes) lines.push(`  ${route}`);
  }
  return lines.join('\n');
}
