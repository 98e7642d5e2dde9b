/**
 * What createServer says about its own socket (transports/http/listening.ts), through its
 * logger: one ready line once it listens, at every level but `silent`; and, when it cannot
 * listen, an error whose code is node's (EADDRINUSE) and whose message says what to do, written
 * by the logger only when the program does not handle the server's 'error' event itself.
 */
import { once } from 'node:events';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { networkInterfaces } from 'node:os';
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, makeSchema } from '../src/index.ts';
import type { GraphQLServer, ServerOptions } from '../src/index.ts';
import { closeNow } from './support/httpServer.ts';

const schema = makeSchema({ typeDefs: 'type Query { hello: String }', resolvers: { Query: { hello: () => 'world' } } });

/** Servers and sockets to close after each test. */
const opened: Array<GraphQLServer | net.Server> = [];
afterEach(async () => {
  for (const server of opened.splice(0)) {
    if (!server.listening) continue;
    if ('shutdown' in server) await closeNow(server);
    else await new Promise((resolve) => server.close(resolve));
  }
});

/** A server whose log lines are collected, parsed. */
function serverWithLines(options: Partial<ServerOptions> = {}) {
  const lines: Array<Record<string, unknown>> = [];
  const server = createServer({ schema, logger: (line) => lines.push(JSON.parse(line) as Record<string, unknown>), ...options });
  opened.push(server);
  return { server, lines };
}

async function listen(server: net.Server, host = '127.0.0.1'): Promise<number> {
  server.listen(0, host);
  await once(server, 'listening');
  return (server.address() as AddressInfo).port;
}

/** A port something else listens on. */
async function heldPort(): Promise<number> {
  const holder = net.createServer();
  opened.push(holder);
  return listen(holder);
}

const IPV6_LOOPBACK = Object.values(networkInterfaces()).some((addresses) => addresses?.some((address) => address.address === '::1'));

const inUse = (port: number) => `Port ${port} on 127.0.0.1 is in use (EADDRINUSE): another process listens there. Stop it, or listen on another port.`;

describe('the ready line', () => {
  it.each(['warn', 'error', 'info'] as const)('is written once the server listens, at logLevel %s, with the URL of the endpoint', async (logLevel) => {
    const { server, lines } = serverWithLines({ logLevel });
    const port = await listen(server);
    expect(lines).toEqual([{ time: expect.stringMatching(/^\d{4}-\d\d-\d\dT/), level: 'info', msg: `graphql-glassbox listening on http://127.0.0.1:${port}/graphql` }]);
  });

  it.skipIf(!IPV6_LOOPBACK)('names the path, and an IPv6 address in brackets', async () => {
    const { server, lines } = serverWithLines({ path: '/api/gql' });
    const port = await listen(server, '::1');
    expect(lines.map((line) => line['msg'])).toEqual([`graphql-glassbox listening on http://[::1]:${port}/api/gql`]);
  });

  it('on every address (listen() without a host), names a URL that works from this machine', async () => {
    const { server, lines } = serverWithLines();
    server.listen(0);
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;
    expect(lines.map((line) => line['msg'])).toEqual([`graphql-glassbox listening on http://localhost:${port}/graphql (every address)`]);
  });

  it('is not written at logLevel silent', async () => {
    const { server, lines } = serverWithLines({ logLevel: 'silent' });
    await listen(server);
    expect(lines).toEqual([]);
  });
});

describe('a port in use', () => {
  it("rejects the program's wait for 'listening' with EADDRINUSE and a message that says what to do; the logger says nothing more", async () => {
    const port = await heldPort();
    const { server, lines } = serverWithLines();
    server.listen(port, '127.0.0.1');
    const error = (await once(server, 'listening').then(
      () => null,
      (failure: unknown) => failure,
    )) as NodeJS.ErrnoException | null;
    expect(error).toBeInstanceOf(Error);
    expect({ code: error?.code, message: error?.message }).toEqual({ code: 'EADDRINUSE', message: inUse(port) });
    expect(lines).toEqual([]);
    expect(server.listening).toBe(false);
  });

  it('given to an error listener of the program, as the same error', async () => {
    const port = await heldPort();
    const { server, lines } = serverWithLines();
    const seen: NodeJS.ErrnoException[] = [];
    server.on('error', (error: NodeJS.ErrnoException) => seen.push(error));
    server.listen(port, '127.0.0.1');
    await expect.poll(() => seen.length).toBe(1);
    expect(seen.map((error) => [error.code, error.message])).toEqual([['EADDRINUSE', inUse(port)]]);
    expect(lines).toEqual([]);
  });

  it('with no listener of its own: one error line through the logger, the exit code 1, the server shut down (not an unhandled error)', async () => {
    const port = await heldPort();
    const { server, lines } = serverWithLines({ logLevel: 'error' });
    const exitCode = process.exitCode;
    try {
      server.listen(port, '127.0.0.1');
      await expect.poll(() => lines.length).toBe(1);
      expect(lines).toEqual([{ time: expect.any(String), level: 'error', msg: inUse(port) }]);
      expect(process.exitCode).toBe(1);
    } finally {
      process.exitCode = exitCode;
    }
  });

  it('with no listener and logLevel silent: no line, the exit code still 1', async () => {
    const port = await heldPort();
    const { server, lines } = serverWithLines({ logLevel: 'silent' });
    const exitCode = process.exitCode;
    try {
      // (Not events.once, which listens for 'error' too.)
      const closed = new Promise((resolve) => server.once('close', resolve));
      server.listen(port, '127.0.0.1');
      await closed;
      expect(lines).toEqual([]);
      expect(process.exitCode).toBe(1);
    } finally {
      process.exitCode = exitCode;
    }
  });
});
