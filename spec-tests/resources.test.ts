/**
 * The resource-style HTTP surface (`/api/v1/books/b1` and the like): each route a GraphQL
 * operation run through the same pipeline as /graphql (src/transports/rest/).
 *
 * Every test talks to a real server (node:http on 127.0.0.1, port 0): the demo started as
 * main.ts starts it (demoSchema, DEMO_RESOURCES, createDemoContext, demoSecurity), or a server
 * over a small schema of our own (support/resourcesSchema.ts) for what the demo has no route
 * for. Requests are sent with the path exactly as written (support/resources.ts `call`), and
 * answers are checked whole: status, the headers that matter, and the body, `{ data }` or
 * `{ error: { code, message } }`. A suite that changes data gets a fresh store per test.
 */
import http from 'node:http';
import { parse, Kind } from 'graphql';
import type { FieldNode, OperationDefinitionNode } from 'graphql';
import fc from 'fast-check';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createHandler, createServer } from '../src/index.ts';
import { createDemoContext, createDemoData, demoSchema } from '../src/demo/librarySchema.ts';
import type { ServerOptions } from '../src/index.ts';
import { DEMO_RESOURCES, DEMO_RESOURCES_V2 } from '../src/demo/resources.ts';
import type { ResourcesOptions } from '../src/transports/rest/resourceHandler.ts';
import { jsonSyntaxMessage } from './support/httpServer.ts';
import { makeKeyPair, signToken, validClaims } from './support/tokens.ts';
import { bodyOf, call, errorBody, etagOf, graphqlAnswer, startDemoResources, startResources } from './support/resources.ts';
import type { CallOptions, CallResponse, DemoOptions, DemoResourceServer, ResourceServer } from './support/resources.ts';
import { PLAIN_ERROR_MESSAGE, THINGS_ROUTES, createThingStore, thingsSchema } from './support/resourcesSchema.ts';
import { byMajor } from './support/graphqlMajor.ts';
import type { ThingStore } from './support/resourcesSchema.ts';

const JSON_TYPE = 'application/json; charset=utf-8';
const EDITOR = { 'x-api-key': 'demo-editor' };
const ADMIN = { 'x-api-key': 'demo-admin' };
const READER = { 'x-api-key': 'demo-reader' };
/**
 * The header that tells CSRF prevention (on by default) a POST was not sent by a form: a POST
 * without a JSON body (its variables in the query string, or none) needs it.
 */
const NOT_A_FORM = { 'x-graphql-csrf': '1' };

const B1 = {
  id: 'b1',
  title: 'The Dispossessed',
  genre: 'FICTION',
  published: '1974-05-01',
  author: { id: 'a1', name: 'Ursula K. Le Guin' },
  averageStars: null,
};
const R1 = { id: 'r1', bookId: 'b3', stars: 5, text: 'Wonder, explained.' };
const BOOK_ITEMS = [
  { id: 'b1', title: 'The Dispossessed', genre: 'FICTION', published: '1974-05-01' },
  { id: 'b2', title: 'The Left Hand of Darkness', genre: 'FICTION', published: '1969-03-01' },
  { id: 'b3', title: 'Cosmos', genre: 'SCIENCE', published: '1980-09-01' },
  { id: 'b4', title: 'Pale Blue Dot', genre: 'SCIENCE', published: '1994-09-01' },
  { id: 'b5', title: 'SPQR', genre: 'HISTORY', published: '2015-10-20' },
];

/** A demo for the whole describe block (for suites that change nothing). */
function demoForSuite(options: DemoOptions = {}): () => DemoResourceServer {
  let started: DemoResourceServer | undefined;
  beforeAll(async () => {
    started = await startDemoResources(options);
  });
  afterAll(async () => {
    await started?.close();
  });
  return () => {
    if (started === undefined) throw new Error('The demo is read before its suite started it.');
    return started;
  };
}

/** A fresh demo (and store) for every test (for suites that change data or spend a budget). */
function demoForEachTest(options: DemoOptions = {}): () => DemoResourceServer {
  let started: DemoResourceServer | undefined;
  beforeEach(async () => {
    started = await startDemoResources(options);
  });
  afterEach(async () => {
    await started?.close();
    started = undefined;
  });
  return () => {
    if (started === undefined) throw new Error('The demo is read outside a test.');
    return started;
  };
}

/** A server over the things schema, fresh for every test. */
function thingsForEachTest(options: Partial<ServerOptions> = {}, resources?: ResourcesOptions): () => ResourceServer & { store: ThingStore } {
  let started: (ResourceServer & { store: ThingStore }) | undefined;
  beforeEach(async () => {
    const store = createThingStore();
    const server = await startResources({
      schema: thingsSchema(store),
      resources: resources ?? { version: 'v1', routes: THINGS_ROUTES },
      ...options,
    });
    started = Object.assign(server, { store });
  });
  afterEach(async () => {
    await started?.close();
    started = undefined;
  });
  return () => {
    if (started === undefined) throw new Error('The server is read outside a test.');
    return started;
  };
}

/** The response is exactly this failure: status, JSON content type, `{ error: { code, message } }`. */
function expectFailure(response: CallResponse, status: number, code: string, message: string): void {
  expect({ status: response.status, body: bodyOf(response) }).toEqual({ status, body: errorBody(code, message) });
  expect(response.headers['content-type']).toBe(JSON_TYPE);
}

/** The response is 200 with exactly this `{ data }`, its ETag the SHA-1 of its text. */
function expectData(response: CallResponse, data: unknown, status = 200): void {
  expect({ status: response.status, body: bodyOf(response) }).toEqual({ status, body: { data } });
  expect(response.headers['content-type']).toBe(JSON_TYPE);
}

/** The headers that describe a representation (what HEAD must repeat of GET). */
function representationHeaders(response: CallResponse): Record<string, unknown> {
  const { date: _date, connection: _connection, 'content-length': _length, ...rest } = response.headers;
  return rest;
}

describe('the method table over the demo', () => {
  const demo = demoForEachTest();
  const api = (method: string, path: string, options?: CallOptions) => call(demo().port, method, path, options);

  it('GET answers 200 with the resource, an ETag of its text and Cache-Control', async () => {
    const response = await api('GET', '/api/v1/books/b1');
    expectData(response, B1);
    expect(response.headers['etag']).toBe(etagOf(response.text));
    expect(response.headers['cache-control']).toBe('no-cache');
    expect(response.headers['api-version']).toBe('v1');
    expect(Number(response.headers['content-length'])).toBe(Buffer.byteLength(response.text));
  });

  it('GET with a credential is private to the caller; the representation and its ETag are the same', async () => {
    const anonymous = await api('GET', '/api/v1/books/b1');
    const reader = await api('GET', '/api/v1/books/b1', { headers: READER });
    expectData(reader, B1);
    expect(reader.headers['cache-control']).toBe('private, no-cache');
    expect(reader.headers['etag']).toBe(anonymous.headers['etag']);
  });

  it('GET of a collection and of a sub-collection', async () => {
    const books = await api('GET', '/api/v1/books');
    expectData(books, { total: 5, items: BOOK_ITEMS });
    const byAuthor = await api('GET', '/api/v1/authors/a2/books');
    expectData(byAuthor, [BOOK_ITEMS[2], BOOK_ITEMS[3]]);
    const reviews = await api('GET', '/api/v1/books/b3/reviews');
    expectData(reviews, [R1]);
    const none = await api('GET', '/api/v1/books/b1/reviews');
    expectData(none, []);
    const authors = await api('GET', '/api/v1/authors');
    expectData(authors, [
      { id: 'a1', name: 'Ursula K. Le Guin', born: '1929-10-21' },
      { id: 'a2', name: 'Carl Sagan', born: '1934-11-09' },
      { id: 'a3', name: 'Mary Beard', born: '1955-01-01' },
    ]);
  });

  it('If-None-Match with the ETag (strong, weak, in a list, or *) answers 304 with the ETag and no body', async () => {
    const first = await api('GET', '/api/v1/reviews/r1');
    const etag = first.headers['etag'] as string;
    for (const condition of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const again = await api('GET', '/api/v1/reviews/r1', { headers: { 'if-none-match': condition } });
      expect(again.status, condition).toBe(304);
      expect(again.text).toBe('');
      expect(again.headers['etag']).toBe(etag);
      expect(again.headers['cache-control']).toBe('no-cache');
      expect(again.headers['api-version']).toBe('v1');
    }
    const stale = await api('GET', '/api/v1/reviews/r1', { headers: { 'if-none-match': '"not-it"' } });
    expectData(stale, R1);
  });

  it('the ETag follows the representation: after a change the old one no longer matches', async () => {
    const before = await api('GET', '/api/v1/reviews/r1');
    const patched = await api('PATCH', '/api/v1/reviews/r1', { headers: EDITOR, json: { stars: 2 } });
    expect(patched.status).toBe(200);
    const after = await api('GET', '/api/v1/reviews/r1', { headers: { 'if-none-match': before.headers['etag'] as string } });
    expectData(after, { ...R1, stars: 2 });
    expect(after.headers['etag']).not.toBe(before.headers['etag']);
    expect(after.headers['etag']).toBe(etagOf(after.text));
  });

  it('HEAD answers as GET does, without the body', async () => {
    for (const path of ['/api/v1/books/b1', '/api/v1/authors/a1/books', '/api/v1/books?genre=SCIENCE']) {
      const get = await api('GET', path);
      const head = await api('HEAD', path);
      expect(head.status, path).toBe(get.status);
      expect(head.text).toBe('');
      expect(representationHeaders(head)).toEqual(representationHeaders(get));
    }
    const missing = await api('HEAD', '/api/v1/books/b99');
    expect(missing.status).toBe(404);
    expect(missing.text).toBe('');
    const etag = (await api('GET', '/api/v1/books/b1')).headers['etag'] as string;
    const notModified = await api('HEAD', '/api/v1/books/b1', { headers: { 'if-none-match': etag } });
    expect(notModified.status).toBe(304);
    expect(notModified.headers['etag']).toBe(etag);
  });

  it('POST to a sub-collection as an editor answers 201 with Location and the new review', async () => {
    const response = await api('POST', '/api/v1/books/b1/reviews', { headers: EDITOR, json: { stars: 4, text: 'Ambiguous, on purpose.' } });
    const review = { id: 'r2', bookId: 'b1', stars: 4, text: 'Ambiguous, on purpose.' };
    expectData(response, review, 201);
    expect(response.headers['location']).toBe('/api/v1/reviews/r2');
    expect(response.headers['etag']).toBeUndefined();
    expect(demo().data.reviews).toEqual([R1, review]);
    // Location names the new item's route.
    expectData(await api('GET', response.headers['location'] as string), review);
    expectData(await api('GET', '/api/v1/books/b1/reviews'), [review]);
    // Without text (optional): null; and the next id.
    const second = await api('POST', '/api/v1/books/b1/reviews', { headers: EDITOR, json: { stars: 1 } });
    expectData(second, { id: 'r3', bookId: 'b1', stars: 1, text: null }, 201);
    expect(second.headers['location']).toBe('/api/v1/reviews/r3');
  });

  it('POST takes its variables from the query string as well as the body', async () => {
    const response = await api('POST', '/api/v1/books/b2/reviews?stars=3', { headers: { ...EDITOR, ...NOT_A_FORM } });
    expectData(response, { id: 'r2', bookId: 'b2', stars: 3, text: null }, 201);
  });

  it('POST without the editor role is 403 and adds nothing', async () => {
    const anonymous = await api('POST', '/api/v1/books/b1/reviews', { json: { stars: 4 } });
    expectFailure(anonymous, 403, 'FORBIDDEN', 'Access to Mutation.addReview requires the role editor.');
    const reader = await api('POST', '/api/v1/books/b1/reviews', { headers: READER, json: { stars: 4 } });
    expectFailure(reader, 403, 'FORBIDDEN', 'Access to Mutation.addReview requires the role editor.');
    expect(demo().data.reviews).toEqual([R1]);
  });

  it('POST for a book that is not there is the resolver\'s 404; stars out of range its 400', async () => {
    const missing = await api('POST', '/api/v1/books/b99/reviews', { headers: EDITOR, json: { stars: 4 } });
    expectFailure(missing, 404, 'NOT_FOUND', 'No book has id "b99".');
    const tooMany = await api('POST', '/api/v1/books/b1/reviews', { headers: EDITOR, json: { stars: 9 } });
    expectFailure(tooMany, 400, 'BAD_USER_INPUT', 'stars must be between 1 and 5, got 9.');
    expect(demo().data.reviews).toEqual([R1]);
  });

  it('PATCH answers 200 with the changed review; only what is sent changes', async () => {
    const stars = await api('PATCH', '/api/v1/reviews/r1', { headers: EDITOR, json: { stars: 3 } });
    expectData(stars, { ...R1, stars: 3 });
    expect(stars.headers['location']).toBeUndefined();
    const text = await api('PATCH', '/api/v1/reviews/r1', { headers: EDITOR, json: { text: null } });
    expectData(text, { ...R1, stars: 3, text: null });
    expect(demo().data.reviews).toEqual([{ ...R1, stars: 3, text: null }]);
  });

  it('PATCH of a review that is not there is 404; without the role 403', async () => {
    const missing = await api('PATCH', '/api/v1/reviews/r404', { headers: EDITOR, json: { stars: 3 } });
    expectFailure(missing, 404, 'NOT_FOUND', 'No resource is at /api/v1/reviews/r404.');
    const anonymous = await api('PATCH', '/api/v1/reviews/r1', { json: { stars: 1 } });
    expectFailure(anonymous, 403, 'FORBIDDEN', 'Access to Mutation.updateReview requires the role editor.');
    expect(demo().data.reviews).toEqual([R1]);
  });

  it('DELETE as an editor is 403 FORBIDDEN, as an admin by API key (no second factor) 403 MFA_REQUIRED; nothing is deleted', async () => {
    const editor = await api('DELETE', '/api/v1/reviews/r1', { headers: EDITOR });
    expectFailure(editor, 403, 'FORBIDDEN', 'Access to Mutation.deleteReview requires the role admin.');
    const admin = await api('DELETE', '/api/v1/reviews/r1', { headers: ADMIN });
    expectFailure(admin, 403, 'MFA_REQUIRED', 'Access to Mutation.deleteReview requires multi-factor authentication; sign in again with a second factor.');
    expect(demo().data.reviews).toEqual([R1]);
  });

  it('PUT and OPTIONS on /api/v1/reviews/r1 are 405 with Allow; nothing runs', async () => {
    const allow = 'GET, HEAD, PATCH, DELETE';
    for (const method of ['PUT', 'OPTIONS', 'POST']) {
      const response = await api(method, '/api/v1/reviews/r1', method === 'OPTIONS' ? {} : { headers: EDITOR, json: { stars: 1 } });
      expectFailure(response, 405, 'METHOD_NOT_ALLOWED', `Method ${method} is not allowed on /api/v1/reviews/r1; use ${allow}.`);
      expect(response.headers['allow']).toBe(allow);
    }
    const books = await api('DELETE', '/api/v1/books/b1', { headers: ADMIN });
    expectFailure(books, 405, 'METHOD_NOT_ALLOWED', 'Method DELETE is not allowed on /api/v1/books/b1; use GET, HEAD.');
    expect(books.headers['allow']).toBe('GET, HEAD');
    const reviews = await api('PUT', '/api/v1/books/b1/reviews', { headers: EDITOR, json: { stars: 1 } });
    expect(reviews.headers['allow']).toBe('GET, HEAD, POST');
    expect(demo().data.reviews).toEqual([R1]);
  });
});

