/**
 * The conformance kit's fixtures in the package: the executor target (src/conformance/executor)
 * runs the fixture schemas and cases of fixtures/, which live outside src/ because the spec-tests
 * share them. This compiles them into dist/fixtures/ beside the build: each module's TypeScript
 * stripped (esbuild, one file at a time, so each module stays where its relative paths expect it),
 * its imports of the package's own index pointed at dist/index.js, the SDL files and the case files
 * copied as they are.
 *
 *   node scripts/build-fixtures.mjs [outDir]     (scripts/build.mjs runs it; default dist)
 */
import { copyFileSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { transform } from 'esbuild';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** The fixtures fixtures/index.ts lists, and what the case files name. */
const FIXTURES = ['starwars', 'library', 'errors', 'bank', 'batching', 'cost'];

/** The modules to compile and the files to copy, relative to fixtures/. */
function inputs() {
  const modules = ['index.ts', 'support.ts', 'types.ts', ...FIXTURES.map((name) => `${name}/index.ts`), 'incremental/cases.ts'];
  const files = [...FIXTURES.map((name) => `${name}/schema.graphql`), 'incremental/expected.json', ...readdirSync(join(ROOT, 'fixtures', 'cases')).filter((file) => file.endsWith('.json')).map((file) => `cases/${file}`)];
  return { modules, files };
}

/** A module's imports as they resolve in dist/fixtures/: `.js`, and the package's index for src/index.ts. */
function relinked(code) {
  return code.replace(/(from\s+|import\s*\(\s*)(['"])(\.{1,2}\/[^'"]+)\2/g, (_whole, keyword, quote, specifier) => {
    // fixtures/<name>/index.ts imports ../../src/index.ts; dist/fixtures/<name>/index.js imports ../../index.js.
    const target = specifier.replace(/^((?:\.\.\/)+)src\/index\.ts$/, '$1index.ts');
    return `${keyword}${quote}${target.replace(/\.ts$/, '.js')}${quote}`;
  });
}

export async function buildFixtures({ outDir = join(ROOT, 'dist') } = {}) {
  const { modules, files } = inputs();
  for (const module of modules) {
    const source = readFileSync(join(ROOT, 'fixtures', module), 'utf8');
    const { code } = await transform(source, { loader: 'ts', format: 'esm', target: 'es2022', tsconfigRaw: { compilerOptions: { useDefineForClassFields: false, verbatimModuleSyntax: true } } });
    const out = join(outDir, 'fixtures', module.replace(/\.ts$/, '.js'));
    mkdirSync(dirname(out), { recursive: true });
    writeFileSync(out, relinked(code));
  }
  for (const file of files) {
    const out = join(outDir, 'fixtures', file);
    mkdirSync(dirname(out), { recursive: true });
    copyFileSync(join(ROOT, 'fixtures', file), out);
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await buildFixtures(process.argv[2] === undefined ? {} : { outDir: process.argv[2] });
