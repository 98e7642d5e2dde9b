/**
 * The PostgreSQL example (examples/postgres/). What needs no database always runs: `npm run
 * example:postgres` without a usable DATABASE_URL, and requests while the database is a closed
 * port or a socket that never answers. Everything else runs against the PostgreSQL at
 * DATABASE_URL, and is skipped, saying so, when it is unset.
 *
 * Each run works in schemas of its own (a prefix made for the run), dropped afterwards, so
 * parallel runs on one database do not see each other. Statements are counted at the pool, by
 * wrapping `pool.query`, independently of the example's own bookkeeping. A second connection
 * (`admin`) plays the operator: it holds table locks, watches pg_stat_activity and terminates
 * the example's connections with pg_terminate_backend while a request waits on one.
 */
import { execFile, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import { parse } from 'graphql';
import pg from 'pg';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer, execute } from '../src/index.ts';
import type { GraphQLServer } from '../src/index.ts';
import { createDemoContext, createDemoData, demoSchema } from '../src/demo/librarySchema.ts';
import { generatedLibrary } from '../examples/postgres/database.ts';
import { createPostgresExample } from '../examples/postgres/example.ts';
import type { PostgresExample } from '../examples/postgres/example.ts';

const DATABASE_URL = process.env.DATABASE_URL;
const HAVE_DATABASE = DATABASE_URL !== undefined && DATABASE_URL !== '';
if (!HAVE_DATABASE) {
  console.warn(
    'example-postgres.test.ts: the tests against PostgreSQL are skipped: DATABASE_URL is not set (e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/test).',
  );
}

const ROOT = new URL('..', import.meta.url);
/** This run's schemas all start with it. */
const RUN = `gqlx_${process.pid}_${randomUUID().slice(0, 8)}`;
/** How long anything that must happen soon may take before the test fails instead of hanging. */
const DEADLINE_MS = 10_000;

const UNAVAILABLE = 'The database is unavailable; try again shortly.';

interface Response {
  status: number;
  body: unknown;
}

async function post(server: GraphQLServer, query: string): Promise<Response> {
  const { port } = server.address() as AddressInfo;
  const response = await fetch(`http://127.0.0.1:${port}/graphql`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json' },
    body: JSON.stringify({ query }),
    signal: AbortSignal.timeout(DEADLINE_MS),
  });
  return { status: response.status, body: await response.json() };
}

async function listening(example: PostgresExample): Promise<GraphQLServer> {
  const server = createServer({ schema: example.schema, context: () => example.contextFor(), production: false });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

/** A port nothing listens on: one the system just gave out and took back. */
async function closedPort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as AddressInfo;
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

interface Statement {
  text: string;
  values: unknown[] | undefined;
}

/** Every statement sent through `pool.query` from now on. */
function recordStatements(pool: pg.Pool): Statement[] {
  const statements: Statement[] = [];
  const original = pool.query;
  pool.query = function (this: pg.Pool, ...args: unknown[]) {
    const [config, values] = args as [string | { text: string }, unknown[] | undefined];
    statements.push({ text: typeof config === 'string' ? config : config.text, values });
    return (original as (...rest: unknown[]) => unknown).apply(this, args);
  } as typeof pool.query;
  return statements;
}

/** Runs examples/postgres/main.ts in a fresh node, with only the environment given (and PATH). */
function runMain(env: Record<string, string>): Promise<{ code: number | null; stdout: string; stderr: string; ms: number }> {
  const started = performance.now();
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', 'examples/postgres/main.ts'],
      { cwd: ROOT, env: { PATH: process.env.PATH ?? '', ...env }, timeout: DEADLINE_MS },
      (error, stdout, stderr) => {
        const code = error === null ? 0 : typeof error.code === 'number' ? error.code : null;
        resolve({ code, stdout, stderr, ms: performance.now() - started });
      },
    );
  });
}

