/**
 * Errors seen where they happen (issue 25): an unexpected resolver error is logged with its
 * stack and request id outside production as in production; `graphql_errors_total` counts the
 * codes of errors where they are made, over HTTP, WebSocket, Server-Sent Events and resource
 * routes alike.
 */
import { GraphQLError } from 'graphql';
import { afterEach, describe, expect, it } from 'vitest';
import { createPubSub, createServer, makeSchema } from '../src/index.ts';
import type { GraphQLServer, ServerOptions } from '../src/index.ts';
import { realtimeSchema, RawClient, openEventStream, FEED_FAILURE } from './support/realtime.ts';

const cleanups: Array<() => Promise<unknown> | unknown> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const TYPE_DEFS = /* GraphQL */ `
  type Query {
    hello: String
    boom: String
    meant: String
  }
`;

function failingSchema() {
  return makeSchema({
    typeDefs: TYPE_DEFS,
    resolvers: {
      Query: {
        hello: () => 'Hello!',
        boom: () => {
          throw new TypeError('kaboom');
        },
        meant: () => {
          throw new GraphQLError('No tea here.', { extensions: { code: 'TEAPOT' } });
        },
      },
    },
  });
}

interface Started {
  readonly server: GraphQLServer;
  readonly origin: string;
  readonly lines: string[];
}

async function serve(options: Partial<ServerOptions>): Promise<Started> {
  const lines: string[] = [];
  const server = createServer({ schema: failingSchema(), reportCost: false, logger: (line) => lines.push(line), ...options } as ServerOptions);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())), () => server.closeAllConnections());
  // The server's ready line (transports/http/listening.ts) comes first: the tests read the lines after it.
  expect(lines.map((line) => (JSON.parse(line) as { msg: string }).msg)).toEqual([`graphql-glassbox listening on http://127.0.0.1:${address.port}/graphql`]);
  lines.length = 0;
  return { server, origin: `http://127.0.0.1:${address.port}`, lines };
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}): Promise<{ status: number; json: any }> {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: response.status, json: await response.json() };
}

async function errorSamples(origin: string): Promise<string[]> {
  const text = await (await fetch(`${origin}/metrics`)).text();
  return text.split('\n').filter((line) => line.startsWith('graphql_errors_total{'));
}

/** A log line with its time and stack made comparable. */
function comparable(line: string): Record<string, unknown> {
  const parsed = JSON.parse(line);
  expect(parsed.time).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
  parsed.time = '<time>';
  if (parsed.err?.stack !== undefined) {
    expect(parsed.err.stack).toMatch(/^TypeError: kaboom\n    at /);
    expect(parsed.err.stack).toContain('errors-at-source.test.ts');
    parsed.err.stack = '<stack>';
  }
  return parsed;
}

describe('an unexpected resolver error', () => {
  for (const production of [false, true]) {
    it(`is logged with its stack and request id ${production ? 'in' : 'outside'} production; a GraphQLError the resolver meant is not`, async () => {
      const started = await serve({ production });
      const answer = await post(`${started.origin}/graphql`, { query: '{ boom meant hello }' }, { 'x-request-id': 'req-25' });
      expect(answer.json.data).toEqual({ boom: null, meant: null, hello: 'Hello!' });
      expect(answer.json.errors.map((error: any) => [error.message, error.extensions])).toEqual([
        production ? ['Unexpected error.', { code: 'INTERNAL_SERVER_ERROR', requestId: 'req-25' }] : ['kaboom', { code: 'INTERNAL_SERVER_ERROR' }],
        ['No tea here.', { code: 'TEAPOT' }],
      ]);
      expect(started.lines.map(comparable)).toEqual([
        { time: '<time>', level: 'error', msg: 'Unexpected error in a resolver: kaboom', requestId: 'req-25', err: { message: 'kaboom', stack: '<stack>' } },
      ]);
    });
  }
});

describe('graphql_errors_total', () => {
  it('counts errors where they are made over HTTP: results, batches, refusals before any operation', async () => {
    const started = await serve({});
    const url = `${started.origin}/graphql`;
    await post(url, { query: '{ boom meant }' });
    await post(url, [{ query: '{ meant }' }, { query: '{ nope }' }]);
    await post(url, { query: '{ hello' });
    await post(url, []);
    await fetch(url, { method: 'PUT' });
    expect(await errorSamples(started.origin)).toEqual([
      'graphql_errors_total{code="INTERNAL_SERVER_ERROR"} 1',
      'graphql_errors_total{code="TEAPOT"} 2',
      'graphql_errors_total{code="GRAPHQL_VALIDATION_FAILED"} 1',
      'graphql_errors_total{code="GRAPHQL_PARSE_FAILED"} 1',
      'graphql_errors_total{code="BAD_REQUEST"} 1',
      'graphql_errors_total{code="METHOD_NOT_ALLOWED"} 1',
    ]);
  });

  it('counts resource routes by the errors their operations returned, once', async () => {
    const started = await serve({ resources: { version: 'v1', routes: { 'GET /booms': 'query Boom { boom }', 'GET /teapots': 'query Meant { meant }' } } });
    expect((await fetch(`${started.origin}/api/v1/booms`)).status).toBe(500);
    expect((await fetch(`${started.origin}/api/v1/teapots`)).status).toBe(500);
    expect((await fetch(`${started.origin}/api/v1/nothing`)).status).toBe(404);
    expect(await errorSamples(started.origin)).toEqual([
      'graphql_errors_total{code="INTERNAL_SERVER_ERROR"} 1',
      'graphql_errors_total{code="TEAPOT"} 1',
      'graphql_errors_total{code="NOT_FOUND"} 1',
    ]);
  });

  it('counts WebSocket and Server-Sent Events errors: refusals, results, a failing stream', async () => {
    const started = await serve({ schema: realtimeSchema(createPubSub()) });
    const client = await RawClient.open(started.origin.replace('http', 'ws') + '/graphql');
    cleanups.push(() => client.terminate());
    await client.init();
    client.send({ id: '1', type: 'subscribe', payload: { query: '{ nope }' } });
    expect((await client.next()).type).toBe('error');
    client.send({ id: '2', type: 'subscribe', payload: { query: 'subscription { failing }' } });
    expect(await client.next()).toMatchObject({ id: '2', type: 'next', payload: { data: { failing: 1 } } });
    expect(await client.next()).toMatchObject({ id: '2', type: 'error', payload: [{ message: FEED_FAILURE, extensions: { code: 'INTERNAL_SERVER_ERROR' } }] });

    const stream = await openEventStream(`${started.origin}/graphql`, { query: 'subscription { failing }' });
    cleanups.push(() => stream.abort());
    const events: string[] = [];
    for (let item = await stream.reader.next(); item !== null; item = await stream.reader.next()) if ('event' in item) events.push(item.event);
    expect(events).toEqual(['next', 'next', 'complete']);
    expect(await errorSamples(started.origin)).toEqual([
      'graphql_errors_total{code="GRAPHQL_VALIDATION_FAILED"} 1',
      'graphql_errors_total{code="INTERNAL_SERVER_ERROR"} 2',
    ]);
  });
});
