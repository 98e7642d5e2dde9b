/**
 * What a request claims that the server must not take loosely, beyond the signature checks of
 * security-authentication.test.ts:
 *
 * - a graphql-transport-ws `connection_init` payload naming one credential twice, in two cases
 *   (`Authorization` and `authorization`): refused with 4400 before any authenticator is asked,
 *   as a repeated credential header is refused over HTTP;
 * - production (`production: true`) hides graphql-js's suggestions ("Did you mean …") from every
 *   message a client can provoke with a misspelling, over HTTP and over WebSocket, on graphql 16
 *   and 17 alike (the two majors word their messages differently: `byMajor`). Each case is run
 *   outside production too, where the suggestion is there, so that the test sees the difference.
 *
 * Servers run on 127.0.0.1, port 0, one per test, closed when it finishes.
 */
import { describe, expect, it, onTestFinished } from 'vitest';
import { apiKeyAuth, createServer, hashApiKey, makeSchema } from '../src/index.ts';
import type { Authenticator, AuthRequest } from '../src/index.ts';
import { byMajor } from './support/graphqlMajor.ts';
import { closeNow, json, listenOnLoopback, postJson } from './support/httpServer.ts';
import { rawClientForTest, serveForTest } from './support/realtime.ts';
import type { RealtimeServer } from './support/realtime.ts';

// ---------------------------------------------------------------------------------------------
// connection_init: a credential named twice
// ---------------------------------------------------------------------------------------------

const READER_KEY = 'sk_live_reader_7d1f9b3e5c2a4680bdf1';


/**
 * A server whose authentication is recorded: the API key authenticator, behind one that writes
 * down every request it is asked about and passes it on ("not mine").
 */
async function serveWithRecordedAuthentication(): Promise<{ server: RealtimeServer; asked: AuthRequest[] }> {
  const asked: AuthRequest[] = [];
  const recorder: Authenticator = {
    scheme: 'ApiKey',
    authenticate: (request) => {
      asked.push(request);
      return null;
    },
  };
  const server = await serveForTest({
    authenticate: [recorder, apiKeyAuth({ keys: [{ id: 'reader-key', hash: hashApiKey(READER_KEY), roles: ['reader'] }] })],
    requireAuthentication: true,
  });
  return { server, asked };
}

/** The close reason for a payload naming one credential as `first` and then as `second`. */
function repeatedReason(first: string, second: string): string {
  return `Invalid message received: connection_init sends "${first}" and "${second}"; send one credential`;
}

