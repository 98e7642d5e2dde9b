/**
 * `npm test`: the type check and every suite, twice, on the two setups users run:
 *
 *   graphql16   this machine's node (Node 20 in CI) with graphql 16, what `npm ci` installs
 *   graphql17   Node 24 (scripts/node-binary.mjs) with graphql 17 (scripts/graphql-major.mjs)
 *
 * Both must pass. graphql 16 is put back at the end, whatever happened.
 *
 *   npm test                                    both setups
 *   npm test -- --only=graphql17                one of them
 *   npm test -- --only=graphql16 spec-tests/x   arguments after the options go to vitest
 *
 * Before both, the import rules: dependency-cruiser with .dependency-cruiser.cjs.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { activeGraphqlVersion, useGraphqlMajor } from './graphql-major.mjs';
import { nodeBinary } from './node-binary.mjs';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SETUPS = [
  { name: 'graphql16', graphql: 16, node: null },
  { name: 'graphql17', graphql: 17, node: 24 },
];

const args = process.argv.slice(2);
const only = args.find((arg) => arg.startsWith('--only='))?.slice('--only='.length);
const vitestArgs = args.filter((arg) => !arg.startsWith('--only='));
if (only !== undefined && !SETUPS.some((setup) => setup.name === only)) {
  console.error(`npm test: --only takes ${SETUPS.map((setup) => setup.name).join(' or ')}, not ${only}.`);
  process.exit(2);
}

// Suites that run programs under several Node majors find this machine's own through NODE<major>
// (scripts/node-binary.mjs), also when vitest itself runs on another.
const env = { ...process.env, [`NODE${process.versions.node.split('.')[0]}`]: process.execPath };

/** Runs a command in the repository, its output passed through; returns whether it succeeded. */
function run(command, commandArgs) {
  const { status, error } = spawnSync(command, commandArgs, { cwd: ROOT, stdio: 'inherit', env });
  if (error) console.error(`npm test: ${command} could not run: ${error.message}`);
  return status === 0;
}

const failed = [];

// The import layers (.dependency-cruiser.cjs) do not depend on the Node or graphql major: checked
// once, before the setups; a violation fails npm test like a failing suite.
console.log('\n=== npm test: imports only point down (dependency-cruiser) ===\n');
if (!run(process.execPath, ['node_modules/dependency-cruiser/bin/dependency-cruise.mjs', 'src', '--config', '.dependency-cruiser.cjs'])) {
  failed.push('the import rules (npm run check:imports)');
}

process.on('SIGINT', () => {
  useGraphqlMajor(16);
  process.exit(130);
});
try {
  for (const setup of SETUPS) {
    if (only !== undefined && setup.name !== only) continue;
    let node = setup.node === null ? process.execPath : nodeBinary(setup.node);
    let note = '';
    if (node === null) {
      node = process.execPath;
      note = ` (no Node ${setup.node} here: set NODE${setup.node}; this run uses ${process.version})`;
    }
    const graphql = useGraphqlMajor(setup.graphql);
    const version = spawnSync(node, ['--version'], { encoding: 'utf8' }).stdout.trim();
    console.log(`\n=== npm test, ${setup.name}: Node ${version}, graphql ${graphql}${note} ===\n`);
    const passed =
      run(process.execPath, ['node_modules/typescript-7/bin/tsc', '--noEmit']) &&
      run(node, ['node_modules/vitest/vitest.mjs', 'run', ...vitestArgs]);
    if (!passed) failed.push(`${setup.name} (Node ${version}, graphql ${graphql})`);
  }
} finally {
  useGraphqlMajor(16);
}
if (failed.length > 0) {
  console.error(`\nnpm test: failed on ${failed.join(' and ')}.`);
  process.exit(1);
}
console.log(`\nnpm test: passed${only === undefined ? ' on both setups' : ''}; graphql ${activeGraphqlVersion()} is installed again.`);
