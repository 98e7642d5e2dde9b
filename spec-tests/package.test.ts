/**
 * The package as a user installs it: built, packed with `npm pack`, and installed from the
 * tarball into projects of their own beside the graphql each project chose, then run under plain
 * `node` (no tsx, no TypeScript loader) on each supported Node major, required from CommonJS, and
 * type-checked from TypeScript 5.9 and 7 with `node16` and `bundler` resolution.
 *
 * graphql is the package's peer dependency, so the projects install the graphql this suite runs
 * on (`npm test` runs every suite with graphql 16, then with graphql 17): each major gets its
 * turn. The servers are built the way a user with a schema of their own builds one: the
 * project's `buildSchema`, its resolvers set on the fields.
 *
 * Built into a scratch directory, not the repository's `dist/`, so that other suites reading
 * `dist/graphiql` while this one runs never see a half-written build. Installs use npm's cache
 * first (`--prefer-offline`): `npm ci` has just fetched the same packages.
 */
import { execFile, spawn } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { version as GRAPHQL_VERSION } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { WebSocket } from 'ws';
import { buildFixtures } from '../scripts/build-fixtures.mjs';
import { buildGraphiql } from '../scripts/build-graphiql.ts';
import { nodeBinary } from '../scripts/node-binary.mjs';
import { GRAPHQL_MAJOR, byMajor } from './support/graphqlMajor.ts';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
/** The compilers a consumer may type-check with: TypeScript 7 (the registry's latest) and 5.9. */
const COMPILERS = { 'TypeScript 7': join(ROOT, 'node_modules', 'typescript-7', 'bin', 'tsc'), 'TypeScript 5.9': join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc') };
/** A graphql of the other supported major, for the project whose schema comes from a second copy. */
const OTHER_GRAPHQL = byMajor({ 16: '17.1.0', 17: '16.15.0' });
const INSTALL = ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'];

let scratch: string;
let tarball: string;

/** A new project (ESM) with the tarball and these packages installed. */
async function project(name: string, packages: string[], installFlags: string[] = []): Promise<string> {
  const dir = join(scratch, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name, private: true, type: 'module' }));
  await run('npm', [...INSTALL, ...installFlags, tarball, ...packages], { cwd: dir });
  return dir;
}

/** Runs a program of a project under a node binary; its stdout lines, and stderr. */
async function runIn(dir: string, node: string, file: string): Promise<{ lines: string[]; stderr: string }> {
  const { stdout, stderr } = await run(node, [file], { cwd: dir });
  return { lines: stdout.trim().split('\n'), stderr };
}

let main: string;

beforeAll(async () => {
  scratch = mkdtempSync(join(os.tmpdir(), 'package-test-'));
  const staging = join(scratch, 'staging');
  mkdirSync(staging);
  // What `npm run build` does, into the staging copy.
  await run(process.execPath, [COMPILERS['TypeScript 7'], '-p', join(ROOT, 'tsconfig.build.json'), '--outDir', join(staging, 'dist')], { cwd: ROOT });
  await buildFixtures({ outDir: join(staging, 'dist') });
  await buildGraphiql({ outDir: join(staging, 'dist', 'graphiql'), quiet: true });
  for (const file of ['package.json', 'LICENSE', 'CHANGELOG.md', 'README.md']) copyFileSync(join(ROOT, file), join(staging, file));
  const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', scratch], { cwd: staging });
  const [{ filename }] = JSON.parse(packed.stdout) as Array<{ filename: string }>;
  tarball = join(scratch, filename);
  main = await project('uses-graphql-glassbox', [`graphql@${GRAPHQL_VERSION}`]);
}, 300_000);

afterAll(() => {
  if (scratch !== undefined) rmSync(scratch, { recursive: true, force: true });
});

/** Every copy of graphql under a project's node_modules: the folders named graphql that hold a package. */
function graphqlCopies(modules: string): string[] {
  const found: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir)) {
      const path = join(dir, entry);
      if (!statSync(path).isDirectory()) continue;
      if (entry === 'graphql' && existsSync(join(path, 'package.json'))) found.push(path);
      else walk(path);
    }
  };
  walk(modules);
  return found;
}

