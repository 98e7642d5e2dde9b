/**
 * The HTTP server, request by request: exact status codes, headers and bodies for the protocol
 * (GraphQL over HTTP), for the limits and cost report, for production mode, and for what only a
 * running server can show: timeouts, clients that go away, graceful shutdown, body size.
 *
 * Every server listens on 127.0.0.1, port 0. Requests go through `send` (spec-tests/support),
 * which sends exactly the headers it is given, each on a fresh connection.
 */
import http from 'node:http';
import net from 'node:net';
import type { IncomingMessage } from 'node:http';
import { GraphQLError } from 'graphql';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { json, postChunked, postJson, send, serveDuringSuite, startServer } from './support/httpServer.ts';
import { byMajor } from './support/graphqlMajor.ts';
import type { StartedServer, TestContext } from './support/httpServer.ts';

const GRAPHQL_RESPONSE = 'application/graphql-response+json; charset=utf-8';
const JSON_RESPONSE = 'application/json; charset=utf-8';

/** `extensions.cost` of a query whose fields are all leaves, under the default cost limit. */
const FREE = { cost: { requested: 0, actual: 0, limit: 1000 } };

/** What a GET carries under CSRF prevention (on by default; security-http.test.ts): a header no cross-site page can send. */
const NOT_CROSS_SITE = { 'x-graphql-csrf': '1' };

/** `?query=...&...` for a GET. */
function withParams(url: string, params: Record<string, string>): string {
  const target = new URL(url);
  for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value);
  return target.toString();
}

/** Resolves when `signal` aborts; rejects if it has not within `ms`. */
function aborted(signal: AbortSignal, ms: number): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`The signal did not abort within ${ms} ms.`)), ms);
    signal.addEventListener(
      'abort',
      () => {
        clearTimeout(timer);
        resolve();
      },
      { once: true },
    );
  });
}

/** The error of a connection attempt to 127.0.0.1:port, or null if it connected. */
function tryConnect(port: number): Promise<NodeJS.ErrnoException | null> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(null);
    });
    socket.once('error', (error) => resolve(error));
  });
}

