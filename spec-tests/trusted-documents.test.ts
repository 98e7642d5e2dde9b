/**
 * Which document a request runs (src/security/trustedDocuments.ts): automatic persisted queries
 * (APQ, on by default: a hash alone, or a hash with the query that registers it), their memory
 * and Redis stores, and allowlist mode (`trustedDocuments: { manifest }`), where only the
 * manifest's documents run, named by `documentId`, by APQ hash or by their exact text.
 *
 * Every server listens on 127.0.0.1, port 0, over the HTTP spec-tests' schema (without the cost
 * report, so that a result is only `data`); requests go through `send` (spec-tests/support).
 */
import { createHash } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ApolloClient, HttpLink, InMemoryCache, gql } from '@apollo/client';
import { createPersistedQueryLink } from '@apollo/client/link/persisted-queries';
import { print } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../src/index.ts';
import { Probe, json, postJson, send, serveDuringSuite, startServer, testSchema } from './support/httpServer.ts';
import type { StartedServer } from './support/httpServer.ts';
import { RawClient, startRealtimeServer } from './support/realtime.ts';
import type { RealtimeServer } from './support/realtime.ts';

const GRAPHQL_RESPONSE = 'application/graphql-response+json; charset=utf-8';
const JSON_RESPONSE = 'application/json; charset=utf-8';
const ACCEPT_GRAPHQL = 'application/graphql-response+json';
const ACCEPT_JSON = 'application/json';

const NOT_FOUND = { errors: [{ message: 'PersistedQueryNotFound', extensions: { code: 'PERSISTED_QUERY_NOT_FOUND' } }] };
const NOT_SUPPORTED = { errors: [{ message: 'PersistedQueryNotSupported', extensions: { code: 'PERSISTED_QUERY_NOT_SUPPORTED' } }] };
const NOT_ALLOWED = {
  errors: [{ message: 'Only trusted documents may run on this server; this one is not in its manifest.', extensions: { code: 'PERSISTED_QUERY_NOT_ALLOWED' } }],
};
const MISMATCH = { errors: [{ message: 'provided sha does not match query', extensions: { code: 'BAD_REQUEST' } }] };
const BAD_HASH = {
  errors: [{ message: '"extensions.persistedQuery.sha256Hash" must be a SHA-256 hash: 64 hexadecimal characters.', extensions: { code: 'BAD_REQUEST' } }],
};

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

function md5(text: string): string {
  return createHash('md5').update(text).digest('hex');
}

/** `extensions` as Apollo's persisted-queries link sends them. */
function apq(hash: string): { persistedQuery: { version: 1; sha256Hash: string } } {
  return { persistedQuery: { version: 1, sha256Hash: hash } };
}

/** A bad-request body with this message and code BAD_REQUEST. */
function badRequest(message: string): { errors: Array<{ message: string; extensions: { code: string } }> } {
  return { errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] };
}

interface Answer {
  status: number;
  type: string | undefined;
  body: unknown;
}

/** POSTs a JSON body; answers status, Content-Type and the parsed body. */
async function post(url: string, body: unknown, accept: string = ACCEPT_JSON): Promise<Answer> {
  const response = await postJson(url, body, accept);
  return { status: response.status, type: response.headers['content-type'], body: json(response) };
}

/**
 * A GET with these query-string parameters (objects are sent as JSON, as clients send
 * `extensions`), and the Content-Type Apollo Client sends on its GETs too, which CSRF prevention
 * (on by default) lets through.
 */
async function get(url: string, params: Record<string, unknown>, accept: string = ACCEPT_JSON): Promise<Answer> {
  const target = new URL(url);
  for (const [name, value] of Object.entries(params)) target.searchParams.set(name, typeof value === 'string' ? value : JSON.stringify(value));
  const response = await send(target.toString(), { headers: { accept, 'content-type': 'application/json' } });
  return { status: response.status, type: response.headers['content-type'], body: json(response) };
}

/** What a request that ran `hello(name)` answers under application/json. */
function hello(name: string): Answer {
  return { status: 200, type: JSON_RESPONSE, body: { data: { hello: `Hello, ${name}!` } } };
}

/** A request error under application/json (200) and under application/graphql-response+json (400). */
function refusedAsJson(body: unknown): Answer {
  return { status: 200, type: JSON_RESPONSE, body };
}

function refusedAsGraphql(body: unknown): Answer {
  return { status: 400, type: GRAPHQL_RESPONSE, body };
}

