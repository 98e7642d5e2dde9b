/**
 * Which graphql major `node_modules/graphql` holds: 16 (what `npm ci` installs, the package's dev
 * dependency) or 17 (pinned in `.ci/graphql17`, installed there by `npm ci` on first use: graphql
 * 17 declares Node 22+, so it is not a dev dependency that `npm ci` on Node 20 would warn for).
 *
 * graphql is this package's peer dependency, so every test, benchmark and example runs on the one
 * copy at `node_modules/graphql`, as in a user's project; so do the peers it is compared with
 * (graphql-jit, graphql-ws, graphql-http...). Switching majors therefore swaps that directory,
 * by two renames: the inactive major waits in `.ci/graphql17/node_modules/graphql` or
 * `node_modules/.graphql-16`. `npm ci` puts 16 back.
 *
 *   node scripts/graphql-major.mjs        prints the active version
 *   node scripts/graphql-major.mjs 17     makes 17 active (16 likewise)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const MODULES = fileURLToPath(new URL('../node_modules/', import.meta.url));
const PINNED_17 = fileURLToPath(new URL('../.ci/graphql17/', import.meta.url));
const ACTIVE = join(MODULES, 'graphql');
const PARKED = { 16: join(MODULES, '.graphql-16'), 17: join(PINNED_17, 'node_modules', 'graphql') };

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
  if (major === 17) installGraphql17();
  if (!existsSync(wanted)) {
    throw new Error(`graphql-major: graphql ${major} is not installed (no ${wanted}); run npm ci.`);
  }
  renameSync(ACTIVE, PARKED[active]);
  renameSync(wanted, ACTIVE);
  return activeGraphqlVersion();
}

/**
 * graphql 17's directory while 16 is the active one (`.ci/graphql17/node_modules/graphql`),
 * installed there from its lock file first when missing.
 */
export function installGraphql17() {
  if (!existsSync(PARKED[17]) && !activeGraphqlVersion().startsWith('17.')) {
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: PINNED_17, stdio: 'inherit' });
  }
  return PARKED[17];
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