describe('the packed package', () => {
  it('holds the build, the licence and the changelog, and no sources or tests', async () => {
    const listed = await run('tar', ['-tzf', tarball]);
    const files = listed.stdout.trim().split('\n').map((line) => line.replace(/^package\//, ''));
    for (const file of ['package.json', 'LICENSE', 'CHANGELOG.md', 'README.md', 'dist/index.js', 'dist/index.d.ts', 'dist/index.js.map', 'dist/graphiql/manifest.json', 'dist/fixtures/index.js', 'dist/fixtures/starwars/schema.graphql', 'dist/fixtures/cases/6.4-arguments.json']) {
      expect(files).toContain(file);
    }
    expect(files.filter((file) => file.startsWith('src/') || file.startsWith('spec-tests/') || file.endsWith('.ts') && !file.endsWith('.d.ts'))).toEqual([]);
  });

  it('declares graphql a peer dependency, so the project has exactly one graphql: its own', () => {
    const manifest = JSON.parse(readFileSync(join(main, 'node_modules', 'graphql-glassbox', 'package.json'), 'utf8')) as Record<string, unknown>;
    expect(Object.keys(manifest['dependencies'] as object).sort()).toEqual(['jose', 'ws']);
    expect(manifest['peerDependencies']).toEqual({ graphql: '^16.9.0 || ^17.0.0', ioredis: '^6.0.0', '@opentelemetry/api': '^1.9.0', 'graphql-http': '^1.22.0' });
    expect(manifest['peerDependenciesMeta']).toEqual({ ioredis: { optional: true }, '@opentelemetry/api': { optional: true }, 'graphql-http': { optional: true } });
    expect(manifest['engines']).toEqual({ node: '>=20.19' });
    const installed = readdirSync(join(main, 'node_modules')).filter((name) => !name.startsWith('.'));
    expect(installed.sort()).toEqual(['graphql', 'graphql-glassbox', 'jose', 'ws']);
    expect(graphqlCopies(join(main, 'node_modules'))).toEqual([join(main, 'node_modules', 'graphql')]);
    expect(JSON.parse(readFileSync(join(main, 'node_modules', 'graphql', 'package.json'), 'utf8')).version).toBe(GRAPHQL_VERSION);
  });
});

describe('the bin', () => {
  it('runs schema-check with npx in the project: the changes, the version part, exit 1 on a breaking change', async () => {
    writeFileSync(join(main, 'published.graphql'), 'type Query { hello: String old: String }');
    writeFileSync(join(main, 'current.mjs'), "import { buildSchema } from 'graphql';\nexport const schema = buildSchema('type Query { hello: String greeting: String }');\n");
    const ran = run('npx', ['--no-install', 'graphql-glassbox', 'schema-check', 'published.graphql', 'current.mjs'], { cwd: main });
    await expect(ran).rejects.toMatchObject({
      code: 1,
      stdout: expect.stringContaining('Breaking changes (1):\n  FIELD_REMOVED: '),
      stderr: expect.stringContaining('schema-check: breaking changes (pass --allow-breaking to accept them for a major release).'),
    });
    const allowed = await run('npx', ['--no-install', 'graphql-glassbox', 'schema-check', 'published.graphql', 'current.mjs', '--allow-breaking'], { cwd: main });
    expect(allowed.stdout).toContain('Additions (1):\n  FIELD_ADDED: Query.greeting was added.\nVersion: raise the major part (breaking changes).');
  });
});

describe('the conformance kit in the package', () => {
  it('runs conformance executor with npx over an adapter of the project, from the fixtures the package ships', async () => {
    writeFileSync(join(main, 'adapter.mjs'), "export { execute } from 'graphql';\n");
    writeFileSync(join(main, 'drops-errors.mjs'), "import { execute as run } from 'graphql';\nexport async function execute(args) { const { errors, ...rest } = await run(args); return rest; }\n");
    const passed = await run('npx', ['--no-install', 'graphql-glassbox', 'conformance', 'executor', 'adapter.mjs', '--count', '5', '--json', 'report.json'], { cwd: main });
    // Skipped: the subscription and incremental delivery checks, for an adapter that exports only execute.
    expect(passed.stdout).toMatch(/\n\d{3} passed, 0 failed \(0 MUST\), 49 skipped\.\n$/);
    const report = JSON.parse(readFileSync(join(main, 'report.json'), 'utf8')) as { summary: { pass: number } };
    expect(report.summary.pass).toBeGreaterThanOrEqual(250);
    const failed = run('npx', ['--no-install', 'graphql-glassbox', 'conformance', 'executor', 'drops-errors.mjs', '--count', '0', '--only', 'executor.6.7-errors.*'], { cwd: main });
    await expect(failed).rejects.toMatchObject({ code: 1, stderr: 'conformance: a MUST check failed.\n' });
  }, 120_000);
});

/** A server of the project's own: its buildSchema, resolvers set on the fields, a pub/sub for the subscription. */
const SERVER = `import { buildSchema } from 'graphql';
import { createPubSub, createServer } from 'graphql-glassbox';

const schema = buildSchema(\`
  input BookRef @oneOf { id: ID isbn: String }
  type Review { id: ID! stars: Int! }
  type Query { hello(name: String): String book(by: BookRef!): String }
  type Mutation { addReview(stars: Int!): Review! }
  type Subscription { reviewAdded: Review! }
\`);
const pubsub = createPubSub();
let reviews = 0;
const fields = (type) => schema.getType(type).getFields();
fields('Query').hello.resolve = (_, { name }) => 'Hello, ' + (name ?? 'world');
fields('Query').book.resolve = (_, { by }) => (by.id !== undefined ? 'the book with id ' + by.id : 'the book with ISBN ' + by.isbn);
fields('Mutation').addReview.resolve = async (_, { stars }) => {
  const review = { id: String(++reviews), stars };
  await pubsub.publish('reviews', review);
  return review;
};
fields('Subscription').reviewAdded.subscribe = () => pubsub.subscribe('reviews');
fields('Subscription').reviewAdded.resolve = (review) => review;

const server = createServer({ schema, production: false, reportCost: false });
server.listen(0, '127.0.0.1', () => console.log(JSON.stringify({ port: server.address().port, node: process.version })));
process.on('SIGTERM', () => server.shutdown().then(() => process.exit(0)));
`;

/** A server program of the project, started under `node`: its port; stopped by the returned function. */
async function startServer(dir: string, node: string): Promise<{ base: string; node: string; stop: () => Promise<string> }> {
  const child = spawn(node, ['server.js'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  let errors = '';
  child.stderr.on('data', (chunk: Buffer) => (errors += chunk.toString()));
  // Its stdout: the server's ready line (a JSON log line), and the program's own line with the port.
  let output = '';
  const started = await new Promise<{ port: number; node: string }>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      const line = output.split('\n').find((text) => text.startsWith('{"port":'));
      if (line !== undefined) resolve(JSON.parse(line) as { port: number; node: string });
    });
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}: ${errors}`)));
  });
  // The library says where it listens, once, through its logger (standard output by default).
  await expect.poll(() => output.split('\n').filter((text) => text.includes('listening on'))).toEqual([
    expect.stringMatching(new RegExp(`^\\{"time":"[^"]+","level":"info","msg":"graphql-glassbox listening on http://127\\.0\\.0\\.1:${started.port}/graphql"\\}$`)),
  ]);
  const stop = async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
    return errors;
  };
  return { base: `http://127.0.0.1:${started.port}/graphql`, node: started.node, stop };
}