describe('automatic persisted queries, on by default', () => {
  const server = serveDuringSuite({ reportCost: false });

  it('answers an unknown hash with PersistedQueryNotFound: 200 as application/json, 400 as application/graphql-response+json', async () => {
    const query = '{ hello(name: "unknown") }';
    const request = { extensions: apq(sha256(query)) };
    expect(await post(server.url, request, ACCEPT_JSON)).toEqual(refusedAsJson(NOT_FOUND));
    expect(await post(server.url, request, ACCEPT_GRAPHQL)).toEqual(refusedAsGraphql(NOT_FOUND));
    expect(server.probe.calls).toEqual([]);
  });

  it('runs and registers the query sent with its hash; then the hash alone runs it', async () => {
    const query = '{ hello(name: "registered") }';
    const hash = sha256(query);
    expect(await post(server.url, { extensions: apq(hash) })).toEqual(refusedAsJson(NOT_FOUND));
    expect(await post(server.url, { query, extensions: apq(hash) })).toEqual(hello('registered'));
    expect(await post(server.url, { extensions: apq(hash) })).toEqual(hello('registered'));
    expect(await post(server.url, { extensions: apq(hash) }, ACCEPT_GRAPHQL)).toEqual({ ...hello('registered'), type: GRAPHQL_RESPONSE });
    expect(server.probe.calls).toEqual(['Query.hello', 'Query.hello', 'Query.hello']);
  });

  it('runs the registered document with the variables and operation name sent with the hash', async () => {
    const query = 'query Greet($name: String) { hello(name: $name) } query Other { requestMethod }';
    const hash = sha256(query);
    expect(await post(server.url, { query, operationName: 'Greet', variables: { name: 'Ada' }, extensions: apq(hash) })).toEqual(hello('Ada'));
    expect(await post(server.url, { operationName: 'Greet', variables: { name: 'Grace' }, extensions: apq(hash) })).toEqual(hello('Grace'));
    expect(await post(server.url, { operationName: 'Other', extensions: apq(hash) })).toEqual({ status: 200, type: JSON_RESPONSE, body: { data: { requestMethod: 'POST' } } });
  });

  it('over GET, with extensions as JSON in the query string (useGETForHashedQueries)', async () => {
    const query = '{ hello(name: "get") }';
    const hash = sha256(query);
    expect(await get(server.url, { extensions: apq(hash) }, ACCEPT_JSON)).toEqual(refusedAsJson(NOT_FOUND));
    expect(await get(server.url, { extensions: apq(hash) }, ACCEPT_GRAPHQL)).toEqual(refusedAsGraphql(NOT_FOUND));
    expect(await get(server.url, { query, extensions: apq(hash) })).toEqual(hello('get'));
    expect(await get(server.url, { variables: {}, extensions: apq(hash) })).toEqual(hello('get'));
    // Registered over GET, found over POST: one store.
    expect(await post(server.url, { extensions: apq(hash) })).toEqual(hello('get'));
  });

  it('finds over GET a document registered over POST', async () => {
    const query = '{ hello(name: "post then get") }';
    const hash = sha256(query);
    expect(await post(server.url, { query, extensions: apq(hash) })).toEqual(hello('post then get'));
    expect(await get(server.url, { extensions: apq(hash) })).toEqual(hello('post then get'));
  });

  it('accepts a hash in upper case, and registers it under the same hash in lower case', async () => {
    const query = '{ hello(name: "UPPER") }';
    const hash = sha256(query);
    expect(await post(server.url, { query, extensions: apq(hash.toUpperCase()) })).toEqual(hello('UPPER'));
    expect(await post(server.url, { extensions: apq(hash) })).toEqual(hello('UPPER'));
    expect(await post(server.url, { extensions: apq(hash.toUpperCase()) })).toEqual(hello('UPPER'));
  });

  it('refuses a hash that is not the query\'s with BAD_REQUEST, without running or registering anything', async () => {
    const query = '{ hello(name: "mismatch") }';
    const other = sha256('{ hello(name: "something else") }');
    expect(await post(server.url, { query, extensions: apq(other) }, ACCEPT_JSON)).toEqual(refusedAsJson(MISMATCH));
    expect(await post(server.url, { query, extensions: apq(other) }, ACCEPT_GRAPHQL)).toEqual(refusedAsGraphql(MISMATCH));
    expect(server.probe.calls).toEqual([]);
    // Registered neither under the hash sent nor under the query's own.
    expect(await post(server.url, { extensions: apq(other) })).toEqual(refusedAsJson(NOT_FOUND));
    expect(await post(server.url, { extensions: apq(sha256(query)) })).toEqual(refusedAsJson(NOT_FOUND));
  });

  it.each([
    ['abc', 'abc'],
    ['63 hexadecimal characters', 'a'.repeat(63)],
    ['65 hexadecimal characters', 'a'.repeat(65)],
    ['64 characters with a g', `${'a'.repeat(63)}g`],
    ['an empty string', ''],
  ])('refuses a sha256Hash of %s with BAD_REQUEST, with or without the query', async (_what, hash) => {
    expect(await post(server.url, { extensions: apq(hash) }, ACCEPT_JSON)).toEqual(refusedAsJson(BAD_HASH));
    expect(await post(server.url, { extensions: apq(hash) }, ACCEPT_GRAPHQL)).toEqual(refusedAsGraphql(BAD_HASH));
    expect(await post(server.url, { query: '{ hello }', extensions: apq(hash) })).toEqual(refusedAsJson(BAD_HASH));
    expect(server.probe.calls).toEqual([]);
  });

  it('refuses a sha256Hash that is not a string, or none', async () => {
    expect(await post(server.url, { extensions: { persistedQuery: { version: 1, sha256Hash: 12 } } })).toEqual(refusedAsJson(BAD_HASH));
    expect(await post(server.url, { query: '{ hello }', extensions: { persistedQuery: { version: 1 } } })).toEqual(refusedAsJson(BAD_HASH));
  });

  it('refuses another version than 1', async () => {
    const hash = sha256('{ hello }');
    expect(await post(server.url, { extensions: { persistedQuery: { version: 2, sha256Hash: hash } } }, ACCEPT_GRAPHQL)).toEqual(
      refusedAsGraphql(badRequest('Unsupported persisted query version 2; only version 1 is.')),
    );
    expect(await post(server.url, { query: '{ hello }', extensions: { persistedQuery: { version: '1', sha256Hash: hash } } })).toEqual(
      refusedAsJson(badRequest('Unsupported persisted query version "1"; only version 1 is.')),
    );
    expect(await post(server.url, { extensions: { persistedQuery: { sha256Hash: hash } } })).toEqual(
      refusedAsJson(badRequest('Unsupported persisted query version undefined; only version 1 is.')),
    );
  });

  it('refuses a persistedQuery that is not an object', async () => {
    expect(await post(server.url, { extensions: { persistedQuery: 'x' } }, ACCEPT_GRAPHQL)).toEqual(
      refusedAsGraphql(badRequest('"extensions.persistedQuery" must be an object, got a string.')),
    );
    expect(await post(server.url, { query: '{ hello }', extensions: { persistedQuery: [1] } })).toEqual(
      refusedAsJson(badRequest('"extensions.persistedQuery" must be an object, got an array.')),
    );
  });

  it('reads documentId as a SHA-256 hash too, bare or after sha256:', async () => {
    const query = '{ hello(name: "by id") }';
    const hash = sha256(query);
    expect(await post(server.url, { documentId: hash })).toEqual(refusedAsJson(NOT_FOUND));
    expect(await post(server.url, { query, extensions: apq(hash) })).toEqual(hello('by id'));
    expect(await post(server.url, { documentId: hash })).toEqual(hello('by id'));
    expect(await post(server.url, { documentId: `sha256:${hash}` })).toEqual(hello('by id'));
    expect(await post(server.url, { documentId: 'my-query' })).toEqual(
      refusedAsJson(badRequest('"documentId" must name a SHA-256 hash here: 64 hexadecimal characters, optionally after "sha256:".')),
    );
    expect(await post(server.url, { documentId: md5(query) })).toEqual(
      refusedAsJson(badRequest('"documentId" must name a SHA-256 hash here: 64 hexadecimal characters, optionally after "sha256:".')),
    );
    // A member of the wrong type makes the request malformed: 400 whatever the media type.
    expect(await post(server.url, { documentId: 12 })).toEqual({ status: 400, type: JSON_RESPONSE, body: badRequest('"documentId" must be a string, got a number.') });
  });

  it('registers only a document that passed: one that does not parse or validate is refused, and its hash stays unknown', async () => {
    for (const [query, code] of [
      ['{ hello(name: "unclosed" ', 'GRAPHQL_PARSE_FAILED'],
      ['{ nosuchfield }', 'GRAPHQL_VALIDATION_FAILED'],
    ]) {
      const hash = sha256(query);
      const refused = await post(server.url, { query, extensions: apq(hash) });
      expect(refused.status).toBe(200);
      expect((refused.body as { errors: Array<{ extensions: { code: string } }> }).errors.map((error) => error.extensions.code)).toEqual([code]);
      expect(await post(server.url, { extensions: apq(hash) })).toEqual(refusedAsJson(NOT_FOUND));
    }
  });

  it('still runs a request with only its query', async () => {
    expect(await post(server.url, { query: '{ hello(name: "plain") }' })).toEqual(hello('plain'));
  });
});