describe('DELETE that succeeds: an admin signed in with a second factor', () => {
  let demo: DemoResourceServer;
  let mfaToken: string;
  let noMfaToken: string;
  beforeAll(async () => {
    const key = await makeKeyPair('ES256', 'resources');
    mfaToken = await signToken(key, validClaims({ roles: ['admin'], amr: ['pwd', 'mfa'] }));
    noMfaToken = await signToken(key, validClaims({ roles: ['admin'], amr: ['pwd'] }));
    demo = await startDemoResources({ env: { JWT_PUBLIC_KEY: key.publicPem } });
  });
  afterAll(async () => {
    await demo?.close();
  });

  it('answers 204 without a body, and the review is gone; a second DELETE is 404', async () => {
    const refused = await call(demo.port, 'DELETE', '/api/v1/reviews/r1', { headers: { authorization: `Bearer ${noMfaToken}` } });
    expect(refused.status).toBe(403);
    expect(demo.data.reviews).toHaveLength(1);
    const deleted = await call(demo.port, 'DELETE', '/api/v1/reviews/r1', { headers: { authorization: `Bearer ${mfaToken}` } });
    expect(deleted.status).toBe(204);
    expect(deleted.text).toBe('');
    expect(deleted.headers['content-type']).toBeUndefined();
    expect(deleted.headers['api-version']).toBe('v1');
    expect(demo.data.reviews).toEqual([]);
    const again = await call(demo.port, 'DELETE', '/api/v1/reviews/r1', { headers: { authorization: `Bearer ${mfaToken}` } });
    expectFailure(again, 404, 'NOT_FOUND', 'No review has id "r1".');
    expectFailure(await call(demo.port, 'GET', '/api/v1/reviews/r1'), 404, 'NOT_FOUND', 'No resource is at /api/v1/reviews/r1.');
  });
});

describe('the status table over a schema of our own', () => {
  const things = thingsForEachTest();
  const api = (method: string, path: string, options?: CallOptions) => call(things().port, method, path, options);

  it('201 with Location for POST whose body is the one input-object variable', async () => {
    const response = await api('POST', '/api/v1/things', { json: { name: 'three' } });
    expectData(response, { id: 't3', name: 'three' }, 201);
    expect(response.headers['location']).toBe('/api/v1/things/t3');
    expectData(await api('GET', '/api/v1/things/t3'), { id: 't3', name: 'three' });
  });

  it('200 for PUT (the whole body one input object) and PATCH (body members by name)', async () => {
    expectData(await api('PUT', '/api/v1/things/t1', { json: { name: 'uno' } }), { id: 't1', name: 'uno' });
    expectData(await api('PATCH', '/api/v1/things/t2', { json: { name: 'dos' } }), { id: 't2', name: 'dos' });
    expectData(await api('GET', '/api/v1/things'), [
      { id: 't1', name: 'uno' },
      { id: 't2', name: 'dos' },
    ]);
    expectFailure(await api('PUT', '/api/v1/things/t9', { json: { name: 'x' } }), 404, 'NOT_FOUND', 'No resource is at /api/v1/things/t9.');
  });

  it('204 for DELETE (a Boolean) and for a POST whose mutation returns a Boolean; null is 404', async () => {
    const deleted = await api('DELETE', '/api/v1/things/t1');
    expect({ status: deleted.status, text: deleted.text, type: deleted.headers['content-type'] }).toEqual({ status: 204, text: '', type: undefined });
    expect(things().store.things.has('t1')).toBe(false);
    const touched = await api('POST', '/api/v1/things/t2/touches', { headers: NOT_A_FORM });
    expect({ status: touched.status, text: touched.text, location: touched.headers['location'] }).toEqual({ status: 204, text: '', location: undefined });
    const nobody = await api('POST', '/api/v1/things/t9/touches', { headers: NOT_A_FORM });
    expectFailure(nobody, 404, 'NOT_FOUND', 'No resource is at /api/v1/things/t9/touches.');
    expectFailure(await api('DELETE', '/api/v1/things/t1'), 404, 'NOT_FOUND', 'No thing has id "t1".');
    expect(things().store.calls).toEqual(['remove t1', 'touch t2', 'touch t9', 'remove t1']);
  });

  it.each([
    ['BAD_USER_INPUT', 400],
    ['BAD_REQUEST', 400],
    ['UNAUTHENTICATED', 401],
    ['FORBIDDEN', 403],
    ['MFA_REQUIRED', 403],
    ['NOT_FOUND', 404],
    ['CONFLICT', 409],
    ['TIMEOUT', 504],
    ['SOMETHING_ELSE', 500],
  ])('a field error with code %s answers %i with that code and message', async (code, status) => {
    expectFailure(await api('GET', `/api/v1/failures/${code}`), status, code, `failed with ${code}`);
  });

  it('500 INTERNAL_SERVER_ERROR for a resolver that throws a plain Error (its message outside production)', async () => {
    expectFailure(await api('GET', '/api/v1/failures/plain'), 500, 'INTERNAL_SERVER_ERROR', PLAIN_ERROR_MESSAGE);
  });

  it('path and query texts become numbers, booleans and lists, as their variables\' types say', async () => {
    const echo = async (search: string) => JSON.parse((bodyOf(await api('GET', `/api/v1/echoes${search}`)) as { data: string }).data) as unknown;
    expect(await echo('')).toEqual({});
    expect(await echo('?n=42&flag=true&x=-1.5e2&tags=a')).toEqual({ n: 42, flag: true, x: -150, tags: ['a'] });
    expect(await echo('?tags=a&tags=b%20c&flag=false')).toEqual({ flag: false, tags: ['a', 'b c'] });
    expectFailure(await api('GET', '/api/v1/echoes?flag=yes'), 400, 'BAD_REQUEST', byMajor({ 16: 'Variable "$flag" got invalid value "yes"; Boolean cannot represent a non boolean value: "yes"', 17: 'Variable "$flag" has invalid value: Boolean cannot represent a non boolean value: "yes"' }));
    expectFailure(await api('GET', '/api/v1/echoes?n=1.5'), 400, 'BAD_REQUEST', byMajor({ 16: 'Variable "$n" got invalid value 1.5; Int cannot represent non-integer value: 1.5', 17: 'Variable "$n" has invalid value: Int cannot represent non-integer value: 1.5' }));
    expectFailure(await api('GET', '/api/v1/echoes?n=1&n=2'), 400, 'BAD_REQUEST', 'The query parameter n is given more than once.');
    expectFailure(await api('GET', '/api/v1/delays/soon'), 400, 'BAD_REQUEST', byMajor({ 16: 'Variable "$ms" got invalid value "soon"; Int cannot represent non-integer value: "soon"', 17: 'Variable "$ms" has invalid value: Int cannot represent non-integer value: "soon"' }));
    expectData(await api('GET', '/api/v1/delays/1'), { id: 'slow', name: 'after 1 ms' });
  });

  it('a body member that is a path parameter, or an unknown one, is 400; a body whose one input is missing a field is 400', async () => {
    expectFailure(await api('PATCH', '/api/v1/things/t1', { json: { id: 't2', name: 'x' } }), 400, 'BAD_REQUEST', 'The body member id is not a parameter of this route.');
    expectFailure(await api('PATCH', '/api/v1/things/t1', { json: { colour: 'red' } }), 400, 'BAD_REQUEST', 'The body member colour is not a parameter of this route.');
    expectFailure(
      await api('POST', '/api/v1/things', { json: { title: 'x' } }),
      400,
      'BAD_REQUEST',
      byMajor({
        16: 'Variable "$thing" got invalid value { title: "x" }; Field "name" of required type "String!" was not provided.',
        17: 'Variable "$thing" has invalid value: Expected value of type "ThingInput" to include required field "name", found: { title: "x" }.',
      }),
    );
    expect(things().store.things.get('t1')).toEqual({ id: 't1', name: 'one' });
    expect(things().store.things.size).toBe(2);
  });
});

describe('DELETE is 204 even when its mutation returns the deleted object', () => {
  const things = thingsForEachTest({}, {
    version: 'v1',
    routes: { 'DELETE /things/{id}': 'mutation ($id: ID!) { replaceThing(id: $id, thing: { name: "gone" }) { id name } }' },
  });

  it('answers 204 without a body', async () => {
    const response = await call(things().port, 'DELETE', '/api/v1/things/t1');
    expect({ status: response.status, text: response.text }).toEqual({ status: 204, text: '' });
    expect(things().store.things.get('t1')).toEqual({ id: 't1', name: 'gone' });
  });
});

describe('500 in production, and 504 past the execution timeout', () => {
  const production = thingsForEachTest({ production: true, executionTimeoutMs: 50 });

  it('masks a plain Error as "Unexpected error."', async () => {
    const response = await call(production().port, 'GET', '/api/v1/failures/plain');
    expectFailure(response, 500, 'INTERNAL_SERVER_ERROR', 'Unexpected error.');
    expect(response.text).not.toContain(PLAIN_ERROR_MESSAGE);
    // A GraphQLError is meant for the client, in production too.
    expectFailure(await call(production().port, 'GET', '/api/v1/failures/CONFLICT'), 409, 'CONFLICT', 'failed with CONFLICT');
  });

  it('answers 504 TIMEOUT when execution takes longer than allowed', async () => {
    const started = Date.now();
    expectFailure(await call(production().port, 'GET', '/api/v1/delays/5000'), 504, 'TIMEOUT', 'Execution timed out after 50 ms.');
    expect(Date.now() - started).toBeLessThan(2000);
  });
});

