/**
 * The demo service (`npm start`): the library schema with its roles (an admin includes an
 * editor, who includes a reader), admin-only fields, a mutation for editors and one that also
 * needs multi-factor sign-in, and the security settings read from the environment
 * (src/demo/config.ts), METRICS_TOKEN for /metrics among them.
 *
 * Each suite starts the demo as main.ts does, `createServer` with `demoSchema`, a context from
 * `createDemoContext` with the caller's identity, and `...demoSecurity(env)`, on 127.0.0.1,
 * port 0, over a store of its own, which the tests read to see whether a mutation ran. The
 * last suite runs `npm start` itself as a child process.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { SignJWT, exportSPKI, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { createHandler, createServer } from '../src/index.ts';
import { DEMO_API_KEYS, demoSecurity } from '../src/demo/config.ts';
import { createDemoContext, createDemoData, demoSchema } from '../src/demo/librarySchema.ts';
import { json, postJson, send } from './support/httpServer.ts';
import type { SentResponse } from './support/httpServer.ts';
import { serveDemo } from './support/demo.ts';
import type { Demo } from './support/demo.ts';

const JSON_RESPONSE = 'application/json; charset=utf-8';
const ISSUER = 'https://login.example.com';
const AUDIENCE = 'library-api';
const ROOT = fileURLToPath(new URL('..', import.meta.url));

const { publicKey, privateKey } = await generateKeyPair('RS256');
const PEM = await exportSPKI(publicKey);

/** A token from the demo's issuer for `sub`, with these claims, expiring in an hour. */
function token(sub: string, claims: Record<string, unknown>, audience: string = AUDIENCE): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'RS256' })
    .setSubject(sub)
    .setIssuer(ISSUER)
    .setAudience(audience)
    .setIssuedAt()
    .setExpirationTime('1h')
    .sign(privateKey);
}

/** A GraphQL POST with an API key (or none), answered as application/json. */
function asKey(demo: Demo, key: string | null, query: string): Promise<SentResponse> {
  return postJson(demo.url, { query }, 'application/json', key === null ? {} : { 'x-api-key': key });
}

function asBearer(demo: Demo, bearer: string, query: string): Promise<SentResponse> {
  return postJson(demo.url, { query }, 'application/json', { authorization: `Bearer ${bearer}` });
}

/** The errors of a GraphQL result, as message, code and path. */
function errorsOf(response: SentResponse): Array<{ message: string; code: unknown; path: unknown }> {
  const body = json(response) as { errors?: Array<{ message: string; path?: unknown; extensions?: { code?: unknown } }> };
  return (body.errors ?? []).map((error) => ({ message: error.message, code: error.extensions?.code, path: error.path }));
}

function dataOf(response: SentResponse): unknown {
  return (json(response) as { data?: unknown }).data;
}

const ADD_REVIEW = 'mutation { addReview(review: { bookId: "b1", stars: 4, text: "Still timely." }) { id stars text book { title } } }';
const FORBIDDEN_EMAIL = 'Access to Author.email requires the role admin.';
const FORBIDDEN_STATS = 'Access to LibraryStats requires the role admin.';
const FORBIDDEN_ADD = 'Access to Mutation.addReview requires the role editor.';
const FORBIDDEN_DELETE = 'Access to Mutation.deleteReview requires the role admin.';
const MFA_DELETE = 'Access to Mutation.deleteReview requires multi-factor authentication; sign in again with a second factor.';