describe('persistedQueries: false', () => {
  const server = serveDuringSuite({ reportCost: false, persistedQueries: false });

  it('answers a hash, alone or with its query, with PersistedQueryNotSupported, running nothing', async () => {
    const query = '{ hello(name: "off") }';
    const hash = sha256(query);
    expect(await post(server.url, { extensions: apq(hash) }, ACCEPT_JSON)).toEqual(refusedAsJson(NOT_SUPPORTED));
    expect(await post(server.url, { extensions: apq(hash) }, ACCEPT_GRAPHQL)).toEqual(refusedAsGraphql(NOT_SUPPORTED));
    expect(await post(server.url, { query, extensions: apq(hash) })).toEqual(refusedAsJson(NOT_SUPPORTED));
    expect(await get(server.url, { extensions: apq(hash) })).toEqual(refusedAsJson(NOT_SUPPORTED));
    expect(await post(server.url, { documentId: hash })).toEqual(refusedAsJson(NOT_SUPPORTED));
    expect(server.probe.calls).toEqual([]);
  });

  it('runs a plain query', async () => {
    expect(await post(server.url, { query: '{ hello(name: "off") }' })).toEqual(hello('off'));
  });
});

describe('the memory store of registered documents', () => {
  const documents = ['A', 'B', 'C', 'D', 'E'].map((name) => ({ name, query: `{ hello(name: "${name}") }`, hash: sha256(`{ hello(name: "${name}") }`) }));

  async function register(server: StartedServer, count: number): Promise<void> {
    for (const { name, query, hash } of documents.slice(0, count)) {
      expect(await post(server.url, { query, extensions: apq(hash) })).toEqual(hello(name));
    }
  }

  it('refuses a cacheSize that is not a positive whole number', () => {
    expect(() => createServer({ schema: testSchema(new Probe()), persistedQueries: { cacheSize: 0 } })).toThrow(
      new TypeError('persistedQueries.cacheSize must be a positive whole number, got 0.'),
    );
  });

  // Two generations of `cacheSize` each (src/jsutils/lruCache.ts): an entry survives as long as
  // it is used at least once every cacheSize insertions, and the cache holds at most 2 × cacheSize.
  it('with cacheSize 2, still knows the first of three documents (two generations hold up to four)', async () => {
    const server = await startServer({ reportCost: false, persistedQueries: { cacheSize: 2 } });
    try {
      await register(server, 3);
      expect(await post(server.url, { extensions: apq(documents[0]!.hash) })).toEqual(hello('A'));
    } finally {
      await server.close();
    }
  });

  it('with cacheSize 2, forgets the first two of five documents and keeps the last three', async () => {
    const server = await startServer({ reportCost: false, persistedQueries: { cacheSize: 2 } });
    try {
      // A, B | then C: young {C}, old {A, B} | D: young {C, D} | E: young {E}, old {C, D}, A and B dropped.
      await register(server, 5);
      expect(await post(server.url, { extensions: apq(documents[0]!.hash) })).toEqual(refusedAsJson(NOT_FOUND));
      expect(await post(server.url, { extensions: apq(documents[1]!.hash) })).toEqual(refusedAsJson(NOT_FOUND));
      expect(await post(server.url, { extensions: apq(documents[4]!.hash) })).toEqual(hello('E'));
      expect(await post(server.url, { extensions: apq(documents[2]!.hash) })).toEqual(hello('C'));
      expect(await post(server.url, { extensions: apq(documents[3]!.hash) })).toEqual(hello('D'));
      // A forgotten document is registered again with its query (a body not sent before).
      expect(await post(server.url, { query: documents[0]!.query, variables: {}, extensions: apq(documents[0]!.hash) })).toEqual(hello('A'));
      expect(await post(server.url, { variables: {}, extensions: apq(documents[0]!.hash) })).toEqual(hello('A'));
    } finally {
      await server.close();
    }
  });

  it('registers a forgotten document again when the very registration body it was first sent with comes again', async () => {
    const server = await startServer({ reportCost: false, persistedQueries: { cacheSize: 1 } });
    try {
      // The same body twice: the second time the server knows the body (its fast path) and must still register.
      await register(server, 1);
      await register(server, 4);
      expect(await post(server.url, { extensions: apq(documents[0]!.hash) })).toEqual(refusedAsJson(NOT_FOUND));
      expect(await post(server.url, { query: documents[0]!.query, extensions: apq(documents[0]!.hash) })).toEqual(hello('A'));
      expect(await post(server.url, { extensions: apq(documents[0]!.hash) })).toEqual(hello('A'));
    } finally {
      await server.close();
    }
  });
});

