/**
 * The package as a user installs it: built, packed with `npm pack`, installed from the tarball
 * into a project of its own, and run under plain `node` (no tsx, no TypeScript loader), and
 * type-checked from TypeScript with `node16` and `bundler` module resolution.
 *
 * Built into a scratch directory, not the repository's `dist/`, so that other suites reading
 * `dist/graphiql` while this one runs never see a half-written build. The install uses npm's
 * cache first (`--prefer-offline`): `npm ci` has just fetched the same dependencies.
 */
import { execFile } from 'node:child_process';
import { spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildGraphiql } from '../scripts/build-graphiql.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

let scratch: string;
let project: string;
let tarball: string;

beforeAll(async () => {
  scratch = mkdtempSync(join(os.tmpdir(), 'package-test-'));
  const staging = join(scratch, 'staging');
  mkdirSync(staging);
  // What `npm run build` does, into the staging copy.
  await run(process.execPath, [TSC, '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(staging, 'dist')], { cwd: ROOT });
  await buildGraphiql({ outDir: join(staging, 'dist', 'graphiql'), quiet: true });
  for (const file of ['package.json', 'LICENSE', 'CHANGELOG.md', 'README.md']) copyFileSync(join(ROOT, file), join(staging, file));
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], { cwd: staging });
  const [{ filename }] = JSON.parse(packed.stdout) as Array<{ filename: string }>;
  tarball = join(scratch, filename);

  project = join(scratch, 'project');
  mkdirSync(project);
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'uses-graphql-engine', private: true, type: 'module' }));
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error', tarball], { cwd: project });
}, 240_000);

afterAll(() => {
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

describe('the packed package', () => {
  it('holds the build, the licence and the changelog, and no sources or tests', async () => {
    const listed = await run('tar', ['-tzf', tarball]);
    const files = listed.stdout.trim().split('\n').map((line) => line.replace(/^package\//, ''));
    for (const file of ['package.json', 'LICENSE', 'CHANGELOG.md', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/index.js.map', 'dist/graphiql/manifest.json']) {
      expect(files).toContain(file);
    }
    expect(files.filter((file) => file.startsWith('src/') || file.startsWith('spec-tests/') || file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
  });

  it('installs only its runtime dependencies', () => {
    const installed = readdirSync(join(project, 'node_modules')).filter((name) => !name.startsWith('.'));
    expect(installed.sort()).toEqual(['graphql', 'graphql-engine', 'jose', 'ws']);
    const manifest = JSON.parse(readFileSync(join(project, 'node_modules', 'graphql-engine', 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(manifest['dependencies'] as object).sort()).toEqual(['graphql', 'jose', 'ws']);
    expect(manifest['peerDependenciesMeta']).toEqual({ ioredis: { optional: true } });
  });

  it('serves GraphQL and GraphiQL from a plain JavaScript program under node', async () => {
    writeFileSync(
      join(project, 'server.js'),
      `import { createServer, makeSchema } from 'graphql-engine';
const schema = makeSchema({ typeDefs: 'type Query { hello(name: String): String }', resolvers: { Query: { hello: (_, { name }) => 'Hello, ' + (name ?? 'world') } } });
const server = createServer({ schema, production: false });
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port })));
process.on('SIGTERM', () => server.shutdown().then(() => process.exit(0)));
`,
    );
    const child = spawn(process.execPath, ['server.js'], { cwd: project, stdio: ['ignore', 'pipe', 'pipe'] });
    let errors = '';
    child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
    try {
      const port = await new Promise<number>((resolve, reject) => {
        child.stdout.once('data', (chunk: Buffer) => resolve((JSON.parse(chunk.toString().split('\n')[0] as string) as { port: number }).port));
        child.once('exit', (code) => reject(new Error(`the server exited with ${code}: ${errors}`)));
      });
      const base = `http://127.0.0.1:${port}/graphql`;
      const answer = await fetch(base, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ query: '{ hello(name: "package") }' }) });
      expect(answer.status).toBe(200);
      expect(await answer.json()).toEqual({ data: { hello: 'Hello, package' }, extensions: { cost: { requested: 0, actual: 0, limit: 1000 } } });

      const page = await fetch(base, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await page.text();
      const assets = [...html.matchAll(/(?:src|href)="([^"]+\.(?:js|css))"/g)].map((match) => match[1] as string);
      expect(assets.length).toBeGreaterThanOrEqual(2);
      for (const asset of assets) {
        const file = await fetch(new URL(asset, base));
        expect(file.status, asset).toBe(200);
      }
      expect(errors).toBe('');
    } finally {
      child.kill('SIGTERM');
    }
  });

  for (const moduleResolution of ['node16', 'bundler'] as const) {
    it(`type-checks from TypeScript with moduleResolution ${moduleResolution}`, async () => {
      const dir = join(project, `ts-${moduleResolution}`);
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, 'main.ts'),
        `import { BatchLoader, createServer, execute, makeSchema } from 'graphql-engine';
import type { ServerOptions, GraphQLServer } from 'graphql-engine';
import { parse } from 'graphql';
const schema = makeSchema({ typeDefs: 'type Query { n: Int }', resolvers: { Query: { n: () => 1 } } });
const options: ServerOptions = { schema, production: true };
const server: GraphQLServer = createServer(options);
const loader = new BatchLoader<number, number>(async (keys) => keys.map((key) => key * 2));
export const result = execute({ schema, document: parse('{ n }') });
export { server, loader };
// @ts-expect-error: a misspelled option is refused by the types
createServer({ schema, prodution: true });
`,
      );
      writeFileSync(
        join(dir, 'tsconfig.json'),
        JSON.stringify({
          compilerOptions: {
            target: 'ES2022',
            module: moduleResolution === 'node16' ? 'node16' : 'esnext',
            moduleResolution,
            strict: true,
            noEmit: true,
            skipLibCheck: true,
            types: ['node'],
            typeRoots: [join(ROOT, 'node_modules', '@types')],
          },
          files: ['main.ts'],
        }),
      );
      // The package's own project is ESM ("type": "module"), as node16 resolution of its exports expects.
      const checked = await run(process.execPath, [TSC, '-p', dir], { cwd: dir }).then(
        () => '',
        (error: { stdout?: string }) => error.stdout ?? String(error),
      );
      expect(checked).toBe('');
    });
  }
});