describe('ConnectionInit: a credential named twice in different cases', () => {
  it.each<[string, Record<string, unknown>, string, string]>([
    ['Authorization and authorization', { Authorization: `ApiKey ${READER_KEY}`, authorization: 'ApiKey sk_other' }, 'Authorization', 'authorization'],
    ['authorization and AUTHORIZATION, the same key in both', { authorization: `ApiKey ${READER_KEY}`, AUTHORIZATION: `ApiKey ${READER_KEY}` }, 'authorization', 'AUTHORIZATION'],
    ['X-API-Key and x-api-key', { 'X-API-Key': READER_KEY, 'x-api-key': 'sk_other' }, 'X-API-Key', 'x-api-key'],
    ['x-api-key and X-Api-Key in a headers object', { headers: { 'x-api-key': READER_KEY, 'X-Api-Key': 'sk_other' } }, 'x-api-key', 'X-Api-Key'],
    ['three spellings of Authorization (the first two named)', { Authorization: 'a', authorization: 'b', AUTHORIZATION: 'c' }, 'Authorization', 'authorization'],
  ])('closes with 4400 naming both members when the payload has %s, before any authenticator is asked', async (_title, payload, first, second) => {
    const { server, asked } = await serveWithRecordedAuthentication();
    const client = await rawClientForTest(server);
    client.send({ type: 'connection_init', payload });
    expect(await client.closedWithin()).toEqual({ code: 4400, reason: repeatedReason(first, second) });
    expect(client.received).toEqual([]);
    expect(asked).toEqual([]);
  });

  it('fits the longest such reason, two spellings of Authorization, in the 123 bytes a close frame allows, uncut', async () => {
    const { server } = await serveWithRecordedAuthentication();
    const client = await rawClientForTest(server);
    client.send({ type: 'connection_init', payload: { AUTHORIZATION: 'a', Authorization: 'b' } });
    const reason = repeatedReason('AUTHORIZATION', 'Authorization');
    expect(Buffer.byteLength(reason)).toBeLessThanOrEqual(123);
    expect(await client.closedWithin()).toEqual({ code: 4400, reason });
  });

  it.each<[string, string, string]>([
    ['authorization twice, exactly', `{"type":"connection_init","payload":{"authorization":"ApiKey ${READER_KEY}","authorization":"ApiKey sk_other"}}`, 'authorization'],
    ['x-api-key twice in a headers object', `{"type":"connection_init","payload":{"headers":{"x-api-key":"${READER_KEY}","x-api-key":"sk_other"}}}`, 'x-api-key'],
    ['a key spelled with an escape the second time', `{"type":"connection_init","payload":{"x-api-key":"${READER_KEY}","x-api-\\u006bey":"sk_other"}}`, 'x-api-key'],
    ['type twice', '{"type":"connection_init","type":"connection_init","payload":{}}', 'type'],
  ])('closes with 4400 when the connection_init text names a member twice (%s), which JSON.parse would silently merge', async (_title, text, key) => {
    const { server, asked } = await serveWithRecordedAuthentication();
    const client = await rawClientForTest(server);
    client.send(text);
    expect(await client.closedWithin()).toEqual({ code: 4400, reason: `Invalid message received: connection_init names "${key}" twice; send each member once` });
    expect(asked).toEqual([]);
  });

  it('accepts equal keys in different objects of connection_init, and equal strings as values', async () => {
    const { server, asked } = await serveWithRecordedAuthentication();
    const client = await rawClientForTest(server);
    client.send(`{"type":"connection_init","payload":{"x-api-key":"${READER_KEY}","meta":{"x-api-key":"x-api-key","list":[{"a":1},{"a":2}]}}}`);
    await client.next();
    expect(client.received).toEqual([{ type: 'connection_ack' }]);
    expect(asked.map((request) => request.credential)).toEqual([{ scheme: 'ApiKey', value: READER_KEY }]);
  });

  it('accepts one credential member spelled in any case of ASCII letters', async () => {
    const { server, asked } = await serveWithRecordedAuthentication();
    const client = await rawClientForTest(server);
    await client.init({ 'X-API-KEY': READER_KEY });
    expect(asked.map((request) => request.credential)).toEqual([{ scheme: 'ApiKey', value: READER_KEY }]);
  });

  it('refuses Authorization beside X-API-Key, two different credentials, as HTTP does: 4403 with readCredential’s message', async () => {
    const { server } = await serveWithRecordedAuthentication();
    const client = await rawClientForTest(server);
    client.send({ type: 'connection_init', payload: { authorization: `ApiKey ${READER_KEY}`, 'x-api-key': READER_KEY } });
    expect(await client.closedWithin()).toEqual({
      code: 4403,
      reason: 'Forbidden: The request sends both an Authorization and an X-API-Key header; send one credential.',
    });
  });

  it.each<[string, Record<string, unknown>, string]>([
    ['a number as x-api-key', { 'x-api-key': 42 }, 'x-api-key'],
    ['null as Authorization in a headers object', { headers: { Authorization: null } }, 'Authorization'],
  ])('closes with 4403 naming the member when the payload has %s, a credential that is not a string', async (_title, payload, name) => {
    const { server, asked } = await serveWithRecordedAuthentication();
    const client = await rawClientForTest(server);
    client.send({ type: 'connection_init', payload });
    expect(await client.closedWithin()).toEqual({ code: 4403, reason: `Forbidden: the credential in connection_init ("${name}") must be a string` });
    expect(asked).toEqual([]);
  });

  it('does not take a member whose name folds to x-api-key only outside ASCII (a Kelvin sign for the k) for a credential', async () => {
    const { server, asked } = await serveWithRecordedAuthentication();
    const client = await rawClientForTest(server);
    client.send({ type: 'connection_init', payload: { 'x-api-\u212Aey': READER_KEY } });
    expect(await client.closedWithin()).toEqual({
      code: 4403,
      reason: 'Forbidden: This server requires authentication; send an API key (X-API-Key: <key> or Authorization: ApiKey <key>).',
    });
    expect(asked.map((request) => request.credential)).toEqual([null]);
  });
});

// ---------------------------------------------------------------------------------------------
// Production hides suggestions
// ---------------------------------------------------------------------------------------------

const SUGGESTIONS_SCHEMA = makeSchema({
  typeDefs: /* GraphQL */ `
    enum Genre {
      FICTION
      SCIENCE
    }

    input BookFilter {
      title: String
      genre: Genre
    }

    type Book {
      title: String
    }

    type Query {
      books(genre: Genre, filter: BookFilter): [Book!]!
    }
  `,
  resolvers: { Query: { books: () => [] } },
});

/** An HTTP server over SUGGESTIONS_SCHEMA, in production or not, for this test only. */
async function serveSuggestions(production: boolean): Promise<string> {
  const server = createServer({ schema: SUGGESTIONS_SCHEMA, production, reportCost: false, log: () => undefined });
  const port = await listenOnLoopback(server);
  onTestFinished(() => closeNow(server));
  return `http://127.0.0.1:${port}/graphql`;
}

