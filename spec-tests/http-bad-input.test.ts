/**
 * What the server does with requests no well-behaved client sends: bodies that are not JSON,
 * not UTF-8 or not of the right shape, members of the wrong type, documents that are huge or
 * absurdly deep, the wrong Content-Type. Each gets a 4xx with a stable code and a message that
 * says what was expected, and none of them costs the server more than the answer.
 *
 * Then the law over random input: whatever bytes arrive as a POST body, the server answers with
 * a 200 or a 4xx, in JSON, within 5 s, and afterwards still answers `{ __typename }`.
 * Runs: HTTP_FUZZ_RUNS (default 300). To replay a failure, set HTTP_FUZZ_SEED (and
 * HTTP_FUZZ_PATH) to the `seed` (and `path`) fast-check printed.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { json, jsonSyntaxMessage, postChunked, postJson, send, serveDuringSuite } from './support/httpServer.ts';
import type { SentResponse } from './support/httpServer.ts';

const RUNS = Number(process.env.HTTP_FUZZ_RUNS ?? 300);
const SEED = process.env.HTTP_FUZZ_SEED === undefined ? undefined : Number(process.env.HTTP_FUZZ_SEED);
const PATH = process.env.HTTP_FUZZ_PATH;

const GRAPHQL_RESPONSE = 'application/graphql-response+json; charset=utf-8';
const JSON_RESPONSE = 'application/json; charset=utf-8';
const FREE = { cost: { requested: 0, actual: 0, limit: 1000 } };

/** A POST with the given raw body, as JSON, accepting application/graphql-response+json. */
function postRaw(url: string, body: string | Buffer, headers: Record<string, string> = {}): Promise<SentResponse> {
  return send(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json', ...headers },
    body,
  });
}

/** A GraphQL-shaped 400: `{ errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] }`. */
function badRequest(message: string) {
  return { errors: [{ message, extensions: { code: 'BAD_REQUEST' } }] };
}


/** `{a{a{a ... }}}` nested `levels` deep (3 tokens per level). */
function nested(levels: number): string {
  return `${'{a'.repeat(levels)}${'}'.repeat(levels)}`;
}

/** `{ node { child { child ... { id } } } }`: a valid query of the given depth, 3 tokens per level. */
function chain(depth: number): string {
  return `{ node ${'{ child '.repeat(depth - 2)}{ id }${' }'.repeat(depth - 2)} }`;
}