describe('the demo with no settings', () => {
  const demo = serveDemo({});

  it('lets an anonymous caller query books, with Author.email null and FORBIDDEN at each path', async () => {
    const response = await asKey(demo, null, '{ books(limit: 2) { total items { title author { name email } } } }');
    expect(response.status).toBe(200);
    expect(dataOf(response)).toEqual({
      books: {
        total: 5,
        items: [
          { title: 'The Dispossessed', author: { name: 'Ursula K. Le Guin', email: null } },
          { title: 'The Left Hand of Darkness', author: { name: 'Ursula K. Le Guin', email: null } },
        ],
      },
    });
    expect(errorsOf(response)).toEqual([
      { message: FORBIDDEN_EMAIL, code: 'FORBIDDEN', path: ['books', 'items', 0, 'author', 'email'] },
      { message: FORBIDDEN_EMAIL, code: 'FORBIDDEN', path: ['books', 'items', 1, 'author', 'email'] },
    ]);
  });

  it('shows Author.email to demo-admin only', async () => {
    const query = '{ authors { id email } }';
    for (const key of ['demo-reader', 'demo-editor']) {
      const response = await asKey(demo, key, query);
      expect(errorsOf(response).map((error) => error.code)).toEqual(['FORBIDDEN', 'FORBIDDEN', 'FORBIDDEN']);
    }
    const admin = await asKey(demo, 'demo-admin', query);
    expect(errorsOf(admin)).toEqual([]);
    expect(dataOf(admin)).toEqual({
      authors: [
        { id: 'a1', email: 'ursula@example.org' },
        { id: 'a2', email: 'carl@example.org' },
        { id: 'a3', email: 'mary@example.org' },
      ],
    });
  });

  it.each([
    [null, { id: 'anonymous', kind: 'anonymous', roles: [], mfa: false }],
    ['demo-reader', { id: 'demo-reader', kind: 'apiKey', roles: ['reader'], mfa: false }],
    ['demo-editor', { id: 'demo-editor', kind: 'apiKey', roles: ['editor'], mfa: false }],
    ['demo-admin', { id: 'demo-admin', kind: 'apiKey', roles: ['admin'], mfa: false }],
  ])('tells the caller with key %s who they are', async (key, me) => {
    const response = await asKey(demo, key, '{ me { id kind roles mfa } }');
    expect(response.status).toBe(200);
    expect(json(response)).toEqual({ data: { me }, extensions: { cost: { requested: 1, actual: 1, limit: 1000 } } });
  });

  it('accepts the demo keys in the Authorization header too', async () => {
    const response = await postJson(demo.url, { query: '{ me { id } }' }, 'application/json', { authorization: 'ApiKey demo-editor' });
    expect(dataOf(response)).toEqual({ me: { id: 'demo-editor' } });
  });

  it('refuses a key that is not a demo key with 401', async () => {
    const response = await asKey(demo, 'demo-root', '{ me { id } }');
    expect(response.status).toBe(401);
    expect(json(response)).toEqual({ error: { code: 'UNAUTHENTICATED', message: 'The API key is not valid.' } });
    expect(response.headers['www-authenticate']).toBe('ApiKey realm="graphql", error="invalid_token", error_description="The API key is not valid."');
  });

  it('shows the stats to demo-admin only', async () => {
    for (const key of [null, 'demo-reader', 'demo-editor']) {
      const response = await asKey(demo, key, '{ stats { authors books reviews } }');
      expect(response.status).toBe(200);
      expect(json(response)).toMatchObject({ data: null });
      expect(errorsOf(response)).toEqual([{ message: FORBIDDEN_STATS, code: 'FORBIDDEN', path: ['stats'] }]);
    }
    const admin = await asKey(demo, 'demo-admin', '{ stats { authors books reviews } }');
    expect(dataOf(admin)).toEqual({ stats: { authors: 3, books: 5, reviews: demo.data.reviews.length } });
  });

  it.each(['demo-editor', 'demo-admin'])('lets %s add a review', async (key) => {
    const before = demo.data.reviews.length;
    const response = await asKey(demo, key, ADD_REVIEW);
    expect(errorsOf(response)).toEqual([]);
    expect(dataOf(response)).toEqual({
      addReview: { id: `r${demo.data.nextReviewId - 1}`, stars: 4, text: 'Still timely.', book: { title: 'The Dispossessed' } },
    });
    expect(demo.data.reviews.length).toBe(before + 1);
  });

  it.each([
    ['demo-reader', 'demo-reader'],
    ['an anonymous caller', null],
  ])('refuses addReview to %s with FORBIDDEN, without running the resolver', async (_title, key) => {
    const before = { reviews: demo.data.reviews.length, nextReviewId: demo.data.nextReviewId };
    const response = await asKey(demo, key, ADD_REVIEW);
    expect(response.status).toBe(200);
    expect(json(response)).toMatchObject({ data: null });
    expect(errorsOf(response)).toEqual([{ message: FORBIDDEN_ADD, code: 'FORBIDDEN', path: ['addReview'] }]);
    expect({ reviews: demo.data.reviews.length, nextReviewId: demo.data.nextReviewId }).toEqual(before);
  });

  it('refuses deleteReview to demo-admin with MFA_REQUIRED, since an API key carries no second factor', async () => {
    const before = demo.data.reviews.length;
    const response = await asKey(demo, 'demo-admin', 'mutation { deleteReview(id: "r1") }');
    expect(json(response)).toMatchObject({ data: null });
    expect(errorsOf(response)).toEqual([{ message: MFA_DELETE, code: 'MFA_REQUIRED', path: ['deleteReview'] }]);
    expect(demo.data.reviews.length).toBe(before);
    expect(demo.data.reviews.some((review) => review.id === 'r1')).toBe(true);
  });

  it('refuses deleteReview to demo-editor with FORBIDDEN', async () => {
    const response = await asKey(demo, 'demo-editor', 'mutation { deleteReview(id: "r1") }');
    expect(errorsOf(response)).toEqual([{ message: FORBIDDEN_DELETE, code: 'FORBIDDEN', path: ['deleteReview'] }]);
    expect(demo.data.reviews.some((review) => review.id === 'r1')).toBe(true);
  });

  it('refuses a bearer token with 401, since no JWT key is configured', async () => {
    const response = await asBearer(demo, await token('alice', { roles: ['admin'] }), '{ me { id } }');
    expect(response.status).toBe(401);
    expect(json(response)).toEqual({
      error: {
        code: 'UNAUTHENTICATED',
        message: 'The Bearer credential is not accepted here. This server accepts an API key (X-API-Key: <key> or Authorization: ApiKey <key>).',
      },
    });
  });
});