describe("Apollo Client's persisted-queries link against the server", () => {
  const server = serveDuringSuite({ reportCost: false });

  interface Sent {
    method: string;
    query: string | undefined;
    hash: string | undefined;
    status: number;
  }

  /** An Apollo Client over the persisted-queries link, and every HTTP request it made. */
  function apolloClient(useGETForHashedQueries: boolean): { client: ApolloClient; sent: Sent[] } {
    const sent: Sent[] = [];
    const counting: typeof fetch = async (input, init) => {
      const method = init?.method ?? 'GET';
      let params: { query?: string; extensions?: { persistedQuery?: { sha256Hash?: string } } };
      if (method === 'GET') {
        const url = new URL(String(input));
        params = { query: url.searchParams.get('query') ?? undefined, extensions: JSON.parse(url.searchParams.get('extensions') ?? '{}') };
      } else {
        params = JSON.parse(String(init?.body));
      }
      const response = await fetch(input, init);
      sent.push({ method, query: params.query, hash: params.extensions?.persistedQuery?.sha256Hash, status: response.status });
      return response;
    };
    const link = createPersistedQueryLink({ sha256, useGETForHashedQueries }).concat(new HttpLink({ uri: server.url, fetch: counting }));
    return { client: new ApolloClient({ link, cache: new InMemoryCache() }), sent };
  }

  it('sends the hash, then the hash with the query; an identical query later sends only the hash', async () => {
    const { client, sent } = apolloClient(false);
    const document = gql`
      query Greeting {
        hello(name: "Apollo")
      }
    `;
    const text = print(document);
    const first = await client.query({ query: document, fetchPolicy: 'network-only' });
    expect(first.data).toEqual({ hello: 'Hello, Apollo!' });
    expect(sent).toEqual([
      { method: 'POST', query: undefined, hash: sha256(text), status: 400 },
      { method: 'POST', query: text, hash: sha256(text), status: 200 },
    ]);
    const second = await client.query({ query: document, fetchPolicy: 'network-only' });
    expect(second.data).toEqual({ hello: 'Hello, Apollo!' });
    expect(sent.slice(2)).toEqual([{ method: 'POST', query: undefined, hash: sha256(text), status: 200 }]);
    expect(server.probe.calls).toEqual(['Query.hello', 'Query.hello']);
  });

  it('with useGETForHashedQueries: the hash over GET, the query over POST, then the hash alone over GET', async () => {
    const { client, sent } = apolloClient(true);
    const document = gql`
      query GreetingOverGet($name: String) {
        hello(name: $name)
      }
    `;
    const text = print(document);
    const first = await client.query({ query: document, variables: { name: 'GET' }, fetchPolicy: 'network-only' });
    expect(first.data).toEqual({ hello: 'Hello, GET!' });
    const second = await client.query({ query: document, variables: { name: 'again' }, fetchPolicy: 'network-only' });
    expect(second.data).toEqual({ hello: 'Hello, again!' });
    expect(sent).toEqual([
      { method: 'GET', query: undefined, hash: sha256(text), status: 400 },
      { method: 'POST', query: text, hash: sha256(text), status: 200 },
      { method: 'GET', query: undefined, hash: sha256(text), status: 200 },
    ]);
  });
});

