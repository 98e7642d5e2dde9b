/**
 * The example's PostgreSQL side: the pool, the tables, the seed data, the SQL the resolvers
 * send, and what a failed statement becomes for a GraphQL client.
 *
 * Why it is shaped so:
 *  - No wait is unbounded (connecting, a statement, reading its answer), because a GraphQL
 *    server must answer every request even when its database has gone away.
 *  - An idle connection the server closes is logged, not thrown: pg reports it as an `error`
 *    event on the pool, and an `error` event nobody listens to ends a Node process.
 *  - A database that is gone or too slow reaches the client as a GraphQLError with a stable code
 *    (DATABASE_UNAVAILABLE, DATABASE_TIMEOUT) and a plain message; the driver's own error, which
 *    may name hosts and internals, goes to the log only.
 *  - The tables live in a schema of their own, named in every statement, so the example can
 *    share a database (CI's `test`) with anything else and nothing depends on `search_path`.
 *  - Every keyed read takes all its keys at once (`= ANY($1)`) and answers one entry per key, in
 *    key order: the shape both our BatchLoader and DataLoader accept, so the benchmark can put
 *    either (or neither) in front of the same SQL.
 */
import pg from 'pg';
import type { Pool, PoolClient } from 'pg';
import { GraphQLError } from 'graphql';
import { createDemoData } from '../../src/demo/librarySchema.ts';
import type { DemoData } from '../../src/demo/librarySchema.ts';

/** Rows as the demo's in-memory store holds them, so that both serve identical answers. */
export type AuthorRow = DemoData['authors'][number];
export type BookRow = DemoData['books'][number];
export type ReviewRow = DemoData['reviews'][number];

export interface Library {
  authors: readonly AuthorRow[];
  books: readonly BookRow[];
  reviews: readonly ReviewRow[];
}

/** The codes a client sees when the database, not the request, is the problem. */
export const DatabaseErrorCode = {
  /** The connection could not be made, or was lost: trying again later may work. */
  Unavailable: 'DATABASE_UNAVAILABLE',
  /** A statement ran past the statement timeout (or its answer past the read timeout). */
  Timeout: 'DATABASE_TIMEOUT',
} as const;

export const DEFAULT_SCHEMA_NAME = 'graphql_engine_example';

/** Where problems the client is not told the details of are reported. */
export type Log = (message: string, error: unknown) => void;

export const defaultLog: Log = (message, error) => console.error(`${message}: ${describeDatabaseError(error)}`);

export interface PoolOptions {
  connectionString: string;
  /** Connections at most (default 10). */
  max?: number;
  /** Longest wait for a connection, new or from the pool (default 3000 ms). */
  connectionTimeoutMillis?: number;
  /** Longest a statement may run, lock waits included, enforced by the server (default 5000 ms). */
  statementTimeoutMillis?: number;
  /** Shown in pg_stat_activity: how an operator (or a test) finds this pool's connections. */
  applicationName: string;
  log: Log;
}

export function createPool(options: PoolOptions): Pool {
  const statementTimeout = options.statementTimeoutMillis ?? 5000;
  const pool = new pg.Pool({
    connectionString: options.connectionString,
    max: options.max ?? 10,
    connectionTimeoutMillis: options.connectionTimeoutMillis ?? 3000,
    statement_timeout: statementTimeout,
    // The server enforces statement_timeout only while it can still talk; a connection that
    // silently stopped answering (a dead host, a dropped route) is bounded here instead.
    query_timeout: statementTimeout + 1000,
    application_name: options.applicationName,
    idleTimeoutMillis: 30_000,
    keepAlive: true,
  });
  pool.on('error', (error) => options.log('PostgreSQL closed an idle connection; the pool opens a new one when it needs one', error));
  return pool;
}

const SCHEMA_NAME = /^[a-z_][a-z0-9_]{0,62}$/;