describe('the status table over the demo: 400', () => {
  const demo = demoForEachTest();
  const api = (method: string, path: string, options?: CallOptions) => call(demo().port, method, path, options);

  const cases: Array<[string, string, string, CallOptions, string, string]> = [
    ['a body value that does not coerce', 'POST', '/api/v1/books/b1/reviews', { headers: EDITOR, json: { stars: 'four' } }, 'BAD_REQUEST', byMajor({ 16: 'Variable "$stars" got invalid value "four"; Int cannot represent non-integer value: "four"', 17: 'Variable "$stars" has invalid value: Int cannot represent non-integer value: "four"' })],
    ['a required variable not given', 'POST', '/api/v1/books/b1/reviews', { headers: { ...EDITOR, ...NOT_A_FORM } }, 'BAD_REQUEST', byMajor({ 16: 'Variable "$stars" of required type "Int!" was not provided.', 17: 'Variable "$stars" has invalid value: Expected a value of non-null type "Int!" to be provided.' })],
    ['a required variable given as null', 'POST', '/api/v1/books/b1/reviews', { headers: EDITOR, json: { stars: null } }, 'BAD_REQUEST', byMajor({ 16: 'Variable "$stars" of non-null type "Int!" must not be null.', 17: 'Variable "$stars" has invalid value: Expected value of non-null type "Int!" not to be null.' })],
    ['an unknown query parameter', 'GET', '/api/v1/books?color=red', {}, 'BAD_REQUEST', 'Unknown query parameter color; this route takes genre, sort, limit, offset.'],
    ['unknown query parameters', 'GET', '/api/v1/books?color=red&size=2&color=blue', {}, 'BAD_REQUEST', 'Unknown query parameters color, size; this route takes genre, sort, limit, offset.'],
    ['a query parameter naming a path parameter', 'GET', '/api/v1/books/b1?id=b2', {}, 'BAD_REQUEST', 'Unknown query parameter id; this route takes none.'],
    ['a query parameter on a route without any', 'POST', '/api/v1/books/b1/reviews?stars=4&rating=5', { headers: { ...EDITOR, ...NOT_A_FORM } }, 'BAD_REQUEST', 'Unknown query parameter rating; this route takes stars, text.'],
    ['a duplicate query parameter', 'GET', '/api/v1/books?limit=1&limit=2', {}, 'BAD_REQUEST', 'The query parameter limit is given more than once.'],
    ['limit=-1 (the resolver refuses it)', 'GET', '/api/v1/books?limit=-1', {}, 'BAD_USER_INPUT', 'limit must be between 0 and 100, got -1.'],
    ['limit=101 (the resolver refuses it)', 'GET', '/api/v1/books?limit=101', {}, 'BAD_USER_INPUT', 'limit must be between 0 and 100, got 101.'],
    ['offset=-3 (the resolver refuses it)', 'GET', '/api/v1/books?offset=-3', {}, 'BAD_USER_INPUT', 'offset must be 0 or more, got -3.'],
    ['limit=1e9 (over the node limit)', 'GET', '/api/v1/books?limit=1e9', {}, 'BAD_REQUEST', 'Query node count 1000000000 exceeds the limit of 500000.'],
    ['limit=1e10 (not a 32-bit Int)', 'GET', '/api/v1/books?limit=1e10', {}, 'BAD_REQUEST', byMajor({ 16: 'Variable "$limit" got invalid value 10000000000; Int cannot represent non 32-bit signed integer value: 10000000000', 17: 'Variable "$limit" has invalid value: Int cannot represent non 32-bit signed integer value: 10000000000' })],
    ['limit=ten', 'GET', '/api/v1/books?limit=ten', {}, 'BAD_REQUEST', byMajor({ 16: 'Variable "$limit" got invalid value "ten"; Int cannot represent non-integer value: "ten"', 17: 'Variable "$limit" has invalid value: Int cannot represent non-integer value: "ten"' })],
    ['limit= (empty)', 'GET', '/api/v1/books?limit=', {}, 'BAD_REQUEST', byMajor({ 16: 'Variable "$limit" got invalid value ""; Int cannot represent non-integer value: ""', 17: 'Variable "$limit" has invalid value: Int cannot represent non-integer value: ""' })],
    ['genre=POETRY', 'GET', '/api/v1/books?genre=POETRY', {}, 'BAD_REQUEST', byMajor({ 16: 'Variable "$genre" got invalid value "POETRY"; Value "POETRY" does not exist in "Genre" enum.', 17: 'Variable "$genre" has invalid value: Value "POETRY" does not exist in "Genre" enum.' })],
    ['a body on GET', 'GET', '/api/v1/books/b1', { json: {} }, 'BAD_REQUEST', 'A GET request has no body.'],
    ['a body on DELETE', 'DELETE', '/api/v1/reviews/r1', { headers: EDITOR, json: { id: 'r1' } }, 'BAD_REQUEST', 'A DELETE request has no body.'],
    ['a body that is not JSON', 'POST', '/api/v1/books/b1/reviews', { headers: { ...EDITOR, 'content-type': 'application/json' }, body: 'stars=4' }, 'BAD_REQUEST', `The body is not valid JSON: ${jsonSyntaxMessage('stars=4')}`],
    ['a truncated JSON body', 'POST', '/api/v1/books/b1/reviews', { headers: { ...EDITOR, 'content-type': 'application/json' }, body: '{"stars":4' }, 'BAD_REQUEST', `The body is not valid JSON: ${jsonSyntaxMessage('{"stars":4')}`],
    ['a JSON array body', 'POST', '/api/v1/books/b1/reviews', { headers: EDITOR, json: [{ stars: 4 }] }, 'BAD_REQUEST', 'The body must be a JSON object.'],
    ['a JSON string body', 'POST', '/api/v1/books/b1/reviews', { headers: EDITOR, json: 'four' }, 'BAD_REQUEST', 'The body must be a JSON object.'],
    ['a JSON null body', 'POST', '/api/v1/books/b1/reviews', { headers: EDITOR, json: null }, 'BAD_REQUEST', 'The body must be a JSON object.'],
    ['a body member that is not a parameter', 'POST', '/api/v1/books/b1/reviews', { headers: EDITOR, json: { stars: 4, rating: 5 } }, 'BAD_REQUEST', 'The body member rating is not a parameter of this route.'],
    ['a body member that is the path parameter', 'POST', '/api/v1/books/b1/reviews', { headers: EDITOR, json: { id: 'b2', stars: 4 } }, 'BAD_REQUEST', 'The body member id is not a parameter of this route.'],
    ['a body member the query string gave already', 'POST', '/api/v1/books/b1/reviews?stars=4', { headers: EDITOR, json: { stars: 5 } }, 'BAD_REQUEST', 'The body member stars is not a parameter of this route.'],
  ];

  it.each(cases)('%s: %s %s', async (_name, method, path, options, code, message) => {
    const response = await api(method, path, options);
    expectFailure(response, 400, code, message);
    expect(response.headers['api-version']).toBe('v1');
    expect(demo().data.reviews).toEqual([R1]);
  });
});

describe('the status table over the demo: 401, 404, 406, 415', () => {
  const demo = demoForSuite();
  const api = (method: string, path: string, options?: CallOptions) => call(demo().port, method, path, options);

  it('401 UNAUTHENTICATED with WWW-Authenticate for an API key that is not valid', async () => {
    const response = await api('GET', '/api/v1/books/b1', { headers: { 'x-api-key': 'demo-nobody' } });
    expectFailure(response, 401, 'UNAUTHENTICATED', 'The API key is not valid.');
    expect(response.headers['www-authenticate']).toBe('ApiKey realm="graphql", error="invalid_token", error_description="The API key is not valid."');
    expect(response.headers['etag']).toBeUndefined();
  });

  it.each([
    ['/api/v1/nothings', 'No resource is served at /api/v1/nothings.'],
    ['/api/v1/books/b1/authors', 'No resource is served at /api/v1/books/b1/authors.'],
    ['/api/v1/books/b1/reviews/r1', 'No resource is served at /api/v1/books/b1/reviews/r1.'],
    ['/api/v1/books/b99', 'No resource is at /api/v1/books/b99.'],
    ['/api/v1/authors/a9', 'No resource is at /api/v1/authors/a9.'],
    ['/api/v1/authors/a9/books', 'No resource is at /api/v1/authors/a9/books.'],
    ['/api/v1/books/b99/reviews', 'No resource is at /api/v1/books/b99/reviews.'],
    ['/api/v1/reviews/r9', 'No resource is at /api/v1/reviews/r9.'],
    ['/api/v9/books', 'There is no API version v9; the versions are v1.'],
    ['/api/v1', 'No resource is served at /api/v1.'],
    ['/api', 'Nothing is served at /api.'],
    ['/api/', 'Nothing is served at /api/.'],
  ])('404 NOT_FOUND for GET %s', async (path, message) => {
    expectFailure(await api('GET', path), 404, 'NOT_FOUND', message);
  });

  it('404 for an unknown version named by header', async () => {
    for (const name of ['api-version', 'accept-version']) {
      expectFailure(await api('GET', '/api/books', { headers: { [name]: 'v9' } }), 404, 'NOT_FOUND', 'There is no API version v9; the versions are v1.');
    }
  });

  it('404 outside /api is the GraphQL endpoint\'s', async () => {
    expectFailure(await api('GET', '/apis/v1/books'), 404, 'NOT_FOUND', 'Nothing is served at /apis/v1/books; the GraphQL endpoint is /graphql.');
  });

  it('406 when Accept does not allow application/json; JSON by any name is accepted', async () => {
    for (const accept of ['text/html', 'application/json;q=0', 'text/html, application/*;q=0']) {
      expectFailure(await api('GET', '/api/v1/books/b1', { headers: { accept } }), 406, 'NOT_ACCEPTABLE', 'The Accept header must allow application/json.');
    }
    for (const accept of ['application/json', '*/*', 'application/*', 'text/html, application/json;q=0.5', 'APPLICATION/JSON; charset=utf-8', '']) {
      expectData(await api('GET', '/api/v1/books/b1', { headers: { accept } }), B1);
    }
  });

  it('415 for a body that is not application/json; nothing runs', async () => {
    for (const type of ['text/plain', 'application/xml', 'application/x-www-form-urlencoded']) {
      // (A form's Content-Type is refused by CSRF prevention first, without the header: hardening.test.ts.)
      const response = await api('POST', '/api/v1/books/b1/reviews', { headers: { ...EDITOR, ...NOT_A_FORM, 'content-type': type }, body: '{"stars":4}' });
      expectFailure(response, 415, 'UNSUPPORTED_MEDIA_TYPE', 'A body must be application/json.');
    }
    const untyped = await api('PATCH', '/api/v1/reviews/r1', { headers: EDITOR, body: '{"stars":1}' });
    expectFailure(untyped, 415, 'UNSUPPORTED_MEDIA_TYPE', 'A body must be application/json.');
    expect(demo().data.reviews).toEqual([R1]);
  });
});

describe('401 when authentication is required', () => {
  const demo = demoForSuite({ env: { REQUIRE_AUTH: 'true' } });

  it('refuses an anonymous caller with 401 and a challenge, and serves one with a key', async () => {
    const anonymous = await call(demo().port, 'GET', '/api/v1/books/b1');
    expect(anonymous.status).toBe(401);
    expect((bodyOf(anonymous) as { error: { code: string } }).error.code).toBe('UNAUTHENTICATED');
    expect(anonymous.headers['www-authenticate']).toMatch(/^ApiKey realm="graphql"/);
    expectData(await call(demo().port, 'GET', '/api/v1/books/b1', { headers: READER }), B1);
  });
});

describe('403 as a request error (onDenied: reject)', () => {
  const demo = demoForEachTest({ extra: { onDenied: 'reject' } });

  it('refuses the whole operation with 403 FORBIDDEN and runs nothing', async () => {
    const response = await call(demo().port, 'POST', '/api/v1/books/b1/reviews', { json: { stars: 4 } });
    expectFailure(response, 403, 'FORBIDDEN', 'Access to Mutation.addReview requires the role editor.');
    expect(demo().data.reviews).toEqual([R1]);
  });
});