const REDIS_URL = process.env.REDIS_URL;
if (REDIS_URL === undefined || REDIS_URL === '') {
  console.log('trusted-documents.test.ts: the persisted queries in Redis are skipped: REDIS_URL is not set (e.g. REDIS_URL=redis://127.0.0.1:6379).');
}

describe.skipIf(REDIS_URL === undefined || REDIS_URL === '')('persisted queries in Redis, shared by two servers', () => {
  const keyPrefix = `spec-tests:apq:${process.pid}:${Date.now()}:`;
  const options = () => ({ reportCost: false, persistedQueries: { store: { type: 'redis' as const, url: REDIS_URL!, keyPrefix, ttlSeconds: 300 } } });
  let first: StartedServer;
  let second: StartedServer;

  beforeAll(async () => {
    first = await startServer(options());
    second = await startServer(options());
  });
  afterAll(async () => {
    await Promise.all([first?.server.shutdown(), second?.server.shutdown()]);
    await Promise.all([first?.close(), second?.close()]);
  });

  it('finds on one server by hash alone a document registered on the other', async () => {
    const query = `{ hello(name: "redis ${keyPrefix}") }`;
    const hash = sha256(query);
    expect(await post(second.url, { extensions: apq(hash) })).toEqual(refusedAsJson(NOT_FOUND));
    expect(await post(first.url, { query, extensions: apq(hash) })).toEqual(hello(`redis ${keyPrefix}`));
    // The registration is written to Redis after the answer: ask until it is there (2 s at most).
    const deadline = Date.now() + 2000;
    let found = await post(second.url, { variables: {}, extensions: apq(hash) });
    while (found.status === 200 && JSON.stringify(found.body) === JSON.stringify(NOT_FOUND) && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      found = await post(second.url, { variables: { attempt: Date.now() }, extensions: apq(hash) });
    }
    expect(found).toEqual(hello(`redis ${keyPrefix}`));
    expect(second.probe.calls).toEqual(['Query.hello']);
  });

  it('keeps at most maxRegistrationsPerClient documents of one client in Redis; its next registrations run, unkept', async () => {
    const prefix = `${keyPrefix}bounded:`;
    const bounded = await startServer({ reportCost: false, persistedQueries: { store: { type: 'redis', url: REDIS_URL!, keyPrefix: prefix, ttlSeconds: 300 }, maxRegistrationsPerClient: 2 } });
    try {
      const queries = [1, 2, 3].map((n) => `{ hello(name: "bounded ${n} ${keyPrefix}") }`);
      for (const [n, query] of queries.entries()) {
        expect(await post(bounded.url, { query, extensions: apq(sha256(query)) })).toEqual(hello(`bounded ${n + 1} ${keyPrefix}`));
      }
      // The registrations are written after the answers: let them land, then look in Redis itself.
      const { Redis } = await import('ioredis');
      const redis = new Redis(REDIS_URL!);
      try {
        const deadline = Date.now() + 2000;
        let kept = await redis.keys(`${prefix}[0-9a-f]*`);
        while (kept.length < 2 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 20));
          kept = await redis.keys(`${prefix}[0-9a-f]*`);
        }
        await new Promise((resolve) => setTimeout(resolve, 100));
        kept = await redis.keys(`${prefix}[0-9a-f]*`);
        expect(kept.sort()).toEqual(queries.slice(0, 2).map((query) => prefix + sha256(query)).sort());
        const counters = await redis.keys(`${prefix}registrations:*`);
        expect(counters).toEqual([`${prefix}registrations:ip:127.0.0.1`]);
        expect(await redis.get(counters[0]!)).toBe('3');
      } finally {
        redis.disconnect();
      }
    } finally {
      await bounded.server.shutdown();
      await bounded.close();
    }
  });

  it('does not register in Redis a hash that is not the query\'s', async () => {
    const query = `{ hello(name: "redis mismatch ${keyPrefix}") }`;
    const other = sha256(`${query} `);
    expect(await post(first.url, { query, extensions: apq(other) })).toEqual(refusedAsJson(MISMATCH));
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(await post(second.url, { extensions: apq(other) })).toEqual(refusedAsJson(NOT_FOUND));
  });
});

