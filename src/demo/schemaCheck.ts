/**
 * `npm run schema:check [-- <published.graphql>]`: the demo schema against a published one
 * (default: src/demo/published.graphql, the schema of the last release), with the demo's
 * resource routes, through the package's `schema-check` command (src/cli/schemaCheck.ts): every
 * change, the version part it asks to raise, the published routes that would break; exits 1 on
 * a breaking change or a broken route, 2 when a schema cannot be read.
 */
import { relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { schemaCheck } from '../cli/schemaCheck.ts';

/** The schema the demo's current release published. */
export const PUBLISHED_SCHEMA_PATH = fileURLToPath(new URL('./published.graphql', import.meta.url));
/** A file beside this one, as a path from where the command runs (what the report prints). */
const here = (file: string) => relative(process.cwd(), fileURLToPath(new URL(file, import.meta.url)));

const { code, stdout, stderr } = await schemaCheck([
  process.argv[2] ?? relative(process.cwd(), PUBLISHED_SCHEMA_PATH),
  `${here('./librarySchema.ts')}#demoSchema`,
  '--routes',
  `${here('./resources.ts')}#DEMO_RESOURCES`,
  '--routes',
  `${here('./resources.ts')}#DEMO_RESOURCES_V2`,
  ...process.argv.slice(3),
]);
if (stdout !== '') process.stdout.write(`${stdout}\n`);
if (stderr !== '') process.stderr.write(`${stderr}\n`);
process.exitCode = code;