/** The schema's name as an SQL identifier; only plain lower-case names, so quoting cannot be escaped. */
export function quotedSchema(schemaName: string): string {
  if (typeof schemaName !== 'string' || !SCHEMA_NAME.test(schemaName)) {
    throw new TypeError(
      `The PostgreSQL schema name must be 1 to 63 lower-case letters, digits and underscores, not starting with a digit, got ${JSON.stringify(schemaName)}.`,
    );
  }
  return `"${schemaName}"`;
}

/**
 * Sends one statement and answers its rows. The example's implementation counts, translates
 * failures and logs them; a request's context adds its own count on top.
 */
export type Run = (text: string, values?: unknown[]) => Promise<Array<Record<string, unknown>>>;

/** A failed statement as the client should see it: a coded GraphQLError when the database is the cause, else unchanged. */
export function asGraphQLError(error: unknown): unknown {
  const kind = classify(error);
  if (kind === 'unavailable') {
    return new GraphQLError('The database is unavailable; try again shortly.', { extensions: { code: DatabaseErrorCode.Unavailable } });
  }
  if (kind === 'timeout') {
    return new GraphQLError('The database took too long to answer; try again shortly.', { extensions: { code: DatabaseErrorCode.Timeout } });
  }
  return error;
}

/** SQLSTATEs of a lost or refused connection (class 08 is added below). */
const UNAVAILABLE_STATES = new Set(['57P01', '57P02', '57P03', '53300', '3D000']);
const UNAVAILABLE_SYSTEM_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN', 'EPIPE']);
/** What pg says, without a code, when a connection ends or cannot be had in time. */
const UNAVAILABLE_MESSAGES = [
  /^Connection terminated/,
  /^timeout exceeded when trying to connect/,
  /not queryable/,
  /^Cannot use a pool after calling end/,
];

function classify(error: unknown): 'unavailable' | 'timeout' | null {
  if (typeof error !== 'object' || error === null) return null;
  const { code, message } = error as { code?: unknown; message?: unknown };
  if (code === '57014' || message === 'Query read timeout') return 'timeout';
  if (typeof code === 'string' && (UNAVAILABLE_STATES.has(code) || code.startsWith('08') || UNAVAILABLE_SYSTEM_CODES.has(code))) {
    return 'unavailable';
  }
  if (typeof message === 'string' && UNAVAILABLE_MESSAGES.some((pattern) => pattern.test(message))) return 'unavailable';
  // Node reports a host with several addresses, each refused, as one AggregateError.
  if (error instanceof AggregateError && error.errors.some((each) => classify(each) === 'unavailable')) return 'unavailable';
  return null;
}

/** A driver error in one line, for logs and for the example's start-up message. */
export function describeDatabaseError(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const code = (error as { code?: unknown }).code;
  const inner = error instanceof AggregateError ? error.errors.map((each) => describeDatabaseError(each)).join('; ') : '';
  const text = error.message !== '' ? error.message : inner;
  return typeof code === 'string' && !text.includes(code) ? `${text} (${code})` : text;
}

/** Runs `work` in one transaction on one connection; a connection lost meanwhile is logged, not thrown as an event. */
async function inTransaction<T>(pool: Pool, log: Log, work: (client: PoolClient) => Promise<T>): Promise<T> {
  const client = await pool.connect();
  const onError = (error: Error) => log('PostgreSQL closed a connection during a transaction', error);
  client.on('error', onError);
  let failure: Error | undefined;
  try {
    await client.query('BEGIN');
    const result = await work(client);
    await client.query('COMMIT');
    return result;
  } catch (error) {
    failure = error instanceof Error ? error : new Error(String(error));
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.removeListener('error', onError);
    // A connection that failed is not handed out again.
    client.release(failure);
  }
}

/**
 * Creates the schema and its tables unless they exist, then inserts `library` unless the
 * authors table already holds a row; answers whether it inserted. Two processes starting at once
 * are serialized by an advisory lock on the schema's name, so both may call this safely.
 */