describe('allowlist mode: trustedDocuments with a manifest', () => {
  const HELLO = '{ hello }';
  const GREET = 'query Greet($name: String) { hello(name: $name) }';
  const NODE = '{ node { id } }';
  const UNTRUSTED = '{ requestMethod }';
  const manifest = {
    [sha256(HELLO)]: HELLO,
    [`sha256:${sha256(GREET)}`]: GREET,
    [md5(NODE)]: NODE,
  };
  const server = serveDuringSuite({ reportCost: false, trustedDocuments: { manifest } });

  it('runs a document named by documentId: a bare SHA-256 hash, one after sha256:, in either case, or a Relay MD5', async () => {
    expect(await post(server.url, { documentId: sha256(HELLO) })).toEqual(hello('world'));
    expect(await post(server.url, { documentId: `sha256:${sha256(HELLO)}` })).toEqual(hello('world'));
    expect(await post(server.url, { documentId: sha256(HELLO).toUpperCase() })).toEqual(hello('world'));
    expect(await post(server.url, { documentId: sha256(GREET), variables: { name: 'Ada' } })).toEqual(hello('Ada'));
    expect(await post(server.url, { documentId: `sha256:${sha256(GREET)}`, variables: { name: 'Grace' } }, ACCEPT_GRAPHQL)).toEqual({
      ...hello('Grace'),
      type: GRAPHQL_RESPONSE,
    });
    expect(await post(server.url, { documentId: md5(NODE) })).toEqual({ status: 200, type: JSON_RESPONSE, body: { data: { node: { id: '1' } } } });
  });

  it('runs a document named by documentId over GET, as the persisted-documents appendix sends it', async () => {
    expect(await get(server.url, { documentId: sha256(HELLO) })).toEqual(hello('world'));
    expect(await get(server.url, { documentId: `sha256:${sha256(GREET)}`, variables: { name: 'Ada' } })).toEqual(hello('Ada'));
    expect(await get(server.url, { documentId: sha256(UNTRUSTED) })).toEqual(refusedAsJson(NOT_FOUND));
  });

  it('runs a document named by its APQ hash, over POST and GET', async () => {
    expect(await post(server.url, { extensions: apq(sha256(HELLO)) })).toEqual(hello('world'));
    expect(await post(server.url, { variables: { name: 'Ada' }, extensions: apq(sha256(GREET)) })).toEqual(hello('Ada'));
    expect(await get(server.url, { extensions: apq(sha256(HELLO)) })).toEqual(hello('world'));
  });

  it('runs the exact text of a trusted document, over POST and GET', async () => {
    expect(await post(server.url, { query: HELLO })).toEqual(hello('world'));
    expect(await post(server.url, { query: GREET, variables: { name: 'Ada' } })).toEqual(hello('Ada'));
    expect(await get(server.url, { query: NODE })).toEqual({ status: 200, type: JSON_RESPONSE, body: { data: { node: { id: '1' } } } });
  });

  it('refuses any other text with PERSISTED_QUERY_NOT_ALLOWED: 200 as application/json, 400 as application/graphql-response+json', async () => {
    expect(await post(server.url, { query: UNTRUSTED }, ACCEPT_JSON)).toEqual(refusedAsJson(NOT_ALLOWED));
    expect(await post(server.url, { query: UNTRUSTED }, ACCEPT_GRAPHQL)).toEqual(refusedAsGraphql(NOT_ALLOWED));
    expect(await get(server.url, { query: UNTRUSTED })).toEqual(refusedAsJson(NOT_ALLOWED));
    // The same operation as a trusted document, written differently, is another text.
    expect(await post(server.url, { query: '{hello}' })).toEqual(refusedAsJson(NOT_ALLOWED));
    expect(await post(server.url, { query: `${HELLO}\n` })).toEqual(refusedAsJson(NOT_ALLOWED));
    expect(server.probe.calls).toEqual([]);
  });

  it('refuses an untrusted text before parsing it: one that does not parse is NOT_ALLOWED, not GRAPHQL_PARSE_FAILED', async () => {
    expect(await post(server.url, { query: '{ {{{' }, ACCEPT_GRAPHQL)).toEqual(refusedAsGraphql(NOT_ALLOWED));
    expect(await post(server.url, { query: '' })).toEqual(refusedAsJson(NOT_ALLOWED));
  });

  it('answers an id that is not in the manifest with PERSISTED_QUERY_NOT_FOUND', async () => {
    expect(await post(server.url, { documentId: sha256(UNTRUSTED) }, ACCEPT_JSON)).toEqual(refusedAsJson(NOT_FOUND));
    expect(await post(server.url, { documentId: sha256(UNTRUSTED) }, ACCEPT_GRAPHQL)).toEqual(refusedAsGraphql(NOT_FOUND));
    expect(await post(server.url, { documentId: md5(HELLO) })).toEqual(refusedAsJson(NOT_FOUND));
    expect(await post(server.url, { documentId: 'my-query' })).toEqual(refusedAsJson(NOT_FOUND));
    expect(await post(server.url, { extensions: apq(sha256(UNTRUSTED)) })).toEqual(refusedAsJson(NOT_FOUND));
    expect(await post(server.url, { documentId: '' })).toEqual(
      refusedAsJson(badRequest('"documentId" must be a document id of at most 256 characters.')),
    );
    expect(await post(server.url, { documentId: 'x'.repeat(257) })).toEqual(
      refusedAsJson(badRequest('"documentId" must be a document id of at most 256 characters.')),
    );
    expect(server.probe.calls).toEqual([]);
  });

  it('refuses a documentId sent with another query than its document, and runs it sent with its own', async () => {
    expect(await post(server.url, { documentId: sha256(HELLO), query: UNTRUSTED }, ACCEPT_GRAPHQL)).toEqual(
      refusedAsGraphql(badRequest(`The query sent is not the trusted document ${sha256(HELLO)}.`)),
    );
    expect(await post(server.url, { documentId: `sha256:${sha256(HELLO).toUpperCase()}`, query: '{hello}' })).toEqual(
      refusedAsJson(badRequest(`The query sent is not the trusted document ${sha256(HELLO)}.`)),
    );
    expect(await post(server.url, { documentId: md5(NODE), query: HELLO })).toEqual(refusedAsJson(badRequest(`The query sent is not the trusted document ${md5(NODE)}.`)));
    expect(server.probe.calls).toEqual([]);
    expect(await post(server.url, { documentId: sha256(HELLO), query: HELLO })).toEqual(hello('world'));
  });

  it('registers nothing: an APQ hash with a new query is NOT_FOUND, and stays so; the text stays NOT_ALLOWED', async () => {
    const query = '{ viewer }';
    const hash = sha256(query);
    expect(await post(server.url, { query, extensions: apq(hash) })).toEqual(refusedAsJson(NOT_FOUND));
    expect(await post(server.url, { extensions: apq(hash) })).toEqual(refusedAsJson(NOT_FOUND));
    expect(await post(server.url, { documentId: hash })).toEqual(refusedAsJson(NOT_FOUND));
    expect(await post(server.url, { query })).toEqual(refusedAsJson(NOT_ALLOWED));
    expect(server.probe.calls).toEqual([]);
  });

  it('checks an APQ hash with its query as in APQ mode: a trusted pair runs, a mismatched query is BAD_REQUEST', async () => {
    expect(await post(server.url, { query: HELLO, extensions: apq(sha256(HELLO)) })).toEqual(hello('world'));
    expect(await post(server.url, { query: UNTRUSTED, extensions: apq(sha256(HELLO)) })).toEqual(
      refusedAsJson(badRequest(`The query sent is not the trusted document ${sha256(HELLO)}.`)),
    );
    expect(await post(server.url, { extensions: apq('abc') })).toEqual(refusedAsJson(BAD_HASH));
  });
});