interface SuggestionCase {
  /** What is misspelled. */
  readonly title: string;
  readonly query: string;
  readonly variables?: Record<string, unknown>;
  readonly code: 'GRAPHQL_VALIDATION_FAILED' | 'BAD_USER_INPUT';
  /** The message in production, by major. */
  readonly hidden: { readonly 16: string; readonly 17: string };
  /** What outside production adds to it: the suggestion. */
  readonly suggestion: string;
}

const SUGGESTION_CASES: ReadonlyArray<SuggestionCase> = [
  {
    title: 'a misspelled field',
    query: '{ books { titel } }',
    code: 'GRAPHQL_VALIDATION_FAILED',
    hidden: { 16: 'Cannot query field "titel" on type "Book".', 17: 'Cannot query field "titel" on type "Book".' },
    suggestion: ' Did you mean "title"?',
  },
  {
    title: 'a misspelled enum value in a variable',
    query: 'query Books($genre: Genre) { books(genre: $genre) { title } }',
    variables: { genre: 'FICTON' },
    code: 'BAD_USER_INPUT',
    hidden: {
      16: 'Variable "$genre" got invalid value "FICTON"; Value "FICTON" does not exist in "Genre" enum.',
      17: 'Variable "$genre" has invalid value: Value "FICTON" does not exist in "Genre" enum.',
    },
    suggestion: ' Did you mean the enum value "FICTION"?',
  },
  {
    title: 'a misspelled enum value inside an input object variable',
    query: 'query Books($filter: BookFilter) { books(filter: $filter) { title } }',
    variables: { filter: { genre: 'SCIENSE' } },
    code: 'BAD_USER_INPUT',
    hidden: {
      16: 'Variable "$filter" got invalid value "SCIENSE" at "filter.genre"; Value "SCIENSE" does not exist in "Genre" enum.',
      17: 'Variable "$filter" has invalid value at .genre: Value "SCIENSE" does not exist in "Genre" enum.',
    },
    suggestion: ' Did you mean the enum value "SCIENCE"?',
  },
  {
    title: 'a misspelled enum value written in the query',
    query: '{ books(genre: FICTON) { title } }',
    code: 'GRAPHQL_VALIDATION_FAILED',
    hidden: { 16: 'Value "FICTON" does not exist in "Genre" enum.', 17: 'Value "FICTON" does not exist in "Genre" enum.' },
    suggestion: ' Did you mean the enum value "FICTION"?',
  },
  {
    title: 'a misspelled argument',
    query: '{ books(genr: FICTION) { title } }',
    code: 'GRAPHQL_VALIDATION_FAILED',
    hidden: { 16: 'Unknown argument "genr" on field "Query.books".', 17: 'Unknown argument "genr" on field "Query.books".' },
    suggestion: ' Did you mean "genre"?',
  },
  {
    title: 'a misspelled type in a variable definition',
    query: 'query Books($genre: Genr) { books(genre: $genre) { title } }',
    code: 'GRAPHQL_VALIDATION_FAILED',
    hidden: { 16: 'Unknown type "Genr".', 17: 'Unknown type "Genr".' },
    suggestion: ' Did you mean "Genre"?',
  },
];

/** The messages and codes of an HTTP answer's errors. */
function errorsIn(body: unknown): Array<{ message: string; code: unknown }> {
  const { errors } = body as { errors?: Array<{ message: string; extensions?: { code?: unknown } }> };
  return (errors ?? []).map((error) => ({ message: error.message, code: error.extensions?.code }));
}

describe('production hides suggestions ("Did you mean …") on graphql 16 and 17', () => {
  it.each(SUGGESTION_CASES.map((each) => [each.title, each] as const))('answers %s without a suggestion in production', async (_title, each) => {
    const url = await serveSuggestions(true);
    const response = await postJson(url, { query: each.query, variables: each.variables ?? null });
    expect(response.status).toBe(200);
    expect(errorsIn(json(response))).toEqual([{ message: byMajor(each.hidden), code: each.code }]);
    expect(response.text).not.toContain('Did you mean');
  });

  it.each(SUGGESTION_CASES.map((each) => [each.title, each] as const))('answers %s with its suggestion outside production', async (_title, each) => {
    const url = await serveSuggestions(false);
    const response = await postJson(url, { query: each.query, variables: each.variables ?? null });
    expect(response.status).toBe(200);
    expect(errorsIn(json(response))).toEqual([{ message: byMajor(each.hidden) + each.suggestion, code: each.code }]);
  });

  it('answers a misspelled field in a WebSocket subscribe without a suggestion in production', async () => {
    const server = await serveForTest({ production: true });
    const client = await rawClientForTest(server);
    await client.init();
    client.send({ id: '1', type: 'subscribe', payload: { query: '{ helo }' } });
    expect(await client.next()).toEqual({
      id: '1',
      type: 'error',
      payload: [{ message: 'Cannot query field "helo" on type "Query".', locations: [{ line: 1, column: 3 }], extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }],
    });
  });
});
