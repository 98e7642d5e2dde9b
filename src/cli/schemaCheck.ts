/**
 * `schema-check <published> <current> [--routes <module>] [--allow-breaking]`: any schema
 * against the one published before it, fit for CI. Prints every change (schemaEvolution.ts),
 * the part of the version it asks to raise, and the published routes that would break; exits
 *
 *   0  nothing breaks (or `--allow-breaking` and only the schema breaks)
 *   1  a breaking change, or a published route whose operation no longer validates
 *   2  the command is misused, or a schema cannot be read
 *
 * A schema is an SDL file (`.graphql`, `.gql`) or a JavaScript module exporting a schema made
 * with the same graphql (`module.js#name` for a named export; else `default`, else `schema`).
 * `--routes` (once or more) names a module exporting resource routes (`{ version, routes }`,
 * or a list of them), whose operations must still validate.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { buildSchema } from 'graphql';
import type { GraphQLSchema } from 'graphql';
import { compareSchemas, formatReport } from '../schema/schemaEvolution.ts';

/** What a command prints and the code it exits with: `main` writes them, tests read them. */
export interface CommandOutcome {
  readonly code: 0 | 1 | 2;
  readonly stdout: string;
  readonly stderr: string;
}

export const SCHEMA_CHECK_USAGE = `Usage: schema-check <published> <current> [--routes <module>] [--allow-breaking]

  <published>        the schema of the last release: an SDL file (.graphql, .gql) or a module
  <current>          the schema now: an SDL file, or a module exporting it
                     (module.js#name for a named export; else default, else schema)
  --routes <module>  resource routes ({ version, routes } or a list) whose operations must
                     still validate (module.js#name as above); may be given more than once
  --allow-breaking   exit 0 on breaking changes (a broken route still fails)

Exits 0 when nothing breaks, 1 on a breaking change or a broken route, 2 on a usage or read error.`;

interface Arguments {
  published: string;
  current: string;
  routes: string[];
  allowBreaking: boolean;
}

/** The arguments, or why they cannot be used. */
function readArguments(args: ReadonlyArray<string>): Arguments | string {
  const positional: string[] = [];
  const routes: string[] = [];
  let allowBreaking = false;
  for (let index = 0; index < args.length; index++) {
    const arg = args[index] as string;
    if (arg === '--allow-breaking') allowBreaking = true;
    else if (arg === '--routes') {
      const value = args[++index];
      if (value === undefined) return '--routes needs a module.';
      routes.push(value);
    } else if (arg.startsWith('-')) return `Unknown option ${arg}.`;
    else positional.push(arg);
  }
  if (positional.length !== 2) return `schema-check takes two schemas, the published one and the current one; got ${positional.length}.`;
  const [published, current] = positional as [string, string];
  return { published, current, routes, allowBreaking };
}

/** A module's export: `path#name`, else `default`, else `fallback`. */
async function exportOf(spec: string, fallback: string): Promise<unknown> {
  const hash = spec.lastIndexOf('#');
  const [path, name] = hash > 0 ? [spec.slice(0, hash), spec.slice(hash + 1)] : [spec, null];
  const module = (await import(pathToFileURL(resolve(path)).href)) as Record<string, unknown>;
  if (name !== null) {
    if (!(name in module)) throw new Error(`${path} has no export named ${name}.`);
    return module[name];
  }
  return module['default'] ?? module[fallback];
}

/** A schema from an SDL file or a module. */
async function readSchema(spec: string): Promise<GraphQLSchema | string> {
  if (/\.(graphql|gql|graphqls)$/.test(spec)) return readFileSync(spec, 'utf8');
  const schema = await exportOf(spec, 'schema');
  if (schema === null || typeof schema !== 'object' || typeof (schema as GraphQLSchema).getTypeMap !== 'function') {
    throw new Error(`${spec} does not export a GraphQLSchema (name it with ${spec}#<export>).`);
  }
  return schema as GraphQLSchema;
}

type Routes = Array<{ version: string; routes: Record<string, string> }>;

async function readRoutes(specs: ReadonlyArray<string>): Promise<Routes> {
  return (await Promise.all(specs.map(routesOf))).flat();
}

async function routesOf(spec: string): Promise<Routes> {
  const routes = await exportOf(spec, 'routes');
  const list = Array.isArray(routes) ? routes : [routes];
  if (!list.every((item) => item !== null && typeof item === 'object' && typeof (item as { version?: unknown }).version === 'string')) {
    throw new Error(`${spec} does not export resource routes ({ version, routes }, or a list of them).`);
  }
  return list as Routes;
}

/** Runs the check; never throws, never exits. */
export async function schemaCheck(args: ReadonlyArray<string>): Promise<CommandOutcome> {
  if (args.includes('--help') || args.includes('-h')) return { code: 0, stdout: SCHEMA_CHECK_USAGE, stderr: '' };
  const parsed = readArguments(args);
  if (typeof parsed === 'string') return { code: 2, stdout: '', stderr: `${parsed}\n\n${SCHEMA_CHECK_USAGE}` };
  let report;
  try {
    const [published, current, routes] = await Promise.all([readSchema(parsed.published), readSchema(parsed.current), readRoutes(parsed.routes)]);
    const currentSchema = typeof current === 'string' ? buildSchema(current) : current;
    report = compareSchemas(published, currentSchema, routes);
  } catch (error) {
    return { code: 2, stdout: '', stderr: `schema-check: ${(error as Error).message}` };
  }
  const breaking = report.bump === 'major' && !parsed.allowBreaking;
  const stdout = `Comparing ${parsed.current} with ${parsed.published}:\n${formatReport(report)}`;
  if (report.brokenRoutes.length > 0) return { code: 1, stdout, stderr: 'schema-check: published routes no longer validate.' };
  if (breaking) return { code: 1, stdout, stderr: 'schema-check: breaking changes (pass --allow-breaking to accept them for a major release).' };
  return { code: 0, stdout, stderr: '' };
}
