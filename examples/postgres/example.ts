/**
 * `createPostgresExample`: the library schema, a pool, and a context factory wired together, so
 * that main.ts, the test and the benchmark all run exactly the same thing.
 *
 * Every statement goes through one function, which counts it (for the whole example, and for
 * the request whose context sent it), turns a database failure into a coded GraphQL error, and
 * logs the cause. It calls `pool.query` afresh each time, so a test that wraps the pool's method
 * sees every statement too.
 */
import type { GraphQLSchema } from 'graphql';
import type { Pool } from 'pg';
import { BatchLoader } from '../../src/index.ts';
import {
  DEFAULT_SCHEMA_NAME,
  asGraphQLError,
  createAndSeed,
  createPool,
  createStore,
  defaultLog,
  demoLibrary,
  dropSchema,
  quotedSchema,
} from './database.ts';
import type { Library, Log, Run } from './database.ts';
import { createLibraryContext, librarySchema } from './schema.ts';
import type { LibraryContext, LoaderClass } from './schema.ts';

export interface PostgresExampleOptions {
  /** A postgres:// URL (DATABASE_URL). */
  connectionString: string;
  /** The PostgreSQL schema the tables live in (default graphql_engine_example). */
  schemaName?: string;
  /** Connections at most (default 10). */
  poolSize?: number;
  /** Longest wait for a connection (default 3000 ms). */
  connectionTimeoutMillis?: number;
  /** Longest a statement may run, lock waits included (default 5000 ms). */
  statementTimeoutMillis?: number;
  /** How the pool's connections are named in pg_stat_activity (default graphql-glassbox-example:<schema>). */
  applicationName?: string;
  /** Where database failures are reported in full (default: stderr). */
  log?: Log;
}

/** A request's context, with the statements it sent, in order. */
export interface ExampleContext extends LibraryContext {
  readonly queries: string[];
}

export interface PostgresExample {
  readonly schema: GraphQLSchema;
  readonly pool: Pool;
  readonly schemaName: string;
  readonly applicationName: string;
  /** Statements sent by requests' contexts since the example was made (set-up and seeding excluded). */
  readonly queryCount: number;
  /** A context for one request; the loader class is for the benchmark's comparisons (default our BatchLoader). */
  contextFor(options?: { Loader?: LoaderClass }): ExampleContext;
  /** Creates the schema and tables if needed and inserts `library` (default the demo's rows) if they are empty; whether it inserted. */
  seed(library?: Library): Promise<boolean>;
  /** Drops the schema and everything in it. */
  dropSchema(): Promise<void>;
  /** Ends the pool: waits for checked-out connections, then closes them all. */
  close(): Promise<void>;
}

export function createPostgresExample(options: PostgresExampleOptions): PostgresExample {
  const schemaName = options.schemaName ?? DEFAULT_SCHEMA_NAME;
  quotedSchema(schemaName);
  const applicationName = options.applicationName ?? `graphql-glassbox-example:${schemaName}`;
  const log = options.log ?? defaultLog;
  const pool = createPool({
    connectionString: options.connectionString,
    max: options.poolSize,
    connectionTimeoutMillis: options.connectionTimeoutMillis,
    statementTimeoutMillis: options.statementTimeoutMillis,
    applicationName,
    log,
  });
  let queryCount = 0;
  let closed: Promise<void> | null = null;

  const run: Run = async (text, values) => {
    queryCount++;
    try {
      return (await pool.query(text, values)).rows;
    } catch (error) {
      const translated = asGraphQLError(error);
      if (translated !== error) log('A statement failed because of the database', error);
      throw translated;
    }
  };

  return {
    schema: librarySchema,
    pool,
    schemaName,
    applicationName,
    get queryCount() {
      return queryCount;
    },
    contextFor({ Loader = BatchLoader } = {}) {
      const queries: string[] = [];
      const store = createStore((text, values) => {
        queries.push(text);
        return run(text, values);
      }, schemaName);
      return { ...createLibraryContext(store, Loader), queries };
    },
    seed: (library = demoLibrary()) => createAndSeed(pool, schemaName, library, log),
    dropSchema: () => dropSchema(pool, schemaName),
    close: () => (closed ??= pool.end()),
  };
}
