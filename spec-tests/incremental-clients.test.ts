/**
 * Real clients, unchanged, reading our incremental delivery of a deferred and a streamed query
 * on the demo's fields:
 *
 *  - Apollo Client 4 over HttpLink, with GraphQL17Alpha9Handler (multipart/mixed;
 *    incrementalSpec=v0.2, the current format) and with Defer20220824Handler (multipart/mixed;
 *    deferSpec=20220824, the 2022 format): the partial result first, then the whole;
 *  - graphql-ws's client (graphql-transport-ws) and graphql-sse's client (distinct
 *    connections): every payload, in order, then the end.
 */
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { Defer20220824Handler, GraphQL17Alpha9Handler } from '@apollo/client/incremental';
import { createClient as createSseClient } from 'graphql-sse';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../src/index.ts';
import type { GraphQLServer } from '../src/index.ts';
import { createDemoContext, createDemoData, demoSchema } from '../src/demo/librarySchema.ts';
import { closeNow, listenOnLoopback } from './support/httpServer.ts';

const DEFERRED = 'query Books { books(limit: 2, sort: TITLE) { items { id title ... @defer(label: "more") { author { name } } } } }';
const STREAMED = 'query Titles { books(limit: 3, sort: TITLE) { items @stream(initialCount: 1) { id title } } }';

let server: GraphQLServer;
let url = '';
/** Every Accept header the endpoint received, in order. */
const accepts: string[] = [];

beforeAll(async () => {
  const data = createDemoData();
  server = createServer({
    schema: demoSchema,
    context: (request, { identity }) => {
      accepts.push(String(request.headers.accept));
      return createDemoContext(data, identity);
    },
    reportCost: false,
    graphiql: false,
    log: () => undefined,
  });
  url = `http://127.0.0.1:${await listenOnLoopback(server)}/graphql`;
});
afterAll(() => closeNow(server));

interface Emitted {
  readonly dataState: string;
  /** True while more payloads are to come. */
  readonly loading: boolean;
  readonly data: unknown;
}

/** What an Apollo Client watching the query emits, until its request is over. */
async function watch(handler: GraphQL17Alpha9Handler | Defer20220824Handler, query: string): Promise<Emitted[]> {
  const client = new ApolloClient({ link: new HttpLink({ uri: url }), cache: new InMemoryCache(), incrementalHandler: handler });
  const emitted: Emitted[] = [];
  await new Promise<void>((resolve, reject) => {
    const subscription = client.watchQuery({ query: gql(query), fetchPolicy: 'network-only' }).subscribe({
      next: (result) => {
        if (result.error !== undefined) {
          reject(result.error);
          return;
        }
        if (result.dataState === 'empty') return;
        emitted.push({ dataState: result.dataState, loading: result.loading, data: result.data });
        if (!result.loading) {
          subscription.unsubscribe();
          resolve();
        }
      },
      error: reject,
    });
  });
  client.stop();
  return emitted;
}

const partialBooks = {
  books: {
    __typename: 'BookPage',
    items: [
      { __typename: 'Book', id: 'b3', title: 'Cosmos' },
      { __typename: 'Book', id: 'b4', title: 'Pale Blue Dot' },
    ],
  },
};
const wholeBooks = {
  books: {
    __typename: 'BookPage',
    items: [
      { __typename: 'Book', id: 'b3', title: 'Cosmos', author: { __typename: 'Author', name: 'Carl Sagan' } },
      { __typename: 'Book', id: 'b4', title: 'Pale Blue Dot', author: { __typename: 'Author', name: 'Carl Sagan' } },
    ],
  },
};
const streamedTitles = [
  { __typename: 'Book', id: 'b3', title: 'Cosmos' },
  { __typename: 'Book', id: 'b4', title: 'Pale Blue Dot' },
  { __typename: 'Book', id: 'b5', title: 'SPQR' },
];

describe('Apollo Client 4 over HttpLink', () => {
  it('GraphQL17Alpha9Handler: sends incrementalSpec=v0.2, shows the first payload, then the deferred part', async () => {
    accepts.length = 0;
    const emitted = await watch(new GraphQL17Alpha9Handler(), DEFERRED);
    expect(accepts).toEqual(['multipart/mixed;incrementalSpec=v0.2,application/graphql-response+json,application/json;q=0.9']);
    expect(emitted).toEqual([
      { dataState: 'streaming', loading: true, data: partialBooks },
      { dataState: 'complete', loading: false, data: wholeBooks },
    ]);
  });

  it('Defer20220824Handler: sends deferSpec=20220824, the same sequence in the 2022 format', async () => {
    accepts.length = 0;
    const emitted = await watch(new Defer20220824Handler(), DEFERRED);
    expect(accepts).toEqual(['multipart/mixed;deferSpec=20220824,application/graphql-response+json,application/json;q=0.9']);
    expect(emitted).toEqual([
      { dataState: 'streaming', loading: true, data: partialBooks },
      { dataState: 'complete', loading: false, data: wholeBooks },
    ]);
  });

  it.each([
    ['GraphQL17Alpha9Handler', () => new GraphQL17Alpha9Handler()],
    ['Defer20220824Handler', () => new Defer20220824Handler()],
  ])('%s: a streamed list, the first item while loading, then all of them', async (_name, handler) => {
    const emitted = await watch(handler(), STREAMED);
    // (Apollo Client calls a streamed list's data complete at every step; `loading` says more is coming.)
    expect(emitted).toEqual([
      { dataState: 'complete', loading: true, data: { books: { __typename: 'BookPage', items: streamedTitles.slice(0, 1) } } },
      { dataState: 'complete', loading: false, data: { books: { __typename: 'BookPage', items: streamedTitles } } },
    ]);
  });
});

describe('graphql-ws and graphql-sse clients', () => {
  const payloads = [
    {
      data: { books: { items: [{ id: 'b3', title: 'Cosmos' }, { id: 'b4', title: 'Pale Blue Dot' }] } },
      pending: [
        { id: '0', path: ['books', 'items', 0], label: 'more' },
        { id: '1', path: ['books', 'items', 1], label: 'more' },
      ],
      hasNext: true,
    },
    {
      hasNext: false,
      incremental: [
        { id: '0', data: { author: { name: 'Carl Sagan' } } },
        { id: '1', data: { author: { name: 'Carl Sagan' } } },
      ],
      completed: [{ id: '0' }, { id: '1' }],
    },
  ];

  it('graphql-ws: one next per payload, then complete', async () => {
    const client = createWsClient({ url: url.replace('http:', 'ws:'), webSocketImpl: WebSocket, retryAttempts: 0, lazy: true });
    const received: unknown[] = [];
    try {
      for await (const payload of client.iterate({ query: DEFERRED })) received.push(payload);
    } finally {
      await client.dispose();
    }
    expect(received).toEqual(payloads);
  });

  it('graphql-sse (distinct connections): one next per payload, then complete', async () => {
    const client = createSseClient({ url, singleConnection: false, retryAttempts: 0 });
    const received: unknown[] = [];
    try {
      for await (const payload of client.iterate({ query: DEFERRED })) received.push(payload);
    } finally {
      client.dispose();
    }
    expect(received).toEqual(payloads);
  });
});