describe('allowlist mode with an Apollo persisted-query manifest', () => {
  const ITEMS = 'query Items { items(count: 2) { id } }';
  const GREET = 'query Greet { hello(name: "manifest") }';
  const server = serveDuringSuite({
    reportCost: false,
    trustedDocuments: {
      manifest: {
        format: 'apollo-persisted-query-manifest',
        version: 1,
        operations: [
          { id: sha256(ITEMS), name: 'Items', type: 'query', body: ITEMS },
          { id: sha256(GREET), name: 'Greet', type: 'query', body: GREET },
        ],
      },
    },
  });

  it('runs its operations by id, by APQ hash and by text, and refuses anything else', async () => {
    const items = { status: 200, type: JSON_RESPONSE, body: { data: { items: [{ id: '1' }, { id: '2' }] } } };
    expect(await post(server.url, { documentId: sha256(ITEMS) })).toEqual(items);
    expect(await post(server.url, { documentId: `sha256:${sha256(GREET)}` })).toEqual(hello('manifest'));
    expect(await post(server.url, { extensions: apq(sha256(ITEMS)) })).toEqual(items);
    expect(await post(server.url, { query: GREET })).toEqual(hello('manifest'));
    expect(await post(server.url, { query: '{ hello }' })).toEqual(refusedAsJson(NOT_ALLOWED));
    expect(await post(server.url, { documentId: sha256('{ hello }') })).toEqual(refusedAsJson(NOT_FOUND));
    // The manifest's own members are not documents.
    expect(await post(server.url, { documentId: 'format' })).toEqual(refusedAsJson(NOT_FOUND));
  });
});

describe('allowlist mode with a manifest file', () => {
  const FROM_FILE = '{ hello(name: "file") }';
  const directory = mkdtempSync(join(tmpdir(), 'trusted-documents-'));
  const path = join(directory, 'manifest.json');
  writeFileSync(path, JSON.stringify({ [sha256(FROM_FILE)]: FROM_FILE }));
  afterAll(() => rmSync(directory, { recursive: true, force: true }));
  const server = serveDuringSuite({ reportCost: false, trustedDocuments: { manifest: path } });

  it('reads the manifest from the file at start', async () => {
    expect(await post(server.url, { documentId: sha256(FROM_FILE) })).toEqual(hello('file'));
    expect(await post(server.url, { query: FROM_FILE })).toEqual(hello('file'));
    expect(await post(server.url, { query: '{ hello }' })).toEqual(refusedAsJson(NOT_ALLOWED));
  });
});