function post(base: string, query: string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(base, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify({ query }) });
}

/** The first `next` event of a subscription over Server-Sent Events, published to by `publish` once the stream is open. */
async function firstEventOverSse(base: string, query: string, publish: () => Promise<unknown>): Promise<unknown> {
  const stream = await post(base, query, { accept: 'text/event-stream' });
  expect(stream.headers.get('content-type')).toMatch(/^text\/event-stream/);
  const reader = (stream.body as ReadableStream<Uint8Array>).getReader();
  await publish();
  let text = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`the event stream ended before an event: ${text}`);
    text += Buffer.from(value).toString();
    const event = /event: next\ndata: (.*)\n/.exec(text);
    if (event !== null) {
      await reader.cancel();
      return JSON.parse(event[1] as string);
    }
  }
}

/** The first `next` message of a subscription over graphql-transport-ws, published to by `publish` once subscribed. */
async function firstEventOverWebSocket(base: string, query: string, publish: () => Promise<unknown>): Promise<unknown> {
  const socket = new WebSocket(base.replace('http:', 'ws:'), 'graphql-transport-ws');
  const messages: Array<{ type: string; payload?: unknown }> = [];
  const waiters: Array<() => void> = [];
  socket.on('message', (data) => {
    messages.push(JSON.parse(String(data)) as { type: string; payload?: unknown });
    for (const wake of waiters.splice(0)) wake();
  });
  const message = async (type: string) => {
    for (;;) {
      const found = messages.find((candidate) => candidate.type === type);
      if (found !== undefined) return found;
      await new Promise<void>((resolve) => waiters.push(resolve));
    }
  };
  await new Promise((resolve, reject) => socket.once('open', resolve).once('error', reject));
  socket.send(JSON.stringify({ type: 'connection_init' }));
  await message('connection_ack');
  socket.send(JSON.stringify({ id: 's', type: 'subscribe', payload: { query } }));
  // The subscription is set up once the server has processed the message; a ping round trip says so.
  socket.send(JSON.stringify({ type: 'ping' }));
  await message('pong');
  await publish();
  const next = await message('next');
  socket.close();
  return next.payload;
}