describe('one server with the default options', () => {
  const server = serveDuringSuite();

  describe('POST application/json', () => {
    it('executes the query and answers 200 with the result and its cost', async () => {
      const response = await postJson(server.url, { query: '{ hello }' });
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe(JSON_RESPONSE);
      expect(response.headers['content-length']).toBe(String(Buffer.byteLength(response.text)));
      expect(json(response)).toEqual({ data: { hello: 'Hello, world!' }, extensions: FREE });
    });

    it('answers large bodies in full, ASCII or not, one after another (their byte buffers are reused)', async () => {
      for (const name of ['a'.repeat(40_000), 'é'.repeat(30_000) + '😀', 'b'.repeat(20_000), 'c'.repeat(50_000)]) {
        const response = await postJson(server.url, { query: 'query ($name: String) { hello(name: $name) }', variables: { name } });
        expect(response.status).toBe(200);
        expect(response.headers['content-length']).toBe(String(Buffer.byteLength(response.text)));
        expect(json(response)).toEqual({ data: { hello: `Hello, ${name}!` }, extensions: FREE });
      }
    });

    it('answers short bodies in full and with their size in bytes, ASCII or not', async () => {
      const names = ['a', '\u007f', '\u0080', 'é', '😀', 'x'.repeat(180), 'é'.repeat(180), 'y'.repeat(300), 'ü'.repeat(300)];
      for (const name of names) {
        const response = await postJson(server.url, { query: 'query ($name: String) { hello(name: $name) }', variables: { name } });
        expect(response.status).toBe(200);
        expect(response.headers['content-length']).toBe(String(Buffer.byteLength(response.text)));
        expect(json(response)).toEqual({ data: { hello: `Hello, ${name}!` }, extensions: FREE });
      }
    });

    it('passes variables and chooses the operation by operationName', async () => {
      const response = await postJson(server.url, {
        query: 'query A { hello } query B($name: String) { hello(name: $name) }',
        operationName: 'B',
        variables: { name: 'Ada' },
        extensions: { client: 'test' },
      });
      expect(response.status).toBe(200);
      expect(json(response)).toEqual({ data: { hello: 'Hello, Ada!' }, extensions: FREE });
    });

    it('runs a mutation', async () => {
      const response = await postJson(server.url, { query: 'mutation { increment }' });
      expect(response.status).toBe(200);
      expect(json(response)).toEqual({ data: { increment: 1 }, extensions: FREE });
    });

    it('gives the context of a request without a context factory its request and signal', async () => {
      const response = await postJson(server.url, { query: '{ requestMethod }' });
      expect(json(response)).toEqual({ data: { requestMethod: 'POST' }, extensions: FREE });
    });
  });

  describe('GET', () => {
    it('executes a query from the URL parameters', async () => {
      const response = await send(
        withParams(server.url, { query: 'query ($name: String) { hello(name: $name) }', variables: '{"name":"Grace"}' }),
        { headers: { ...NOT_CROSS_SITE, accept: 'application/json' } },
      );
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe(JSON_RESPONSE);
      expect(json(response)).toEqual({ data: { hello: 'Hello, Grace!' }, extensions: FREE });
    });

    it('refuses a mutation with 405 and Allow: POST, without running it', async () => {
      const response = await send(withParams(server.url, { query: 'mutation { increment }' }), {
        headers: { ...NOT_CROSS_SITE, accept: 'application/graphql-response+json' },
      });
      expect(response.status).toBe(405);
      expect(response.headers['allow']).toBe('POST');
      expect(response.headers['content-type']).toBe(JSON_RESPONSE);
      expect(json(response)).toEqual({
        error: { code: 'METHOD_NOT_ALLOWED', message: 'A mutation cannot be sent with GET; use POST.' },
      });
      expect(server.probe.calls).toEqual([]);
    });

    it('runs the query of a document that also holds a mutation when operationName names the query', async () => {
      const response = await send(
        withParams(server.url, { query: 'query Q { hello } mutation M { increment }', operationName: 'Q' }),
        { headers: { ...NOT_CROSS_SITE, accept: 'application/json' } },
      );
      expect(response.status).toBe(200);
      expect(json(response)).toEqual({ data: { hello: 'Hello, world!' }, extensions: FREE });
      expect(server.probe.calls).toEqual(['Query.hello']);
    });

    it('answers 400 BAD_REQUEST when the variables parameter is not JSON', async () => {
      const response = await send(withParams(server.url, { query: '{ hello }', variables: '{name:' }), {
        headers: { ...NOT_CROSS_SITE, accept: 'application/graphql-response+json' },
      });
      expect(response.status).toBe(400);
      expect(response.headers['content-type']).toBe(GRAPHQL_RESPONSE);
      expect(json(response)).toEqual({
        errors: [{ message: 'The "variables" parameter is not valid JSON.', extensions: { code: 'BAD_REQUEST' } }],
      });
    });

    it('sends an ETag, and 304 without a body when If-None-Match carries it', async () => {
      const url = withParams(server.url, { query: '{ hello }' });
      const first = await send(url, { headers: { ...NOT_CROSS_SITE, accept: 'application/json' } });
      expect(first.status).toBe(200);
      const etag = first.headers['etag'];
      expect(etag).toMatch(/^"[^"]+"$/);

      const again = await send(url, { headers: { ...NOT_CROSS_SITE, accept: 'application/json', 'if-none-match': etag as string } });
      expect(again.status).toBe(304);
      expect(again.headers['etag']).toBe(etag);
      expect(again.text).toBe('');

      const listed = await send(url, { headers: { ...NOT_CROSS_SITE, accept: 'application/json', 'if-none-match': `"other", ${etag as string}` } });
      expect(listed.status).toBe(304);

      const stale = await send(url, { headers: { ...NOT_CROSS_SITE, accept: 'application/json', 'if-none-match': '"other"' } });
      expect(stale.status).toBe(200);
      expect(json(stale)).toEqual({ data: { hello: 'Hello, world!' }, extensions: FREE });
    });

    it('gives different results different ETags', async () => {
      const world = await send(withParams(server.url, { query: '{ hello }' }), { headers: { ...NOT_CROSS_SITE, accept: 'application/json' } });
      const ada = await send(withParams(server.url, { query: '{ hello(name: "Ada") }' }), { headers: { ...NOT_CROSS_SITE, accept: 'application/json' } });
      expect(world.headers['etag']).not.toBe(ada.headers['etag']);
    });
  });

  describe('paths and methods', () => {
    it('answers 404 NOT_FOUND for any other path', async () => {
      const response = await send(`${server.origin}/nope?query=%7Bhello%7D`);
      expect(response.status).toBe(404);
      expect(response.headers['content-type']).toBe(JSON_RESPONSE);
      expect(json(response)).toEqual({
        error: { code: 'NOT_FOUND', message: 'Nothing is served at /nope; the GraphQL endpoint is /graphql.' },
      });
    });

    it('answers 405 METHOD_NOT_ALLOWED with Allow: GET, POST for PUT', async () => {
      const response = await send(server.url, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query: '{ hello }' }),
      });
      expect(response.status).toBe(405);
      expect(response.headers['allow']).toBe('GET, POST');
      expect(response.headers['content-type']).toBe(JSON_RESPONSE);
      expect(json(response)).toEqual({
        error: { code: 'METHOD_NOT_ALLOWED', message: 'Method PUT is not allowed; use GET or POST.' },
      });
      expect(server.probe.calls).toEqual([]);
    });
  });

  describe('the response media type follows the Accept header', () => {
    it.each([
      ['application/graphql-response+json', GRAPHQL_RESPONSE],
      ['application/json', JSON_RESPONSE],
      ['application/graphql-response+json, application/json', GRAPHQL_RESPONSE],
      ['application/json, application/graphql-response+json', GRAPHQL_RESPONSE],
      ['application/json;q=0.9, application/graphql-response+json', GRAPHQL_RESPONSE],
      ['*/*', JSON_RESPONSE],
      ['text/html, */*;q=0.1', JSON_RESPONSE],
      ['application/graphql-response+json;q=0, application/json', JSON_RESPONSE],
    ])('Accept: %s gives %s', async (accept, contentType) => {
      const response = await postJson(server.url, { query: '{ hello }' }, accept);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe(contentType);
      expect(json(response)).toEqual({ data: { hello: 'Hello, world!' }, extensions: FREE });
    });

    it('answers application/json when there is no Accept header', async () => {
      const response = await postJson(server.url, { query: '{ hello }' }, null);
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe(JSON_RESPONSE);
    });

    it.each(['text/html', 'application/xml, text/plain', 'application/json;q=0'])(
      'answers 406 NOT_ACCEPTABLE to Accept: %s, without running anything',
      async (accept) => {
        const response = await postJson(server.url, { query: '{ hello }' }, accept);
        expect(response.status).toBe(406);
        expect(response.headers['content-type']).toBe(JSON_RESPONSE);
        expect(json(response)).toEqual({
          error: {
            code: 'NOT_ACCEPTABLE',
            message: 'The Accept header allows neither application/graphql-response+json nor application/json.',
          },
        });
        expect(server.probe.calls).toEqual([]);
      },
    );
  });

  describe('the request media type must be JSON in UTF-8', () => {
    // Other media types: spec-tests/http-bad-input.test.ts.
    it('answers 415 UNSUPPORTED_MEDIA_TYPE to application/json in another charset', async () => {
      const response = await send(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=latin1', accept: 'application/json' },
        body: JSON.stringify({ query: '{ hello }' }),
      });
      expect(response.status).toBe(415);
      expect(json(response)).toEqual({
        error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: 'Charset latin1 is not supported; send UTF-8.' },
      });
      expect(server.probe.calls).toEqual([]);
    });

    it.each(['application/json; charset=utf-8', 'application/json;charset=UTF-8', 'Application/JSON', 'application/json; charset="utf-8"'])(
      'accepts Content-Type: %s',
      async (contentType) => {
        const response = await send(server.url, {
          method: 'POST',
          headers: { 'content-type': contentType, accept: 'application/json' },
          body: JSON.stringify({ query: '{ hello }' }),
        });
        expect(response.status).toBe(200);
        expect(json(response)).toEqual({ data: { hello: 'Hello, world!' }, extensions: FREE });
      },
    );
  });

  describe('status codes: 200 under application/json, 400 for request errors under application/graphql-response+json', () => {
    const requestErrors = [
      {
        title: 'a document that does not parse',
        body: { query: '{ hello' },
        errors: [{ message: 'Syntax Error: Expected Name, found <EOF>.', locations: [{ line: 1, column: 8 }], extensions: { code: 'GRAPHQL_PARSE_FAILED' } }],
      },
      {
        title: 'a document that does not validate',
        body: { query: '{ nope }' },
        errors: [
          {
            message: 'Cannot query field "nope" on type "Query". Did you mean "node"?',
            locations: [{ line: 1, column: 3 }],
            extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
          },
        ],
      },
      {
        title: 'a variable that does not coerce',
        body: { query: 'query ($name: String!) { hello(name: $name) }', variables: { name: 7 } },
        errors: [
          {
            message: byMajor({
              16: 'Variable "$name" got invalid value 7; String cannot represent a non string value: 7',
              17: 'Variable "$name" has invalid value: String cannot represent a non string value: 7',
            }),
            locations: [{ line: 1, column: 8 }],
            extensions: { code: 'BAD_USER_INPUT' },
          },
        ],
        // The limits were checked (on the variables given) before coercion failed: the cost is reported.
        extensions: FREE,
      },
      {
        title: 'a missing required variable',
        body: { query: 'query ($name: String!) { hello(name: $name) }' },
        errors: [
          {
            message: byMajor({
              16: 'Variable "$name" of required type "String!" was not provided.',
              17: 'Variable "$name" has invalid value: Expected a value of non-null type "String!" to be provided.',
            }),
            locations: [{ line: 1, column: 8 }],
            extensions: { code: 'BAD_USER_INPUT' },
          },
        ],
        // The limits were checked (on the variables given) before coercion failed: the cost is reported.
        extensions: FREE,
      },
      {
        title: 'an operation name that names no operation',
        body: { query: 'query A { hello }', operationName: 'B' },
        errors: [{ message: 'Unknown operation named "B".', extensions: { code: 'OPERATION_RESOLUTION_FAILURE' } }],
      },
    ];

    it.each(requestErrors.map((testCase) => [testCase.title, testCase] as const))(
      '%s: 400 and no data under application/graphql-response+json',
      async (_title, { body, errors, extensions }) => {
        const response = await postJson(server.url, body, 'application/graphql-response+json');
        expect(response.status).toBe(400);
        expect(response.headers['content-type']).toBe(GRAPHQL_RESPONSE);
        expect(json(response)).toEqual(extensions === undefined ? { errors } : { errors, extensions });
        expect(server.probe.calls).toEqual([]);
      },
    );

    it.each(requestErrors.map((testCase) => [testCase.title, testCase] as const))(
      '%s: 200 and no data under application/json',
      async (_title, { body, errors, extensions }) => {
        const response = await postJson(server.url, body, 'application/json');
        expect(response.status).toBe(200);
        expect(response.headers['content-type']).toBe(JSON_RESPONSE);
        expect(json(response)).toEqual(extensions === undefined ? { errors } : { errors, extensions });
      },
    );

    it('answers 200 with data and errors when a field fails, under either media type', async () => {
      for (const accept of ['application/graphql-response+json', 'application/json']) {
        const response = await postJson(server.url, { query: '{ fail hello }' }, accept);
        expect(response.status).toBe(200);
        expect(json(response)).toEqual({
          data: { fail: null, hello: 'Hello, world!' },
          errors: [
            { message: 'db password leaked', locations: [{ line: 1, column: 3 }], path: ['fail'], extensions: { code: 'INTERNAL_SERVER_ERROR' } },
          ],
          extensions: FREE,
        });
      }
    });

    it('keeps the code of a GraphQLError a resolver threw', async () => {
      const response = await postJson(server.url, { query: '{ forbidden }' });
      expect(json(response)).toEqual({
        data: { forbidden: null },
        errors: [{ message: 'You may not read this field.', locations: [{ line: 1, column: 3 }], path: ['forbidden'], extensions: { code: 'FORBIDDEN' } }],
        extensions: FREE,
      });
    });

    it('serves introspection outside production mode', async () => {
      const response = await postJson(server.url, { query: '{ __schema { queryType { name } } }' });
      expect(response.status).toBe(200);
      expect(json(response)).toEqual({ data: { __schema: { queryType: { name: 'Query' } } }, extensions: { cost: { requested: 0, actual: 0, limit: 1000 } } });
    });
  });

  describe('batched requests', () => {
    it('answers an array of operations with an array of their results, in order', async () => {
      const response = await postJson(
        server.url,
        [{ query: '{ hello }' }, { query: 'query ($name: String) { hello(name: $name) }', variables: { name: 'Ada' } }],
        'application/graphql-response+json',
      );
      expect(response.status).toBe(200);
      expect(response.headers['content-type']).toBe(GRAPHQL_RESPONSE);
      expect(json(response)).toEqual([
        { data: { hello: 'Hello, world!' }, extensions: FREE },
        { data: { hello: 'Hello, Ada!' }, extensions: FREE },
      ]);
    });

    it('gives each operation of a batch its own result, errors included', async () => {
      const response = await postJson(server.url, [{ query: '{ hello' }, { query: 7 }, { query: '{ hello }' }]);
      expect(response.status).toBe(200);
      expect(json(response)).toEqual([
        { errors: [{ message: 'Syntax Error: Expected Name, found <EOF>.', locations: [{ line: 1, column: 8 }], extensions: { code: 'GRAPHQL_PARSE_FAILED' } }] },
        { errors: [{ message: '"query" must be a string, got a number.', extensions: { code: 'BAD_REQUEST' } }] },
        { data: { hello: 'Hello, world!' }, extensions: FREE },
      ]);
    });

    it('refuses more than 10 operations with 400 BATCH_LIMIT_EXCEEDED, running none', async () => {
      const batch = Array.from({ length: 11 }, () => ({ query: '{ hello }' }));
      for (const accept of ['application/graphql-response+json', 'application/json']) {
        const response = await postJson(server.url, batch, accept);
        expect(response.status).toBe(400);
        expect(json(response)).toEqual({
          errors: [
            {
              message: 'The request holds 11 operations; the limit is 10.',
              extensions: { code: 'BATCH_LIMIT_EXCEEDED', measured: 11, limit: 10 },
            },
          ],
        });
      }
      expect(server.probe.calls).toEqual([]);
    });

    it('answers 400 BAD_REQUEST to an empty batch', async () => {
      const response = await postJson(server.url, []);
      expect(response.status).toBe(400);
      expect(json(response)).toEqual({ errors: [{ message: 'The batch is empty.', extensions: { code: 'BAD_REQUEST' } }] });
    });
  });

  describe('cost report', () => {
    it('reports the requested cost, the actual cost of the fields that ran, and the limit', async () => {
      // items(count: 5) is estimated at 1 + 5 × child (1), but returns only 3 nodes: 1 + 3 × 1.
      const response = await postJson(server.url, { query: '{ items(count: 5) { id child { id } } }' });
      expect(response.status).toBe(200);
      expect(json(response)).toEqual({
        data: {
          items: [
            { id: '1', child: { id: '1.1' } },
            { id: '2', child: { id: '2.1' } },
            { id: '3', child: { id: '3.1' } },
          ],
        },
        extensions: { cost: { requested: 6, actual: 4, limit: 1000 } },
      });
    });
  });

  describe('execution and the client', () => {
    it('aborts the signal of a request whose client disconnects', async () => {
      const started = server.probe.nextWait();
      const request = http.request(server.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json' },
        agent: false,
      });
      request.on('error', () => {
        // The socket is destroyed on purpose below.
      });
      request.end(JSON.stringify({ query: '{ wait(ms: 5000) }' }));
      const signal = await started;
      expect(signal.aborted).toBe(false);
      request.destroy();
      await aborted(signal, 2000);
      expect(signal.aborted).toBe(true);
    });
  });
});