describe('malformed requests', () => {
  const server = serveDuringSuite();

  describe('bodies that are not JSON', () => {
    it.each(['{ "query": ', '{ query: "{ hello }" }', "{ 'query': '{ hello }' }", '{"query":"{ hello }"}}', 'query { hello }', '\u0000'])(
      'answers 400 BAD_REQUEST to %j, under either media type',
      async (text) => {
        for (const [accept, contentType] of [
          ['application/graphql-response+json', GRAPHQL_RESPONSE],
          ['application/json', JSON_RESPONSE],
        ] as const) {
          const response = await postRaw(server.url, text, { accept });
          expect(response.status).toBe(400);
          expect(response.headers['content-type']).toBe(contentType);
          expect(json(response)).toEqual(badRequest(`The request body is not valid JSON: ${jsonSyntaxMessage(text)}`));
        }
      },
    );

    it.each(['', '   \n'])('answers 400 BAD_REQUEST to an empty body (%j)', async (text) => {
      const response = await postRaw(server.url, text);
      expect(response.status).toBe(400);
      expect(json(response)).toEqual(badRequest('The request body is empty; expected a JSON object with a "query".'));
    });
  });

  describe('JSON that is not a GraphQL request', () => {
    it.each([['null'], ['42'], ['"{ hello }"'], ['true']])('answers 400 BAD_REQUEST to the JSON value %s', async (text) => {
      const response = await postRaw(server.url, text);
      expect(response.status).toBe(400);
      expect(json(response)).toEqual(badRequest('A GraphQL request must be a JSON object with a "query".'));
    });

    it.each([[{}], [{ query: null }], [{ qeury: '{ hello }' }]])('answers 400 BAD_REQUEST to %j, which has no query', async (body) => {
      const response = await postJson(server.url, body, 'application/json');
      expect(response.status).toBe(400);
      expect(json(response)).toEqual(badRequest('The request has no "query"; expected the GraphQL document as a string.'));
    });

    it.each([
      ['query', { obj: 'ect' }, '"query" must be a string, got an object.'],
      ['query', 0, '"query" must be a string, got a number.'],
      ['query', false, '"query" must be a string, got a boolean.'],
      ['query', ['{ hello }'], '"query" must be a string, got an array.'],
      ['variables', '{"name":"Ada"}', '"variables" must be an object or null, got a string.'],
      ['variables', 7, '"variables" must be an object or null, got a number.'],
      ['variables', [{ name: 'Ada' }], '"variables" must be an object or null, got an array.'],
      ['variables', true, '"variables" must be an object or null, got a boolean.'],
      ['operationName', 1, '"operationName" must be a string or null, got a number.'],
      ['operationName', { name: 'A' }, '"operationName" must be a string or null, got an object.'],
      ['extensions', 'persisted', '"extensions" must be an object or null, got a string.'],
      ['extensions', ['x'], '"extensions" must be an object or null, got an array.'],
    ] as const)('answers 400 BAD_REQUEST when %s is %j, without running anything', async (member, value, message) => {
      for (const accept of ['application/graphql-response+json', 'application/json']) {
        const response = await postJson(server.url, { query: '{ hello }', [member]: value }, accept);
        expect(response.status).toBe(400);
        expect(json(response)).toEqual(badRequest(message));
      }
      expect(server.probe.calls).toEqual([]);
    });

    it.each(['operationName', 'variables', 'extensions'])('accepts null for %s', async (member) => {
      const response = await postJson(server.url, { query: '{ hello }', [member]: null }, 'application/graphql-response+json');
      expect(response.status).toBe(200);
      expect(json(response)).toEqual({ data: { hello: 'Hello, world!' }, extensions: FREE });
    });

    it('answers 400 BAD_REQUEST to a GET without a query parameter', async () => {
      // With the header CSRF prevention (on by default) asks of a GET.
      const response = await send(`${server.url}?operationName=A`, { headers: { accept: 'application/graphql-response+json', 'x-graphql-csrf': '1' } });
      expect(response.status).toBe(400);
      expect(json(response)).toEqual(badRequest('The request has no "query"; expected the GraphQL document as a string.'));
    });
  });

  describe('bodies that are not UTF-8', () => {
    it.each([
      ['a byte that never occurs in UTF-8', [0xff]],
      ['a continuation byte on its own', [0x80]],
      ['an overlong encoding of "/"', [0xc0, 0xaf]],
      ['an encoded UTF-16 surrogate', [0xed, 0xa0, 0x80]],
      ['a sequence cut short', [0xe2, 0x82]],
    ])('answers 400 INVALID_UTF8 to %s inside a string', async (_title, bytes) => {
      const body = Buffer.concat([Buffer.from('{"query":"{ hello(name: \\"'), Buffer.from(bytes), Buffer.from('\\") }"}')]);
      const response = await postRaw(server.url, body);
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toBe(JSON_RESPONSE);
      expect(json(response)).toEqual({ error: { code: 'INVALID_UTF8', message: 'The request body is not valid UTF-8.' } });
      expect(server.probe.calls).toEqual([]);
    });

    it('decodes a character whose bytes arrive in two chunks', async () => {
      const body = Buffer.from(JSON.stringify({ query: '{ hello(name: "Zoë 🌍") }' }));
      const globe = body.indexOf(Buffer.from('🌍'));
      const response = await postChunked(server.url, [body.subarray(0, globe + 2), body.subarray(globe + 2)]);
      expect(response.status).toBe(200);
      expect(JSON.parse(response.text)).toEqual({ data: { hello: 'Hello, Zoë 🌍!' }, extensions: FREE });
    });
  });

  // The requests carry x-graphql-csrf: without it, a POST with no Content-Type or a simple one
  // (text/plain, a form's) is refused by CSRF prevention first (security-http.test.ts).
  describe('the Content-Type of a POST', () => {
    it('answers 415 UNSUPPORTED_MEDIA_TYPE when there is none', async () => {
      const response = await send(server.url, { method: 'POST', headers: { accept: 'application/json', 'x-graphql-csrf': '1' }, body: JSON.stringify({ query: '{ hello }' }) });
      expect(response.status).toBe(415);
      expect(json(response)).toEqual({
        error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'The request has no Content-Type; send application/json.' },
      });
      expect(server.probe.calls).toEqual([]);
    });

    it.each(['text/plain', 'application/graphql', 'application/x-www-form-urlencoded', 'multipart/form-data; boundary=x', 'text/json'])(
      'answers 415 UNSUPPORTED_MEDIA_TYPE to %s',
      async (contentType) => {
        const response = await send(server.url, {
          method: 'POST',
          headers: { 'content-type': contentType, accept: 'application/json', 'x-graphql-csrf': '1' },
          body: JSON.stringify({ query: '{ hello }' }),
        });
        expect(response.status).toBe(415);
        expect(response.headers['content-type']).toBe(JSON_RESPONSE);
        const type = contentType.split(';')[0] as string;
        expect(json(response)).toEqual({
          error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: `Content-Type ${type} is not supported; send application/json.` },
        });
      },
    );
  });

  describe('huge and deep documents', () => {
    it('answers 413 to a document larger than the body limit, before reading it', async () => {
      const body = JSON.stringify({ query: `{${' a'.repeat(600_000)} }` });
      expect(Buffer.byteLength(body)).toBeGreaterThan(1_048_576);
      const response = await postRaw(server.url, body);
      expect(response.status).toBe(413);
      expect(json(response)).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'The request body is larger than 1048576 bytes.' } });
    });

    it('refuses a 1,000,000-character document within the body limit with DOCUMENT_TOO_LARGE', async () => {
      const query = `{${' a'.repeat(499_998)} }`;
      expect(query.length).toBe(999_999);
      const response = await postJson(server.url, { query }, 'application/graphql-response+json');
      expect(response.status).toBe(400);
      expect(json(response)).toEqual({
        errors: [
          {
            message: 'The document is 999999 characters long; the limit is 100000.',
            extensions: { code: 'DOCUMENT_TOO_LARGE', measured: 999_999, limit: 100_000 },
          },
        ],
      });
    });

    it('refuses a document of 30,000 tokens with TOKEN_LIMIT_EXCEEDED', async () => {
      const response = await postJson(server.url, { query: `{${' a'.repeat(29_998)} }` }, 'application/graphql-response+json');
      expect(response.status).toBe(400);
      expect(json(response)).toEqual({
        errors: [
          { message: 'The document has 30000 tokens; the limit is 5000.', extensions: { code: 'TOKEN_LIMIT_EXCEEDED', measured: 30_000, limit: 5000 } },
        ],
      });
    });

    it('refuses a valid query 1,200 levels deep, within the token limit, with DEPTH_LIMIT_EXCEEDED', async () => {
      const response = await postJson(server.url, { query: chain(1200) }, 'application/graphql-response+json');
      expect(response.status, response.text).toBe(400);
      expect(json(response)).toEqual({
        errors: [{ message: 'Query depth 1200 exceeds the limit of 15.', extensions: { code: 'DEPTH_LIMIT_EXCEEDED', measured: 1200, limit: 15 } }],
      });
      expect(server.probe.calls).toEqual([]);
    });

    it('refuses a document nested 10,000 levels deep with TOKEN_LIMIT_EXCEEDED', async () => {
      const response = await postJson(server.url, { query: nested(10_000) }, 'application/graphql-response+json');
      expect(response.status, response.text).toBe(400);
      expect(json(response)).toEqual({
        errors: [
          { message: 'The document has 30000 tokens; the limit is 5000.', extensions: { code: 'TOKEN_LIMIT_EXCEEDED', measured: 30_000, limit: 5000 } },
        ],
      });
    });
  });
});