const NESTED = '{ authors { name books { title reviews { stars } } } }';

describe('the PostgreSQL example without a usable database', () => {
  const examples: PostgresExample[] = [];
  const servers: GraphQLServer[] = [];
  afterAll(async () => {
    await Promise.all(servers.map((server) => server.shutdown()));
    await Promise.all(examples.map((example) => example.close()));
  });

  /** An example (and its server) whose every statement fails to connect; failures logged to `logged`. */
  async function unreachable(url: string, logged: string[]) {
    const example = createPostgresExample({ connectionString: url, connectionTimeoutMillis: 500, log: (message) => logged.push(message) });
    examples.push(example);
    const server = await listening(example);
    servers.push(server);
    return { example, server };
  }

  const expectedFailure = {
    errors: [{ message: UNAVAILABLE, locations: [{ line: 1, column: 3 }], path: ['authors'], extensions: { code: 'DATABASE_UNAVAILABLE' } }],
    data: null,
    extensions: { cost: { requested: 111, actual: 1, limit: 1000 } },
  };

  it('answers DATABASE_UNAVAILABLE at once when the port refuses connections, and logs the cause', async () => {
    const logged: string[] = [];
    const { server } = await unreachable(`postgres://postgres@127.0.0.1:${await closedPort()}/test`, logged);
    const started = performance.now();
    const response = await post(server, NESTED);
    // Refused at once, not after the connection timeout: a generous bound, for a loaded machine.
    expect(performance.now() - started).toBeLessThan(5000);
    expect(response.status).toBe(200);
    expect(response.body).toEqual(expectedFailure);
    expect(logged).toEqual(['A statement failed because of the database']);
  });

  it('answers DATABASE_UNAVAILABLE after connectionTimeoutMillis when the server accepts and never speaks', async () => {
    const sockets = new Set<net.Socket>();
    const silent = net.createServer((socket) => sockets.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    try {
      const logged: string[] = [];
      const { server } = await unreachable(`postgres://postgres@127.0.0.1:${(silent.address() as AddressInfo).port}/test`, logged);
      const started = performance.now();
      const response = await post(server, NESTED);
      const elapsed = performance.now() - started;
      // It waited for the connection timeout (500 ms), and no longer than a loaded machine needs.
      expect(elapsed).toBeGreaterThanOrEqual(450);
      expect(elapsed).toBeLessThan(10_000);
      expect(response.status).toBe(200);
      expect(response.body).toEqual(expectedFailure);
      expect(logged).toEqual(['A statement failed because of the database']);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('npm run example:postgres without DATABASE_URL: says how to set it, exit code 2', async () => {
    const run = await runMain({});
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      'DATABASE_URL is not set: set it to a PostgreSQL database, e.g. DATABASE_URL=postgres://postgres@127.0.0.1:5432/test npm run example:postgres\n',
    );
  });

  it('npm run example:postgres with a DATABASE_URL that is not a postgres:// URL: exit code 2', async () => {
    const run = await runMain({ DATABASE_URL: 'mysql://root@127.0.0.1/test' });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('DATABASE_URL must be a postgres:// URL such as postgres://postgres@127.0.0.1:5432/test, got a mysql:// URL.\n');
  });

  it('npm run example:postgres with a DATABASE_URL at a closed port: names it (password hidden) and the cause, exit code 2', async () => {
    const port = await closedPort();
    const run = await runMain({ DATABASE_URL: `postgres://postgres:secret@127.0.0.1:${port}/test` });
    expect(run.code).toBe(2);
    expect(run.stdout).toBe('');
    expect(run.stderr).toBe(
      `Cannot use the PostgreSQL database at postgres://postgres:***@127.0.0.1:${port}/test: connect ECONNREFUSED 127.0.0.1:${port}. ` +
        'Is it running, and is DATABASE_URL right?\n',
    );
  });
});

describe.skipIf(!HAVE_DATABASE)(
  HAVE_DATABASE ? 'the PostgreSQL example against the database at DATABASE_URL' : 'the PostgreSQL example (skipped: DATABASE_URL is not set)',
  () => {
    const url = DATABASE_URL as string;
    const logged: Array<{ message: string; error: unknown }> = [];
    const log = (message: string, error: unknown) => logged.push({ message, error });
    let admin: pg.Client;
    /** The demo's rows: 3 authors, 5 books, 1 review. */
    let small: PostgresExample;
    /** 300 authors, 600 books, 1,200 reviews. */
    let large: PostgresExample;
    let smallServer: GraphQLServer;
    let largeServer: GraphQLServer;
    let smallStatements: Statement[];
    let largeStatements: Statement[];

    beforeAll(async () => {
      admin = new pg.Client({ connectionString: url, application_name: `${RUN}_admin` });
      await admin.connect();
      small = createPostgresExample({ connectionString: url, schemaName: `${RUN}_small`, log });
      large = createPostgresExample({ connectionString: url, schemaName: `${RUN}_large`, log });
      expect(await small.seed()).toBe(true);
      expect(await large.seed(generatedLibrary({ authors: 300, booksPerAuthor: 2, reviewsPerBook: 2 }))).toBe(true);
      smallStatements = recordStatements(small.pool);
      largeStatements = recordStatements(large.pool);
      smallServer = await listening(small);
      largeServer = await listening(large);
    });

    afterAll(async () => {
      await Promise.all([smallServer?.shutdown(), largeServer?.shutdown()]);
      await Promise.all([small?.close(), large?.close()]);
      if (admin !== undefined) {
        await admin.query(`DROP SCHEMA IF EXISTS "${RUN}_small" CASCADE`);
        await admin.query(`DROP SCHEMA IF EXISTS "${RUN}_large" CASCADE`);
        await admin.query(`DROP SCHEMA IF EXISTS "${RUN}_main" CASCADE`);
        await admin.end();
      }
    });

    beforeEach(() => {
      smallStatements.length = 0;
      largeStatements.length = 0;
      logged.length = 0;
    });

    /** Terminates every connection of the example's pool; answers how many there were. */
    async function terminateConnections(example: PostgresExample): Promise<number> {
      const { rows } = await admin.query(
        'SELECT count(*)::integer AS n FROM (SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = $1) AS terminated',
        [example.applicationName],
      );
      return rows[0].n as number;
    }

    /** Resolves once one of the example's statements waits for a lock. */
    async function waitingForLock(example: PostgresExample): Promise<void> {
      const deadline = performance.now() + DEADLINE_MS;
      while (performance.now() < deadline) {
        const { rows } = await admin.query(
          "SELECT count(*)::integer AS n FROM pg_stat_activity WHERE application_name = $1 AND wait_event_type = 'Lock'",
          [example.applicationName],
        );
        if (rows[0].n > 0) return;
        await sleep(10);
      }
      throw new Error('No statement of the example came to wait for the lock.');
    }

    /** Runs `during` while a transaction of another connection holds an exclusive lock on `table`. */
    async function withTableLocked<T>(example: PostgresExample, table: string, during: () => Promise<T>): Promise<T> {
      const locker = new pg.Client({ connectionString: url, application_name: `${RUN}_locker` });
      await locker.connect();
      try {
        await locker.query('BEGIN');
        await locker.query(`LOCK TABLE "${example.schemaName}".${table} IN ACCESS EXCLUSIVE MODE`);
        return await during();
      } finally {
        await locker.query('ROLLBACK');
        await locker.end();
      }
    }

    const statementsFor = (schema: string) => ({
      authors: `SELECT id, name, born::text AS born, email FROM "${schema}".authors ORDER BY id`,
      authorsById: `SELECT id, name, born::text AS born, email FROM "${schema}".authors WHERE id = ANY($1)`,
      booksByAuthor: `SELECT id, title, genre, published::text AS published, author_id AS "authorId" FROM "${schema}".books WHERE author_id = ANY($1) ORDER BY id`,
      reviewsByBook: `SELECT id, book_id AS "bookId", stars, text FROM "${schema}".reviews WHERE book_id = ANY($1) ORDER BY id`,
    });

    it('serves the nested demo query over HTTP, exactly as the in-memory demo answers it, in one statement per level and loader', async () => {
      const query = '{ authors { name born books { title genre published averageStars reviews { stars text } author { name } } } }';
      const response = await post(smallServer, query);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        data: {
          authors: [
            {
              name: 'Ursula K. Le Guin',
              born: '1929-10-21',
              books: [
                { title: 'The Dispossessed', genre: 'FICTION', published: '1974-05-01', averageStars: null, reviews: [], author: { name: 'Ursula K. Le Guin' } },
                { title: 'The Left Hand of Darkness', genre: 'FICTION', published: '1969-03-01', averageStars: null, reviews: [], author: { name: 'Ursula K. Le Guin' } },
              ],
            },
            {
              name: 'Carl Sagan',
              born: '1934-11-09',
              books: [
                {
                  title: 'Cosmos',
                  genre: 'SCIENCE',
                  published: '1980-09-01',
                  averageStars: 5,
                  reviews: [{ stars: 5, text: 'Wonder, explained.' }],
                  author: { name: 'Carl Sagan' },
                },
                { title: 'Pale Blue Dot', genre: 'SCIENCE', published: '1994-09-01', averageStars: null, reviews: [], author: { name: 'Carl Sagan' } },
              ],
            },
            {
              name: 'Mary Beard',
              born: '1955-01-01',
              books: [{ title: 'SPQR', genre: 'HISTORY', published: '2015-10-20', averageStars: null, reviews: [], author: { name: 'Mary Beard' } }],
            },
          ],
        },
        extensions: { cost: { requested: 211, actual: 14, limit: 1000 } },
      });
      const demo = await execute({ schema: demoSchema, document: parse(query), contextValue: createDemoContext(createDemoData()) });
      expect((response.body as { data: unknown }).data).toEqual(demo.data);

      // Level 1 the authors; level 2 their books, one statement for all; level 3 the books'
      // reviews (averageStars and reviews share the loader) and their authors, one statement each.
      const sql = statementsFor(small.schemaName);
      expect(smallStatements).toEqual([
        { text: sql.authors, values: undefined },
        { text: sql.booksByAuthor, values: [['a1', 'a2', 'a3']] },
        { text: sql.reviewsByBook, values: [['b1', 'b2', 'b3', 'b4', 'b5']] },
        { text: sql.authorsById, values: [['a1', 'a2', 'a3']] },
      ]);
    });

    it('sends the same three statements for 3 authors as for 300 (600 books, 1,200 reviews): each level one = ANY($1)', async () => {
      const smallCount = small.queryCount;
      const smallResponse = await post(smallServer, NESTED);
      expect(smallResponse.status).toBe(200);
      const sql = statementsFor(small.schemaName);
      expect(smallStatements.map((statement) => statement.text)).toEqual([sql.authors, sql.booksByAuthor, sql.reviewsByBook]);
      expect(small.queryCount - smallCount).toBe(3);

      const largeCount = large.queryCount;
      const largeResponse = await post(largeServer, NESTED);
      expect(largeResponse.status).toBe(200);
      const authors = (largeResponse.body as { data: { authors: Array<{ books: Array<{ reviews: unknown[] }> }> } }).data.authors;
      expect(authors).toHaveLength(300);
      expect(authors.flatMap((author) => author.books)).toHaveLength(600);
      expect(authors.flatMap((author) => author.books.flatMap((book) => book.reviews))).toHaveLength(1200);
      const largeSql = statementsFor(large.schemaName);
      expect(largeStatements.map((statement) => statement.text)).toEqual([largeSql.authors, largeSql.booksByAuthor, largeSql.reviewsByBook]);
      expect(large.queryCount - largeCount).toBe(3);
      // Each relation statement takes the whole level's keys at once.
      expect(smallStatements.slice(1).map((statement) => statement.values)).toEqual([[['a1', 'a2', 'a3']], [['b1', 'b2', 'b3', 'b4', 'b5']]]);
      expect(largeStatements[1]?.values?.[0]).toHaveLength(300);
      expect(largeStatements[2]?.values?.[0]).toHaveLength(600);
    });

    it('counts the statements of each request in its own context', async () => {
      const context = small.contextFor();
      const result = await execute({ schema: small.schema, document: parse(NESTED), contextValue: context });
      expect(result.errors).toBeUndefined();
      expect(context.queries).toHaveLength(3);
      expect(smallStatements).toHaveLength(3);
    });

    it('seeding is idempotent: a second seed inserts nothing', async () => {
      expect(await small.seed()).toBe(false);
      const { rows } = await admin.query(
        `SELECT (SELECT count(*) FROM "${small.schemaName}".authors)::integer AS authors, (SELECT count(*) FROM "${small.schemaName}".books)::integer AS books`,
      );
      expect(rows[0]).toEqual({ authors: 3, books: 5 });
    });

    it('a connection terminated while its statement runs: DATABASE_UNAVAILABLE with a plain message, the cause logged, and the next request succeeds', async () => {
      // Warm the pool, so that idle connections are terminated along with the busy one.
      await post(smallServer, NESTED);
      logged.length = 0;
      const started = performance.now();
      const response = await withTableLocked(small, 'reviews', async () => {
        const pending = post(smallServer, NESTED);
        await waitingForLock(small);
        expect(await terminateConnections(small)).toBeGreaterThanOrEqual(1);
        return pending;
      });
      // Well before the statement timeout (5 s): the answer came from the termination.
      expect(performance.now() - started).toBeLessThan(3000);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        errors: [
          {
            message: UNAVAILABLE,
            locations: [{ line: 1, column: 32 }],
            path: ['authors', 0, 'books', 0, 'reviews'],
            extensions: { code: 'DATABASE_UNAVAILABLE' },
          },
        ],
        data: null,
        extensions: { cost: { requested: 111, actual: 9, limit: 1000 } },
      });
      const failure = logged.find((entry) => entry.message === 'A statement failed because of the database');
      expect((failure?.error as { code?: string } | undefined)?.code).toBe('57P01');

      const next = await post(smallServer, NESTED);
      expect(next.status).toBe(200);
      expect((next.body as { errors?: unknown }).errors).toBeUndefined();
      expect((next.body as { data: { authors: unknown[] } }).data.authors).toHaveLength(3);
    });

    it('idle connections terminated by the server are logged, the process goes on, and the pool opens new ones', async () => {
      await Promise.all([post(smallServer, NESTED), post(smallServer, NESTED)]);
      expect(small.pool.idleCount).toBeGreaterThanOrEqual(1);
      const idle = small.pool.idleCount;
      expect(await terminateConnections(small)).toBe(idle);
      const deadline = performance.now() + DEADLINE_MS;
      while (small.pool.totalCount > 0 && performance.now() < deadline) await sleep(10);
      expect(small.pool.totalCount).toBe(0);
      expect(logged.map((entry) => entry.message)).toEqual(
        Array.from({ length: idle }, () => 'PostgreSQL closed an idle connection; the pool opens a new one when it needs one'),
      );
      expect(logged.every((entry) => (entry.error as { code?: string }).code === '57P01')).toBe(true);

      const next = await post(smallServer, NESTED);
      expect(next.status).toBe(200);
      expect((next.body as { errors?: unknown }).errors).toBeUndefined();
    });

    it('a statement past the statement timeout (here waiting on a lock): DATABASE_TIMEOUT, and the next request succeeds', async () => {
      const impatient = createPostgresExample({
        connectionString: url,
        schemaName: small.schemaName,
        applicationName: `${RUN}_impatient`,
        statementTimeoutMillis: 300,
        log,
      });
      const server = await listening(impatient);
      try {
        const started = performance.now();
        const response = await withTableLocked(impatient, 'books', () => post(server, NESTED));
        const elapsed = performance.now() - started;
        expect(elapsed).toBeGreaterThanOrEqual(280);
        expect(elapsed).toBeLessThan(3000);
        expect(response.status).toBe(200);
        expect(response.body).toEqual({
          errors: [
            {
              message: 'The database took too long to answer; try again shortly.',
              locations: [{ line: 1, column: 18 }],
              path: ['authors', 0, 'books'],
              extensions: { code: 'DATABASE_TIMEOUT' },
            },
          ],
          data: null,
          extensions: { cost: { requested: 111, actual: 4, limit: 1000 } },
        });
        expect((logged[0]?.error as { code?: string } | undefined)?.code).toBe('57014');
        const next = await post(server, NESTED);
        expect((next.body as { errors?: unknown }).errors).toBeUndefined();
      } finally {
        await server.shutdown();
        await impatient.close();
      }
    });

    it('npm run example:postgres: creates and seeds its schema, serves /graphql, and stops on SIGTERM with exit code 0', async () => {
      const child = spawn(process.execPath, ['--import', 'tsx', 'examples/postgres/main.ts'], {
        cwd: ROOT,
        env: { PATH: process.env.PATH ?? '', DATABASE_URL: url, DATABASE_SCHEMA: `${RUN}_main`, PORT: '0' },
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let stdout = '';
      let stderr = '';
      child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
      child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
      try {
        const deadline = performance.now() + DEADLINE_MS;
        let address: RegExpMatchArray | null = null;
        // The server's ready line (a JSON log line) names the URL.
        while ((address = /listening on (http:\/\/127\.0\.0\.1:\d+\/graphql)"/.exec(stdout)) === null && performance.now() < deadline) await sleep(20);
        expect(stderr).toBe('');
        expect(address).not.toBeNull();
        const response = await fetch((address as RegExpMatchArray)[1] as string, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-api-key': 'demo-admin' },
          body: JSON.stringify({ query: '{ author(id: "a3") { name email books { title } } }' }),
          signal: AbortSignal.timeout(DEADLINE_MS),
        });
        expect(response.status).toBe(200);
        expect(await response.json()).toEqual({
          data: { author: { name: 'Mary Beard', email: 'mary@example.org', books: [{ title: 'SPQR' }] } },
          extensions: { cost: { requested: 2, actual: 2, limit: 1000 } },
        });
        child.kill('SIGTERM');
        expect(await exited).toBe(0);
        const shownUrl = new URL(url);
        if (shownUrl.password !== '') shownUrl.password = '***';
        // The ready line is written asynchronously (the logger's): its place among the others may vary.
        const lines = stdout.split('\n');
        expect(lines.filter((line) => line.startsWith('{'))).toEqual([
          JSON.stringify({ time: JSON.parse(lines.find((line) => line.startsWith('{')) ?? '{}').time, level: 'info', msg: `graphql-glassbox listening on ${(address as RegExpMatchArray)[1]}` }),
        ]);
        expect(lines.filter((line) => !line.startsWith('{')).join('\n')).toBe(
          `Created and seeded the tables in schema ${RUN}_main of ${shownUrl.href}.\n` +
            'Demo API keys (X-API-Key): demo-reader, demo-editor, demo-admin (Author.email is for demo-admin).\n' +
            'SIGTERM: finishing in-flight requests, then stopping.\n',
        );
      } finally {
        if (child.exitCode === null) child.kill('SIGKILL');
      }
    });
  },
);
