/**
 * `npm run bench`: bench/index.ts once per graphql major (scripts/graphql-major.mjs), on this
 * machine's node: ours against that major's graphql-js `execute` and graphql-jit, each table
 * under a heading naming the graphql it ran on. graphql 16 is put back at the end.
 *
 *   npm run bench                        both majors, every scenario
 *   npm run bench -- nested-sync         both majors, one scenario (arguments go to bench/index.ts)
 *   BENCH_GRAPHQL=17 npm run bench       one major
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { useGraphqlMajor } from './graphql-major.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const only = process.env.BENCH_GRAPHQL;
if (only !== undefined && only !== '16' && only !== '17') {
  console.error(`npm run bench: BENCH_GRAPHQL takes 16 or 17, not ${only}.`);
  process.exit(2);
}
const majors = only === undefined ? [16, 17] : [Number(only)];

let failed = false;
process.on('SIGINT', () => {
  useGraphqlMajor(16);
  process.exit(130);
});
try {
  for (const [index, major] of majors.entries()) {
    const version = useGraphqlMajor(major);
    if (index > 0) console.log();
    console.log(`## graphql ${version}\n`);
    // tsx's ESM loader only: its require() hook would load graphql 17 (ESM) a second time for
    // graphql-jit (CommonJS), whose schema checks would then refuse the bench's schema.
    const { status } = spawnSync(process.execPath, ['--import', 'tsx/esm', 'bench/index.ts', ...process.argv.slice(2)], {
      cwd: ROOT,
      stdio: 'inherit',
    });
    failed ||= status !== 0;
  }
} finally {
  useGraphqlMajor(16);
}
process.exit(failed ? 1 : 0);
