/**
 * Which graphql major `node_modules/graphql` holds: 16 (what `npm ci` installs, the package's dev
 * dependency) or 17 (installed beside it as the alias `graphql-17`).
 *
 * graphql is this package's peer dependency, so every test, benchmark and example runs on the one
 * copy at `node_modules/graphql`, as in a user's project; so do the peers it is compared with
 * (graphql-jit, graphql-ws, graphql-http...). Switching majors therefore swaps that directory,
 * by two renames: the inactive major waits in `node_modules/graphql-17` or
 * `node_modules/.graphql-16`. `npm ci` puts 16 back.
 *
 *   node scripts/graphql-major.mjs        prints the active version
 *   node scripts/graphql-major.mjs 17     makes 17 active (16 likewise)
 */
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MODULES = fileURLToPath(new URL('../node_modules/', import.meta.url));
const ACTIVE = join(MODULES, 'graphql');
const PARKED = { 16: join(MODULES, '.graphql-16'), 17: join(MODULES, 'graphql-17') };

/** The version of graphql at node_modules/graphql, e.g. "16.15.0". */
export function activeGraphqlVersion() {
  return JSON.parse(readFileSync(join(ACTIVE, 'package.json'), 'utf8')).version;
}

/** Makes `major` (16 or 17) the graphql at node_modules/graphql; returns its version. */
export function useGraphqlMajor(major) {
  if (major !== 16 && major !== 17) throw new TypeError(`graphql-major: expected 16 or 17, got ${String(major)}.`);
  const active = Number(activeGraphqlVersion().split('.')[0]);
  if (active === major) return activeGraphqlVersion();
  const wanted = PARKED[major];
  if (!existsSync(wanted)) {
    throw new Error(`graphql-major: graphql ${major} is not installed (no ${wanted}); run npm ci.`);
  }
  renameSync(ACTIVE, PARKED[active]);
  renameSync(wanted, ACTIVE);
  return activeGraphqlVersion();
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const [wanted] = process.argv.slice(2);
  try {
    console.log(wanted === undefined ? activeGraphqlVersion() : useGraphqlMajor(Number(wanted)));
  } catch (error) {
    console.error(error.message);
    process.exit(1);
  }
}