describe('the demo with JWT_PUBLIC_KEY, JWT_ISSUER and JWT_AUDIENCE', () => {
  const demo = serveDemo({ JWT_PUBLIC_KEY: PEM, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE });

  it('knows the caller of a token: its subject, roles and second factor', async () => {
    const response = await asBearer(demo, await token('alice', { roles: ['admin'], amr: ['pwd', 'mfa'] }), '{ me { id kind roles mfa } }');
    expect(response.status).toBe(200);
    expect(dataOf(response)).toEqual({ me: { id: 'alice', kind: 'jwt', roles: ['admin'], mfa: true } });
  });

  it('lets an admin who signed in with a second factor delete a review', async () => {
    expect(demo.data.reviews.some((review) => review.id === 'r1')).toBe(true);
    const response = await asBearer(demo, await token('alice', { roles: ['admin'], amr: ['pwd', 'mfa'] }), 'mutation { deleteReview(id: "r1") }');
    expect(errorsOf(response)).toEqual([]);
    expect(dataOf(response)).toEqual({ deleteReview: true });
    expect(demo.data.reviews.some((review) => review.id === 'r1')).toBe(false);
  });

  it('refuses deleteReview with MFA_REQUIRED to an admin token without mfa in amr', async () => {
    const before = demo.data.reviews.length;
    const response = await asBearer(demo, await token('bob', { roles: ['admin'], amr: ['pwd'] }), 'mutation { deleteReview(id: "r1") }');
    expect(errorsOf(response)).toEqual([{ message: MFA_DELETE, code: 'MFA_REQUIRED', path: ['deleteReview'] }]);
    expect(demo.data.reviews.length).toBe(before);
  });

  it('refuses deleteReview with FORBIDDEN to an editor token, second factor or not', async () => {
    const response = await asBearer(demo, await token('carol', { roles: ['editor'], amr: ['mfa'] }), 'mutation { deleteReview(id: "r1") }');
    expect(errorsOf(response)).toEqual([{ message: FORBIDDEN_DELETE, code: 'FORBIDDEN', path: ['deleteReview'] }]);
  });

  it('lets an editor token add a review (an admin includes an editor, an editor a reader)', async () => {
    const response = await asBearer(demo, await token('carol', { roles: ['editor'] }), ADD_REVIEW);
    expect(errorsOf(response)).toEqual([]);
    expect(dataOf(response)).toMatchObject({ addReview: { stars: 4, book: { title: 'The Dispossessed' } } });
  });

  it('refuses a token for another audience with 401 and a Bearer challenge', async () => {
    const response = await asBearer(demo, await token('alice', { roles: ['admin'] }, 'another-api'), '{ me { id } }');
    expect(response.status).toBe(401);
    expect(json(response)).toEqual({ error: { code: 'UNAUTHENTICATED', message: 'The token is not meant for this server ("aud").' } });
    expect(response.headers['www-authenticate']).toBe(
      'Bearer realm="graphql", error="invalid_token", error_description="The token is not meant for this server (\'aud\')."',
    );
  });

  it('still accepts the demo keys outside production', async () => {
    const response = await asKey(demo, 'demo-reader', '{ me { id kind } }');
    expect(dataOf(response)).toEqual({ me: { id: 'demo-reader', kind: 'apiKey' } });
  });
});

describe('the demo in production (NODE_ENV=production)', () => {
  const demo = serveDemo({ NODE_ENV: 'production' });

  it.each(DEMO_API_KEYS.map(({ key }) => key))('refuses the demo key %s with 401: API keys are read in production, and none is valid', async (key) => {
    const before = demo.data.roundTrips;
    const response = await asKey(demo, key, '{ me { id kind roles } books { total } }');
    expect(response.status).toBe(401);
    expect(json(response)).toEqual({ error: { code: 'UNAUTHENTICATED', message: 'The API key is not valid.' } });
    expect(response.headers['www-authenticate']).toBe(
      'ApiKey realm="graphql", error="invalid_token", error_description="The API key is not valid."',
    );
    expect(demo.data.roundTrips).toBe(before);
  });

  it('refuses addReview to an anonymous caller, without running the resolver', async () => {
    const before = demo.data.reviews.length;
    const response = await asKey(demo, null, ADD_REVIEW);
    expect(errorsOf(response)).toEqual([{ message: FORBIDDEN_ADD, code: 'FORBIDDEN', path: ['addReview'] }]);
    expect(demo.data.reviews.length).toBe(before);
  });

  it('still serves anonymous callers, without the admin-only fields', async () => {
    const response = await asKey(demo, null, '{ books(limit: 1) { items { title author { email } } } }');
    expect(response.status).toBe(200);
    expect(dataOf(response)).toEqual({ books: { items: [{ title: 'The Dispossessed', author: { email: null } }] } });
    expect(errorsOf(response)).toEqual([{ message: FORBIDDEN_EMAIL, code: 'FORBIDDEN', path: ['books', 'items', 0, 'author', 'email'] }]);
  });

  it('refuses introspection in production', async () => {
    const response = await asKey(demo, null, '{ __schema { queryType { name } } }');
    expect(errorsOf(response).map((error) => error.message)).toEqual([
      'GraphQL introspection has been disabled, but the requested query contained the field "__schema".',
      'GraphQL introspection has been disabled, but the requested query contained the field "queryType".',
    ]);
    expect(errorsOf(response).map((error) => error.code)).toEqual(['GRAPHQL_VALIDATION_FAILED', 'GRAPHQL_VALIDATION_FAILED']);
  });
});