describe('deep documents with the token limit switched off', () => {
  const server = serveDuringSuite({ limits: { tokens: false } });

  it('refuses a document nested 100 levels deep with DEPTH_LIMIT_EXCEEDED', async () => {
    const response = await postJson(server.url, { query: chain(100) }, 'application/graphql-response+json');
    expect(response.status).toBe(400);
    expect(json(response)).toEqual({
      errors: [{ message: 'Query depth 100 exceeds the limit of 15.', extensions: { code: 'DEPTH_LIMIT_EXCEEDED', measured: 100, limit: 15 } }],
    });
    expect(server.probe.calls).toEqual([]);
  });

  it('answers a document nested 10,000 levels deep with a 4xx GraphQL error, and keeps serving', async () => {
    const response = await postJson(server.url, { query: nested(10_000) }, 'application/graphql-response+json');
    expect(response.status, response.text).toBeGreaterThanOrEqual(400);
    expect(response.status, response.text).toBeLessThan(500);
    const body = json(response) as { errors: Array<{ message: string; extensions: { code: string } }> };
    expect(body.errors).toHaveLength(1);
    expect(typeof body.errors[0]?.message).toBe('string');
    expect(typeof body.errors[0]?.extensions.code).toBe('string');

    const after = await postJson(server.url, { query: '{ __typename }' });
    expect(json(after)).toEqual({ data: { __typename: 'Query' }, extensions: FREE });
  });
});