describe('limits', () => {
  const server = serveDuringSuite({ limits: { depth: 3, cost: 5 } });

  it('refuses a query deeper than the limit with DEPTH_LIMIT_EXCEEDED, before any resolver runs', async () => {
    const response = await postJson(server.url, { query: '{ node { child { child { child { id } } } } }' }, 'application/graphql-response+json');
    expect(response.status).toBe(400);
    expect(json(response)).toEqual({
      errors: [{ message: 'Query depth 5 exceeds the limit of 3.', extensions: { code: 'DEPTH_LIMIT_EXCEEDED', measured: 5, limit: 3 } }],
    });
    expect(server.probe.calls).toEqual([]);
  });

  it('refuses a query over the cost limit with COST_LIMIT_EXCEEDED, before any resolver runs', async () => {
    const response = await postJson(server.url, { query: '{ items(count: 5) { child { id } } }' }, 'application/json');
    expect(response.status).toBe(200);
    expect(json(response)).toEqual({
      errors: [{ message: 'Query cost 6 exceeds the limit of 5.', extensions: { code: 'COST_LIMIT_EXCEEDED', measured: 6, limit: 5 } }],
    });
    expect(server.probe.calls).toEqual([]);
  });

  it('runs a query within the limits and reports the configured cost limit', async () => {
    const response = await postJson(server.url, { query: '{ node { child { id } } }' });
    expect(json(response)).toEqual({ data: { node: { child: { id: '1.1' } } }, extensions: { cost: { requested: 2, actual: 2, limit: 5 } } });
  });
});