describe('the demo in production with a JWT key', () => {
  const demo = serveDemo({ NODE_ENV: 'production', JWT_PUBLIC_KEY: PEM, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE });

  it('refuses the demo keys with 401', async () => {
    const response = await asKey(demo, 'demo-admin', '{ me { id } }');
    expect(response.status).toBe(401);
    expect(response.headers['content-type']).toBe(JSON_RESPONSE);
    expect(json(response)).toEqual({ error: { code: 'UNAUTHENTICATED', message: 'The API key is not valid.' } });
  });

  it('lets a token in', async () => {
    const response = await asBearer(demo, await token('alice', { roles: ['reader'] }), '{ me { id kind } }');
    expect(dataOf(response)).toEqual({ me: { id: 'alice', kind: 'jwt' } });
  });
});

/** A GET of the demo's /metrics, with a bearer token or none. */
function scrape(demo: Demo, bearer: string | null): Promise<SentResponse> {
  return send(demo.url.replace(/\/graphql$/, '/metrics'), { headers: bearer === null ? {} : { authorization: `Bearer ${bearer}` } });
}

const METRICS_TOKEN = 'scrape-7c1e9a4b2d6f8035';
const METRICS_CHALLENGE = { error: { code: 'UNAUTHENTICATED', message: 'The metrics need Authorization: Bearer <token>.' } };