describe('429: the rate limit, shared with /graphql', () => {
  const demo = demoForEachTest({ extra: { rateLimit: { requests: { limit: 2, windowSeconds: 60 } } } });
  const get = (headers: Record<string, string> = {}) => call(demo().port, 'GET', '/api/v1/books/b1', { headers });
  const graphql = (headers: Record<string, string> = {}) =>
    call(demo().port, 'POST', '/graphql', { json: { query: '{ book(id: "b1") { title } }' }, headers: { accept: 'application/json', ...headers } });

  function expectRateLimited(response: CallResponse): void {
    expect(response.status).toBe(429);
    const retryAfter = Number(response.headers['retry-after']);
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60).toBe(true);
    expect(bodyOf(response)).toEqual(errorBody('RATE_LIMITED', `Rate limit exceeded: try again in ${retryAfter} second${retryAfter === 1 ? '' : 's'}.`));
    expect(response.headers['ratelimit-policy']).toBe('"requests";q=2;w=60');
    expect(response.headers['ratelimit']).toMatch(/^"requests";r=0;t=\d+$/);
  }

  it('the third request is 429 with Retry-After and the RateLimit headers', async () => {
    const first = await get();
    expectData(first, B1);
    expect(first.headers['ratelimit-policy']).toBe('"requests";q=2;w=60');
    expect(first.headers['ratelimit']).toMatch(/^"requests";r=1;t=\d+$/);
    const second = await get();
    expect(second.status).toBe(200);
    expect(second.headers['ratelimit']).toMatch(/^"requests";r=0;t=\d+$/);
    const third = await get();
    expectRateLimited(third);
    expect(third.headers['api-version']).toBe('v1');
  });

  it('a /graphql request spends the same budget, and the other way round; another client has its own', async () => {
    expect((await graphql()).status).toBe(200);
    expect((await get()).status).toBe(200);
    expectRateLimited(await get());
    const endpoint = await graphql();
    expect(endpoint.status).toBe(429);
    expect((bodyOf(endpoint) as { error: { code: string } }).error.code).toBe('RATE_LIMITED');
    // A caller with a key is another client.
    expectData(await get(READER), B1);
  });

  it('a refused mutation runs nothing', async () => {
    expect((await get(EDITOR)).status).toBe(200);
    expect((await graphql(EDITOR)).status).toBe(200);
    expectRateLimited(await call(demo().port, 'POST', '/api/v1/books/b1/reviews', { headers: EDITOR, json: { stars: 4 } }));
    expect(demo().data.reviews).toEqual([R1]);
  });
});

describe('versions', () => {
  const V2_ROUTES = {
    'GET /books': 'query { books(limit: 100) { items { id title } } }',
    'GET /books/{id}': 'query ($id: ID!) { book(id: $id) { id title } }',
  };
  const SUNSET = '2099-12-31T00:00:00Z';
  const DEPRECATED_AT = '2025-01-01T00:00:00Z';
  const LINK = 'https://example.org/api/deprecations/v1';

  describe('one version (the demo)', () => {
    const demo = demoForSuite();
    const api = (path: string, headers: Record<string, string> = {}) => call(demo().port, 'GET', path, { headers });

    it('by path, by API-Version and by Accept-Version: the same answer', async () => {
      const byPath = await api('/api/v1/books/b1');
      const answers = [byPath, await api('/api/books/b1', { 'api-version': 'v1' }), await api('/api/books/b1', { 'accept-version': 'v1' }), await api('/api/books/b1', { 'api-version': ' v1 ' })];
      for (const answer of answers) {
        expectData(answer, B1);
        expect(answer.headers['api-version']).toBe('v1');
        expect(answer.headers['etag']).toBe(byPath.headers['etag']);
      }
    });

    it('without a version the current one answers and says so', async () => {
      const response = await api('/api/books?limit=1');
      expectData(response, { total: 5, items: [BOOK_ITEMS[0]] });
      expect(response.headers['api-version']).toBe('v1');
      expect(response.headers['deprecation']).toBeUndefined();
      expect(response.headers['sunset']).toBeUndefined();
    });

    it('/graphql has no api-version header', async () => {
      const response = await call(demo().port, 'POST', '/graphql', { json: { query: '{ book(id: "b1") { id } }' }, headers: { accept: 'application/json', 'api-version': 'v1' } });
      expect(response.status).toBe(200);
      expect((bodyOf(response) as { data: unknown }).data).toEqual({ book: { id: 'b1' } });
      expect(response.headers['api-version']).toBeUndefined();
    });
  });

  describe('a deprecated v1 and a current v2', () => {
    const demo = demoForSuite({
      resources: [
        { ...DEMO_RESOURCES, deprecation: { deprecatedAt: DEPRECATED_AT, sunset: SUNSET, link: LINK } },
        { version: 'v2', routes: V2_ROUTES },
      ],
    });
    const api = (path: string, headers: Record<string, string> = {}) => call(demo().port, 'GET', path, { headers });
    const deprecation = `@${Date.parse(DEPRECATED_AT) / 1000}`;

    it('without a version, v2 (the newest not deprecated) answers, without Deprecation', async () => {
      const response = await api('/api/books/b1');
      expectData(response, { id: 'b1', title: 'The Dispossessed' });
      expect(response.headers['api-version']).toBe('v2');
      expect(response.headers['deprecation']).toBeUndefined();
      expect(response.headers['sunset']).toBeUndefined();
      expect(response.headers['link']).toBeUndefined();
    });

    it('v1 answers with Deprecation, Sunset and the deprecation Link, by path and by header', async () => {
      for (const [path, headers] of [
        ['/api/v1/books/b1', {}],
        ['/api/books/b1', { 'api-version': 'v1' }],
        ['/api/books/b1', { 'accept-version': 'v1' }],
      ] as const) {
        const response = await api(path, headers);
        expectData(response, B1);
        expect(response.headers['api-version']).toBe('v1');
        expect(response.headers['deprecation']).toBe(deprecation);
        expect(response.headers['sunset']).toBe('Thu, 31 Dec 2099 00:00:00 GMT');
        expect(response.headers['link']).toBe(`<${LINK}>; rel="deprecation"; type="text/html"`);
      }
    });

    it('v1\'s failures carry the deprecation headers too', async () => {
      const response = await api('/api/v1/books/b99');
      expectFailure(response, 404, 'NOT_FOUND', 'No resource is at /api/v1/books/b99.');
      expect(response.headers['deprecation']).toBe(deprecation);
    });

    it('the path\'s version wins over a header\'s; each version has its own routes', async () => {
      const response = await api('/api/v2/books/b1', { 'api-version': 'v1' });
      expectData(response, { id: 'b1', title: 'The Dispossessed' });
      expect(response.headers['api-version']).toBe('v2');
      expectFailure(await api('/api/v2/authors'), 404, 'NOT_FOUND', 'No resource is served at /api/v2/authors.');
      expectFailure(await api('/api/v3/books'), 404, 'NOT_FOUND', 'There is no API version v3; the versions are v1, v2.');
    });

    it('a paged collection of the deprecated version keeps its deprecation Link beside the paging links', async () => {
      const response = await api('/api/v1/books?limit=2');
      expect(response.status).toBe(200);
      const link = String(response.headers['link']);
      expect(link).toContain(`<${LINK}>; rel="deprecation"; type="text/html"`);
      expect(link).toContain('rel="next"');
    });
  });

  describe('three versions, listed out of order, the newest deprecated', () => {
    const demo = demoForSuite({
      resources: [
        { version: 'v1', routes: { 'GET /books/{id}': 'query ($id: ID!) { book(id: $id) { id } }' } },
        { version: 'v3', routes: V2_ROUTES, deprecation: { deprecatedAt: DEPRECATED_AT, sunset: SUNSET } },
        { version: 'v2', routes: V2_ROUTES },
      ],
    });

    it('without a version, the newest one not deprecated (v2) answers', async () => {
      const response = await call(demo().port, 'GET', '/api/books/b1');
      expectData(response, { id: 'b1', title: 'The Dispossessed' });
      expect(response.headers['api-version']).toBe('v2');
      expect(response.headers['deprecation']).toBeUndefined();
    });
  });

  describe('a deprecated version without a link', () => {
    const demo = demoForSuite({ resources: [{ ...DEMO_RESOURCES, deprecation: { deprecatedAt: DEPRECATED_AT, sunset: SUNSET } }, { version: 'v2', routes: V2_ROUTES }] });

    it('has Deprecation and Sunset, and no Link', async () => {
      const response = await call(demo().port, 'GET', '/api/v1/books/b1');
      expect(response.status).toBe(200);
      expect(response.headers['deprecation']).toBe(`@${Date.parse(DEPRECATED_AT) / 1000}`);
      expect(response.headers['sunset']).toBe('Thu, 31 Dec 2099 00:00:00 GMT');
      expect(response.headers['link']).toBeUndefined();
    });
  });

  describe('a retired v1 past its sunset (410)', () => {
    const demo = demoForSuite({
      resources: [
        { ...DEMO_RESOURCES, deprecation: { deprecatedAt: '2019-01-01T00:00:00Z', sunset: '2020-01-01T00:00:00Z', link: LINK } },
        { version: 'v2', routes: V2_ROUTES },
      ],
    });
    const api = (method: string, path: string, options: CallOptions = {}) => call(demo().port, method, path, options);

    it('answers 410 GONE for every request to v1, by path or header, and runs nothing', async () => {
      for (const [method, path, options] of [
        ['GET', '/api/v1/books/b1', {}],
        ['GET', '/api/v1/nothings', {}],
        ['GET', '/api/books/b1', { headers: { 'api-version': 'v1' } }],
        ['POST', '/api/v1/books/b1/reviews', { headers: EDITOR, json: { stars: 4 } }],
      ] as const) {
        const response = await api(method, path, options);
        expectFailure(response, 410, 'GONE', 'API version v1 was retired on 2020-01-01.');
        expect(response.headers['api-version']).toBe('v1');
      }
      expect(demo().data.reviews).toEqual([R1]);
    });

    it('v2 answers, by path and without a version', async () => {
      expectData(await api('GET', '/api/v2/books/b1'), { id: 'b1', title: 'The Dispossessed' });
      const current = await api('GET', '/api/books/b1');
      expect(current.headers['api-version']).toBe('v2');
    });
  });
});