/**
 * Sends raw bytes over one connection, `gapMs` apart (or, for a function, once the text received
 * so far satisfies it), and resolves with everything received once the server closes it.
 */
function exchange(port: number, steps: ReadonlyArray<string | ((received: string) => string | null)>, gapMs = 30): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let received = '';
    let waiting: ((received: string) => string | null) | null = null;
    socket.setEncoding('latin1');
    socket.on('data', (text: string) => {
      received += text;
      if (waiting !== null) {
        const next = waiting(received);
        if (next !== null) {
          waiting = null;
          socket.write(next);
          void sendFrom(stepIndex);
        }
      }
    });
    socket.on('end', () => resolve(received));
    socket.on('error', reject);
    let stepIndex = 0;
    const sendFrom = async (from: number): Promise<void> => {
      for (stepIndex = from; stepIndex < steps.length; stepIndex++) {
        const step = steps[stepIndex] as string | ((received: string) => string | null);
        if (typeof step === 'function') {
          waiting = step;
          stepIndex++;
          return;
        }
        if (stepIndex > 0) await new Promise((wait) => setTimeout(wait, gapMs));
        socket.write(step);
      }
    };
    socket.once('connect', () => void sendFrom(0));
  });
}

/** The head of a POST to /graphql with a JSON body of `length` bytes. */
function postHead(length: number, extra = ''): string {
  return `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nAccept: application/json\r\nContent-Length: ${length}\r\n${extra}\r\n`;
}

