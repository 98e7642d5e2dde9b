/**
 * CSRF prevention is on by default (security/csrf.ts): real clients, unchanged, still get their
 * answers from a server made with the defaults, over every transport; a request that any web
 * page could send without a preflight (a bare GET, a text/plain POST) is refused without running.
 *
 *  - Apollo Client 4 over HttpLink: POST, and GET (`useGETForQueries`), whose Content-Type
 *    (sent on GETs too) lets it through;
 *  - graphql-http's client, graphql-sse's client (POSTs of JSON), graphql-ws's client (no
 *    Origin from Node: not a browser).
 *
 * Every request the server receives is recorded (method, and whether a preflight header came),
 * so that each test shows which request went through.
 */
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { createClient as createHttpClient } from 'graphql-http';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createServer, makeSchema } from '../src/index.ts';
import type { GraphQLServer } from '../src/index.ts';
import { closeNow, listenOnLoopback } from './support/httpServer.ts';

/** Mutations run: none may run for a refused request. */
let counted = 0;
const schema = makeSchema({
  typeDefs: 'type Query { hello(name: String): String! } type Mutation { count: Int! }',
  resolvers: {
    Query: { hello: (_parent: unknown, args: { name?: string | null }) => `Hello, ${args.name ?? 'world'}!` },
    Mutation: { count: () => ++counted },
  },
});

let server: GraphQLServer;
let url = '';
/** What reached the context factory, which runs only for a request that got through. */
const seen: Array<{ method: string | undefined; contentType: string | undefined }> = [];

beforeAll(async () => {
  // The defaults: no csrfPrevention option.
  server = createServer({
    schema,
    context: (request) => {
      seen.push({ method: request.method, contentType: request.headers['content-type'] });
      return {};
    },
    reportCost: false,
    graphiql: false,
    log: () => undefined,
  });
  url = `http://127.0.0.1:${await listenOnLoopback(server)}/graphql`;
});
afterAll(() => closeNow(server));
beforeEach(() => {
  seen.length = 0;
  counted = 0;
});

const CSRF_REFUSAL = {
  error: {
    code: 'CSRF_PREVENTED',
    message:
      'This request has been blocked as a possible cross-site request forgery: send it with a Content-Type such as application/json, ' +
      'or with a header named x-graphql-csrf, apollo-require-preflight or x-apollo-operation-name.',
  },
};

describe('Apollo Client 4 over HttpLink', () => {
  it.each([
    ['POST', false],
    ['GET (useGETForQueries), with the Content-Type it sends on GETs too', true],
  ])('runs a query over %s', async (_title, useGETForQueries) => {
    const client = new ApolloClient({ link: new HttpLink({ uri: url, useGETForQueries }), cache: new InMemoryCache() });
    const result = await client.query({ query: gql('query Hi { hello(name: "Apollo") }'), fetchPolicy: 'network-only' });
    client.stop();
    expect(result.data).toEqual({ hello: 'Hello, Apollo!' });
    expect(seen).toEqual([{ method: useGETForQueries ? 'GET' : 'POST', contentType: 'application/json' }]);
  });

  it('runs a mutation (always POST)', async () => {
    const client = new ApolloClient({ link: new HttpLink({ uri: url, useGETForQueries: true }), cache: new InMemoryCache() });
    const result = await client.mutate({ mutation: gql('mutation { count }') });
    client.stop();
    expect(result.data).toEqual({ count: 1 });
    expect(seen).toEqual([{ method: 'POST', contentType: 'application/json' }]);
  });
});

describe('graphql-http, graphql-sse and graphql-ws clients', () => {
  it("graphql-http's client: a query and a mutation", async () => {
    const client = createHttpClient({ url, fetchFn: fetch, shouldRetry: async () => false });
    const run = (query: string) =>
      new Promise<unknown>((resolve, reject) => {
        let result: unknown;
        client.subscribe({ query }, { next: (value) => (result = value), error: reject, complete: () => resolve(result) });
      });
    expect(await run('{ hello }')).toEqual({ data: { hello: 'Hello, world!' } });
    expect(await run('mutation { count }')).toEqual({ data: { count: 1 } });
    client.dispose();
    expect(seen.map((request) => request.method)).toEqual(['POST', 'POST']);
  });

  it("graphql-sse's client (distinct connections)", async () => {
    const client = createSseClient({ url, singleConnection: false, retryAttempts: 0 });
    const received: unknown[] = [];
    try {
      for await (const payload of client.iterate({ query: '{ hello(name: "SSE") }' })) received.push(payload);
    } finally {
      client.dispose();
    }
    expect(received).toEqual([{ data: { hello: 'Hello, SSE!' } }]);
    expect(seen.map((request) => request.method)).toEqual(['POST']);
  });

  it("graphql-ws's client from Node, which sends no Origin", async () => {
    const client = createWsClient({ url: url.replace('http:', 'ws:'), webSocketImpl: WebSocket, retryAttempts: 0, lazy: true });
    const received: unknown[] = [];
    try {
      for await (const payload of client.iterate({ query: '{ hello(name: "WS") }' })) received.push(payload);
    } finally {
      await client.dispose();
    }
    expect(received).toEqual([{ data: { hello: 'Hello, WS!' } }]);
  });
});

describe('what any page could send is refused, running nothing', () => {
  it.each<[string, { method: string; search: string; headers: Record<string, string>; body?: string }]>([
    ['a bare GET', { method: 'GET', search: '?query=%7B%20hello%20%7D', headers: {} }],
    ['a GET with only an Accept header', { method: 'GET', search: '?query=%7B%20hello%20%7D', headers: { accept: 'application/json' } }],
    ['a text/plain POST of a mutation', { method: 'POST', search: '', headers: { 'content-type': 'text/plain' }, body: '{"query":"mutation { count }"}' }],
    ['a form POST', { method: 'POST', search: '', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'query=mutation%20%7B%20count%20%7D' }],
  ])('%s: 400 CSRF_PREVENTED', async (_title, request) => {
    const response = await fetch(url + request.search, { method: request.method, headers: request.headers, body: request.body });
    expect(response.status).toBe(400);
    expect(await response.json()).toEqual(CSRF_REFUSAL);
    expect(seen).toEqual([]);
    expect(counted).toBe(0);
  });
});