describe('start-up errors: createServer throws a TypeError naming the route', () => {
  const store = createThingStore();
  const schema = thingsSchema(store);
  const THING = 'query ($id: ID!) { thing(id: $id) { id } }';

  function thrownBy(resources: unknown, extra: Partial<ServerOptions> = {}): unknown {
    try {
      createServer({ schema, resources: resources as ResourcesOptions, ...extra });
    } catch (error) {
      return error;
    }
    return 'nothing was thrown';
  }

  function expectRouteError(key: string, query: string, message: string): void {
    const error = thrownBy({ version: 'v1', routes: { [key]: query } });
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(`Route "${key}" (v1): ${message}`);
  }

  it.each([
    ['GET /getBooks', 'query { things { id } }', '"getBooks" must be lower-case words joined by hyphens.'],
    ['GET /things/get', 'query { things { id } }', '"get" is a verb; a path names resources, and the method says what to do.'],
    ['POST /things/{id}/delete', 'mutation ($id: ID!) { removeThing(id: $id) }', '"delete" is a verb; a path names resources, and the method says what to do.'],
    ['GET /search', 'query { things { id } }', '"search" is a verb; a path names resources, and the method says what to do.'],
    ['GET /thing', 'query { things { id } }', '"thing" must be a plural noun (a collection), as in /books.'],
    ['GET /things.json', 'query { things { id } }', '"things.json" has a file extension; paths have none (the media type is negotiated).'],
    ['GET /things/{id}.json', THING, '"{id}.json" has a file extension; paths have none (the media type is negotiated).'],
    ['GET /Things', 'query { things { id } }', '"Things" must be lower-case words joined by hyphens.'],
    ['GET /review_drafts', 'query { things { id } }', '"review_drafts" must be lower-case words joined by hyphens.'],
    ['GET /{id}', THING, 'a {param} names an item of the collection before it, as in /books/{id}.'],
    ['GET /things/{id}/{other}', 'query ($id: ID!, $other: ID) { thing(id: $id) { id } }', 'a {param} names an item of the collection before it, as in /books/{id}.'],
    ['GET /things/', 'query { things { id } }', 'a path has no trailing slash.'],
    ['GET /', 'query { things { id } }', 'a path has no trailing slash.'],
    ['GET /things/{key}', THING, 'the path parameter {key} is not a variable of its operation.'],
    ['GET /things', 'mutation { addThing(thing: { name: "x" }) { id } }', 'a GET route must be a query.'],
    ['POST /things', 'query { things { id } }', 'a POST route must be a mutation.'],
    ['DELETE /things/{id}', THING, 'a DELETE route must be a mutation.'],
    ['GET /things', 'query { things { id } thing(id: "t1") { id } }', 'its operation must select exactly one root field (the resource).'],
    ['GET /things', 'query { ...F } fragment F on Query { things { id } }', 'its operation must select exactly one root field (the resource).'],
    ['GET /things', 'query { nope }', 'its operation does not validate: Cannot query field "nope" on type "Query".'],
    ['GET /things', 'query A { things { id } } query B { things { name } }', 'its document must hold exactly one operation.'],
    ['GET /things', 'query {', 'its operation does not parse: Syntax Error: Expected Name, found <EOF>.'],
    ['FETCH /things', 'query { things { id } }', 'a route is "METHOD /path", with GET, POST, PUT, PATCH or DELETE.'],
    ['GET things', 'query { things { id } }', 'a route is "METHOD /path", with GET, POST, PUT, PATCH or DELETE.'],
    ['GET /things/{id}/names', 'query ($id: ID!) { thing(id: $id) { id name } }', 'a sub-collection\'s operation selects exactly one field under its owner, as in author(id: $id) { books { id } }.'],
  ])('%s', (key, query, message) => {
    expectRouteError(key, query, message);
  });

  it.each([
    ['GET /status', '"status" must be a plural noun (a collection), as in /books.'],
    ['GET /addresses/{id}/analysis', '"analysis" must be a plural noun (a collection), as in /books.'],
    ['GET /review-bonus', '"review-bonus" must be a plural noun (a collection), as in /books.'],
  ])('a singular noun ending in s: %s', (key, message) => {
    const query = key.includes('{id}') ? 'query ($id: ID!) { thing(id: $id) { id } }' : 'query { things { id } }';
    expectRouteError(key, query, message);
  });

  it('accepts irregular plurals, -es plurals and the version\'s own plural nouns', () => {
    const routes = {
      'GET /people': 'query { things { id } }',
      'GET /children': 'query { things { id } }',
      'GET /statuses': 'query { things { id } }',
      'GET /media-data': 'query { things { id } }',
      'GET /fish': 'query { things { id } }',
    };
    expect(thrownBy({ version: 'v1', routes, pluralNouns: ['fish'] })).toBe('nothing was thrown');
    expect((thrownBy({ version: 'v1', routes }) as Error).message).toBe('Route "GET /fish" (v1): "fish" must be a plural noun (a collection), as in /books.');
    expect((thrownBy({ version: 'v1', routes, pluralNouns: ['Fish'] }) as Error).message).toBe('resources (v1).pluralNouns must be lower-case words, as in ["fish"].');
  });

  it('a route paged by cursor that does not select pageInfo { hasNextPage endCursor }', () => {
    const message = 'a route paged by cursor selects pageInfo { hasNextPage endCursor } on its connection, for the link to the next page.';
    const paged = (selection: string) => `query ($limit: Int = 10, $cursor: String) { booksConnection(first: $limit, after: $cursor) { edges { node { id } } ${selection} } }`;
    for (const selection of ['', 'pageInfo { hasNextPage }', 'pageInfo { endCursor }', 'pageInfo { hasNextPage end: endCursor }', 'info: pageInfo { hasNextPage endCursor }']) {
      let error: unknown = 'nothing was thrown';
      try {
        createServer({ schema: demoSchema, resources: { version: 'v1', routes: { 'GET /books': paged(selection) } } });
      } catch (thrown) {
        error = thrown;
      }
      expect(error, selection).toBeInstanceOf(TypeError);
      expect((error as Error).message, selection).toBe(`Route "GET /books" (v1): ${message}`);
    }
    expect(() => createServer({ schema: demoSchema, resources: { version: 'v1', routes: { 'GET /books': paged('pageInfo { endCursor hasNextPage }') } } })).not.toThrow();
  });

  it('a route whose operation is not a string', () => {
    expectRouteError('GET /things', 42 as unknown as string, 'its operation must be a GraphQL document (a string).');
  });

  it('a route over the limits', () => {
    const error = thrownBy({ version: 'v1', routes: { 'GET /things': 'query { things { id } }' } }, { limits: { depth: 1 } });
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toMatch(/^Route "GET \/things" \(v1\): .*depth.* 1\.?/i);
  });

  it('two routes of the same shape', () => {
    const error = thrownBy({ version: 'v1', routes: { 'GET /things/{id}': THING, 'GET /things/{key}': 'query ($key: ID!) { thing(id: $key) { id } }' } });
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe('Route GET /things/{key} (v1) is the same path as another GET route.');
  });

  it.each([['V1'], ['v0'], ['1'], ['v1.1'], ['version1']])('a bad version name: %s', (version) => {
    const error = thrownBy({ version, routes: { 'GET /things': 'query { things { id } }' } });
    expect(error).toBeInstanceOf(TypeError);
    expect((error as Error).message).toBe(`resources.version must be like "v1", got ${JSON.stringify(version)}.`);
  });

  it('no routes, no versions, two versions of one name, bad deprecation dates', () => {
    const cases: Array<[unknown, string]> = [
      [{ version: 'v1', routes: {} }, 'resources (v1) needs routes.'],
      [{ version: 'v2' }, 'resources (v2) needs routes.'],
      [[], 'resources needs at least one version.'],
      [
        [
          { version: 'v1', routes: { 'GET /things': 'query { things { id } }' } },
          { version: 'v1', routes: { 'GET /things': 'query { things { name } }' } },
        ],
        'resources: two versions have the same name.',
      ],
      [
        { version: 'v1', routes: { 'GET /things': 'query { things { id } }' }, deprecation: { deprecatedAt: 'soon', sunset: '2030-01-01' } },
        'resources (v1).deprecation needs deprecatedAt and sunset dates (ISO 8601).',
      ],
    ];
    for (const [resources, message] of cases) {
      const error = thrownBy(resources);
      expect(error, message).toBeInstanceOf(TypeError);
      expect((error as Error).message).toBe(message);
    }
  });

  it('the things routes compile (so each case above fails for its one fault)', () => {
    expect(thrownBy({ version: 'v1', routes: THINGS_ROUTES })).toBe('nothing was thrown');
  });
});