export async function createAndSeed(pool: Pool, schemaName: string, library: Library, log: Log): Promise<boolean> {
  const s = quotedSchema(schemaName);
  return inTransaction(pool, log, async (client) => {
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [`graphql-glassbox-example:${schemaName}`]);
    await client.query(`CREATE SCHEMA IF NOT EXISTS ${s}`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.authors (
      id text PRIMARY KEY,
      name text NOT NULL,
      born date,
      email text NOT NULL
    )`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.books (
      id text PRIMARY KEY,
      title text NOT NULL,
      genre text NOT NULL CHECK (genre IN ('f', 's', 'h')),
      published date,
      author_id text NOT NULL REFERENCES ${s}.authors (id)
    )`);
    await client.query(`CREATE INDEX IF NOT EXISTS books_author_id ON ${s}.books (author_id)`);
    await client.query(`CREATE TABLE IF NOT EXISTS ${s}.reviews (
      id text PRIMARY KEY,
      book_id text NOT NULL REFERENCES ${s}.books (id),
      stars integer NOT NULL CHECK (stars BETWEEN 1 AND 5),
      text text
    )`);
    await client.query(`CREATE INDEX IF NOT EXISTS reviews_book_id ON ${s}.reviews (book_id)`);
    const { rows } = await client.query(`SELECT EXISTS (SELECT 1 FROM ${s}.authors) AS seeded`);
    if (rows[0]?.seeded === true) return false;
    // One statement per table, whatever the number of rows: arrays in, rows out through unnest.
    const { authors, books, reviews } = library;
    await client.query(`INSERT INTO ${s}.authors (id, name, born, email) SELECT * FROM unnest($1::text[], $2::text[], $3::date[], $4::text[])`, [
      authors.map((a) => a.id),
      authors.map((a) => a.name),
      authors.map((a) => a.born),
      authors.map((a) => a.email),
    ]);
    await client.query(
      `INSERT INTO ${s}.books (id, title, genre, published, author_id) SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::date[], $5::text[])`,
      [books.map((b) => b.id), books.map((b) => b.title), books.map((b) => b.genre), books.map((b) => b.published), books.map((b) => b.authorId)],
    );
    await client.query(`INSERT INTO ${s}.reviews (id, book_id, stars, text) SELECT * FROM unnest($1::text[], $2::text[], $3::integer[], $4::text[])`, [
      reviews.map((r) => r.id),
      reviews.map((r) => r.bookId),
      reviews.map((r) => r.stars),
      reviews.map((r) => r.text),
    ]);
    return true;
  });
}

export async function dropSchema(pool: Pool, schemaName: string): Promise<void> {
  await pool.query(`DROP SCHEMA IF EXISTS ${quotedSchema(schemaName)} CASCADE`);
}

/** The demo's own rows (src/demo/librarySchema.ts), so the example answers what `npm start` answers. */
export function demoLibrary(): Library {
  const { authors, books, reviews } = createDemoData();
  return { authors, books, reviews };
}

/** A library of any size, the same every time: for measuring how query counts grow (they do not). */
export function generatedLibrary(size: { authors: number; booksPerAuthor: number; reviewsPerBook: number }): Library {
  const authors: AuthorRow[] = [];
  const books: BookRow[] = [];
  const reviews: ReviewRow[] = [];
  const genres = ['f', 's', 'h'] as const;
  const pad = (n: number, width = 4) => String(n).padStart(width, '0');
  const day = (year: number, n: number) => `${year}-${pad((n % 12) + 1, 2)}-${pad((n % 28) + 1, 2)}`;
  for (let a = 1; a <= size.authors; a++) {
    const authorId = `a${pad(a)}`;
    authors.push({ id: authorId, name: `Author ${a}`, born: a % 4 === 0 ? null : day(1900 + (a % 90), a), email: `author${a}@example.org` });
    for (let b = 1; b <= size.booksPerAuthor; b++) {
      const bookId = `b${pad(a)}-${b}`;
      const genre = genres[(a + b) % 3] as BookRow['genre'];
      books.push({ id: bookId, title: `Book ${b} by author ${a}`, genre, published: b % 5 === 0 ? null : day(1950 + ((a + b) % 70), a + b), authorId });
      for (let r = 1; r <= size.reviewsPerBook; r++) {
        reviews.push({ id: `r${pad(a)}-${b}-${r}`, bookId, stars: ((a + b + r) % 5) + 1, text: r % 3 === 0 ? null : `Review ${r} of book ${b} by author ${a}.` });
      }
    }
  }
  return { authors, books, reviews };
}

