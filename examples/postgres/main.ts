/**
 * `npm run example:postgres`: the demo library served from PostgreSQL at
 * http://localhost:4001/graphql.
 *
 *   DATABASE_URL     the database (required), e.g. postgres://postgres@127.0.0.1:5432/test
 *   DATABASE_SCHEMA  the PostgreSQL schema its tables live in (default graphql_engine_example)
 *   PORT, HOST       where to listen (default 4001 on 127.0.0.1)
 *   and the security settings of `npm start` (src/demo/config.ts): the demo API keys, JWTs, ...
 *
 * Start-up checks everything it can before listening (the settings, then the database, by
 * creating and seeding the tables), so a setting it cannot use stops it at once with exit
 * code 2 and a message naming it, rather than at the first request. SIGINT and SIGTERM finish
 * the requests in flight, then end the pool.
 */
import { createServer } from '../../src/index.ts';
import type { GraphQLServer } from '../../src/index.ts';
import { demoSecurity } from '../../src/demo/config.ts';
import type { DemoSecurity } from '../../src/demo/config.ts';
import { DEFAULT_SCHEMA_NAME, describeDatabaseError } from './database.ts';
import { createPostgresExample } from './example.ts';
import type { PostgresExample } from './example.ts';

function stop(message: string): never {
  console.error(message);
  process.exit(2);
}

/** The URL as it may be shown: without its password. */
function shown(url: URL): string {
  const copy = new URL(url.href);
  if (copy.password !== '') copy.password = '***';
  return copy.href;
}

const EXAMPLE_URL = 'postgres://postgres@127.0.0.1:5432/test';
const rawUrl = process.env.DATABASE_URL ?? '';
if (rawUrl.trim() === '') {
  stop(`DATABASE_URL is not set: set it to a PostgreSQL database, e.g. DATABASE_URL=${EXAMPLE_URL} npm run example:postgres`);
}
let databaseUrl: URL;
try {
  databaseUrl = new URL(rawUrl);
} catch {
  stop(`DATABASE_URL must be a postgres:// URL such as ${EXAMPLE_URL}, got something that is not a URL.`);
}
if (databaseUrl.protocol !== 'postgres:' && databaseUrl.protocol !== 'postgresql:') {
  stop(`DATABASE_URL must be a postgres:// URL such as ${EXAMPLE_URL}, got a ${databaseUrl.protocol}// URL.`);
}

const port = Number(process.env.PORT ?? 4001);
const host = process.env.HOST ?? '127.0.0.1';
if (process.env.PORT?.trim() === '' || !Number.isInteger(port) || port < 0 || port > 65535) {
  stop(`PORT must be a port number from 0 to 65535, got "${process.env.PORT}".`);
}
const schemaName = process.env.DATABASE_SCHEMA || DEFAULT_SCHEMA_NAME;

let security: DemoSecurity;
let example: PostgresExample;
try {
  security = demoSecurity(process.env);
  example = createPostgresExample({ connectionString: rawUrl, schemaName });
} catch (error) {
  stop(error instanceof Error ? error.message : String(error));
}

try {
  const seeded = await example.seed();
  console.log(`${seeded ? 'Created and seeded' : 'Using'} the tables in schema ${schemaName} of ${shown(databaseUrl)}.`);
} catch (error) {
  await example.close().catch(() => undefined);
  stop(`Cannot use the PostgreSQL database at ${shown(databaseUrl)}: ${describeDatabaseError(error)}. Is it running, and is DATABASE_URL right?`);
}

const server: GraphQLServer = createServer({
  schema: example.schema,
  context: () => example.contextFor(),
  ...security,
});

server.on('error', (error: NodeJS.ErrnoException) => {
  console.error(error.code === 'EADDRINUSE' ? `Port ${port} is in use; set PORT to another one.` : error.message);
  void example.close().finally(() => process.exit(1));
});

// The server's logger says where it listens (graphql-glassbox listening on http://…/graphql).
server.listen(port, host, () => {
  if (!security.production) console.log('Demo API keys (X-API-Key): demo-reader, demo-editor, demo-admin (Author.email is for demo-admin).');
});

// Listened to for good, not once: a signal sent to the process group comes again through npm or
// tsx, which forward theirs, and with no listener left it would kill the process mid-shutdown.
let stopping = false;
for (const signal of ['SIGTERM', 'SIGINT'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    console.log(`${signal}: finishing in-flight requests, then stopping.`);
    void server
      .shutdown()
      .then(() => example.close())
      .then(
        () => process.exit(0),
        (error: unknown) => {
          console.error(`Stopping failed: ${describeDatabaseError(error)}`);
          process.exit(1);
        },
      );
  });
}