/** Each response in `text` (several HTTP/1.1 responses back to back), as status and body. */
function responsesIn(text: string): Array<{ status: number; body: string }> {
  const responses: Array<{ status: number; body: string }> = [];
  let rest = text;
  while (rest.length > 0) {
    const headEnd = rest.indexOf('\r\n\r\n');
    const head = rest.slice(0, headEnd);
    const status = Number(head.slice(9, 12));
    const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
    responses.push({ status, body: rest.slice(headEnd + 4, headEnd + 4 + length) });
    rest = rest.slice(headEnd + 4 + length);
  }
  return responses;
}

describe('request bodies, however they arrive', () => {
  // A body that arrives with its headers is taken whole from node's buffer; any other is
  // streamed (server.ts readParsedBody). Both must give the same answers.
  const server = serveDuringSuite();
  const HELLO = JSON.stringify({ query: '{ hello }' });
  const ANSWER = JSON.stringify({ data: { hello: 'Hello, world!' }, extensions: FREE });

  it('answers a body sent with its headers in one write', async () => {
    const text = await exchange(server.port, [postHead(HELLO.length, 'Connection: close\r\n') + HELLO]);
    expect(responsesIn(text)).toEqual([{ status: 200, body: ANSWER }]);
  });

  it('answers a body that arrives some time after its headers', async () => {
    const text = await exchange(server.port, [postHead(HELLO.length, 'Connection: close\r\n'), HELLO]);
    expect(responsesIn(text)).toEqual([{ status: 200, body: ANSWER }]);
  });

  it('answers a body that arrives in pieces', async () => {
    const text = await exchange(server.port, [postHead(HELLO.length, 'Connection: close\r\n') + HELLO.slice(0, 5), HELLO.slice(5, 12), HELLO.slice(12)]);
    expect(responsesIn(text)).toEqual([{ status: 200, body: ANSWER }]);
  });

  it('answers two requests sent in one write in order, each with its own body', async () => {
    const typename = JSON.stringify({ query: '{ __typename }' });
    const text = await exchange(server.port, [postHead(HELLO.length) + HELLO + postHead(typename.length, 'Connection: close\r\n') + typename]);
    expect(responsesIn(text)).toEqual([
      { status: 200, body: ANSWER },
      { status: 200, body: JSON.stringify({ data: { __typename: 'Query' }, extensions: FREE }) },
    ]);
  });

  it('answers a client that waits for 100 Continue before sending its body', async () => {
    const text = await exchange(server.port, [
      postHead(HELLO.length, 'Expect: 100-continue\r\nConnection: close\r\n'),
      (received) => (received.startsWith('HTTP/1.1 100 Continue\r\n\r\n') ? HELLO : null),
    ]);
    expect(text.startsWith('HTTP/1.1 100 Continue\r\n\r\n')).toBe(true);
    expect(responsesIn(text.slice('HTTP/1.1 100 Continue\r\n\r\n'.length))).toEqual([{ status: 200, body: ANSWER }]);
  });

  it('answers a body larger than one read from the socket', async () => {
    // The padding is in `variables` (the document itself may be at most 100,000 characters).
    const body = JSON.stringify({ query: '{ hello }', variables: { padding: 'x'.repeat(600_000) } });
    const text = await exchange(server.port, [postHead(body.length, 'Connection: close\r\n') + body]);
    expect(responsesIn(text)).toEqual([{ status: 200, body: ANSWER }]);
  });

  it('answers 400 to an empty body with a Content-Length of 0', async () => {
    const text = await exchange(server.port, [postHead(0, 'Connection: close\r\n')]);
    const [response] = responsesIn(text);
    expect(response?.status).toBe(400);
    expect(JSON.parse(response?.body ?? '')).toEqual({
      errors: [{ message: 'The request body is empty; expected a JSON object with a "query".', extensions: { code: 'BAD_REQUEST' } }],
    });
  });
});

