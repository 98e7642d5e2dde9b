/**
 * `npm run schema:check [-- <published.graphql>]`: the demo schema against a published one
 * (default: src/demo/published.graphql, the schema of the last release): every change, the
 * semantic-version part it asks to raise, and the published routes that would break. Exits 1
 * when a route's operation no longer validates, 2 when the file cannot be read.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { compareSchemas, formatReport } from '../schema/schemaEvolution.ts';
import { demoSchema } from './librarySchema.ts';
import { DEMO_RESOURCES, DEMO_RESOURCES_V2 } from './resources.ts';

/** The schema the demo's current release published. */
export const PUBLISHED_SCHEMA_PATH = fileURLToPath(new URL('./published.graphql', import.meta.url));

const path = process.argv[2] ?? PUBLISHED_SCHEMA_PATH;
let published: string;
try {
  published = readFileSync(path, 'utf8');
} catch (error) {
  console.error(`Cannot read the published schema ${path}: ${(error as Error).message}`);
  process.exit(2);
}
let report;
try {
  report = compareSchemas(published, demoSchema, [DEMO_RESOURCES, DEMO_RESOURCES_V2]);
} catch (error) {
  console.error(`${path} is not a valid schema: ${(error as Error).message}`);
  process.exit(2);
}
console.log(`Comparing the demo schema with ${path}:`);
console.log(formatReport(report));
if (report.brokenRoutes.length > 0) process.exit(1);
