/**
 * The browser-facing side of the HTTP transport: CORS (which pages may read the answers),
 * CSRF prevention (which requests a page could have sent cross-site without asking), and what
 * only a socket can show about credential headers: a header sent twice, a huge one, a header
 * block past the server's limit.
 *
 * CORS and CSRF are called on `createHandler` directly, a `PlainRequest` in and
 * `[body, { status, headers }]` out. The socket cases run a real server on 127.0.0.1, port 0,
 * and send raw bytes where node's client would not (two Authorization headers).
 */
import net from 'node:net';
import { describe, expect, it } from 'vitest';
import { apiKeyAuth, createHandler, hashApiKey, makeSchema } from '../src/index.ts';
import type { CorsOptions, HandlerOptions, PlainRequest } from '../src/index.ts';
import { json, postJson, send, serveDuringSuite, startServer } from './support/httpServer.ts';

const JSON_RESPONSE = 'application/json; charset=utf-8';
const ORIGIN = 'https://app.example.com';
const OTHER_ORIGIN = 'https://evil.example.net';
const DEFAULT_ALLOWED_HEADERS = 'content-type, authorization, x-api-key, x-graphql-csrf, apollo-require-preflight, x-apollo-operation-name';
const HELLO = JSON.stringify({ query: '{ hello }' });
const CSRF_MESSAGE =
  'This request has been blocked as a possible cross-site request forgery: send it with a Content-Type such as application/json, ' +
  'or with a header named x-graphql-csrf, apollo-require-preflight or x-apollo-operation-name.';

/** The answer of a handler, awaited, with its body parsed when there is one. */
interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** A schema whose one field counts its calls, so a test can tell whether a request ran. */
function countingSchema() {
  const calls = { hello: 0 };
  const schema = makeSchema({
    typeDefs: 'type Query { hello: String }',
    resolvers: {
      Query: {
        hello: () => {
          calls.hello += 1;
          return 'world';
        },
      },
    },
  });
  return { schema, calls };
}

type RequestShape = Partial<Omit<PlainRequest<null>, 'headers'>> & { headers?: Record<string, string | string[]> };