describe('options', () => {
  const servers: StartedServer[] = [];

  async function start(...args: Parameters<typeof startServer>): Promise<StartedServer> {
    const server = await startServer(...args);
    servers.push(server);
    return server;
  }

  afterAll(async () => {
    await Promise.all(servers.map((server) => server.close()));
  });

  it('leaves the cost report out when reportCost is false', async () => {
    const server = await start({ reportCost: false });
    const response = await postJson(server.url, { query: '{ node { id } }' });
    expect(json(response)).toEqual({ data: { node: { id: '1' } } });
  });

  it('serves the endpoint at the configured path only', async () => {
    const server = await start({ path: '/api' });
    const served = await postJson(`${server.origin}/api`, { query: '{ hello }' });
    expect(json(served)).toEqual({ data: { hello: 'Hello, world!' }, extensions: FREE });
    const elsewhere = await postJson(`${server.origin}/graphql`, { query: '{ hello }' });
    expect(elsewhere.status).toBe(404);
    expect(json(elsewhere)).toEqual({ error: { code: 'NOT_FOUND', message: 'Nothing is served at /graphql; the GraphQL endpoint is /api.' } });
  });

  it('calls the context factory once per request, with the request and a scope holding its signal', async () => {
    const seen: Array<{ request: IncomingMessage; signal: AbortSignal }> = [];
    const server = await start({
      context: async (request, { signal }): Promise<TestContext> => {
        seen.push({ request, signal });
        return { request, signal, user: String(request.headers['x-user']) };
      },
    });
    const response = await postJson(server.url, { query: '{ viewer requestMethod }' }, 'application/json', { 'x-user': 'ada' });
    expect(json(response)).toEqual({ data: { viewer: 'ada', requestMethod: 'POST' }, extensions: FREE });
    expect(seen).toHaveLength(1);
    expect(seen[0]?.request.headers['x-user']).toBe('ada');
    expect(seen[0]?.request.url).toBe('/graphql');
    expect(seen[0]?.signal).toBeInstanceOf(AbortSignal);

    await postJson(server.url, { query: '{ viewer }' }, 'application/json', { 'x-user': 'grace' });
    expect(seen).toHaveLength(2);
    expect(seen[1]?.request.headers['x-user']).toBe('grace');
  });

  it('answers 500 INTERNAL_SERVER_ERROR, and logs, when the context factory throws', async () => {
    const entries: unknown[] = [];
    const thrown = new Error('the session store is down');
    const server = await start({
      context: () => {
        throw thrown;
      },
      log: (entry) => entries.push(entry),
    });
    const response = await postJson(server.url, { query: '{ hello }' });
    expect(response.status).toBe(500);
    expect(json(response)).toEqual({ error: { code: 'INTERNAL_SERVER_ERROR', message: 'The server failed to handle the request.' } });
    expect(response.text).not.toContain('session store');
    expect(entries).toEqual([{ level: 'error', message: 'The server failed outside execution.', error: thrown }]);
    expect(server.probe.calls).toEqual([]);
  });

  it('answers TIMEOUT when execution takes longer than executionTimeoutMs, and aborts the signal', async () => {
    const server = await start({ executionTimeoutMs: 50 });
    const started = server.probe.nextWait();
    const begin = performance.now();
    const response = await postJson(server.url, { query: '{ wait(ms: 500) }' }, 'application/graphql-response+json');
    const elapsed = performance.now() - begin;
    expect(response.status).toBe(200);
    expect(json(response)).toEqual({
      data: null,
      errors: [{ message: 'Execution timed out after 50 ms.', extensions: { code: 'TIMEOUT' } }],
    });
    expect(elapsed).toBeLessThan(450);
    const signal = await started;
    expect(signal.aborted).toBe(true);
  });

  it('refuses a body over maxBodyBytes with 413 PAYLOAD_TOO_LARGE', async () => {
    const server = await start({ maxBodyBytes: 1000 });
    const body = JSON.stringify({ query: `{ hello }${' '.repeat(2000 - 21)}` });
    expect(Buffer.byteLength(body)).toBe(2000);
    const response = await send(server.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body });
    expect(response.status).toBe(413);
    expect(response.headers['content-type']).toBe(JSON_RESPONSE);
    expect(json(response)).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'The request body is larger than 1000 bytes.' } });
    expect(server.probe.calls).toEqual([]);
  });

  it('refuses a chunked body that grows past maxBodyBytes with 413, without a Content-Length to go by', async () => {
    const server = await start({ maxBodyBytes: 1000 });
    const response = await postChunked(server.url, [`{"query":"{ hello }${' '.repeat(600)}`, ' '.repeat(600), '"}'], 0);
    expect(response.status).toBe(413);
    expect(JSON.parse(response.text)).toEqual({ error: { code: 'PAYLOAD_TOO_LARGE', message: 'The request body is larger than 1000 bytes.' } });
    expect(server.probe.calls).toEqual([]);
  });

  it('accepts a body of exactly maxBodyBytes', async () => {
    const server = await start({ maxBodyBytes: 1000 });
    const body = JSON.stringify({ query: `{ hello }${' '.repeat(1000 - 21)}` });
    expect(Buffer.byteLength(body)).toBe(1000);
    const response = await send(server.url, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json' }, body });
    expect(response.status).toBe(200);
    expect(json(response)).toEqual({ data: { hello: 'Hello, world!' }, extensions: FREE });
  });
});

