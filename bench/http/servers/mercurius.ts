/**
 * The peer: fastify 5 with mercurius 16, as its documentation sets it up, plus `jit: 1` so that
 * graphql-jit compiles each document after its first request. Mercurius keeps its default
 * document cache (parsed and validated documents, by query text). The schema, data and
 * resolvers are the executor benchmark's, with synchronous resolvers.
 */
import '../../production-mode.ts';
import fastify from 'fastify';
import mercurius from 'mercurius';
import { createBenchSchema, createDb } from '../../schema.ts';
import { GRAPHQL_PATH } from '../scenarios.ts';
import { announce } from './serve.ts';

const db = createDb();
const app = fastify({ logger: false });
await app.register(mercurius, {
  schema: createBenchSchema('sync'),
  path: GRAPHQL_PATH,
  jit: 1,
  context: () => ({ db }),
});
await app.listen({ host: '127.0.0.1', port: 0 });
announce(app.server);