/** Book lists in the orders the schema's BookSort offers; fixed text, never built from input. */
const BOOK_ORDER = { TITLE: 'title, id', PUBLISHED: 'published NULLS FIRST, id', DEFAULT: 'id' } as const;

export interface BookFilter {
  genre: string | null;
}

export interface BookPageArgs extends BookFilter {
  sort: 'TITLE' | 'PUBLISHED' | null;
  limit: number;
  offset: number;
}

/** Groups rows by a column, one (possibly empty) list per key, in key order. */
function groupedBy<T>(keys: ReadonlyArray<string>, rows: readonly T[], keyOf: (row: T) => string): T[][] {
  const groups = new Map<string, T[]>(keys.map((key) => [key, []]));
  for (const row of rows) groups.get(keyOf(row))?.push(row);
  return keys.map((key) => groups.get(key) as T[]);
}

/** One row (or null) per key, in key order. */
function byId<T extends { id: string }>(keys: ReadonlyArray<string>, rows: readonly T[]): Array<T | null> {
  const found = new Map(rows.map((row) => [row.id, row]));
  return keys.map((key) => found.get(key) ?? null);
}

/**
 * Every statement the resolvers send, each one round trip. Dates are read as text: pg would
 * otherwise make them JavaScript Dates at local midnight, which shifts the day in some zones.
 */
export function createStore(run: Run, schemaName: string) {
  const s = quotedSchema(schemaName);
  const AUTHOR = `SELECT id, name, born::text AS born, email FROM ${s}.authors`;
  const BOOK = `SELECT id, title, genre, published::text AS published, author_id AS "authorId" FROM ${s}.books`;
  const REVIEW = `SELECT id, book_id AS "bookId", stars, text FROM ${s}.reviews`;
  const rows = <T>(text: string, values?: unknown[]) => run(text, values) as Promise<T[]>;
  return {
    allAuthors: () => rows<AuthorRow>(`${AUTHOR} ORDER BY id`),
    authorsById: async (ids: ReadonlyArray<string>) => byId(ids, await rows<AuthorRow>(`${AUTHOR} WHERE id = ANY($1)`, [ids])),
    booksById: async (ids: ReadonlyArray<string>) => byId(ids, await rows<BookRow>(`${BOOK} WHERE id = ANY($1)`, [ids])),
    reviewsById: async (ids: ReadonlyArray<string>) => byId(ids, await rows<ReviewRow>(`${REVIEW} WHERE id = ANY($1)`, [ids])),
    booksByAuthor: async (authorIds: ReadonlyArray<string>) =>
      groupedBy(authorIds, await rows<BookRow>(`${BOOK} WHERE author_id = ANY($1) ORDER BY id`, [authorIds]), (book) => book.authorId),
    reviewsByBook: async (bookIds: ReadonlyArray<string>) =>
      groupedBy(bookIds, await rows<ReviewRow>(`${REVIEW} WHERE book_id = ANY($1) ORDER BY id`, [bookIds]), (review) => review.bookId),
    bookPage: (args: BookPageArgs) =>
      rows<BookRow>(`${BOOK} WHERE ($1::text IS NULL OR genre = $1) ORDER BY ${BOOK_ORDER[args.sort ?? 'DEFAULT']} LIMIT $2 OFFSET $3`, [
        args.genre,
        args.limit,
        args.offset,
      ]),
    bookCount: async (filter: BookFilter) => {
      const [row] = await rows<{ total: number }>(`SELECT count(*)::integer AS total FROM ${s}.books WHERE ($1::text IS NULL OR genre = $1)`, [filter.genre]);
      return row?.total ?? 0;
    },
  };
}

export type Store = ReturnType<typeof createStore>;