describe('production mode', () => {
  let server: StartedServer;
  const entries: Array<{ level: string; message: string; requestId?: string; error?: unknown }> = [];

  beforeAll(async () => {
    server = await startServer({ production: true, log: (entry) => entries.push(entry) });
  });

  afterAll(async () => {
    await server.close();
  });

  it('masks an unexpected resolver error and logs the original with the same requestId', async () => {
    const response = await postJson(server.url, { query: '{ fail hello }' });
    expect(response.status).toBe(200);
    expect(response.text).not.toContain('password');
    const body = json(response) as { errors: Array<{ extensions: { requestId: string } }> };
    const requestId = body.errors[0]?.extensions.requestId;
    // The request's own id (a per-process prefix and a counter), as its request line would carry.
    expect(requestId).toMatch(/^[0-9a-f]{12}-[0-9a-z]+$/);
    expect(body).toEqual({
      data: { fail: null, hello: 'Hello, world!' },
      errors: [
        {
          message: 'Unexpected error.',
          locations: [{ line: 1, column: 3 }],
          path: ['fail'],
          extensions: { code: 'INTERNAL_SERVER_ERROR', requestId },
        },
      ],
      extensions: FREE,
    });

    const logged = entries.filter((entry) => entry.requestId === requestId);
    expect(logged).toHaveLength(1);
    expect(logged[0]?.level).toBe('error');
    const error = logged[0]?.error;
    const original = error instanceof GraphQLError ? error.originalError : error;
    expect(original).toBe(server.probe.thrown);
    expect((original as Error).message).toBe('db password leaked');
  });

  it('gives each masked error its own requestId', async () => {
    const first = json(await postJson(server.url, { query: '{ fail }' })) as { errors: Array<{ extensions: { requestId: string } }> };
    const second = json(await postJson(server.url, { query: '{ fail }' })) as { errors: Array<{ extensions: { requestId: string } }> };
    expect(first.errors[0]?.extensions.requestId).not.toBe(second.errors[0]?.extensions.requestId);
  });

  it('does not mask a GraphQLError with a code of its own', async () => {
    const response = await postJson(server.url, { query: '{ forbidden }' });
    expect(json(response)).toEqual({
      data: { forbidden: null },
      errors: [{ message: 'You may not read this field.', locations: [{ line: 1, column: 3 }], path: ['forbidden'], extensions: { code: 'FORBIDDEN' } }],
      extensions: FREE,
    });
  });

  it('refuses introspection with GRAPHQL_VALIDATION_FAILED', async () => {
    const response = await postJson(server.url, { query: '{ __schema { types { name } } }' }, 'application/graphql-response+json');
    expect(response.status).toBe(400);
    expect(json(response)).toEqual({
      errors: [
        {
          message: 'GraphQL introspection has been disabled, but the requested query contained the field "__schema".',
          locations: [{ line: 1, column: 3 }],
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        },
        {
          message: 'GraphQL introspection has been disabled, but the requested query contained the field "types".',
          locations: [{ line: 1, column: 14 }],
          extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
        },
      ],
    });
  });

  it('still answers __typename', async () => {
    const response = await postJson(server.url, { query: '{ __typename }' });
    expect(json(response)).toEqual({ data: { __typename: 'Query' }, extensions: FREE });
  });

  it('gives no "Did you mean" suggestions in validation messages', async () => {
    const response = await postJson(server.url, { query: '{ helo }' });
    expect(json(response)).toEqual({
      errors: [{ message: 'Cannot query field "helo" on type "Query".', locations: [{ line: 1, column: 3 }], extensions: { code: 'GRAPHQL_VALIDATION_FAILED' } }],
    });
  });

  it('serves introspection when introspection is switched on explicitly', async () => {
    const open = await startServer({ production: true, introspection: true, log: () => undefined });
    try {
      const response = await postJson(open.url, { query: '{ __schema { queryType { name } } }' });
      expect(json(response)).toEqual({ data: { __schema: { queryType: { name: 'Query' } } }, extensions: { cost: { requested: 0, actual: 0, limit: 1000 } } });
    } finally {
      await open.close();
    }
  });
});