describe('the demo\'s /metrics (METRICS_TOKEN)', () => {
  describe('with no settings', () => {
    const demo = serveDemo({});

    it('serves the metrics to a scrape without a token', async () => {
      const response = await scrape(demo, null);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe('text/plain; version=0.0.4; charset=utf-8');
      expect(response.text).toContain('# TYPE graphql_requests_total counter');
    });
  });

  describe('with METRICS_TOKEN', () => {
    const demo = serveDemo({ METRICS_TOKEN });

    it('refuses a scrape without the token, or with another one, with 401 and a Bearer challenge', async () => {
      for (const bearer of [null, 'scrape-0000000000000000']) {
        const response = await scrape(demo, bearer);
        expect(response.status).toBe(401);
        expect(json(response)).toEqual(METRICS_CHALLENGE);
        expect(response.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      }
    });

    it('serves the metrics to a scrape that sends the token', async () => {
      const response = await scrape(demo, METRICS_TOKEN);
      expect(response.status).toBe(200);
      expect(response.text).toContain('# TYPE graphql_requests_total counter');
    });
  });

  describe('in production without METRICS_TOKEN', () => {
    const demo = serveDemo({ NODE_ENV: 'production' });

    it('does not serve the metrics at all: 404, with or without a token', async () => {
      for (const bearer of [null, METRICS_TOKEN]) {
        const response = await scrape(demo, bearer);
        expect(response.status).toBe(404);
        expect(json(response)).toEqual({ error: { code: 'NOT_FOUND', message: 'Nothing is served at /metrics; the GraphQL endpoint is /graphql.' } });
      }
    });
  });

  describe('in production with METRICS_TOKEN', () => {
    const demo = serveDemo({ NODE_ENV: 'production', METRICS_TOKEN });

    it('serves the metrics only to a scrape that sends the token', async () => {
      const refused = await scrape(demo, null);
      expect(refused.status).toBe(401);
      expect(json(refused)).toEqual(METRICS_CHALLENGE);
      const served = await scrape(demo, METRICS_TOKEN);
      expect(served.status).toBe(200);
      expect(served.text).toContain('# TYPE graphql_requests_total counter');
    });
  });
});

describe('the demo with REQUIRE_AUTH=true', () => {
  const demo = serveDemo({ REQUIRE_AUTH: 'true' });

  it('refuses an anonymous request with 401 and says what to send', async () => {
    const response = await asKey(demo, null, '{ books { total } }');
    expect(response.status).toBe(401);
    expect(json(response)).toEqual({
      error: { code: 'UNAUTHENTICATED', message: 'This server requires authentication; send an API key (X-API-Key: <key> or Authorization: ApiKey <key>).' },
    });
    expect(response.headers['www-authenticate']).toMatch(/^ApiKey realm="graphql"/);
    expect(demo.data.roundTrips).toBe(0);
  });

  it('challenges an anonymous request without an error code, as RFC 6750 section 3.1 asks', async () => {
    // authError.ts: challengeError is "null when no credential was sent (RFC 6750 section 3.1)":
    // the challenge names the scheme and realm, without error or error_description.
    const response = await asKey(demo, null, '{ books { total } }');
    expect(response.headers['www-authenticate']).toBe('ApiKey realm="graphql"');
  });

  it('answers a request with a demo key', async () => {
    const response = await asKey(demo, 'demo-reader', '{ books { total } }');
    expect(response.status).toBe(200);
    expect(dataOf(response)).toEqual({ books: { total: 5 } });
  });
});

describe('the security settings read from the environment', () => {
  it('with none set: anonymous callers, the three demo keys, no CORS, not production', () => {
    const security = demoSecurity({});
    expect(security.production).toBe(false);
    expect(security.requireAuthentication).toBe(false);
    expect(security.cors).toBeUndefined();
    expect(security.authenticate.map((authenticator) => authenticator.scheme)).toEqual(['ApiKey']);
  });

  it('treats variables set to blanks as not set', () => {
    const security = demoSecurity({ JWT_PUBLIC_KEY: ' ', JWKS_URL: '', CORS_ORIGINS: '  ', REQUIRE_AUTH: '', OAUTH2_INTROSPECTION_URL: '' });
    expect(security.authenticate.map((authenticator) => authenticator.scheme)).toEqual(['ApiKey']);
    expect(security.cors).toBeUndefined();
  });

  it('in production: one authenticator, for API keys, which accepts none', () => {
    const security = demoSecurity({ NODE_ENV: 'production' });
    expect(security.production).toBe(true);
    expect(security.authenticate.map((authenticator) => authenticator.scheme)).toEqual(['ApiKey']);
  });

  it('refuses REQUIRE_AUTH=true in production without a token issuer: nobody could get in', () => {
    expect(() => demoSecurity({ NODE_ENV: 'production', REQUIRE_AUTH: 'true' })).toThrow(
      new TypeError(
        'REQUIRE_AUTH=true in production needs JWT_PUBLIC_KEY, JWKS_URL or OAUTH2_INTROSPECTION_URL: the demo keys are not accepted there, so nobody could get in.',
      ),
    );
  });

  it('never returns settings createServer refuses: REQUIRE_AUTH=true in production, with no authenticator', () => {
    // config.ts throws "a TypeError naming a variable that is wrong", which main.ts prints before
    // exiting with 2. This combination passes demoSecurity, then createServer throws (authenticate.ts:
    // "requireAuthentication needs at least one authenticator"), outside main.ts's try: `npm start`
    // dies with a stack trace and exit code 1.
    const env = { NODE_ENV: 'production', REQUIRE_AUTH: 'true' };
    let security: ReturnType<typeof demoSecurity>;
    try {
      security = demoSecurity(env);
    } catch (error) {
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toContain('REQUIRE_AUTH');
      return;
    }
    expect(() => createServer({ schema: demoSchema, ...security })).not.toThrow();
  });

  describe('METRICS_TOKEN', () => {
    it('leaves the metrics open outside production, and turns them off in production, when unset or blank', () => {
      expect(demoSecurity({}).metrics).toBe(true);
      expect(demoSecurity({ METRICS_TOKEN: '  ' }).metrics).toBe(true);
      expect(demoSecurity({ NODE_ENV: 'production' }).metrics).toBe(false);
      expect(demoSecurity({ NODE_ENV: 'production', METRICS_TOKEN: '' }).metrics).toBe(false);
    });

    it('makes the token the one /metrics requires, in production or not, without the spaces around it', () => {
      expect(demoSecurity({ METRICS_TOKEN }).metrics).toEqual({ token: METRICS_TOKEN });
      expect(demoSecurity({ NODE_ENV: 'production', METRICS_TOKEN: ` ${METRICS_TOKEN}\n` }).metrics).toEqual({ token: METRICS_TOKEN });
    });

    it('refuses a token shorter than 16 characters with a TypeError naming the variable, not the token', () => {
      expect(() => demoSecurity({ METRICS_TOKEN: 'short-secret' })).toThrow(new TypeError('METRICS_TOKEN must be at least 16 characters long; it has 12.'));
    });

    it('refuses a token with a space inside with a TypeError naming the variable', () => {
      expect(() => demoSecurity({ METRICS_TOKEN: 'scrape 7c1e9a4b2d6f8035' })).toThrow(new TypeError('METRICS_TOKEN must not contain spaces or other whitespace.'));
    });
  });

  describe('CORS_ORIGINS', () => {
    it('reads a list separated by commas, trimming spaces and a trailing slash', () => {
      expect(demoSecurity({ CORS_ORIGINS: 'https://app.example.com, http://localhost:5173/ ,https://Admin.Example.com' }).cors).toEqual({
        origins: ['https://app.example.com', 'http://localhost:5173', 'https://Admin.Example.com'],
      });
    });

    it.each(['*', ' * '])('reads %j as any origin', (value) => {
      expect(demoSecurity({ CORS_ORIGINS: value }).cors).toEqual({ origins: '*' });
    });

    it.each([
      ['a host without a scheme', 'app.example.com', 'app.example.com'],
      ['an origin with a path', 'https://app.example.com/app', 'https://app.example.com/app'],
      ['an origin with a default port written out', 'https://app.example.com:443', 'https://app.example.com:443'],
      ['a scheme with no origin', 'file:///tmp', 'file:///tmp'],
      ['"*" inside a list', 'https://app.example.com, *', '*'],
      ['an empty entry', 'https://app.example.com,', ''],
    ])('refuses %s with a TypeError that names it', (_title, value, named) => {
      expect(() => demoSecurity({ CORS_ORIGINS: value })).toThrow(
        new TypeError(`CORS_ORIGINS must list origins like https://app.example.com, separated by commas; "${named}" is not one.`),
      );
    });

    it('makes the demo answer a preflight from a listed origin', async () => {
      const handle = createHandler({ schema: demoSchema, ...demoSecurity({ CORS_ORIGINS: 'https://app.example.com/' }) });
      const [body, init] = await handle({
        method: 'OPTIONS',
        url: '/graphql',
        headers: { origin: 'https://app.example.com', 'access-control-request-method': 'POST' },
        body: null,
        raw: null,
      });
      expect(body).toBeNull();
      expect(init.status).toBe(204);
      expect(init.headers['access-control-allow-origin']).toBe('https://app.example.com');
    });
  });

  describe('JWT_PUBLIC_KEY and JWKS_URL', () => {
    /** Whether a handler with these settings lets a good token in. */
    async function acceptsToken(env: Record<string, string>): Promise<boolean> {
      const data = createDemoData();
      const handle = createHandler({ schema: demoSchema, context: (_request, { identity }) => createDemoContext(data, identity), ...demoSecurity(env) });
      const [body, init] = await handle({
        method: 'POST',
        url: '/graphql',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${await token('alice', { roles: ['reader'] })}` },
        body: JSON.stringify({ query: '{ me { id kind } }' }),
        raw: null,
      });
      return init.status === 200 && body === JSON.stringify({ data: { me: { id: 'alice', kind: 'jwt' } }, extensions: { cost: { requested: 1, actual: 1, limit: 1000 } } });
    }

    it('refuses both together with a TypeError', () => {
      expect(() => demoSecurity({ JWT_PUBLIC_KEY: PEM, JWKS_URL: 'https://login.example.com/.well-known/jwks.json' })).toThrow(
        new TypeError('Set JWT_PUBLIC_KEY or JWKS_URL, not both.'),
      );
    });

    it('reads JWT_PUBLIC_KEY as PEM text', async () => {
      const security = demoSecurity({ JWT_PUBLIC_KEY: PEM, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE });
      expect(security.authenticate.map((authenticator) => authenticator.scheme)).toEqual(['Bearer', 'ApiKey']);
      expect(await acceptsToken({ JWT_PUBLIC_KEY: PEM, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE })).toBe(true);
    });

    it('reads JWT_PUBLIC_KEY as PEM text with literal \\n escapes, as env files hold it', async () => {
      const escaped = PEM.replace(/\n/g, '\\n');
      expect(escaped).not.toContain('\n');
      expect(await acceptsToken({ JWT_PUBLIC_KEY: escaped, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE })).toBe(true);
    });

    it('reads JWT_PUBLIC_KEY as the path of a PEM file', async () => {
      const directory = mkdtempSync(join(tmpdir(), 'demo-jwt-'));
      try {
        const path = join(directory, 'issuer.pem');
        writeFileSync(path, PEM);
        expect(await acceptsToken({ JWT_PUBLIC_KEY: path, JWT_ISSUER: ISSUER, JWT_AUDIENCE: AUDIENCE })).toBe(true);
      } finally {
        rmSync(directory, { recursive: true, force: true });
      }
    });

    it('checks the issuer and audience it is given', async () => {
      expect(await acceptsToken({ JWT_PUBLIC_KEY: PEM, JWT_ISSUER: 'https://other.example.com', JWT_AUDIENCE: AUDIENCE })).toBe(false);
      expect(await acceptsToken({ JWT_PUBLIC_KEY: PEM, JWT_ISSUER: ISSUER, JWT_AUDIENCE: 'other-api' })).toBe(false);
    });

    it('refuses a JWT_PUBLIC_KEY that is neither PEM text nor a readable file', () => {
      const path = join(tmpdir(), 'demo-jwt-missing', 'issuer.pem');
      expect(() => demoSecurity({ JWT_PUBLIC_KEY: path })).toThrow(
        new TypeError(`JWT_PUBLIC_KEY is neither PEM text nor a readable file: ENOENT: no such file or directory, open '${path}'`),
      );
    });

    it('refuses PEM text that holds no public key', () => {
      expect(() => demoSecurity({ JWT_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----\\nbm90IGEga2V5\\n-----END PUBLIC KEY-----' })).toThrow(
        /^jwtAuth: publicKey is not a public key in PEM or JWK form: /,
      );
    });

    it('accepts a JWKS_URL without fetching it, and refuses one that is not an http(s) URL', () => {
      expect(demoSecurity({ JWKS_URL: 'https://login.example.com/.well-known/jwks.json' }).authenticate.map((authenticator) => authenticator.scheme)).toEqual([
        'Bearer',
        'ApiKey',
      ]);
      expect(() => demoSecurity({ JWKS_URL: 'login.example.com/jwks.json' })).toThrow(
        new TypeError('JWKS_URL must be an absolute URL, got "login.example.com/jwks.json".'),
      );
      expect(() => demoSecurity({ JWKS_URL: 'ftp://login.example.com/jwks.json' })).toThrow(
        new TypeError('JWKS_URL must be an http(s) URL, got "ftp://login.example.com/jwks.json".'),
      );
    });
  });

  describe('REQUIRE_AUTH', () => {
    it.each([
      ['true', true],
      ['TRUE', true],
      [' 1 ', true],
      ['false', false],
      ['0', false],
      ['', false],
    ])('reads %j as %s', (value, expected) => {
      expect(demoSecurity({ REQUIRE_AUTH: value }).requireAuthentication).toBe(expected);
    });

    it.each(['maybe', 'yes', 'on'])('refuses %j with a TypeError', (value) => {
      expect(() => demoSecurity({ REQUIRE_AUTH: value })).toThrow(new TypeError(`REQUIRE_AUTH must be true or false, got "${value}".`));
    });
  });

  describe('OAUTH2_INTROSPECTION_URL', () => {
    it.each([
      ['without a client id', { OAUTH2_CLIENT_SECRET: 'secret' }],
      ['without a client secret', { OAUTH2_CLIENT_ID: 'library' }],
      ['without either', {}],
    ])('is refused %s with a TypeError', (_title, client) => {
      expect(() => demoSecurity({ OAUTH2_INTROSPECTION_URL: 'https://login.example.com/introspect', ...client })).toThrow(
        new TypeError('OAUTH2_INTROSPECTION_URL needs OAUTH2_CLIENT_ID and OAUTH2_CLIENT_SECRET too.'),
      );
    });

    it('adds an introspection authenticator with a client id and secret', () => {
      const security = demoSecurity({ OAUTH2_INTROSPECTION_URL: 'https://login.example.com/introspect', OAUTH2_CLIENT_ID: 'library', OAUTH2_CLIENT_SECRET: 'secret' });
      expect(security.authenticate.map((authenticator) => authenticator.scheme)).toEqual(['Bearer', 'ApiKey']);
    });

    it('refuses an introspection URL that is not absolute', () => {
      expect(() => demoSecurity({ OAUTH2_INTROSPECTION_URL: '/introspect', OAUTH2_CLIENT_ID: 'library', OAUTH2_CLIENT_SECRET: 'secret' })).toThrow(
        new TypeError('OAUTH2_INTROSPECTION_URL must be an absolute URL, got "/introspect".'),
      );
    });
  });
});

/** A port nothing listens on now: bound on 127.0.0.1 by the system, then released. */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((resolve, reject) => {
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = probe.address() as AddressInfo;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  return port;
}

/** Resolves once `done()` holds, checking every 50 ms; rejects with `explain()` after `ms`. */
async function waitUntil(done: () => boolean, ms: number, explain: () => string): Promise<void> {
  const deadline = Date.now() + ms;
  while (!done()) {
    if (Date.now() > deadline) throw new Error(`Gave up after ${ms} ms: ${explain()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** `npm start` running as a child process: what it printed so far, and how to wait for it and stop it. */
interface DemoProcess {
  readonly port: number;
  output(): string;
  stdout(): string;
  stderr(): string;
  /** The exit code, once it has exited (null before, or when a signal ended it). */
  exitCode(): number | null;
  /** Resolves once the process has exited; fails after `ms`. */
  exited(ms?: number): Promise<void>;
  /** Resolves once stdout contains `text` or the process has exited; fails after `ms`. */
  printed(text: string, ms?: number): Promise<void>;
  /** SIGTERM to the whole process group; resolves once it has exited. */
  terminate(): Promise<void>;
  /** SIGKILL to the whole process group, unless it has exited already; then its data directory is removed. */
  dispose(): void;
}

/** Starts `npm start` on a free port, with the webhooks' store in a directory of its own and these variables on top. */
async function startDemoProcess(extra: NodeJS.ProcessEnv): Promise<DemoProcess> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'demo-data-'));
  const env: NodeJS.ProcessEnv = { ...process.env, PORT: String(port), HOST: '127.0.0.1', NODE_ENV: 'development', DATA_DIR: dataDir };
  for (const name of ['JWT_PUBLIC_KEY', 'JWKS_URL', 'OAUTH2_INTROSPECTION_URL', 'REQUIRE_AUTH', 'CORS_ORIGINS', 'METRICS_TOKEN']) delete env[name];
  Object.assign(env, extra);
  // Its own process group (npm, its shell, tsx, node), so that the whole group can be signalled.
  const child = spawn('npm', ['start'], { cwd: ROOT, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const group = child.pid as number;
  let stdout = '';
  let stderr = '';
  let closed = false;
  let exitCode: number | null = null;
  child.stdout.setEncoding('utf8').on('data', (text: string) => (stdout += text));
  child.stderr.setEncoding('utf8').on('data', (text: string) => (stderr += text));
  child.once('close', (code: number | null) => {
    exitCode = code;
    closed = true;
  });
  const output = () => `stdout: ${JSON.stringify(stdout)}, stderr: ${JSON.stringify(stderr)}`;
  return {
    port,
    output,
    stdout: () => stdout,
    stderr: () => stderr,
    exitCode: () => exitCode,
    exited: (ms = 10_000) => waitUntil(() => closed, ms, output),
    printed: (text, ms = 10_000) => waitUntil(() => stdout.includes(text) || closed, ms, output),
    terminate: async () => {
      process.kill(-group, 'SIGTERM');
      await waitUntil(() => closed, 3000, output);
    },
    dispose: () => {
      try {
        if (!closed) process.kill(-group, 'SIGKILL');
      } catch {
        // The group is gone already.
      }
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

describe('npm start', () => {
  it('prints its URL and the demo keys, answers a query, and stops on SIGTERM', async () => {
    const demo = await startDemoProcess({});
    try {
      await demo.printed('Demo API keys');
      // The server's own ready line, through its logger (JSON lines), once.
      await demo.printed('listening on');
      const ready = demo.stdout().split('\n').filter((line) => line.includes('listening on'));
      expect(ready.map((line) => JSON.parse(line) as Record<string, unknown>), demo.output()).toEqual([
        { time: expect.any(String), level: 'info', msg: `graphql-glassbox listening on http://127.0.0.1:${demo.port}/graphql` },
      ]);
      expect(demo.stdout(), demo.output()).toContain('Demo API keys (X-API-Key): demo-reader, demo-editor, demo-admin.\n');
      expect(demo.stdout()).not.toContain('/metrics is off');

      const response = await send(`http://127.0.0.1:${demo.port}/graphql`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'demo-reader' },
        body: JSON.stringify({ query: '{ me { id roles } books(limit: 1) { total items { title } } }' }),
        timeoutMs: 3000,
      });
      expect(response.status).toBe(200);
      expect(json(response)).toMatchObject({ data: { me: { id: 'demo-reader', roles: ['reader'] }, books: { total: 5, items: [{ title: 'The Dispossessed' }] } } });

      // The group's SIGTERM reaches node twice (npm forwards its own): the second must not cut the shutdown short.
      await demo.terminate();
      expect(demo.stdout()).toContain('SIGTERM: finishing in-flight requests, then stopping.\n');
      expect(demo.exitCode(), demo.output()).toBe(0);
    } finally {
      demo.dispose();
    }
  }, 15_000);

  it('in production without METRICS_TOKEN, says that /metrics is off and which variable turns it on, and answers it 404', async () => {
    const demo = await startDemoProcess({ NODE_ENV: 'production' });
    try {
      await demo.printed('/metrics is off');
      expect(demo.stdout(), demo.output()).toContain(
        '/metrics is off: in production it is served only with METRICS_TOKEN set, to scrapes that send it as a bearer token.\n',
      );
      expect(demo.stdout()).not.toContain('Demo API keys');
      const response = await send(`http://127.0.0.1:${demo.port}/metrics`, { timeoutMs: 3000 });
      expect(response.status).toBe(404);
      await demo.terminate();
    } finally {
      demo.dispose();
    }
  }, 15_000);

  it('on a port in use, says so once, naming PORT, with exit code 1', async () => {
    const holder = net.createServer();
    await new Promise<void>((resolve) => holder.listen(0, '127.0.0.1', resolve));
    const held = (holder.address() as AddressInfo).port;
    const demo = await startDemoProcess({ PORT: String(held) });
    try {
      await demo.exited();
      expect(demo.exitCode(), demo.output()).toBe(1);
      expect(demo.stderr()).toContain(`Port ${held} is in use; set PORT to another one.\n`);
      // The demo handles the server's 'error' event: the server's logger does not say it again.
      expect(demo.stdout()).not.toContain('EADDRINUSE');
      expect(demo.stdout()).not.toContain('listening on');
    } finally {
      demo.dispose();
      holder.close();
    }
  }, 15_000);

  it('refuses to start with a METRICS_TOKEN it cannot use, naming the variable, with exit code 2', async () => {
    const demo = await startDemoProcess({ METRICS_TOKEN: 'short' });
    try {
      await demo.exited();
      expect(demo.exitCode(), demo.output()).toBe(2);
      expect(demo.stderr()).toContain('METRICS_TOKEN must be at least 16 characters long; it has 5.\n');
    } finally {
      demo.dispose();
    }
  }, 15_000);
});
