/**
 * `npm run build`: the package's build, dist/: the TypeScript compiled (tsconfig.build.json,
 * TypeScript 7), the conformance kit's fixtures (scripts/build-fixtures.mjs), then GraphiQL's page
 * (scripts/build-graphiql.ts).
 *
 *   node scripts/build.mjs             build both
 *   node scripts/build.mjs --if-stale  only what an input is newer than (what `npm pack` runs, as
 *                                      prepack: `npm run build && npm pack` then builds once)
 *
 * The compiled code is stale when a source under src/ (the demo is not built) or fixtures/, a
 * tsconfig or package.json is newer than dist/.build-stamp, written after each build that succeeds.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildFixtures } from './build-fixtures.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const STAMP = join(ROOT, 'dist', '.build-stamp');
const ifStale = process.argv.includes('--if-stale');

/** The newest modification time among the compiler's inputs. */
function newestInput() {
  let newest = 0;
  const visit = (dir) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (path !== join(ROOT, 'src', 'demo')) visit(path);
      } else newest = Math.max(newest, statSync(path).mtimeMs);
    }
  };
  visit(join(ROOT, 'src'));
  visit(join(ROOT, 'fixtures'));
  for (const file of ['tsconfig.json', 'tsconfig.build.json', 'package.json']) newest = Math.max(newest, statSync(join(ROOT, file)).mtimeMs);
  return newest;
}

function run(command, args) {
  const { status } = spawnSync(command, args, { cwd: ROOT, stdio: 'inherit' });
  if (status !== 0) process.exit(status ?? 1);
}

if (ifStale && existsSync(STAMP) && statSync(STAMP).mtimeMs >= newestInput()) {
  console.log('build: dist/ is newer than its sources; not compiled again.');
} else {
  run(process.execPath, [join(ROOT, 'node_modules/typescript-7/bin/tsc'), '-p', 'tsconfig.build.json']);
  await buildFixtures();
  writeFileSync(STAMP, `${new Date().toISOString()}\n`);
}
run(process.execPath, ['--import', 'tsx', 'scripts/build-graphiql.ts', ...(ifStale ? ['--if-stale'] : [])]);