describe('suggestions outside production mode', () => {
  it('keeps "Did you mean" in validation messages', async () => {
    const server = await startServer({ production: false });
    try {
      const response = await postJson(server.url, { query: '{ helo }' });
      expect(json(response)).toEqual({
        errors: [
          {
            message: 'Cannot query field "helo" on type "Query". Did you mean "hello"?',
            locations: [{ line: 1, column: 3 }],
            extensions: { code: 'GRAPHQL_VALIDATION_FAILED' },
          },
        ],
      });
    } finally {
      await server.close();
    }
  });
});

describe('graceful shutdown', () => {
  it('lets a request in flight finish with 200 while refusing new connections', async () => {
    const server = await startServer();
    try {
      const started = server.probe.nextWait();
      const inFlight = postJson(server.url, { query: '{ wait(ms: 300) }' });
      const signal = await started;
      const stopped = server.server.shutdown();

      const refused = await tryConnect(server.port);
      expect(refused?.code).toBe('ECONNREFUSED');

      const response = await inFlight;
      expect(response.status).toBe(200);
      expect(json(response)).toEqual({ data: { wait: 'waited 300 ms' }, extensions: FREE });
      expect(signal.aborted).toBe(false);
      await stopped;
      expect(server.server.listening).toBe(false);
    } finally {
      await server.close();
    }
  });

  it('resolves at once when nothing is in flight, even with an idle keep-alive connection open', async () => {
    const server = await startServer();
    const agent = new http.Agent({ keepAlive: true });
    try {
      const response = await new Promise<number>((resolve, reject) => {
        const request = http.request(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, agent });
        request.on('response', (res) => {
          res.resume();
          res.on('end', () => resolve(res.statusCode ?? 0));
        });
        request.on('error', reject);
        request.end(JSON.stringify({ query: '{ hello }' }));
      });
      expect(response).toBe(200);
      const begin = performance.now();
      await server.server.shutdown();
      expect(performance.now() - begin).toBeLessThan(1000);
    } finally {
      agent.destroy();
      await server.close();
    }
  });

  it('closes a keep-alive connection as soon as its request in flight has been answered', async () => {
    const server = await startServer({ shutdownGraceMs: 5000 });
    const agent = new http.Agent({ keepAlive: true });
    try {
      const started = server.probe.nextWait();
      const inFlight = new Promise<{ status: number; connection: string | undefined; body: string }>((resolve, reject) => {
        const request = http.request(server.url, { method: 'POST', headers: { 'content-type': 'application/json' }, agent });
        request.on('response', (res) => {
          let body = '';
          res.setEncoding('utf8');
          res.on('data', (chunk: string) => (body += chunk));
          res.on('end', () => resolve({ status: res.statusCode ?? 0, connection: res.headers.connection, body }));
        });
        request.on('error', reject);
        request.end(JSON.stringify({ query: '{ wait(ms: 200) }' }));
      });
      await started;
      const begin = performance.now();
      await server.server.shutdown();
      // Well before the grace period (5 s) and the keep-alive timeout (5 s).
      expect(performance.now() - begin).toBeLessThan(1500);
      const response = await inFlight;
      expect(response.status).toBe(200);
      expect(response.connection).toBe('close');
      expect(JSON.parse(response.body)).toEqual({ data: { wait: 'waited 200 ms' }, extensions: FREE });
    } finally {
      agent.destroy();
      await server.close();
    }
  });

  it('closes a request still in flight when the grace period ends, aborting its signal', async () => {
    const server = await startServer({ shutdownGraceMs: 100 });
    try {
      const started = server.probe.nextWait();
      const inFlight = postJson(server.url, { query: '{ wait(ms: 5000) }' }).then(
        (response) => response,
        (error: unknown) => error,
      );
      const signal = await started;
      const begin = performance.now();
      await server.server.shutdown();
      expect(performance.now() - begin).toBeLessThan(1000);
      await aborted(signal, 1000);
      const outcome = await inFlight;
      expect(outcome).toBeInstanceOf(Error);
      expect((outcome as NodeJS.ErrnoException).code).toBe('ECONNRESET');
    } finally {
      await server.close();
    }
  });
});