describe('random input', () => {
  const server = serveDuringSuite({ log: () => undefined });

  const TOKENS = [
    '{', '}', '(', ')', ':', '...', '$n', '!', '[', ']', '@skip(if: true)', 'on', 'Node', 'Query', 'query', 'mutation',
    'subscription', 'fragment', 'F', 'hello', 'name', 'node', 'child', 'id', 'items', 'count', '__typename', 'fail', 'forbidden',
    'increment', 'String', 'Int', '5', '"x"', '"""', '#', '\n', '\u00e9',
  ];
  const documents = fc.oneof(
    fc.array(fc.constantFrom(...TOKENS), { maxLength: 30 }).map((tokens) => tokens.join(' ')),
    fc.constantFrom('{ hello }', '{ node { child { id } } }', 'mutation { increment }', '{ items(count: 2) { id } }', 'query ($n: String) { hello(name: $n) }', '{ fail }'),
    fc.string({ maxLength: 40 }),
  );
  const anything = fc.jsonValue({ maxDepth: 3 });
  const optional = <T>(value: fc.Arbitrary<T>) => fc.option(value, { nil: undefined });
  const requestLike = fc.record(
    {
      query: fc.oneof(documents, anything),
      operationName: optional(fc.oneof(fc.constantFrom('A', 'Q', ''), anything)),
      variables: optional(fc.oneof(fc.dictionary(fc.constantFrom('n', 'name', 'x'), anything), anything)),
      extensions: optional(anything),
    },
    { requiredKeys: [] },
  );
  const bodies = fc.oneof(
    fc.uint8Array({ maxLength: 300 }).map((bytes) => Buffer.from(bytes)),
    anything.map((value) => Buffer.from(JSON.stringify(value) ?? '')),
    requestLike.map((request) => Buffer.from(JSON.stringify(request))),
    fc.array(requestLike, { maxLength: 12 }).map((batch) => Buffer.from(JSON.stringify(batch))),
    fc.tuple(requestLike, fc.nat({ max: 40 })).map(([request, cut]) => {
      const text = Buffer.from(JSON.stringify(request));
      return text.subarray(0, Math.max(0, text.length - cut));
    }),
  );
  const accepts = fc.constantFrom(undefined, 'application/json', 'application/graphql-response+json', '*/*', 'text/html');
  const contentTypes = fc.constantFrom('application/json', 'application/json; charset=utf-8', 'application/json; charset=latin1', 'text/plain', undefined);

  it('law: every POST body gets a JSON answer, 200 or 4xx, never a 5xx and never a hang; the server keeps serving', async () => {
    await fc.assert(
      fc.asyncProperty(bodies, accepts, contentTypes, async (body, accept, contentType) => {
        const headers: Record<string, string> = {};
        if (accept !== undefined) headers['accept'] = accept;
        if (contentType !== undefined) headers['content-type'] = contentType;
        const response = await send(server.url, { method: 'POST', headers, body, timeoutMs: 5000 });
        const described = `${response.status} ${response.text.slice(0, 300)}`;
        expect(response.status === 200 || (response.status >= 400 && response.status < 500), described).toBe(true);
        expect(response.headers['content-type'], described).toMatch(/^application\/(graphql-response\+)?json; charset=utf-8$/);
        const answer = JSON.parse(response.text) as unknown;
        if (response.status === 200) {
          // Only a well-formed request (an object with a string query, or a batch) is answered with 200.
          const sent = JSON.parse(body.toString('utf8')) as unknown;
          expect(Array.isArray(sent) || (typeof sent === 'object' && sent !== null && typeof (sent as { query?: unknown }).query === 'string'), described).toBe(true);
          expect(typeof answer === 'object' && answer !== null, described).toBe(true);
        } else {
          expect(answer, described).toSatisfy(
            (value: unknown) =>
              typeof value === 'object' && value !== null && (Array.isArray((value as { errors?: unknown }).errors) || typeof (value as { error?: unknown }).error === 'object'),
          );
        }
      }),
      {
        numRuns: RUNS,
        ...(SEED === undefined ? {} : { seed: SEED }),
        ...(PATH === undefined ? {} : { path: PATH }),
      },
    );

    const after = await postJson(server.url, { query: '{ __typename }' });
    expect(after.status).toBe(200);
    expect(json(after)).toEqual({ data: { __typename: 'Query' }, extensions: FREE });
  });
});