describe(`a plain JavaScript server on the project's graphql ${GRAPHQL_VERSION}`, () => {
  for (const major of [20, 24]) {
    it(`answers a query, a mutation, a @oneOf input, and a subscription over SSE and over WebSocket, under Node ${major}`, async (context) => {
      const node = nodeBinary(major);
      if (node === null) {
        context.skip(`no Node ${major} here: set NODE${major}`);
        return;
      }
      writeFileSync(join(main, 'server.js'), SERVER);
      const server = await startServer(main, node);
      try {
        expect(server.node.split('.')[0]).toBe(`v${major}`);
        const hello = await post(server.base, '{ hello(name: "package") }');
        expect(hello.status).toBe(200);
        expect(await hello.json()).toEqual({ data: { hello: 'Hello, package' } });

        const added = await post(server.base, 'mutation { addReview(stars: 4) { id stars } }');
        expect(await added.json()).toEqual({ data: { addReview: { id: '1', stars: 4 } } });

        const byIsbn = await post(server.base, '{ book(by: { isbn: "978-0" }) }');
        expect(await byIsbn.json()).toEqual({ data: { book: 'the book with ISBN 978-0' } });
        const both = await post(server.base, '{ book(by: { id: "1", isbn: "978-0" }) }', { accept: 'application/graphql-response+json' });
        expect(both.status).toBe(400);
        expect(await both.json()).toEqual({
          errors: [
            byMajor({
              16: { message: 'OneOf Input Object "BookRef" must specify exactly one key.', locations: [{ line: 1, column: 12 }] },
              17: {
                message: 'Within OneOf Input Object type "BookRef", exactly one field must be specified, and the value for that field must be non-null.',
                locations: [{ line: 1, column: 12 }],
              },
            }),
          ].map((error) => ({ ...error, extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } })),
        });

        const subscription = 'subscription { reviewAdded { id stars } }';
        const overSse = await firstEventOverSse(server.base, subscription, () => post(server.base, 'mutation { addReview(stars: 5) { id } }'));
        expect(overSse).toEqual({ data: { reviewAdded: { id: '2', stars: 5 } } });
        const overWebSocket = await firstEventOverWebSocket(server.base, subscription, () => post(server.base, 'mutation { addReview(stars: 3) { id } }'));
        expect(overWebSocket).toEqual({ data: { reviewAdded: { id: '3', stars: 3 } } });
      } finally {
        expect(await server.stop()).toBe('');
      }
    });
  }

  it('serves GraphiQL and its assets', async () => {
    writeFileSync(join(main, 'server.js'), SERVER);
    const server = await startServer(main, process.execPath);
    try {
      const page = await fetch(server.base, { headers: { accept: 'text/html' } });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/^text\/html/);
      const html = await page.text();
      const assets = [...html.matchAll(/(?:src|href)="([^"]+\.(?:js|css))"/g)].map((match) => match[1] as string);
      expect(assets.length).toBeGreaterThanOrEqual(2);
      for (const asset of assets) {
        const file = await fetch(new URL(asset, server.base));
        expect(file.status, asset).toBe(200);
      }
    } finally {
      expect(await server.stop()).toBe('');
    }
  });
});

/** A CommonJS program: the package and the project's graphql by require(). */
const COMMONJS = `const { execute, makeSchema } = require('graphql-glassbox');
const { buildSchema, parse } = require('graphql');
const made = makeSchema({ typeDefs: 'type Query { n: Int }', resolvers: { Query: { n: () => 1 } } });
console.log(JSON.stringify(execute({ schema: made, document: parse('{ n }') })));
const own = buildSchema('type Query { m: Int }');
console.log(JSON.stringify(execute({ schema: own, document: parse('{ m }'), rootValue: { m: 2 } })));
`;

describe('from CommonJS', () => {
  for (const major of [20, 22, 24]) {
    it(`require('graphql-glassbox') works under Node ${major}, with a schema of the package's and one of the project's graphql`, async (context) => {
      const node = nodeBinary(major);
      if (node === null) {
        context.skip(`no Node ${major} here: set NODE${major}`);
        return;
      }
      writeFileSync(join(main, 'main.cjs'), COMMONJS);
      const { lines, stderr } = await runIn(main, node, 'main.cjs');
      expect(lines).toEqual([JSON.stringify({ data: { n: 1 } }), JSON.stringify({ data: { m: 2 } })]);
      expect(stderr).toBe('');
    });
  }
});