describe('bad input: a clear 4xx with the { error } body, never a 500', () => {
  const demo = demoForSuite();
  const api = (method: string, path: string, options?: CallOptions) => call(demo().port, method, path, options);

  it.each([
    ['/api/v1/books/..%2f..'],
    ['/api/v1/books/..%2F..%2Fetc%2Fpasswd'],
    ['/api/v1/books/b1%2freviews'],
    ['/api/v1/books/b1%5Creviews'],
    ['/api/v1/books/../authors'],
    ['/api/v1/books/./b1'],
    ['/api/v1/books/..'],
    ['/api/v1/..'],
  ])('an encoded slash or a dot segment: %s is 400', async (path) => {
    expectFailure(await api('GET', path), 400, 'BAD_REQUEST', 'The path has an encoded slash or a dot segment.');
  });

  it.each([['/api/v1/books/%2e%2e/x'], ['/api/v1/books/%2e%2e'], ['/api/v1/books/%2E%2E/reviews'], ['/api/v1/%2e%2e/books'], ['/api/v1/books/%2e']])(
    'encoded dots: %s is a 4xx with the { error } body',
    async (path) => {
      const response = await api('GET', path);
      expect([400, 404]).toContain(response.status);
      const body = bodyOf(response) as { error: { code: string; message: string } };
      expect(body.error.code).toBe(response.status === 400 ? 'BAD_REQUEST' : 'NOT_FOUND');
      expect(Object.keys(body)).toEqual(['error']);
    },
  );

  it('percent-encoding that does not decode is 400', async () => {
    expectFailure(await api('GET', '/api/v1/books/%E0%A4%A'), 400, 'BAD_REQUEST', 'The path is not valid percent-encoding.');
    expectFailure(await api('GET', '/api/v1/books/%ZZ'), 400, 'BAD_REQUEST', 'The path is not valid percent-encoding.');
  });

  it('an id of 10,000 characters (or 257) is 400; 256 is served (404: no such book); so is an encoded one', async () => {
    const message = 'The path parameter id must be 1 to 256 characters.';
    expectFailure(await api('GET', `/api/v1/books/${'x'.repeat(10_000)}`), 400, 'BAD_REQUEST', message);
    expectFailure(await api('GET', `/api/v1/authors/${'x'.repeat(257)}/books`), 400, 'BAD_REQUEST', message);
    expectFailure(await api('GET', '/api/v1/books/'), 400, 'BAD_REQUEST', message);
    expectFailure(await api('GET', '/api/v1/authors//books'), 400, 'BAD_REQUEST', message);
    expectFailure(await api('GET', `/api/v1/books/${'x'.repeat(256)}`), 404, 'NOT_FOUND', `No resource is at /api/v1/books/${'x'.repeat(256)}.`);
    const encoded = encodeURIComponent('b1 é?#&');
    expectFailure(await api('GET', `/api/v1/books/${encoded}`), 404, 'NOT_FOUND', `No resource is at /api/v1/books/${encoded}.`);
  });

  it('offset beyond the end is 200 with no items', async () => {
    const response = await api('GET', '/api/v1/books?offset=1000');
    expectData(response, { total: 5, items: [] });
    const science = await api('GET', '/api/v1/books?genre=SCIENCE&sort=TITLE&limit=1&offset=1');
    expectData(science, { total: 2, items: [BOOK_ITEMS[3]] });
  });

  it('duplicate query parameters, unknown ones, and bodies on GET are 400', async () => {
    expectFailure(await api('GET', '/api/v1/books?genre=FICTION&genre=SCIENCE'), 400, 'BAD_REQUEST', 'The query parameter genre is given more than once.');
    expectFailure(await api('GET', '/api/v1/books?limit=2&LIMIT=3'), 400, 'BAD_REQUEST', 'Unknown query parameter LIMIT; this route takes genre, sort, limit, offset.');
    expectFailure(await api('GET', '/api/v1/authors?x'), 400, 'BAD_REQUEST', 'Unknown query parameter x; this route takes none.');
    expectFailure(await api('GET', '/api/v1/books/b1', { headers: { 'content-type': 'text/plain' }, body: 'hello' }), 400, 'BAD_REQUEST', 'A GET request has no body.');
  });

  it('a chunked body on GET is 400 too; a body over the size limit is 413', async () => {
    expectFailure(
      await api('GET', '/api/v1/books/b1', { headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' }, body: '{}' }),
      400,
      'BAD_REQUEST',
      'A GET request has no body.',
    );
    const large = await api('PATCH', '/api/v1/reviews/r1', { headers: EDITOR, json: { text: 'x'.repeat(1_100_000) } });
    expect(large.status).toBe(413);
    expect((bodyOf(large) as { error: { code: string } }).error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(demo().data.reviews).toEqual([R1]);
  });

  it('a body that is not UTF-8 is 400', async () => {
    // Bytes, not text: call() sends strings.
    const response = await new Promise<CallResponse>((resolve, reject) => {
      const headers = { ...EDITOR, 'content-type': 'application/json' };
      const request = http.request({ host: '127.0.0.1', port: demo().port, method: 'PATCH', path: '/api/v1/reviews/r1', headers, agent: false }, (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8') }));
      });
      request.on('error', reject);
      request.end(Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x7d]));
    });
    expect(response.status).toBe(400);
    expect((bodyOf(response) as { error: { code: string } }).error.code).toBe('INVALID_UTF8');
  });
});

describe('Location names the new item\'s own route', () => {
  const things = thingsForEachTest({}, {
    version: 'v1',
    // Another GET route of the same type, and with an item parameter, listed first.
    routes: { 'GET /failures/{code}': THINGS_ROUTES['GET /failures/{code}'] as string, ...THINGS_ROUTES },
  });

  it('POST /things answers Location /api/v1/things/{id}, not another route that returns a Thing', async () => {
    const response = await call(things().port, 'POST', '/api/v1/things', { json: { name: 'three' } });
    expect(response.status).toBe(201);
    expect(response.headers['location']).toBe('/api/v1/things/t3');
  });
});

describe('routing: a literal segment is not taken for a parameter', () => {
  const things = thingsForEachTest({}, {
    version: 'v1',
    routes: { 'GET /things/{id}': THINGS_ROUTES['GET /things/{id}'] as string, 'GET /things/favourites': 'query { things { id } }' },
  });

  it('GET /things/favourites answers its own route, whichever order the routes are listed in', async () => {
    expectData(await call(things().port, 'GET', '/api/v1/things/favourites'), [{ id: 't1' }, { id: 't2' }]);
    expectData(await call(things().port, 'GET', '/api/v1/things/t1'), { id: 't1', name: 'one' });
  });
});

describe('variables named like Object.prototype members', () => {
  const things = thingsForEachTest({}, {
    version: 'v1',
    routes: {
      'GET /echoes': 'query ($constructor: Int) { echo(n: $constructor) }',
      'PATCH /things/{id}': 'mutation ($id: ID!, $toString: String!) { renameThing(id: $id, name: $toString) { id name } }',
    },
  });

  it('are filled from the query string and the body like any other', async () => {
    expectData(await call(things().port, 'GET', '/api/v1/echoes?constructor=5'), JSON.stringify({ n: 5 }));
    expectData(await call(things().port, 'PATCH', '/api/v1/things/t1', { json: { toString: 'uno' } }), { id: 't1', name: 'uno' });
  });
});

/** Whether a text is a decimal numeral (what a number's text is on the wire). */
const NUMERAL = /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?$/;
/** The status each field-error code answers with (the handler's table). */
const STATUS_OF_CODE: Record<string, number> = { BAD_USER_INPUT: 400, BAD_REQUEST: 400, UNAUTHENTICATED: 401, FORBIDDEN: 403, MFA_REQUIRED: 403, NOT_FOUND: 404, CONFLICT: 409, TIMEOUT: 504 };

interface GetRoute {
  readonly path: string;
  readonly query: string;
  readonly segments: ReadonlyArray<string | { param: string }>;
  readonly field: string;
  readonly subField: string | null;
  /** Variables not in the path, in order, with their named type. */
  readonly queryVariables: ReadonlyArray<{ name: string; type: string }>;
}

/** The demo's GET routes, read from DEMO_RESOURCES. */
const GET_ROUTES: GetRoute[] = Object.entries(DEMO_RESOURCES.routes)
  .filter(([key]) => key.startsWith('GET '))
  .map(([key, query]) => {
    const path = key.slice('GET '.length);
    const segments = path
      .slice(1)
      .split('/')
      .map((part) => (part.startsWith('{') ? { param: part.slice(1, -1) } : part));
    const operation = parse(query).definitions[0] as OperationDefinitionNode;
    const root = operation.selectionSet.selections[0] as FieldNode;
    const isSub = segments.length >= 3 && typeof segments[segments.length - 1] === 'string';
    const sub = isSub ? (root.selectionSet?.selections[0] as FieldNode) : null;
    const params = segments.filter((segment): segment is { param: string } => typeof segment !== 'string').map((segment) => segment.param);
    const queryVariables = (operation.variableDefinitions ?? [])
      .filter((definition) => !params.includes(definition.variable.name.value))
      .map((definition) => {
        const type = definition.type.kind === Kind.NON_NULL_TYPE ? definition.type.type : definition.type;
        return { name: definition.variable.name.value, type: type.kind === Kind.NAMED_TYPE ? type.name.value : 'list' };
      });
    return { path, query, segments, field: root.alias?.value ?? root.name.value, subField: sub === null ? null : (sub.alias?.value ?? sub.name.value), queryVariables };
  });

describe('property: a GET route answers what /graphql answers for its operation', () => {
  const demo = demoForSuite();

  const idArbitrary = fc.oneof(
    { weight: 5, arbitrary: fc.constantFrom('a1', 'a2', 'a3', 'b1', 'b2', 'b3', 'b4', 'b5', 'r1', 'r2', 'b0') },
    { weight: 3, arbitrary: fc.string({ unit: 'grapheme', maxLength: 12 }) },
    { weight: 2, arbitrary: fc.constantFrom('..', '.', '.b1', 'a/b', 'a\\b', '%', '%2f', '?x=1', '#top', ' b1', 'b1 ', '', 'x'.repeat(257), 'é', '💥', '{id}', 'null') },
  );
  const intText = fc.oneof(
    { weight: 6, arbitrary: fc.integer({ min: -5, max: 120 }).map(String) },
    { weight: 2, arbitrary: fc.constantFrom('1e2', '1.5', '2.0', 'abc', '', '-0', '1e9', '007', ' 3', '1e10') },
    { weight: 1, arbitrary: fc.string({ maxLength: 4 }) },
  );
  const genreText = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('FICTION', 'SCIENCE', 'HISTORY') },
    { weight: 2, arbitrary: fc.constantFrom('POETRY', 'fiction', '') },
    { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
  );
  const sortText = fc.oneof(
    { weight: 6, arbitrary: fc.constantFrom('TITLE', 'PUBLISHED') },
    { weight: 2, arbitrary: fc.constantFrom('NAME', '') },
    { weight: 1, arbitrary: fc.string({ maxLength: 6 }) },
  );
  const textFor = (type: string) => (type === 'Int' ? intText : type === 'Genre' ? genreText : type === 'BookSort' ? sortText : fc.string({ maxLength: 6 }));

  // Routes with query parameters (GET /books) are drawn more often: they have the most to vary.
  const routeArbitrary = fc.oneof(...GET_ROUTES.map((route) => ({ weight: route.queryVariables.length > 0 ? 4 : 1, arbitrary: fc.constant(route) })));
  const requestArbitrary = routeArbitrary.chain((route) => {
    const paramCount = route.segments.filter((segment) => typeof segment !== 'string').length;
    return fc.record({
      route: fc.constant(route),
      ids: fc.array(idArbitrary, { minLength: paramCount, maxLength: paramCount }),
      // Each of the route's query variables, given or not (a few given twice).
      given: fc.tuple(
        ...route.queryVariables.map((variable) =>
          fc.oneof(
            { weight: 3, arbitrary: fc.constant(null) },
            { weight: 6, arbitrary: textFor(variable.type).map((text) => [text]) },
            { weight: 1, arbitrary: fc.array(textFor(variable.type), { minLength: 2, maxLength: 2 }) },
          ),
        ),
      ),
      // Now and then a parameter the route may not take (or one it takes, again).
      extra: fc.oneof(
        { weight: 8, arbitrary: fc.constant(null) },
        { weight: 1, arbitrary: fc.tuple(fc.constantFrom('color', 'id', 'genre', 'limit', 'x y'), fc.string({ maxLength: 3 })) },
      ),
    });
  });

  interface Expected {
    status: number;
    body: unknown;
  }

  async function expectedFor(route: GetRoute, ids: string[], pairs: Array<[string, string]>, rawPath: string): Promise<Expected> {
    const failure = (status: number, code: string, message: string): Expected => ({ status, body: errorBody(code, message) });
    if (ids.some((id) => id.includes('/') || id.includes('\\') || id === '.' || id === '..')) {
      return failure(400, 'BAD_REQUEST', 'The path has an encoded slash or a dot segment.');
    }
    if (ids.some((id) => id.length === 0 || id.length > 256)) {
      const param = (route.segments.find((segment) => typeof segment !== 'string') as { param: string }).param;
      return failure(400, 'BAD_REQUEST', `The path parameter ${param} must be 1 to 256 characters.`);
    }
    const known = route.queryVariables.map((variable) => variable.name);
    const unknown = [...new Set(pairs.map(([name]) => name))].filter((name) => !known.includes(name));
    if (unknown.length > 0) {
      return failure(400, 'BAD_REQUEST', `Unknown query parameter${unknown.length === 1 ? '' : 's'} ${unknown.join(', ')}; ${known.length === 0 ? 'this route takes none' : `this route takes ${known.join(', ')}`}.`);
    }
    const variables: Record<string, unknown> = {};
    let index = 0;
    for (const segment of route.segments) {
      if (typeof segment !== 'string') variables[segment.param] = ids[index++];
    }
    for (const variable of route.queryVariables) {
      const texts = pairs.filter(([name]) => name === variable.name).map(([, text]) => text);
      if (texts.length > 1) return failure(400, 'BAD_REQUEST', `The query parameter ${variable.name} is given more than once.`);
      if (texts.length === 1) variables[variable.name] = variable.type === 'Int' && NUMERAL.test(texts[0] as string) ? Number(texts[0]) : texts[0];
    }
    const answer = await graphqlAnswer(demo().port, route.query, variables);
    const first = answer.errors?.[0];
    if (!('data' in answer)) return failure(400, 'BAD_REQUEST', (first as { message: string }).message);
    if (first !== undefined) {
      const code = first.extensions?.code ?? 'INTERNAL_SERVER_ERROR';
      return failure(STATUS_OF_CODE[code] ?? 500, code, first.message);
    }
    const owner = (answer.data?.[route.field] ?? null) as Record<string, unknown> | null;
    const value = route.subField === null || owner === null ? owner : (owner[route.subField] ?? null);
    if (value === null) return failure(404, 'NOT_FOUND', `No resource is at ${rawPath}.`);
    return { status: 200, body: { data: value } };
  }

  it('for random routes, ids and parameters (100 runs)', async () => {
    await fc.assert(
      fc.asyncProperty(requestArbitrary, async ({ route, ids, given, extra }) => {
        let index = 0;
        const rawPath = '/api/v1/' + route.segments.map((segment) => (typeof segment === 'string' ? segment : encodeURIComponent(ids[index++] as string))).join('/');
        const pairs: Array<[string, string]> = [];
        route.queryVariables.forEach((variable, position) => {
          for (const text of given[position] ?? []) pairs.push([variable.name, text]);
        });
        if (extra !== null) pairs.push(extra);
        const search = new URLSearchParams(pairs).toString();
        const target = search === '' ? rawPath : `${rawPath}?${search}`;
        const expected = await expectedFor(route, ids, pairs, rawPath);
        const response = await call(demo().port, 'GET', target);
        expect({ target, status: response.status, body: bodyOf(response) }).toEqual({ target, ...expected });
        expect(response.headers['content-type']).toBe(JSON_TYPE);
        if (response.status === 200) expect(response.headers['etag']).toBe(etagOf(response.text));
      }),
      { numRuns: 100 },
    );
  });
});

describe('If-Match: 412 unless it names the current representation', () => {
  const demo = demoForEachTest();
  const api = (method: string, path: string, options?: CallOptions) => call(demo().port, method, path, options);
  const stale = 'The resource at /api/v1/reviews/r1 is not the one If-Match names (it has changed, or is gone).';

  it('PATCH with the current ETag (alone, in a list, or *) applies', async () => {
    const etag = (await api('GET', '/api/v1/reviews/r1')).headers['etag'] as string;
    expectData(await api('PATCH', '/api/v1/reviews/r1', { headers: { ...EDITOR, 'if-match': etag }, json: { text: 'Again.' } }), { ...R1, text: 'Again.' });
    const current = (await api('GET', '/api/v1/reviews/r1')).headers['etag'] as string;
    expectData(await api('PATCH', '/api/v1/reviews/r1', { headers: { ...EDITOR, 'if-match': `"other", ${current}` }, json: { stars: 4 } }), { ...R1, text: 'Again.', stars: 4 });
    expectData(await api('PATCH', '/api/v1/reviews/r1', { headers: { ...EDITOR, 'if-match': '*' }, json: { stars: 3 } }), { ...R1, text: 'Again.', stars: 3 });
  });

  it('a lost update is refused: the second writer with the same ETag gets 412, and nothing changes', async () => {
    const etag = (await api('GET', '/api/v1/reviews/r1')).headers['etag'] as string;
    expect((await api('PATCH', '/api/v1/reviews/r1', { headers: { ...EDITOR, 'if-match': etag }, json: { stars: 1 } })).status).toBe(200);
    const second = await api('PATCH', '/api/v1/reviews/r1', { headers: { ...EDITOR, 'if-match': etag }, json: { stars: 2 } });
    expectFailure(second, 412, 'PRECONDITION_FAILED', stale);
    expect(second.headers['api-version']).toBe('v1');
    expect(demo().data.reviews).toEqual([{ ...R1, stars: 1 }]);
  });

  it('If-Match: * on a resource that is not there is 412; so is a DELETE with a stale ETag', async () => {
    expectFailure(
      await api('PATCH', '/api/v1/reviews/r404', { headers: { ...EDITOR, 'if-match': '*' }, json: { stars: 1 } }),
      412,
      'PRECONDITION_FAILED',
      'The resource at /api/v1/reviews/r404 is not the one If-Match names (it has changed, or is gone).',
    );
    expectFailure(await api('DELETE', '/api/v1/reviews/r1', { headers: { ...ADMIN, 'if-match': '"stale"' } }), 412, 'PRECONDITION_FAILED', stale);
    // With the current ETag the precondition holds, and authorization decides.
    const etag = (await api('GET', '/api/v1/reviews/r1')).headers['etag'] as string;
    expect((await api('DELETE', '/api/v1/reviews/r1', { headers: { ...EDITOR, 'if-match': etag } })).status).toBe(403);
    expect(demo().data.reviews).toEqual([R1]);
  });

  it('GET ignores If-Match', async () => {
    expectData(await api('GET', '/api/v1/reviews/r1', { headers: { 'if-match': '"stale"' } }), R1);
  });
});