/** A handler over the counting schema, and a way to call it as a transport would. */
function handlerWith(options: Omit<HandlerOptions<null>, 'schema'> = {}) {
  const { schema, calls } = countingSchema();
  const handle = createHandler<null>({ schema, ...options });
  async function call(request: RequestShape = {}): Promise<Answer> {
    const [body, init] = await handle({ method: 'POST', url: '/graphql', headers: {}, body: null, raw: null, ...request });
    return { status: init.status, headers: init.headers, body: body === null ? null : (JSON.parse(body as string) as unknown) };
  }
  /** A JSON POST of `{ hello }`, with extra headers. */
  const post = (headers: Record<string, string | string[]> = {}, body: string = HELLO): Promise<Answer> =>
    call({ method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
  /** A GET of `{ hello }`, with extra headers. */
  const get = (headers: Record<string, string> = {}): Promise<Answer> =>
    call({ method: 'GET', url: '/graphql?query=%7B%20hello%20%7D', headers });
  /** A preflight, as a browser sends it. */
  const preflight = (origin: string | undefined): Promise<Answer> =>
    call({
      method: 'OPTIONS',
      headers: {
        ...(origin === undefined ? {} : { origin }),
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, x-api-key',
      },
    });
  return { call, post, get, preflight, calls };
}

/** The names of the access-control-* headers of an answer. */
function corsHeaderNames(headers: Record<string, string | string[] | undefined>): string[] {
  return Object.keys(headers).filter((name) => name.toLowerCase().startsWith('access-control-'));
}

const KEYS = apiKeyAuth({ keys: [{ id: 'reader', hash: hashApiKey('reader-key'), roles: ['reader'] }] });

describe('CORS with a list of origins', () => {
  const cors: CorsOptions = { origins: [ORIGIN] };

  describe('preflight requests (OPTIONS)', () => {
    it('answers a preflight from a listed origin with 204 and exactly the headers a browser needs', async () => {
      const { preflight, calls } = handlerWith({ cors });
      const answer = await preflight(ORIGIN);
      expect(answer.status).toBe(204);
      expect(answer.body).toBeNull();
      expect(answer.headers).toEqual({
        allow: 'GET, POST, OPTIONS',
        'access-control-allow-origin': ORIGIN,
        'access-control-allow-methods': 'GET, POST',
        'access-control-allow-headers': DEFAULT_ALLOWED_HEADERS,
        'access-control-max-age': '600',
        // Meaningless on a preflight (only the actual answer's matters), and harmless.
        'access-control-expose-headers': 'etag',
        vary: 'Origin',
      });
      expect(calls.hello).toBe(0);
    });

    it('says nothing about credentials in a preflight unless credentials: true', async () => {
      const without = await handlerWith({ cors }).preflight(ORIGIN);
      expect(without.headers['access-control-allow-credentials']).toBeUndefined();
      const withCredentials = await handlerWith({ cors: { origins: [ORIGIN], credentials: true } }).preflight(ORIGIN);
      expect(withCredentials.status).toBe(204);
      expect(withCredentials.headers['access-control-allow-credentials']).toBe('true');
      expect(withCredentials.headers['access-control-allow-origin']).toBe(ORIGIN);
    });

    it('answers a preflight from an unlisted origin with 204 and no access-control-* header, so the browser refuses', async () => {
      const answer = await handlerWith({ cors }).preflight(OTHER_ORIGIN);
      expect(answer.status).toBe(204);
      expect(answer.body).toBeNull();
      expect(corsHeaderNames(answer.headers)).toEqual([]);
      expect(answer.headers).toEqual({ allow: 'GET, POST, OPTIONS', vary: 'Origin' });
    });

    it('answers a preflight without an Origin with 204 and no access-control-* header', async () => {
      const answer = await handlerWith({ cors }).preflight(undefined);
      expect(answer.status).toBe(204);
      expect(corsHeaderNames(answer.headers)).toEqual([]);
    });

    it('uses the configured allowed headers, exposed headers and max age', async () => {
      const answer = await handlerWith({
        cors: { origins: [ORIGIN], allowedHeaders: ['content-type', 'x-tenant'], exposedHeaders: ['etag', 'x-request-id'], maxAgeSeconds: 60 },
      }).preflight(ORIGIN);
      expect(answer.headers['access-control-allow-headers']).toBe('content-type, x-tenant');
      expect(answer.headers['access-control-expose-headers']).toBe('etag, x-request-id');
      expect(answer.headers['access-control-max-age']).toBe('60');
    });

    it('answers a preflight to another path with the 404 a page may read', async () => {
      const answer = await handlerWith({ cors }).call({ method: 'OPTIONS', url: '/other', headers: { origin: ORIGIN } });
      expect(answer.status).toBe(404);
      expect(answer.body).toEqual({ error: { code: 'NOT_FOUND', message: 'Nothing is served at /other; the GraphQL endpoint is /graphql.' } });
      expect(answer.headers['access-control-allow-origin']).toBe(ORIGIN);
    });
  });

  describe('actual requests', () => {
    it('puts the CORS headers on the answer to a POST from a listed origin', async () => {
      const { post, calls } = handlerWith({ cors });
      const answer = await post({ origin: ORIGIN });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ data: { hello: 'world' }, extensions: { cost: { requested: 0, actual: 0, limit: 1000 } } });
      expect(answer.headers).toEqual({
        'content-type': JSON_RESPONSE,
        'access-control-allow-origin': ORIGIN,
        'access-control-expose-headers': 'etag',
        vary: 'Origin',
      });
      expect(calls.hello).toBe(1);
    });

    it.each([
      ['400 for a body that is not JSON', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{' }, 400],
      [
        '400 for a document that does not parse',
        { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' }, body: '{"query":"{"}' },
        400,
      ],
      ['401 for an API key that is not valid', { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'wrong-key' }, body: HELLO }, 401],
      ['401 for a malformed Authorization header', { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer' }, body: HELLO }, 401],
      ['404 for another path', { method: 'POST', url: '/elsewhere', headers: { 'content-type': 'application/json' }, body: HELLO }, 404],
      ['405 for a method other than GET and POST', { method: 'PUT', headers: { 'content-type': 'application/json' }, body: HELLO }, 405],
      ['406 for an Accept it cannot meet', { method: 'POST', headers: { 'content-type': 'application/json', accept: 'text/html' }, body: HELLO }, 406],
      // (application/xml: a simple Content-Type, text/plain, would be refused by CSRF prevention first.)
      ['415 for a Content-Type other than JSON', { method: 'POST', headers: { 'content-type': 'application/xml' }, body: HELLO }, 415],
    ] as const)('puts the CORS headers on a %s from a listed origin, so the page can read why', async (_title, request, status) => {
      const { call } = handlerWith({ cors, authenticate: [KEYS] });
      const answer = await call({ ...request, headers: { ...request.headers, origin: ORIGIN } });
      expect(answer.status).toBe(status);
      expect(answer.headers['access-control-allow-origin']).toBe(ORIGIN);
      expect(answer.headers['vary']).toBe('Origin');
      expect(answer.headers['access-control-expose-headers']).toBe('etag');
    });

    it('keeps the challenge of a 401 beside the CORS headers', async () => {
      const answer = await handlerWith({ cors, authenticate: [KEYS] }).post({ origin: ORIGIN, 'x-api-key': 'wrong-key' });
      expect(answer.status).toBe(401);
      expect(answer.body).toEqual({ error: { code: 'UNAUTHENTICATED', message: 'The API key is not valid.' } });
      expect(answer.headers['www-authenticate']).toBe('ApiKey realm="graphql", error="invalid_token", error_description="The API key is not valid."');
      expect(answer.headers['access-control-allow-origin']).toBe(ORIGIN);
    });

    it('puts the CORS headers on a GET answer and on its 304 revalidation', async () => {
      const { get } = handlerWith({ cors });
      // With the Content-Type Apollo Client sends on its GETs too (which CSRF prevention lets through).
      const first = await get({ origin: ORIGIN, 'content-type': 'application/json' });
      expect(first.status).toBe(200);
      expect(first.headers['access-control-allow-origin']).toBe(ORIGIN);
      const etag = first.headers['etag'] as string;
      expect(etag).toMatch(/^"[\w-]+"$/);
      const second = await get({ origin: ORIGIN, 'content-type': 'application/json', 'if-none-match': etag });
      expect(second.status).toBe(304);
      expect(second.headers).toEqual({ etag, 'access-control-allow-origin': ORIGIN, 'access-control-expose-headers': 'etag', vary: 'Origin' });
    });

    it('runs a request from an unlisted origin but adds no access-control-* header, so the browser hides the answer', async () => {
      const { post, calls } = handlerWith({ cors });
      const answer = await post({ origin: OTHER_ORIGIN });
      expect(answer.status).toBe(200);
      expect(corsHeaderNames(answer.headers)).toEqual([]);
      expect(calls.hello).toBe(1);
    });

    it('adds no access-control-* header to an error answer for an unlisted origin', async () => {
      const answer = await handlerWith({ cors, authenticate: [KEYS] }).post({ origin: OTHER_ORIGIN, 'x-api-key': 'wrong-key' });
      expect(answer.status).toBe(401);
      expect(corsHeaderNames(answer.headers)).toEqual([]);
    });

    it('adds no access-control-* header to a request without an Origin', async () => {
      const answer = await handlerWith({ cors }).post();
      expect(answer.status).toBe(200);
      expect(corsHeaderNames(answer.headers)).toEqual([]);
    });

    it.each([
      ['the "null" origin of a sandboxed page', 'null'],
      ['a listed host under another scheme', 'http://app.example.com'],
      ['a listed host on another port', 'https://app.example.com:8443'],
      ['a host that merely starts with a listed one', 'https://app.example.com.evil.example.net'],
      ['a subdomain of a listed host', 'https://api.app.example.com'],
      ['an empty Origin', ''],
    ])('does not allow %s', async (_title, origin) => {
      const answer = await handlerWith({ cors }).post({ origin });
      expect(corsHeaderNames(answer.headers)).toEqual([]);
    });

    it('says Vary: Origin on answers to unlisted origins and to requests without an Origin, since the answer depends on it', async () => {
      // Fetch Standard, "CORS protocol and HTTP caches": when Access-Control-Allow-Origin depends on
      // the Origin, send Vary: Origin on every answer, non-CORS requests included; otherwise a
      // cached answer without the CORS headers can be reused for a listed origin. cors.ts says
      // "Responses vary by Origin, which `Vary: Origin` tells caches", and its preflight does so.
      const { get } = handlerWith({ cors });
      expect((await get()).headers['vary']).toBe('Origin');
      expect((await get({ origin: OTHER_ORIGIN })).headers['vary']).toBe('Origin');
    });
  });

  describe('matching origins', () => {
    it('matches scheme and host without regard to case, and echoes the Origin as sent', async () => {
      const { post } = handlerWith({ cors: { origins: ['HTTPS://App.Example.COM'] } });
      expect((await post({ origin: 'https://app.example.com' })).headers['access-control-allow-origin']).toBe('https://app.example.com');
      expect((await post({ origin: 'HTTPS://APP.EXAMPLE.COM' })).headers['access-control-allow-origin']).toBe('HTTPS://APP.EXAMPLE.COM');
    });

    it('ignores a trailing slash and surrounding spaces in the configured list', async () => {
      const { post, preflight } = handlerWith({ cors: { origins: [' https://app.example.com/ ', 'http://localhost:5173/'] } });
      expect((await post({ origin: ORIGIN })).headers['access-control-allow-origin']).toBe(ORIGIN);
      expect((await post({ origin: 'http://localhost:5173' })).headers['access-control-allow-origin']).toBe('http://localhost:5173');
      expect((await preflight('http://localhost:5173')).headers['access-control-allow-origin']).toBe('http://localhost:5173');
    });

    it('allows each listed origin, and each gets its own origin back', async () => {
      const { post } = handlerWith({ cors: { origins: [ORIGIN, 'https://admin.example.com'] } });
      expect((await post({ origin: ORIGIN })).headers['access-control-allow-origin']).toBe(ORIGIN);
      expect((await post({ origin: 'https://admin.example.com' })).headers['access-control-allow-origin']).toBe('https://admin.example.com');
    });

    it('adds access-control-allow-credentials to actual answers only with credentials: true', async () => {
      expect((await handlerWith({ cors }).post({ origin: ORIGIN })).headers['access-control-allow-credentials']).toBeUndefined();
      const answer = await handlerWith({ cors: { origins: [ORIGIN], credentials: true } }).post({ origin: ORIGIN });
      expect(answer.headers['access-control-allow-credentials']).toBe('true');
      expect(answer.headers['access-control-allow-origin']).toBe(ORIGIN);
    });
  });
});

describe('CORS for any origin', () => {
  it('allows every origin with "*" and says no Vary, since the answer does not depend on it', async () => {
    const { post } = handlerWith({ cors: { origins: '*' } });
    for (const origin of [ORIGIN, OTHER_ORIGIN, 'null']) {
      const answer = await post({ origin });
      expect(answer.headers['access-control-allow-origin']).toBe('*');
      expect(answer.headers['vary']).toBeUndefined();
      expect(answer.headers['access-control-allow-credentials']).toBeUndefined();
    }
  });

  it('answers a preflight with "*" and the methods, headers and max age, without Vary', async () => {
    const answer = await handlerWith({ cors: { origins: '*' } }).preflight(OTHER_ORIGIN);
    expect(answer.status).toBe(204);
    expect(answer.headers).toEqual({
      allow: 'GET, POST, OPTIONS',
      'access-control-allow-origin': '*',
      'access-control-allow-methods': 'GET, POST',
      'access-control-allow-headers': DEFAULT_ALLOWED_HEADERS,
      'access-control-max-age': '600',
      'access-control-expose-headers': 'etag',
    });
  });

  it('refuses "*" with credentials: true when the handler is made', () => {
    const { schema } = countingSchema();
    expect(() => createHandler({ schema, cors: { origins: '*', credentials: true } })).toThrow(
      new TypeError('cors: origins "*" cannot be combined with credentials: true; list the origins that may send credentials.'),
    );
  });

  it.each([
    ['a single origin as a string', 'https://app.example.com', 'a string'],
    ['a list holding a number', [ORIGIN, 443], 'an array'],
    ['null', null, 'null'],
  ])('refuses origins given as %s when the handler is made', (_title, origins, described) => {
    const { schema } = countingSchema();
    expect(() => createHandler({ schema, cors: { origins: origins as unknown as CorsOptions['origins'] } })).toThrow(
      new TypeError(`cors.origins must be a list of origins (like "https://app.example.com") or "*", got ${described}.`),
    );
  });
});

describe('without the cors option', () => {
  it('answers OPTIONS with 405, as for any other method', async () => {
    const answer = await handlerWith().preflight(ORIGIN);
    expect(answer.status).toBe(405);
    expect(answer.headers).toEqual({ 'content-type': JSON_RESPONSE, allow: 'GET, POST' });
    expect(answer.body).toEqual({ error: { code: 'METHOD_NOT_ALLOWED', message: 'Method OPTIONS is not allowed; use GET or POST.' } });
  });

  it('adds no access-control-* header to any answer', async () => {
    const answer = await handlerWith().post({ origin: ORIGIN });
    expect(answer.status).toBe(200);
    expect(corsHeaderNames(answer.headers)).toEqual([]);
  });
});

describe('CORS on a running server', () => {
  const server = serveDuringSuite({ cors: { origins: [ORIGIN] }, maxBodyBytes: 1024, log: () => undefined });

  it('puts the CORS headers on an answer that went through the handler', async () => {
    const response = await postJson(server.url, { query: '{ hello }' }, 'application/json', { origin: ORIGIN });
    expect(response.status).toBe(200);
    expect(response.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(response.headers['vary']).toBe('Origin');
  });

  it('answers a preflight over HTTP with 204 and the CORS headers', async () => {
    const response = await send(server.url, { method: 'OPTIONS', headers: { origin: ORIGIN, 'access-control-request-method': 'POST' } });
    expect(response.status).toBe(204);
    expect(response.text).toBe('');
    expect(response.headers['access-control-allow-origin']).toBe(ORIGIN);
    expect(response.headers['access-control-allow-methods']).toBe('GET, POST');
  });

  it.each([
    ['413 for a body over maxBodyBytes', Buffer.from(JSON.stringify({ query: '{ hello }', variables: { pad: 'x'.repeat(2000) } })), 413],
    ['400 INVALID_UTF8 for a body that is not UTF-8', Buffer.from([0x7b, 0xff, 0x7d]), 400],
  ])('puts the CORS headers on the %s from a listed origin, which the server answers itself', async (_title, body, status) => {
    // handler.ts: "CORS headers go on every answer to a listed origin, errors included, so that
    // the page can read why." These two answers are written by server.ts, outside the handler.
    const response = await send(server.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json', origin: ORIGIN },
      body,
    });
    expect(response.status).toBe(status);
    expect(response.headers['access-control-allow-origin']).toBe(ORIGIN);
  });
});

describe('CSRF prevention', () => {
  it('refuses a GET query without the header with 400 CSRF_PREVENTED, before running anything', async () => {
    const { get, calls } = handlerWith({ csrfPrevention: true });
    const answer = await get();
    expect(answer.status).toBe(400);
    expect(answer.headers).toEqual({ 'content-type': JSON_RESPONSE });
    expect(answer.body).toEqual({ error: { code: 'CSRF_PREVENTED', message: CSRF_MESSAGE } });
    expect(calls.hello).toBe(0);
  });

  it('runs a GET query that carries x-graphql-csrf, whatever its value', async () => {
    const { get, calls } = handlerWith({ csrfPrevention: true });
    for (const value of ['1', '']) {
      const answer = await get({ 'x-graphql-csrf': value });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ data: { hello: 'world' }, extensions: { cost: { requested: 0, actual: 0, limit: 1000 } } });
    }
    expect(calls.hello).toBe(2);
  });

  it('runs a GET that carries a Content-Type no simple request can have', async () => {
    const { get } = handlerWith({ csrfPrevention: true });
    expect((await get({ 'content-type': 'application/json' })).status).toBe(200);
  });

  it.each(['application/json', 'application/json; charset=utf-8', 'Application/JSON'])(
    'runs a POST with Content-Type %s, which a page cannot send without a preflight',
    async (contentType) => {
      const { call, calls } = handlerWith({ csrfPrevention: true });
      const answer = await call({ method: 'POST', headers: { 'content-type': contentType }, body: HELLO });
      expect(answer.status).toBe(200);
      expect(calls.hello).toBe(1);
    },
  );

  it.each([
    'text/plain',
    'text/plain;charset=UTF-8',
    ' TEXT/PLAIN ',
    'application/x-www-form-urlencoded',
    'multipart/form-data; boundary=x',
    '',
    // Padding String.prototype.trim removes, and other cases of the names.
    '\u00a0text/plain',
    'text/plain\t',
    'Multipart/Form-Data',
    'application/x-www-form-urlencoded ;x=1',
  ])(
    'refuses a POST with the simple Content-Type %j with CSRF_PREVENTED, not 415',
    async (contentType) => {
      const { call, calls } = handlerWith({ csrfPrevention: true });
      const answer = await call({ method: 'POST', headers: { 'content-type': contentType }, body: HELLO });
      expect(answer.status).toBe(400);
      expect(answer.body).toEqual({ error: { code: 'CSRF_PREVENTED', message: CSRF_MESSAGE } });
      expect(calls.hello).toBe(0);
    },
  );

  it('refuses a POST without a Content-Type with CSRF_PREVENTED', async () => {
    const answer = await handlerWith({ csrfPrevention: true }).call({ method: 'POST', headers: {}, body: HELLO });
    expect(answer.status).toBe(400);
    expect(answer.body).toEqual({ error: { code: 'CSRF_PREVENTED', message: CSRF_MESSAGE } });
  });

  it('lets a simple POST through when it carries the header (then the Content-Type check answers 415)', async () => {
    const answer = await handlerWith({ csrfPrevention: true }).call({
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-graphql-csrf': '1' },
      body: HELLO,
    });
    expect(answer.status).toBe(415);
    expect(answer.body).toEqual({ error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type text/plain is not supported; send application/json.' } });
  });

  it('accepts the headers named in requestHeaders instead of x-graphql-csrf, and names them in its message', async () => {
    const { get } = handlerWith({ csrfPrevention: { requestHeaders: ['X-Requested-With', 'Apollo-Require-Preflight'] } });
    expect((await get({ 'x-requested-with': 'XMLHttpRequest' })).status).toBe(200);
    expect((await get({ 'apollo-require-preflight': 'true' })).status).toBe(200);
    const refused = await get({ 'x-graphql-csrf': '1' });
    expect(refused.status).toBe(400);
    expect(refused.body).toEqual({
      error: {
        code: 'CSRF_PREVENTED',
        message:
          'This request has been blocked as a possible cross-site request forgery: send it with a Content-Type such as application/json, ' +
          'or with a header named x-requested-with or apollo-require-preflight.',
      },
    });
  });

  it('is on by default, as in Apollo Server 4+: a plain GET query or a text/plain POST is refused, running nothing', async () => {
    const { get, call, calls } = handlerWith();
    for (const answer of [await get(), await call({ method: 'POST', headers: { 'content-type': 'text/plain' }, body: HELLO })]) {
      expect(answer.status).toBe(400);
      expect(answer.headers).toEqual({ 'content-type': JSON_RESPONSE });
      expect(answer.body).toEqual({ error: { code: 'CSRF_PREVENTED', message: CSRF_MESSAGE } });
    }
    expect(calls.hello).toBe(0);
  });

  it.each(['x-graphql-csrf', 'apollo-require-preflight', 'x-apollo-operation-name'])(
    'lets a GET query through by default when it carries %s (ours, and the two Apollo Server recommends)',
    async (name) => {
      const { get, calls } = handlerWith();
      const answer = await get({ [name]: 'Books' });
      expect(answer.status).toBe(200);
      expect(answer.body).toEqual({ data: { hello: 'world' }, extensions: { cost: { requested: 0, actual: 0, limit: 1000 } } });
      expect(calls.hello).toBe(1);
    },
  );

  it('is off with csrfPrevention: false: a plain GET query runs', async () => {
    const { get, calls } = handlerWith({ csrfPrevention: false });
    const answer = await get();
    expect(answer.status).toBe(200);
    expect(calls.hello).toBe(1);
  });

  it('answers a CORS preflight before CSRF prevention, and puts the CORS headers on its refusal', async () => {
    const { preflight, get } = handlerWith({ csrfPrevention: true, cors: { origins: [ORIGIN] } });
    expect((await preflight(ORIGIN)).status).toBe(204);
    const refused = await get({ origin: ORIGIN });
    expect(refused.status).toBe(400);
    expect(refused.headers['access-control-allow-origin']).toBe(ORIGIN);
  });
});

/** A raw response: its status, its headers (lower-case names) and its body. */
interface RawResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

/**
 * Writes `bytes` on a fresh connection and reads one response, however the server ends it
 * (a close, or a complete Content-Length body); fails after `timeoutMs`.
 */
function rawRequest(port: number, bytes: string, timeoutMs = 5000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let received = '';
    let settled = false;
    const deadline = setTimeout(() => finish(new Error(`No complete response within ${timeoutMs} ms; received ${JSON.stringify(received.slice(0, 200))}.`)), timeoutMs);
    function parsed(): RawResponse | null {
      const headEnd = received.indexOf('\r\n\r\n');
      if (headEnd === -1) return null;
      const [statusLine = '', ...lines] = received.slice(0, headEnd).split('\r\n');
      const headers: Record<string, string> = {};
      for (const line of lines) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      const body = received.slice(headEnd + 4);
      const length = headers['content-length'];
      if (length !== undefined && Buffer.byteLength(body, 'latin1') < Number(length)) return null;
      return { status: Number(statusLine.split(' ')[1]), headers, body };
    }
    function finish(outcome: RawResponse | Error): void {
      if (settled) return;
      settled = true;
      clearTimeout(deadline);
      socket.destroy();
      if (outcome instanceof Error) reject(outcome);
      else resolve(outcome);
    }
    socket.setEncoding('latin1');
    socket.on('data', (text: string) => {
      received += text;
      const response = parsed();
      if (response !== null && response.headers['content-length'] !== undefined) finish(response);
    });
    socket.on('close', () => finish(parsed() ?? new Error(`The connection closed before a response; received ${JSON.stringify(received.slice(0, 200))}.`)));
    // The server may answer (431) and close before it has read everything.
    socket.on('error', (error) => finish(parsed() ?? error));
    socket.once('connect', () => socket.write(bytes, 'latin1'));
  });
}

/** A POST of `{ hello }` with the given raw header lines. */
function postWithHeaderLines(lines: ReadonlyArray<string>): string {
  return (
    `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\n` +
    `Content-Length: ${HELLO.length}\r\nConnection: close\r\n${lines.map((line) => `${line}\r\n`).join('')}\r\n${HELLO}`
  );
}

describe('credential headers on a running server', () => {
  const server = serveDuringSuite({ authenticate: [KEYS] });
  const ANSWER = { data: { hello: 'Hello, world!' }, extensions: { cost: { requested: 0, actual: 0, limit: 1000 } } };

  it('answers a request with one good API key in the Authorization header', async () => {
    const response = await rawRequest(server.port, postWithHeaderLines(['Authorization: ApiKey reader-key']));
    expect(response.status).toBe(200);
    expect(JSON.parse(response.body)).toEqual(ANSWER);
  });

  it.each([
    ['two different credentials', ['Authorization: Bearer a.b.c', 'Authorization: ApiKey reader-key']],
    ['the same good credential twice', ['Authorization: ApiKey reader-key', 'Authorization: ApiKey reader-key']],
    ['names that differ in case', ['authorization: ApiKey reader-key', 'AUTHORIZATION: ApiKey reader-key']],
    ['three of them', ['Authorization: ApiKey reader-key', 'Authorization: ApiKey x', 'Authorization: ApiKey y']],
    ['an empty one beside a good one', ['Authorization: ', 'Authorization: ApiKey reader-key']],
  ])('refuses Authorization sent more than once (%s) with 401, though node keeps only the first', async (_title, lines) => {
    const response = await rawRequest(server.port, postWithHeaderLines(lines));
    expect(response.status).toBe(401);
    expect(response.headers['content-type']).toBe(JSON_RESPONSE);
    expect(JSON.parse(response.body)).toEqual({
      error: { code: 'UNAUTHENTICATED', message: 'The Authorization header is sent more than once; send one credential.' },
    });
    expect(response.headers['www-authenticate']).toBe(
      'ApiKey realm="graphql", error="invalid_request", error_description="The Authorization header is sent more than once; send one credential."',
    );
    expect(server.probe.calls).toEqual([]);
  });

  it('refuses X-API-Key sent twice with 401, even with the same good key', async () => {
    const response = await rawRequest(server.port, postWithHeaderLines(['X-API-Key: reader-key', 'X-API-Key: reader-key']));
    expect(response.status).toBe(401);
    expect(JSON.parse(response.body)).toEqual({
      error: { code: 'UNAUTHENTICATED', message: 'The X-API-Key header is sent more than once; send one key.' },
    });
    expect(server.probe.calls).toEqual([]);
  });

  it('refuses an Authorization and an X-API-Key header together with 401', async () => {
    const response = await rawRequest(server.port, postWithHeaderLines(['Authorization: ApiKey reader-key', 'X-API-Key: reader-key']));
    expect(response.status).toBe(401);
    expect(JSON.parse(response.body)).toEqual({
      error: { code: 'UNAUTHENTICATED', message: 'The request sends both an Authorization and an X-API-Key header; send one credential.' },
    });
  });

  it('refuses a 64 KB bearer token with a 401 that says it is too long, not a 431', async () => {
    const response = await postJson(server.url, { query: '{ hello }' }, 'application/json', { authorization: `Bearer ${'a'.repeat(64 * 1024)}` });
    expect(response.status).toBe(401);
    expect(json(response)).toEqual({ error: { code: 'UNAUTHENTICATED', message: 'The Authorization header is longer than 8192 characters.' } });
    expect(server.probe.calls).toEqual([]);
  });

  it('refuses a 64 KB X-API-Key with a 401 that says it is too long', async () => {
    const response = await postJson(server.url, { query: '{ hello }' }, 'application/json', { 'x-api-key': 'k'.repeat(64 * 1024) });
    expect(response.status).toBe(401);
    expect(json(response)).toEqual({ error: { code: 'UNAUTHENTICATED', message: 'The X-API-Key header is longer than 8192 characters.' } });
  });

  it('keeps serving after all of these', async () => {
    const response = await postJson(server.url, { query: '{ hello }' }, 'application/json', { 'x-api-key': 'reader-key' });
    expect(response.status).toBe(200);
    expect(json(response)).toEqual(ANSWER);
  });
});

describe('a request node\'s HTTP parser refuses', () => {
  const server = serveDuringSuite({ authenticate: [KEYS] });
  const malformed = {
    error: { code: 'MALFORMED_REQUEST', message: 'The request is not well-formed HTTP/1.1 (its request line, a header or the body framing).' },
  };

  it.each([
    ['a raw byte over 0x7f in the request line', 'GET /graphql?query=\u00e9 HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n'],
    ['a header line without a colon', 'GET /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nnot a header\r\n\r\n'],
    ['both Content-Length and Transfer-Encoding', 'POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n'],
    ['a chunk size that is not hexadecimal', 'POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n'],
  ])('answers %s 400 MALFORMED_REQUEST in JSON, and closes the connection', async (_name, bytes) => {
    const response = await rawRequest(server.port, bytes);
    expect(response.status).toBe(400);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(response.headers['connection']).toBe('close');
    expect(JSON.parse(response.body)).toEqual(malformed);
    expect(server.probe.calls).toEqual([]);
  });
});

describe('a HEAD request node\'s parser refuses', () => {
  const server = serveDuringSuite({ maxHeaderBytes: 4096 });

  it('gets the status of the refusal and an empty body, as node answers', async () => {
    const received = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(server.port, '127.0.0.1', () => socket.end(`HEAD /api/${'x'.repeat(8 * 1024)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`));
      let text = '';
      socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
      socket.on('close', () => resolve(text));
      socket.on('error', reject);
    });
    expect(received).toBe('HTTP/1.1 431 Request Header Fields Too Large\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
  });
});

describe('a header block larger than maxHeaderBytes', () => {
  it('is answered 431 HEADERS_TOO_LARGE before any handler runs, and the server keeps serving', async () => {
    const started = await startServer({ maxHeaderBytes: 4096, authenticate: [KEYS] });
    try {
      const response = await rawRequest(started.port, postWithHeaderLines([`X-Padding: ${'p'.repeat(8 * 1024)}`]));
      expect(response.status).toBe(431);
      expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(response.headers['connection']).toBe('close');
      expect(JSON.parse(response.body)).toEqual({ error: { code: 'HEADERS_TOO_LARGE', message: "The request's header block is larger than 4096 bytes." } });
      const credential = await rawRequest(started.port, postWithHeaderLines([`Authorization: Bearer ${'a'.repeat(8 * 1024)}`]));
      expect(credential.status).toBe(431);
      expect(started.probe.calls).toEqual([]);

      const after = await postJson(started.url, { query: '{ hello }' }, 'application/json', { 'x-api-key': 'reader-key' });
      expect(after.status).toBe(200);
    } finally {
      await started.close();
    }
  });

  it('is 80 KiB by default: a 70 KB header block reaches the handler', async () => {
    const started = await startServer({ authenticate: [KEYS] });
    try {
      const response = await rawRequest(started.port, postWithHeaderLines([`X-Padding: ${'p'.repeat(70 * 1024)}`, 'X-API-Key: reader-key']));
      expect(response.status).toBe(200);
      const beyond = await rawRequest(started.port, postWithHeaderLines([`X-Padding: ${'p'.repeat(90 * 1024)}`]));
      expect(beyond.status).toBe(431);
    } finally {
      await started.close();
    }
  });
});