describe('from TypeScript, in a project without ioredis, checking the libraries too (skipLibCheck: false)', () => {
  for (const [compiler, tsc] of Object.entries(COMPILERS)) {
    for (const moduleResolution of ['node16', 'bundler'] as const) {
      it(`type-checks with ${compiler} and moduleResolution ${moduleResolution}`, async () => {
        const dir = join(main, `ts-${compiler.replace(/\W+/g, '')}-${moduleResolution}`);
        mkdirSync(dir, { recursive: true });
        writeFileSync(
          join(dir, 'main.ts'),
          `import { BatchLoader, createServer, execute, makeSchema } from 'graphql-glassbox';
import type { ServerOptions, GraphQLServer } from 'graphql-glassbox';
import { buildSchema, parse } from 'graphql';
const schema = makeSchema({ typeDefs: 'type Query { n: Int }', resolvers: { Query: { n: () => 1 } } });
const options: ServerOptions = { schema, production: true };
const server: GraphQLServer = createServer(options);
const own: GraphQLServer = createServer({ schema: buildSchema('type Query { m: Int }') });
const loader = new BatchLoader<number, number>(async (keys) => keys.map((key) => key * 2));
export const result = execute({ schema, document: parse('{ n }') });
export { server, own, loader };
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
              skipLibCheck: false,
              types: ['node'],
              typeRoots: [join(ROOT, 'node_modules', '@types')],
            },
            files: ['main.ts'],
          }),
        );
        expect(existsSync(join(main, 'node_modules', 'ioredis'))).toBe(false);
        // The package's own project is ESM ("type": "module"), as node16 resolution of its exports expects.
        const checked = await run(process.execPath, [tsc, '-p', dir], { cwd: dir }).then(
          () => '',
          (error: { stdout?: string }) => error.stdout ?? String(error),
        );
        expect(checked).toBe('');
      });
    }
  }
});

describe('one clear error where the schema cannot run', () => {
  const USE = `import { buildSchema } from 'GRAPHQL';
import { createServer, execute } from 'graphql-glassbox';
import { parse } from 'graphql';
const schema = buildSchema('type Query { n: Int }');
for (const call of [() => createServer({ schema }), () => execute({ schema, document: parse('{ n }') })]) {
  try {
    call();
    console.log('accepted');
  } catch (error) {
    console.log(error.message);
  }
}
`;

  it(`refuses a schema built by a second copy of graphql (here ${OTHER_GRAPHQL} beside the project's ${GRAPHQL_VERSION}), naming both and the fix`, async () => {
    const dir = await project('two-copies', [`graphql@${GRAPHQL_VERSION}`, `graphql-other@npm:graphql@${OTHER_GRAPHQL}`]);
    writeFileSync(join(dir, 'use.js'), USE.replace("'GRAPHQL'", "'graphql-other'"));
    const { lines } = await runIn(dir, process.execPath, 'use.js');
    const fix = `than the one this package uses (graphql ${GRAPHQL_VERSION} at ${join(dir, 'node_modules', 'graphql')}). Install one graphql; this package uses the one your project has (\`npm ls graphql\` lists every copy).`;
    expect(lines).toEqual([
      `graphql-glassbox: the schema was built by another copy of graphql (graphql ${GRAPHQL_MAJOR === 16 ? 17 : 16}) ${fix}`,
      `execute: the schema was built by another copy of graphql (graphql ${GRAPHQL_MAJOR === 16 ? 17 : 16}) ${fix}`,
    ]);
  });

  it('refuses to run on a graphql older than 16.9, naming the version installed and the range supported', async () => {
    // npm itself refuses to install the two together; a project that forces it meets this error.
    const dir = await project('old-graphql', ['graphql@16.8.1'], ['--legacy-peer-deps']);
    writeFileSync(join(dir, 'use.js'), USE.replace("'GRAPHQL'", "'graphql'"));
    const { lines } = await runIn(dir, process.execPath, 'use.js');
    const why =
      'graphql-glassbox runs on graphql ^16.9.0 || ^17.0.0, but this project has graphql 16.8.1. Install one graphql in that range (npm install graphql@17); this package uses the one your project has.';
    expect(lines).toEqual([`graphql-glassbox: ${why}`, `execute: ${why}`]);
  });
});
