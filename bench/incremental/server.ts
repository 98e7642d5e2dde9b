/**
 * One server of `npm run bench:incremental`'s HTTP part, named by its argument: `ours`
 * (createServer) or `yoga` (GraphQL Yoga 5 with `@graphql-yoga/plugin-defer-stream`, as its
 * documentation sets it up), over the executor benchmark's schema with ten authors of ten books
 * each and synchronous resolvers. Prints its port, and exits when stdin closes (../http/servers/serve.ts).
 */
import '../production-mode.ts';
import http from 'node:http';
import { createYoga } from 'graphql-yoga';
import { useDeferStream } from '@graphql-yoga/plugin-defer-stream';
import { createServer, makeSchema } from '../../src/index.ts';
import { createBenchSchema, createDb, typeDefs } from '../schema.ts';
import type { AuthorRecord, BenchContext, BookRecord } from '../schema.ts';
import { announce, listen } from '../http/servers/serve.ts';

const db = createDb({ authorCount: 10, booksPerAuthor: 10 });
const which = process.argv[2];

if (which === 'ours') {
  const schema = makeSchema({
    typeDefs,
    incremental: true,
    resolvers: {
      Query: { hello: () => 'world', authors: (_root: unknown, _args: unknown, { db: data }: BenchContext) => data.authors },
      Author: { books: (author: AuthorRecord, _args: unknown, { db: data }: BenchContext) => data.booksByAuthorId.get(author.id) },
      Book: { author: (book: BookRecord, _args: unknown, { db: data }: BenchContext) => data.authorsById.get(book.authorId) },
    },
  });
  const server = createServer({ schema, context: () => ({ db }), reportCost: false, logLevel: 'silent' });
  await listen(server);
  announce(server);
} else if (which === 'yoga') {
  const yoga = createYoga({ schema: createBenchSchema('sync'), context: () => ({ db }), plugins: [useDeferStream()], logging: false, graphiql: false });
  const server = http.createServer(yoga);
  await listen(server);
  announce(server);
} else {
  throw new TypeError(`bench/incremental/server.ts takes ours or yoga, not ${String(which)}.`);
}