describe('a manifest that does not hold is a start-up error', () => {
  function start(manifest: string | Record<string, unknown>): () => unknown {
    return () => createServer({ schema: testSchema(new Probe()), trustedDocuments: { manifest } });
  }

  const HELLO = '{ hello }';

  it('names a SHA-256 key that is not the hash of its document, and the hash it has', () => {
    const wrong = sha256('{ viewer }');
    expect(start({ [wrong]: HELLO })).toThrow(
      new TypeError(`trustedDocuments.manifest: ${wrong} is not the SHA-256 hash of its document (which hashes to ${sha256(HELLO)}).`),
    );
    expect(start({ [`sha256:${wrong.toUpperCase()}`]: HELLO })).toThrow(
      new TypeError(`trustedDocuments.manifest: sha256:${wrong.toUpperCase()} is not the SHA-256 hash of its document (which hashes to ${sha256(HELLO)}).`),
    );
    expect(
      start({ format: 'apollo-persisted-query-manifest', version: 1, operations: [{ id: wrong, name: 'Hello', type: 'query', body: HELLO }] }),
    ).toThrow(new TypeError(`trustedDocuments.manifest: ${wrong} is not the SHA-256 hash of its document (which hashes to ${sha256(HELLO)}).`));
  });

  it('names an MD5 key that is not the hash of its document, and the hash it has', () => {
    const wrong = md5('{ viewer }');
    expect(start({ [wrong]: HELLO })).toThrow(
      new TypeError(`trustedDocuments.manifest: ${wrong} is not the MD5 hash of its document (which hashes to ${md5(HELLO)}).`),
    );
  });

  it.each([
    ['a name', 'my-query'],
    ['an MD5 hash after sha256:', `sha256:${md5(HELLO)}`],
    ['63 hexadecimal characters', sha256(HELLO).slice(1)],
    ['an empty id', ''],
  ])('refuses a key that is %s', (_what, key) => {
    expect(start({ [key]: HELLO })).toThrow(
      new TypeError(
        `trustedDocuments.manifest: ${JSON.stringify(key)} is not a document hash (SHA-256: 64 hexadecimal characters, optionally after "sha256:"; or Relay's MD5: 32).`,
      ),
    );
  });

  it('refuses a document that is not a string', () => {
    const id = sha256(HELLO);
    expect(start({ [id]: 42 })).toThrow(new TypeError(`trustedDocuments.manifest: the document of ${id} must be a string, got a number.`));
    expect(start({ [id]: { query: HELLO } })).toThrow(new TypeError(`trustedDocuments.manifest: the document of ${id} must be a string, got an object.`));
    expect(start({ format: 'apollo-persisted-query-manifest', version: 1, operations: [{ id, name: 'Hello', type: 'query' }] })).toThrow(
      new TypeError(`trustedDocuments.manifest: the document of ${id} must be a string, got undefined.`),
    );
  });

  it('refuses an empty manifest, and an Apollo manifest without operations', () => {
    const empty = new TypeError('trustedDocuments.manifest is empty: no operation could run.');
    expect(start({})).toThrow(empty);
    expect(start({ format: 'apollo-persisted-query-manifest', version: 1, operations: [] })).toThrow(empty);
    expect(start({ format: 'apollo-persisted-query-manifest', version: 1 })).toThrow(
      new TypeError('trustedDocuments.manifest: an Apollo persisted-query manifest needs an "operations" list.'),
    );
  });

  it('refuses a manifest that is not an object', () => {
    expect(() => createServer({ schema: testSchema(new Probe()), trustedDocuments: { manifest: [HELLO] as unknown as Record<string, unknown> } })).toThrow(
      new TypeError('trustedDocuments.manifest must map document ids to documents, got an array.'),
    );
  });

  it('refuses a manifest file that does not exist, or is not JSON', () => {
    const directory = mkdtempSync(join(tmpdir(), 'trusted-documents-'));
    try {
      const missing = join(directory, 'missing.json');
      expect(start(missing)).toThrow(new TypeError(`trustedDocuments.manifest: cannot read ${missing}: ENOENT: no such file or directory, open '${missing}'`));
      const broken = join(directory, 'broken.json');
      writeFileSync(broken, '{ "abc": ');
      let syntax = '';
      try {
        JSON.parse('{ "abc": ');
      } catch (error) {
        syntax = (error as Error).message;
      }
      expect(start(broken)).toThrow(new TypeError(`trustedDocuments.manifest: cannot read ${broken}: ${syntax}`));
      const list = join(directory, 'list.json');
      writeFileSync(list, JSON.stringify([HELLO]));
      expect(start(list)).toThrow(new TypeError('trustedDocuments.manifest must map document ids to documents, got an array.'));
    } finally {
      rmSync(directory, { recursive: true, force: true });
    }
  });

  it('names a document that does not validate against the schema, or does not parse', () => {
    const invalid = '{ zzz }';
    expect(start({ [sha256(HELLO)]: HELLO, [`sha256:${sha256(invalid)}`]: invalid })).toThrow(
      new TypeError(`trustedDocuments.manifest: the document ${sha256(invalid)} is not valid against the schema: Cannot query field "zzz" on type "Query".`),
    );
    const unparsable = '{ {{{';
    expect(start({ [md5(unparsable)]: unparsable })).toThrow(
      new TypeError(`trustedDocuments.manifest: the document ${md5(unparsable)} is not valid against the schema: Syntax Error: Expected Name, found "{".`),
    );
  });
});

describe('allowlist mode over WebSocket (graphql-transport-ws)', () => {
  const COUNTDOWN = 'subscription { countdown(from: 2) }';
  let server: RealtimeServer;

  beforeAll(async () => {
    server = await startRealtimeServer({ trustedDocuments: { manifest: { [sha256(COUNTDOWN)]: COUNTDOWN } } });
  });
  afterAll(async () => {
    await server?.close();
  });

  it('answers a subscribe with an untrusted text with an error message coded PERSISTED_QUERY_NOT_ALLOWED, and runs a trusted one', async () => {
    const client = await RawClient.open(server.wsUrl);
    try {
      await client.init();
      client.send({ id: 'untrusted', type: 'subscribe', payload: { query: 'subscription { countdown(from: 3) }' } });
      expect(await client.next()).toEqual({ id: 'untrusted', type: 'error', payload: NOT_ALLOWED.errors });
      client.send({ id: 'trusted', type: 'subscribe', payload: { query: COUNTDOWN } });
      expect([await client.next(), await client.next(), await client.next()]).toEqual([
        { id: 'trusted', type: 'next', payload: { data: { countdown: 2 } } },
        { id: 'trusted', type: 'next', payload: { data: { countdown: 1 } } },
        { id: 'trusted', type: 'complete' },
      ]);
      client.send({ id: 'unknown hash', type: 'subscribe', payload: { query: '{ hello }', extensions: apq(sha256('{ hello }')) } });
      expect(await client.next()).toEqual({ id: 'unknown hash', type: 'error', payload: NOT_FOUND.errors });
      expect(client.unread()).toEqual([]);
    } finally {
      await client.close();
    }
  });
});
