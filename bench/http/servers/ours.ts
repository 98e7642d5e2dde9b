/**
 * Our server, as a user would start it: `createServer` over the executor benchmark's schema,
 * data and synchronous resolvers, with a context factory. The cost report is turned off so that
 * the body is the same JSON the other servers send; production mode follows NODE_ENV, which
 * the benchmark sets to "production".
 */
import '../../production-mode.ts';
import { createServer } from '../../../src/index.ts';
import { createBenchSchema, createDb } from '../../schema.ts';
import { GRAPHQL_PATH } from '../scenarios.ts';
import { announce, listen } from './serve.ts';

const db = createDb();
const server = createServer({
  schema: createBenchSchema('sync'),
  path: GRAPHQL_PATH,
  context: () => ({ db }),
  reportCost: false,
});
await listen(server);
announce(server);
