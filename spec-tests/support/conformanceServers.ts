/**
 * The servers the conformance kit's own tests run its checks against: createServer over a small
 * schema with a query and a subscription that ticks on its own (what the kit's `query` and
 * `subscription` options ask for), and graphql-ws's own `useServer` over the same schema.
 * Everything listens on 127.0.0.1, port 0.
 */
import http from 'node:http';
import { execute, subscribe, validate } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { apiKeyAuth, createServer, hashApiKey } from '../../src/index.ts';
import type { ServerOptions } from '../../src/index.ts';
import { conformanceSchema } from './conformanceSchema.ts';
import { closeNow, listenOnLoopback } from './httpServer.ts';

export { FINITE_SUBSCRIPTION, QUERY, SUBSCRIPTION, conformanceSchema } from './conformanceSchema.ts';

/** A server on loopback, and how to stop it (every socket dropped). */
export interface Started {
  /** `http://127.0.0.1:<port>/graphql` */
  readonly url: string;
  /** `ws://127.0.0.1:<port>/graphql` */
  readonly wsUrl: string;
  close(): Promise<void>;
}

/** Tracks every socket of an http server, upgraded ones included, so close() can drop them. */
async function listen(server: http.Server): Promise<Started> {
  const sockets = new Set<import('node:net').Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    wsUrl: `ws://127.0.0.1:${port}/graphql`,
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await closeNow(server);
    },
  };
}

/** Ours: createServer over the conformance schema; the ConnectionInit wait is short, for the 4408 check. */
export function startOurs(options: Partial<ServerOptions> = {}): Promise<Started> {
  return listen(createServer({ schema: conformanceSchema(), reportCost: false, websocket: { connectionInitWaitTimeoutMs: 300 }, ...options }));
}

/** The API key the authenticating server accepts, and the connectionParams that carry it. */
const API_KEY = 'sk_live_conformance_2c4e6a8b0d1f3579';
export const KEY_PARAMS = { 'x-api-key': API_KEY };

/** Ours requiring an API key: in connection_init's payload over WebSocket, for the 4403 check. */
export function startOursWithKeys(): Promise<Started> {
  return startOurs({ authenticate: [apiKeyAuth({ keys: [{ id: 'conformance', hash: hashApiKey(API_KEY), roles: [] }] })], requireAuthentication: true });
}

/** graphql-ws's reference server, `useServer` on a `ws` server, over the same schema. */
export async function startGraphqlWs(): Promise<Started> {
  const server = http.createServer((_request, response) => response.writeHead(404).end());
  const wss = new WebSocketServer({ server, path: '/graphql' });
  // graphql-ws is loaded outside vitest's module graph, with a graphql of its own: the functions
  // that take the schema are handed over, so that the schema meets the graphql it was made with.
  const disposable = useServer({ schema: conformanceSchema({ incremental: false }), execute, subscribe, validate, connectionInitWaitTimeout: 300 }, wss);
  const started = await listen(server);
  return {
    ...started,
    close: async () => {
      await disposable.dispose();
      await started.close();
    },
  };
}