describe('If-Match under a rate limit', () => {
  describe('two requests a minute', () => {
    const demo = demoForEachTest({ extra: { rateLimit: { requests: { limit: 2, windowSeconds: 60 } } } });

    it('a conditional PATCH is one request against the budget, like any other', async () => {
      const read = await call(demo().port, 'GET', '/api/v1/reviews/r1', { headers: EDITOR });
      expect(read.headers['ratelimit']).toMatch(/^"requests";r=1;/);
      const patched = await call(demo().port, 'PATCH', '/api/v1/reviews/r1', { headers: { ...EDITOR, 'if-match': read.headers['etag'] as string }, json: { stars: 4 } });
      expectData(patched, { ...R1, stars: 4 });
      expect(patched.headers['ratelimit']).toMatch(/^"requests";r=0;/);
    });
  });

  describe('one request a minute', () => {
    const demo = demoForEachTest({ extra: { rateLimit: { requests: { limit: 1, windowSeconds: 60 } } } });

    it('over the budget, a conditional PATCH is 429 (not 412)', async () => {
      expect((await call(demo().port, 'GET', '/api/v1/reviews/r1', { headers: EDITOR })).status).toBe(200);
      const refused = await call(demo().port, 'PATCH', '/api/v1/reviews/r1', { headers: { ...EDITOR, 'if-match': '*' }, json: { stars: 4 } });
      expect({ status: refused.status, code: (bodyOf(refused) as { error: { code: string } }).error.code }).toEqual({ status: 429, code: 'RATE_LIMITED' });
      expect(refused.headers['retry-after']).toBeDefined();
      expect(demo().data.reviews).toEqual([R1]);
    });
  });
});

describe('paging: Link rel="next" and rel="prev"', () => {
  const demo = demoForSuite();
  const api = (path: string, headers: Record<string, string> = {}) => call(demo().port, 'GET', path, { headers });

  it.each([
    ['/api/v1/books?limit=2', '</api/v1/books?limit=2&offset=2>; rel="next"'],
    ['/api/v1/books?limit=2&offset=2', '</api/v1/books?limit=2&offset=4>; rel="next", </api/v1/books?limit=2&offset=0>; rel="prev"'],
    ['/api/v1/books?limit=2&offset=4', '</api/v1/books?limit=2&offset=2>; rel="prev"'],
    ['/api/v1/books?offset=1&limit=2', '</api/v1/books?offset=3&limit=2>; rel="next", </api/v1/books?offset=0&limit=2>; rel="prev"'],
    ['/api/v1/books?genre=SCIENCE&limit=1', '</api/v1/books?genre=SCIENCE&limit=1&offset=1>; rel="next"'],
    ['/api/v1/books?offset=3', '</api/v1/books?offset=0&limit=10>; rel="prev"'],
    ['/api/v1/books', undefined],
    ['/api/v1/books?limit=5', undefined],
    ['/api/v1/books?limit=0', undefined],
    ['/api/v1/authors/a1/books', undefined],
  ])('GET %s', async (path, link) => {
    const response = await api(path);
    expect(response.status).toBe(200);
    expect(response.headers['link']).toBe(link);
  });

  it('following rel="next" from the first page visits every book once, and rel="prev" walks back', async () => {
    const nextOf = (response: CallResponse, rel: string): string | undefined =>
      [...String(response.headers['link'] ?? '').matchAll(/<([^>]+)>; rel="(\w+)"/g)].find((match) => match[2] === rel)?.[1];
    const seen: string[] = [];
    let path: string | undefined = '/api/v1/books?sort=TITLE&limit=2';
    let last: CallResponse | undefined;
    for (let pages = 0; path !== undefined && pages < 10; pages++) {
      last = await api(path);
      seen.push(...(bodyOf(last) as { data: { items: Array<{ id: string }> } }).data.items.map((item) => item.id));
      path = nextOf(last, 'next');
    }
    expect(seen.sort()).toEqual(['b1', 'b2', 'b3', 'b4', 'b5']);
    const back: string[] = [];
    path = nextOf(last as CallResponse, 'prev');
    for (let pages = 0; path !== undefined && pages < 10; pages++) {
      const page = await api(path);
      back.push(...(bodyOf(page) as { data: { items: Array<{ id: string }> } }).data.items.map((item) => item.id));
      path = nextOf(page, 'prev');
    }
    // By title: b3, b4 | b5, b1 | b2; back from the last page: every book before it.
    expect(back).toEqual(['b5', 'b1', 'b3', 'b4']);
  });

  it('HEAD and 304 carry the Link too; a version named by header keeps the path it was asked on', async () => {
    const get = await api('/api/v1/books?limit=2');
    const head = await call(demo().port, 'HEAD', '/api/v1/books?limit=2');
    expect(head.headers['link']).toBe(get.headers['link']);
    const notModified = await api('/api/v1/books?limit=2', { 'if-none-match': get.headers['etag'] as string });
    expect(notModified.status).toBe(304);
    expect(notModified.headers['link']).toBe(get.headers['link']);
    const byHeader = await api('/api/books?limit=2', { 'api-version': 'v1' });
    expect(byHeader.headers['link']).toBe('</api/books?limit=2&offset=2>; rel="next"');
  });
});

/** Why a value does not conform to a JSON Schema (the subset the OpenAPI document uses); empty when it does. */
function schemaErrors(value: unknown, schema: Record<string, unknown>, at = '$'): string[] {
  if (Array.isArray(schema['anyOf'])) {
    return (schema['anyOf'] as Array<Record<string, unknown>>).some((each) => schemaErrors(value, each, at).length === 0) ? [] : [`${at}: ${JSON.stringify(value)} matches none of anyOf`];
  }
  const errors: string[] = [];
  if (Array.isArray(schema['enum']) && !(schema['enum'] as unknown[]).includes(value)) errors.push(`${at}: ${JSON.stringify(value)} is not in the enum`);
  const type = schema['type'];
  const isObject = value !== null && typeof value === 'object' && !Array.isArray(value);
  const typeOk =
    type === undefined ||
    (type === 'null' && value === null) ||
    (type === 'string' && typeof value === 'string') ||
    (type === 'integer' && Number.isInteger(value)) ||
    (type === 'number' && typeof value === 'number') ||
    (type === 'boolean' && typeof value === 'boolean') ||
    (type === 'array' && Array.isArray(value)) ||
    (type === 'object' && isObject);
  if (!typeOk) return [...errors, `${at}: ${JSON.stringify(value)} is not of type ${String(type)}`];
  if (typeof value === 'number') {
    if (typeof schema['minimum'] === 'number' && value < schema['minimum']) errors.push(`${at}: below the minimum`);
    if (typeof schema['maximum'] === 'number' && value > schema['maximum']) errors.push(`${at}: above the maximum`);
  }
  if (Array.isArray(value) && schema['items'] !== undefined) {
    value.forEach((item, index) => errors.push(...schemaErrors(item, schema['items'] as Record<string, unknown>, `${at}[${index}]`)));
  }
  if (isObject) {
    const record = value as Record<string, unknown>;
    const properties = (schema['properties'] ?? {}) as Record<string, Record<string, unknown>>;
    for (const name of (schema['required'] ?? []) as string[]) if (!(name in record)) errors.push(`${at}: misses ${name}`);
    for (const [name, member] of Object.entries(record)) {
      if (name in properties) errors.push(...schemaErrors(member, properties[name] as Record<string, unknown>, `${at}.${name}`));
      else if (schema['additionalProperties'] === false) errors.push(`${at}: ${name} is not allowed`);
    }
  }
  return errors;
}

describe('the schemaErrors checker the OpenAPI tests use', () => {
  it('refuses what does not conform', () => {
    const schema = { type: 'object', additionalProperties: false, required: ['a'], properties: { a: { type: 'integer', minimum: 0 }, b: { anyOf: [{ type: 'string', enum: ['X'] }, { type: 'null' }] } } };
    expect(schemaErrors({ a: 1, b: 'X' }, schema)).toEqual([]);
    expect(schemaErrors({ a: 1, b: null }, schema)).toEqual([]);
    expect(schemaErrors({ b: 'X' }, schema)).not.toEqual([]);
    expect(schemaErrors({ a: -1 }, schema)).not.toEqual([]);
    expect(schemaErrors({ a: 1.5 }, schema)).not.toEqual([]);
    expect(schemaErrors({ a: 1, b: 'Y' }, schema)).not.toEqual([]);
    expect(schemaErrors({ a: 1, c: 2 }, schema)).not.toEqual([]);
    expect(schemaErrors(null, schema)).not.toEqual([]);
    expect(schemaErrors([1, 'x'], { type: 'array', items: { type: 'integer' } })).not.toEqual([]);
  });
});

type OpenApi = { openapi: string; info: Record<string, unknown>; paths: Record<string, Record<string, Record<string, unknown>>>; components: { schemas: Record<string, Record<string, unknown>> } };

