/**
 * The servers of the published conformance matrix, each started in this process on 127.0.0.1,
 * port 0, over the same schema (spec-tests/support/conformanceSchema.ts), each set up as its own
 * documentation sets it up, with its defaults: createServer; GraphQL Yoga with its defer/stream
 * plugin, and over WebSocket through graphql-ws with Yoga's envelop (Yoga's documented recipe);
 * Mercurius with `subscription: true`; graphql-http's reference handler; graphql-ws's `useServer`;
 * Apollo Server when it is installed. The peers that run graphql-js's own `execute` get the schema
 * without `@defer`/`@stream` declared: they do not deliver incrementally, and graphql 17's
 * `execute` refuses a schema that declares them.
 */
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { execute, subscribe, validate } from 'graphql';
import type { ExecutionArgs } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import { WebSocketServer } from 'ws';
import { createServer } from '../../src/index.ts';
import { conformanceSchema } from '../../spec-tests/support/conformanceSchema.ts';

/** A started peer: its endpoints (absent for a transport it does not serve) and how to stop it. */
export interface RunningPeer {
  httpUrl?: string;
  wsUrl?: string;
  close(): Promise<void>;
}

export interface Peer {
  name: string;
  /** The transports it serves, as its documentation sets it up. */
  serves: { http: boolean; ws: boolean };
  /** Starts the peer, or resolves to why it cannot run here (a package not installed). */
  start(): Promise<RunningPeer | string>;
}

/** Listens on loopback and keeps every socket, so that close() ends upgraded ones too. */
async function listen(server: http.Server, transports: { http: boolean; ws: boolean }, after: () => Promise<void> = async () => undefined): Promise<RunningPeer> {
  const sockets = new Set<Socket>();
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    ...(transports.http ? { httpUrl: `http://127.0.0.1:${port}/graphql` } : {}),
    ...(transports.ws ? { wsUrl: `ws://127.0.0.1:${port}/graphql` } : {}),
    close: async () => {
      await after();
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

const ours: Peer = {
  name: 'graphql-glassbox',
  serves: { http: true, ws: true },
  // Its log lines (the listening line) go to stderr: stdout carries the table.
  start: () => listen(createServer({ schema: conformanceSchema(), logger: process.stderr }), { http: true, ws: true }),
};

const yoga: Peer = {
  name: 'GraphQL Yoga',
  serves: { http: true, ws: true },
  async start() {
    const { createYoga } = await import('graphql-yoga');
    const { useDeferStream } = await import('@graphql-yoga/plugin-defer-stream');
    const server$ = createYoga({ schema: conformanceSchema(), plugins: [useDeferStream()], logging: false, graphiql: false });
    const server = http.createServer(server$);
    const wss = new WebSocketServer({ server, path: '/graphql' });
    // Yoga's recipe for graphql-ws: each operation runs through Yoga's envelop (its parse,
    // validate, context and execute), handed to graphql-ws as the rootValue's functions.
    type Enveloped = { execute: (args: ExecutionArgs) => unknown; subscribe: (args: ExecutionArgs) => unknown };
    const disposable = useServer(
      {
        execute: (args) => (args.rootValue as Enveloped).execute(args) as ReturnType<typeof execute>,
        subscribe: (args) => (args.rootValue as Enveloped).subscribe(args) as ReturnType<typeof subscribe>,
        onSubscribe: async (context, _id, payload) => {
          const enveloped = server$.getEnveloped({ ...context, req: context.extra.request, socket: context.extra.socket, params: payload });
          const args = {
            schema: enveloped.schema,
            operationName: payload.operationName,
            document: enveloped.parse(payload.query),
            variableValues: payload.variables,
            contextValue: await enveloped.contextFactory(),
            rootValue: { execute: enveloped.execute, subscribe: enveloped.subscribe },
          };
          const errors = enveloped.validate(args.schema, args.document);
          return errors.length > 0 ? errors : args;
        },
      },
      wss,
    );
    return listen(server, { http: true, ws: true }, async () => {
      await disposable.dispose();
    });
  },
};

const mercurius: Peer = {
  name: 'Mercurius',
  serves: { http: true, ws: true },
  async start() {
    const fastify = (await import('fastify')).default;
    const plugin = (await import('mercurius')).default;
    const app = fastify({ logger: false });
    await app.register(plugin, { schema: conformanceSchema({ incremental: false }), subscription: true, path: '/graphql', graphiql: false });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const { port } = app.server.address() as AddressInfo;
    return { httpUrl: `http://127.0.0.1:${port}/graphql`, wsUrl: `ws://127.0.0.1:${port}/graphql`, close: () => app.close() };
  },
};

const graphqlHttp: Peer = {
  name: 'graphql-http (reference handler)',
  serves: { http: true, ws: false },
  async start() {
    const { createHandler } = await import('graphql-http/lib/use/http');
    const handler = createHandler({ schema: conformanceSchema({ incremental: false }) });
    const server = http.createServer((request, response) => {
      if ((request.url ?? '/').startsWith('/graphql')) return void handler(request, response);
      response.writeHead(404).end();
    });
    return listen(server, { http: true, ws: false });
  },
};

const graphqlWs: Peer = {
  name: 'graphql-ws useServer',
  serves: { http: false, ws: true },
  async start() {
    const server = http.createServer((_request, response) => response.writeHead(404).end());
    const wss = new WebSocketServer({ server, path: '/graphql' });
    const disposable = useServer({ schema: conformanceSchema({ incremental: false }), execute, subscribe, validate }, wss);
    return listen(server, { http: false, ws: true }, async () => {
      await disposable.dispose();
    });
  },
};

const apollo: Peer = {
  name: 'Apollo Server',
  serves: { http: true, ws: false },
  async start() {
    // Not a dev dependency yet: the matrix measures it when it is installed, and says so when not.
    const specifier = '@apollo/server';
    let module: { ApolloServer: new (options: { schema: unknown }) => { start(): Promise<void>; stop(): Promise<void> } };
    try {
      module = (await import(specifier)) as typeof module;
    } catch {
      return '@apollo/server is not installed';
    }
    const standalone = (await import(`${specifier}/standalone`)) as { startStandaloneServer(server: unknown, options: { listen: { port: number; host: string } }): Promise<{ url: string }> };
    const server = new module.ApolloServer({ schema: conformanceSchema({ incremental: false }) });
    const { url } = await standalone.startStandaloneServer(server, { listen: { port: 0, host: '127.0.0.1' } });
    return { httpUrl: new URL('/graphql', url).href, close: () => server.stop() };
  },
};

/** Every peer, ours first. */
export const PEERS: readonly Peer[] = [ours, yoga, apollo, mercurius, graphqlHttp, graphqlWs];
