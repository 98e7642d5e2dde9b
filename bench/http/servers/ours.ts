/**
 * Our server, as a user would start it: `createServer` over the executor benchmark's schema,
 * data and synchronous resolvers, with a context factory. The cost report is turned off so that
 * the body is the same JSON the other servers send; production mode follows NODE_ENV, which
 * the benchmark sets to "production".
 *
 * With a credentials file as its argument (see credentials.ts), it also authenticates: JWT
 * bearer tokens verified with the file's RSA public key, and the file's API key.
 */
import '../../production-mode.ts';
import { apiKeyAuth, createServer, jwtAuth } from '../../../src/index.ts';
import { createBenchSchema, createDb } from '../../schema.ts';
import { readCredentials } from '../credentials.ts';
import { GRAPHQL_PATH } from '../scenarios.ts';
import { announce, listen } from './serve.ts';

const credentials = process.argv[2] === undefined ? null : readCredentials(process.argv[2]);
const db = createDb();
const server = createServer({
  schema: createBenchSchema('sync'),
  path: GRAPHQL_PATH,
  context: () => ({ db }),
  reportCost: false,
  authenticate:
    credentials === null
      ? []
      : [
          jwtAuth({ publicKey: credentials.publicKeyPem, issuer: credentials.issuer, audience: credentials.audience }),
          apiKeyAuth({ keys: [{ id: 'bench', hash: credentials.apiKeyHash, roles: ['reader'] }] }),
        ],
});
await listen(server);
announce(server);
