/**
 * The peer: graphql-ws's own server, `useServer` on a `ws` WebSocketServer, executing with
 * graphql-js's `subscribe` and `execute`, at graphql-ws's defaults (pings every 12 s, no
 * compression, which is also `ws`'s default for servers). It serves the same schema and event
 * source as our server (see ours.ts, where they are defined) on a plain node:http server's
 * port and path, and is driven through the same control channel.
 */
import '../../production-mode.ts';
import { execute, subscribe } from 'graphql';
import { useServer } from 'graphql-ws/use/ws';
import http from 'node:http';
import { WebSocketServer } from 'ws';
import { createPubSub } from '../../../src/events/pubsub.ts';
import { listen } from '../../http/servers/serve.ts';
import { GRAPHQL_PATH, createTickSchema, serveControl } from './ours.ts';

const pubsub = createPubSub();
const server = http.createServer((_req, res) => {
  res.writeHead(404).end();
});
const wss = new WebSocketServer({ server, path: GRAPHQL_PATH });
useServer({ schema: createTickSchema(pubsub), execute, subscribe }, wss);
await listen(server);
serveControl(server, pubsub);