describe('the OpenAPI document: /api/v1/openapi.json', () => {
  const demo = demoForEachTest();
  const api = (method: string, path: string, options?: CallOptions) => call(demo().port, method, path, options);
  const documentOf = async (path = '/api/v1/openapi.json'): Promise<OpenApi> => {
    const response = await api('GET', path);
    expect(response.status).toBe(200);
    expect(response.headers['content-type']).toBe(JSON_TYPE);
    return bodyOf(response) as OpenApi;
  };
  /** The schema of a response's body, `$ref`s to components followed. */
  const responseSchema = (document: OpenApi, path: string, method: string, status: string): Record<string, unknown> => {
    const response = (document.paths[path]?.[method]?.['responses'] as Record<string, { content?: Record<string, { schema: Record<string, unknown> }> }>)[status];
    const schema = response?.content?.['application/json']?.schema as Record<string, unknown>;
    const ref = schema?.['$ref'];
    return typeof ref === 'string' ? (document.components.schemas[ref.replace('#/components/schemas/', '')] as Record<string, unknown>) : schema;
  };

  it('is served as JSON for GET and HEAD, for the version by path, by header or the current one; other methods 405', async () => {
    const byPath = await api('GET', '/api/v1/openapi.json');
    expect(byPath.headers['api-version']).toBe('v1');
    expect(byPath.headers['cache-control']).toBe('no-cache');
    expect((await api('GET', '/api/openapi.json')).text).toBe(byPath.text);
    expect((await api('GET', '/api/openapi.json', { headers: { 'api-version': 'v1' } })).text).toBe(byPath.text);
    const head = await api('HEAD', '/api/v1/openapi.json');
    expect({ status: head.status, text: head.text, type: head.headers['content-type'] }).toEqual({ status: 200, text: '', type: JSON_TYPE });
    const post = await api('POST', '/api/v1/openapi.json', { json: {} });
    expectFailure(post, 405, 'METHOD_NOT_ALLOWED', 'Method POST is not allowed on /api/v1/openapi.json; use GET, HEAD.');
    expect(post.headers['allow']).toBe('GET, HEAD');
  });

  it('is a valid OpenAPI 3.1 document (@readme/openapi-parser)', async () => {
    const document = await documentOf();
    expect(document.openapi).toBe('3.1.0');
    const { validate, compileErrors } = await import('@readme/openapi-parser');
    const result = await validate(structuredClone(document) as unknown as Parameters<typeof validate>[0]);
    expect(result.valid ? 'valid' : compileErrors(result)).toBe('valid');
  });

  it('has every route, and only those, each with a unique operationId', async () => {
    const document = await documentOf();
    const documented = Object.entries(document.paths).flatMap(([path, operations]) => Object.keys(operations).map((method) => `${method.toUpperCase()} ${path}`));
    const routes = Object.keys(DEMO_RESOURCES.routes).map((key) => key.replace(' /', ' /api/v1/'));
    expect(documented.sort()).toEqual(routes.sort());
    const ids = Object.values(document.paths).flatMap((operations) => Object.values(operations).map((operation) => operation['operationId']));
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('describes parameters, bodies and the statuses each method answers with', async () => {
    const document = await documentOf();
    const books = document.paths['/api/v1/books']?.['get'] as { parameters: Array<Record<string, unknown>> };
    expect(books.parameters.map((parameter) => [parameter['name'], parameter['in'], parameter['required'], (parameter['schema'] as { default?: unknown }).default])).toEqual([
      ['genre', 'query', false, undefined],
      ['sort', 'query', false, undefined],
      ['limit', 'query', false, 10],
      ['offset', 'query', false, 0],
    ]);
    const item = document.paths['/api/v1/reviews/{id}'] as Record<string, { parameters: Array<Record<string, unknown>>; requestBody?: unknown; responses: Record<string, unknown> }>;
    expect(item['get']?.parameters).toEqual([{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }]);
    const post = document.paths['/api/v1/books/{id}/reviews']?.['post'] as { requestBody: unknown };
    expect(post.requestBody).toEqual({
      required: true,
      content: {
        'application/json': {
          schema: {
            type: 'object',
            additionalProperties: false,
            properties: { stars: { type: 'integer', minimum: -2147483648, maximum: 2147483647 }, text: { anyOf: [{ type: 'string' }, { type: 'null' }] } },
            required: ['stars'],
          },
        },
      },
    });
    expect((item['patch']?.requestBody as { required: boolean }).required).toBe(false);
    const statuses = (path: string, method: string) => Object.keys((document.paths[path]?.[method] as { responses: Record<string, unknown> }).responses).sort();
    const errors = ['400', '401', '403', '404', '406', '410', '429', '500', '503'];
    expect(statuses('/api/v1/books/{id}', 'get')).toEqual(['200', '304', ...errors].sort());
    expect(statuses('/api/v1/books/{id}/reviews', 'post')).toEqual(['201', '204', '412', '415', ...errors].sort());
    expect(statuses('/api/v1/reviews/{id}', 'patch')).toEqual(['200', '204', '412', '415', ...errors].sort());
    expect(statuses('/api/v1/reviews/{id}', 'delete')).toEqual(['204', '412', ...errors].sort());
  });

  it('the server\'s answers conform to the documented schemas', async () => {
    const document = await documentOf();
    const check = (response: CallResponse, path: string, method: string) => {
      expect(schemaErrors(bodyOf(response), responseSchema(document, path, method, String(response.status))), `${method} ${path} ${response.status}`).toEqual([]);
    };
    for (const path of ['/api/v1/authors', '/api/v1/authors/a1', '/api/v1/authors/a3/books', '/api/v1/books', '/api/v1/books?genre=SCIENCE&limit=1', '/api/v1/books/b3', '/api/v1/books/b3/reviews', '/api/v1/reviews/r1']) {
      const response = await api('GET', path);
      expect(response.status).toBe(200);
      check(response, `/api/v1/${path.slice('/api/v1/'.length).split('?')[0]?.replace(/\/(a|b|r)\d(?=\/|$)/, '/{id}')}`, 'get');
    }
    const created = await api('POST', '/api/v1/books/b3/reviews', { headers: EDITOR, json: { stars: 2, text: null } });
    expect(created.status).toBe(201);
    check(created, '/api/v1/books/{id}/reviews', 'post');
    const patched = await api('PATCH', '/api/v1/reviews/r2', { headers: EDITOR, json: { stars: 3 } });
    check(patched, '/api/v1/reviews/{id}', 'patch');
    for (const [method, path, documented] of [
      ['GET', '/api/v1/books/b99', '/api/v1/books/{id}'],
      ['GET', '/api/v1/books?limit=-1', '/api/v1/books'],
      ['DELETE', '/api/v1/reviews/r1', '/api/v1/reviews/{id}'],
    ] as const) {
      const failed = await api(method, path, { headers: EDITOR });
      expect(failed.status).toBeGreaterThanOrEqual(400);
      check(failed, documented, method.toLowerCase());
    }
  });

  it('a 200\'s data is never null (null is a 404), and the document says so', async () => {
    const document = await documentOf();
    for (const path of ['/api/v1/books/{id}', '/api/v1/books', '/api/v1/authors/{id}/books']) {
      const data = (responseSchema(document, path, 'get', '200')['properties'] as Record<string, Record<string, unknown>>)['data'] as Record<string, unknown>;
      expect({ path, dataAdmitsNull: schemaErrors(null, data).length === 0 }).toEqual({ path, dataAdmitsNull: false });
    }
  });
});

describe('the OpenAPI document of other versions and routes', () => {
  const things = thingsForEachTest({}, [
    { version: 'v1', routes: THINGS_ROUTES, deprecation: { deprecatedAt: '2025-01-01T00:00:00Z', sunset: '2099-12-31T00:00:00Z' } },
    { version: 'v2', routes: { 'GET /things': THINGS_ROUTES['GET /things'] as string } },
    { version: 'v3', routes: { 'GET /things': THINGS_ROUTES['GET /things'] as string }, deprecation: { deprecatedAt: '2019-01-01T00:00:00Z', sunset: '2020-01-01T00:00:00Z' } },
  ]);

  it('documents a PUT body that is one input object, list query parameters, and a deprecated version; a retired one is 410', async () => {
    const response = await call(things().port, 'GET', '/api/v1/openapi.json');
    expect(response.status).toBe(200);
    expect(response.headers['deprecation']).toBe('@1735689600');
    const document = bodyOf(response) as OpenApi;
    expect(document.info).toEqual({ title: 'Resource API', version: '1.0.0', description: 'Deprecated; retired on 2099-12-31.' });
    expect((document.paths['/api/v1/things/{id}']?.['put']?.['requestBody'] as { content: Record<string, { schema: unknown }> }).content['application/json']?.schema).toEqual({
      type: 'object',
      additionalProperties: false,
      properties: { name: { type: 'string' } },
      required: ['name'],
    });
    const tags = (document.paths['/api/v1/echoes']?.['get']?.['parameters'] as Array<Record<string, unknown>>).find((parameter) => parameter['name'] === 'tags');
    expect(tags).toEqual({ name: 'tags', in: 'query', required: false, explode: true, schema: { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'null' }] } });
    const v2 = bodyOf(await call(things().port, 'GET', '/api/openapi.json')) as OpenApi;
    expect(Object.keys(v2.paths)).toEqual(['/api/v2/things']);
    expect(v2.info['description']).toBeUndefined();
    expectFailure(await call(things().port, 'GET', '/api/v3/openapi.json'), 410, 'GONE', 'API version v3 was retired on 2020-01-01.');
  });
});

describe('the GET fast path and /graphql', () => {
  const demo = demoForSuite();

  it('a GET seen before answers the same, for each caller as that caller', async () => {
    const first = await call(demo().port, 'GET', '/api/v1/books/b2');
    const second = await call(demo().port, 'GET', '/api/v1/books/b2');
    expect(second.text).toBe(first.text);
    const reader = await call(demo().port, 'GET', '/api/v1/books/b2', { headers: READER });
    expect(reader.text).toBe(first.text);
    expect(reader.headers['cache-control']).toBe('private, no-cache');
  });

  it('a /graphql POST whose body is not JSON is a 400, whatever resource URL its text looks like', async () => {
    expect((await call(demo().port, 'GET', '/api/v1/books/b1')).status).toBe(200);
    const response = await call(demo().port, 'POST', '/graphql', { headers: { 'content-type': 'application/json', accept: 'application/json' }, body: 'GET v1 /api/v1/books/b1' });
    expect(response.status).toBe(400);
    expect(bodyOf(response)).toEqual({ errors: [{ message: `The request body is not valid JSON: ${jsonSyntaxMessage('GET v1 /api/v1/books/b1')}`, extensions: { code: 'BAD_REQUEST' } }] });
  });
});

describe('CORS on the resource routes', () => {
  const data = createDemoData();
  const handle = createHandler({
    schema: demoSchema,
    context: (_request, { identity }) => createDemoContext(data, identity),
    resources: DEMO_RESOURCES,
    cors: { origins: ['https://app.example.com'] },
  });
  const origin = 'https://app.example.com';

  it('answers a preflight with the routes\' methods', async () => {
    const [body, init] = await handle({ method: 'OPTIONS', url: '/api/v1/reviews/r1', headers: { origin, 'access-control-request-method': 'PATCH' }, body: null, raw: null });
    expect(body).toBeNull();
    expect(init).toEqual({
      status: 204,
      headers: {
        allow: 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
        'access-control-allow-origin': origin,
        vary: 'Origin',
        'access-control-expose-headers': 'etag, location, link, api-version, deprecation, sunset, retry-after, ratelimit, ratelimit-policy',
        'access-control-allow-methods': 'GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS',
        'access-control-allow-headers': 'content-type, authorization, x-api-key, x-graphql-csrf, apollo-require-preflight, x-apollo-operation-name',
        'access-control-max-age': '600',
      },
    });
  });

  it('lets a page read the answer\'s headers, and varies by Origin, and by version headers when no path names the version', async () => {
    const [, init] = await handle({ method: 'GET', url: '/api/v1/books/b1', headers: { origin }, body: null, raw: null });
    expect(init.status).toBe(200);
    expect(init.headers['access-control-allow-origin']).toBe(origin);
    expect(init.headers['access-control-expose-headers']).toBe('etag, location, link, api-version, deprecation, sunset, retry-after, ratelimit, ratelimit-policy');
    // The path names the version: the version headers change nothing.
    expect(init.headers['vary']).toBe('Origin');
    for (const headers of [{ origin }, { origin, 'api-version': 'v1' }, { origin, 'accept-version': 'v1' }]) {
      const [, byHeader] = await handle({ method: 'GET', url: '/api/books/b1', headers, body: null, raw: null });
      expect(byHeader.status).toBe(200);
      expect(byHeader.headers['vary']).toBe('API-Version, Accept-Version, Origin');
    }
  });

  it('keeps /graphql\'s own policy', async () => {
    const [, init] = await handle({ method: 'OPTIONS', url: '/graphql', headers: { origin }, body: null, raw: null });
    expect(init.headers['access-control-allow-methods']).toBe('GET, POST');
    expect(init.headers['access-control-expose-headers']).toBe('etag');
  });
});

describe('cursor paging (a Relay connection, the demo\'s v2 GET /books)', () => {
  const data = createDemoData();
  const handle = createHandler({
    schema: demoSchema,
    context: (_request, { identity }) => createDemoContext(data, identity),
    resources: [DEMO_RESOURCES, DEMO_RESOURCES_V2],
  });
  const get = async (url: string) => {
    const [body, init] = await handle({ method: 'GET', url, headers: {}, body: null, raw: null });
    return { status: init.status, link: init.headers['link'], body: JSON.parse(body as string) as { data: { edges: Array<{ node: { id: string } }>; pageInfo: { endCursor: string | null } } } };
  };

  it('links each page to the next by its end cursor, and the last page to none; every book is visited once', async () => {
    const seen: string[] = [];
    let url: string | undefined = '/api/v2/books?limit=2';
    const links: Array<string | undefined> = [];
    while (url !== undefined) {
      const page = await get(url);
      expect(page.status).toBe(200);
      seen.push(...page.body.data.edges.map((edge) => edge.node.id));
      links.push(page.link);
      url = page.link === undefined ? undefined : /^<([^>]+)>; rel="next"$/.exec(page.link)?.[1];
    }
    expect(seen).toEqual(['b1', 'b2', 'b3', 'b4', 'b5']);
    expect(links).toEqual([
      '</api/v2/books?limit=2&cursor=YWZ0ZXI6MQ>; rel="next"',
      '</api/v2/books?limit=2&cursor=YWZ0ZXI6Mw>; rel="next"',
      undefined,
    ]);
  });

  it('answers without a version with the newest (v2), and v1 still pages by offset', async () => {
    const [, latest] = await handle({ method: 'GET', url: '/api/books?limit=2', headers: {}, body: null, raw: null });
    expect(latest.headers['api-version']).toBe('v2');
    const [, v1] = await handle({ method: 'GET', url: '/api/v1/books?limit=2', headers: {}, body: null, raw: null });
    expect(v1.headers['link']).toBe('</api/v1/books?limit=2&offset=2>; rel="next"');
  });

  it('refuses a cursor that is not one with the resolver\'s BAD_USER_INPUT', async () => {
    const page = await handle({ method: 'GET', url: '/api/v2/books?cursor=zzz', headers: {}, body: null, raw: null });
    expect(page[1].status).toBe(400);
    expect(JSON.parse(page[0] as string)).toEqual({ error: { code: 'BAD_USER_INPUT', message: '"zzz" is not a cursor of this list.' } });
  });
});
