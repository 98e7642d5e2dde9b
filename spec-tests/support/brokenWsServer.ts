/**
 * graphql-transport-ws servers each wrong in exactly one way, for the conformance kit's tests:
 * every WebSocket check must fail against the variant made to break its rule.
 *
 * A variant is a proxy in front of a conforming server (createServer): each socket it accepts
 * gets its own upstream socket, and every message and close passes through the variant's hooks,
 * which forward it, drop it, replace it or close the socket. What the hooks leave alone behaves
 * exactly as the conforming server does, so the variant differs from it in the one way it names.
 */
import http from 'node:http';
import { WebSocket, WebSocketServer } from 'ws';
import type { RawData } from 'ws';
import { KEY_PARAMS, startOurs, startOursWithKeys } from './conformanceServers.ts';
import type { Started } from './conformanceServers.ts';
import { closeNow, listenOnLoopback } from './httpServer.ts';

type Message = { type?: string; id?: string; payload?: unknown } | string;

/** What a hook does with a message: pass it on, or something else. */
export type Action = 'forward' | 'drop' | { replace: Message[] } | { close: [code: number, reason: string] };

/** What a proxied socket knows, for the hooks that depend on the conversation so far. */
export interface Conversation {
  initialised: boolean;
  acknowledged: boolean;
  /** Ids the server has ended with complete or error. */
  readonly ended: Set<string>;
}

export interface WsFault {
  /** The subprotocol to select from those offered (default graphql-transport-ws, or none). */
  selectProtocol?(offered: Set<string>): string | false;
  fromClient?(message: Message, conversation: Conversation): Action;
  fromServer?(message: Message, conversation: Conversation): Action;
  /** The close the client sees when the server closes (default the same); 'keep-open' hides it. */
  onServerClose?(code: number, reason: string): [number, string] | 'keep-open';
}

function text(data: RawData): string {
  return Array.isArray(data) ? Buffer.concat(data).toString('utf8') : Buffer.from(data as ArrayBuffer).toString('utf8');
}

function parse(raw: string): Message {
  try {
    const value: unknown = JSON.parse(raw);
    return typeof value === 'object' && value !== null && !Array.isArray(value) ? (value as Message) : raw;
  } catch {
    return raw;
  }
}

function serialize(message: Message): string {
  return typeof message === 'string' ? message : JSON.stringify(message);
}

/** Applies a hook's action to one message going to `to`; the close goes to `client`. */
function apply(action: Action, message: Message, to: WebSocket, client: WebSocket): void {
  if (action === 'drop') return;
  if (action === 'forward') return void to.send(serialize(message));
  if ('replace' in action) for (const each of action.replace) to.send(serialize(each));
  else client.close(...action.close);
}

/** Keeps what the conversation depends on up to date. */
function observe(message: Message, from: 'client' | 'server', conversation: Conversation): void {
  if (typeof message === 'string') return;
  if (from === 'client' && message.type === 'connection_init') conversation.initialised = true;
  if (from === 'server' && message.type === 'connection_ack') conversation.acknowledged = true;
  if (from === 'server' && (message.type === 'complete' || message.type === 'error') && message.id !== undefined) conversation.ended.add(message.id);
  if (from === 'client' && message.type === 'subscribe' && message.id !== undefined) conversation.ended.delete(message.id);
}

/** Proxies one accepted socket to the upstream server through the fault's hooks. */
function proxy(client: WebSocket, upstreamUrl: string, fault: WsFault): void {
  const upstream = new WebSocket(upstreamUrl, 'graphql-transport-ws');
  const conversation: Conversation = { initialised: false, acknowledged: false, ended: new Set() };
  const pending: string[] = [];
  upstream.on('open', () => pending.splice(0).forEach((raw) => upstream.send(raw)));
  client.on('message', (data) => {
    const message = parse(text(data));
    const action = fault.fromClient?.(message, conversation) ?? 'forward';
    observe(message, 'client', conversation);
    if (action === 'forward' && upstream.readyState !== WebSocket.OPEN) pending.push(serialize(message));
    else apply(action, message, upstream, client);
  });
  upstream.on('message', (data) => {
    const message = parse(text(data));
    observe(message, 'server', conversation);
    apply(fault.fromServer?.(message, conversation) ?? 'forward', message, client, client);
  });
  upstream.on('close', (code, reason) => {
    const close = fault.onServerClose?.(code, reason.toString('utf8')) ?? [code, reason.toString('utf8')];
    if (close === 'keep-open' || client.readyState !== WebSocket.OPEN) return;
    // 1005 and 1006 say no close frame came: they cannot be sent, so the client gets a plain close.
    if (close[0] === 1005 || close[0] === 1006) client.close();
    else client.close(...close);
  });
  client.on('close', () => upstream.close());
  upstream.on('error', () => client.terminate());
  client.on('error', () => upstream.terminate());
}

/** Starts the variant `fault` in front of a conforming server of its own (authenticating, if asked). */
export async function startBrokenWsServer(fault: WsFault, upstreamAuthenticates = false): Promise<Started> {
  const upstream = await (upstreamAuthenticates ? startOursWithKeys() : startOurs());
  const server = http.createServer((_request, response) => response.writeHead(404).end());
  const wss = new WebSocketServer({
    server,
    path: '/graphql',
    handleProtocols: (offered) => (fault.selectProtocol ?? ((protocols) => (protocols.has('graphql-transport-ws') ? 'graphql-transport-ws' : false)))(offered),
  });
  wss.on('connection', (client) => {
    // No conforming subprotocol selected: the conforming answer is 4406 at once.
    if (client.protocol !== 'graphql-transport-ws' && fault.selectProtocol === undefined) return void client.close(4406, 'Subprotocol not acceptable');
    proxy(client, upstream.wsUrl, fault);
  });
  const port = await listenOnLoopback(server);
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    wsUrl: `ws://127.0.0.1:${port}/graphql`,
    // An upgraded socket is no longer the HTTP server's to end, and its close() waits for it: ws
    // holds each one as a client (it takes a socket as a client in the same turn it upgrades it).
    close: async () => {
      wss.clients.forEach((client) => client.terminate());
      await closeNow(server);
      await upstream.close();
    },
  };
}

const isType = (message: Message, type: string): message is Exclude<Message, string> => typeof message === 'object' && message.type === type;

/** A variant: what it gets wrong, how, and (for the 4403 check) the credentials its server takes. */
export interface BrokenWs {
  wrong: string;
  fault: WsFault;
  /** The connectionParams the upstream server requires; it authenticates only when given. */
  connectionParams?: Record<string, unknown>;
}

/** For each WebSocket check id, the variant that breaks exactly its rule. */
export const BROKEN_WS: Record<string, BrokenWs> = {
  'ws.handshake.selects-subprotocol': { wrong: 'selects no subprotocol', fault: { selectProtocol: () => false } },
  'ws.handshake.unsupported-subprotocol': { wrong: 'accepts any subprotocol and speaks graphql-transport-ws on it', fault: { selectProtocol: (offered) => [...offered][0] ?? false } },
  'ws.init.ack': { wrong: 'acknowledges with a payload that is a list', fault: { fromServer: (m) => (isType(m, 'connection_ack') ? { replace: [{ type: 'connection_ack', payload: ['welcome'] }] } : 'forward') } },
  'ws.init.timeout-4408': { wrong: 'never closes a socket that sends no connection_init', fault: { onServerClose: (code, reason) => (code === 4408 ? 'keep-open' : [code, reason]) } },
  'ws.init.duplicate-4429': { wrong: 'ignores a second connection_init', fault: { fromClient: (m, c) => (isType(m, 'connection_init') && c.initialised ? 'drop' : 'forward') } },
  'ws.init.forbidden-4403': { wrong: 'closes with 4400 instead of 4403 when the credentials are refused', fault: { onServerClose: (code, reason) => (code === 4403 ? [4400, reason] : [code, reason]) }, connectionParams: KEY_PARAMS },
  'ws.subscribe.before-ack-4401': { wrong: 'closes with 4400 instead of 4401 on a subscribe before connection_init', fault: { onServerClose: (code, reason) => (code === 4401 ? [4400, reason] : [code, reason]) } },
  'ws.subscribe.duplicate-id-4409': { wrong: 'closes with 4400 instead of 4409 on a duplicate id', fault: { onServerClose: (code, reason) => (code === 4409 ? [4400, reason] : [code, reason]) } },
  'ws.ping.pong': { wrong: 'never answers a ping without a payload', fault: { fromClient: (m) => (isType(m, 'ping') && m.payload === undefined ? 'drop' : 'forward') } },
  'ws.ping.pong-echoes-payload': { wrong: 'answers pong without the payload', fault: { fromServer: (m) => (isType(m, 'pong') ? { replace: [{ type: 'pong' }] } : 'forward') } },
  'ws.ping.before-init': { wrong: 'ignores a ping before connection_init', fault: { fromClient: (m, c) => (isType(m, 'ping') && !c.initialised ? 'drop' : 'forward') } },
  'ws.pong.unsolicited-ignored': { wrong: 'closes with 4400 on an unsolicited pong', fault: { fromClient: (m) => (isType(m, 'pong') ? { close: [4400, 'Unexpected pong'] } : 'forward') } },
  'ws.invalid.not-json-4400': { wrong: 'ignores a message that is not JSON', fault: { fromClient: (m) => (typeof m === 'string' ? 'drop' : 'forward') } },
  'ws.invalid.unknown-type-4400': { wrong: 'ignores a message of an unknown type', fault: { fromClient: (m) => (typeof m === 'object' && m.type === 'glassbox_unknown' ? 'drop' : 'forward') } },
  'ws.invalid.subscribe-without-id-4400': { wrong: 'ignores a subscribe without an id', fault: { fromClient: (m) => (isType(m, 'subscribe') && m.id === undefined ? 'drop' : 'forward') } },
  'ws.query.next-then-complete': { wrong: 'never sends complete', fault: { fromServer: (m) => (isType(m, 'complete') ? 'drop' : 'forward') } },
  'ws.next.execution-result': { wrong: 'wraps next payloads in { result }', fault: { fromServer: (m) => (isType(m, 'next') ? { replace: [{ ...m, payload: { result: m.payload } }] } : 'forward') } },
  'ws.error.invalid-operation': { wrong: 'answers a request error with next { errors } and complete', fault: { fromServer: (m) => (isType(m, 'error') ? { replace: [{ id: m.id, type: 'next', payload: { errors: m.payload } }, { id: m.id, type: 'complete' }] } : 'forward') } },
  'ws.error.no-complete-after-error': { wrong: 'sends complete after error', fault: { fromServer: (m) => (isType(m, 'error') ? { replace: [m, { id: m.id, type: 'complete' }] } : 'forward') } },
  'ws.complete.completed-id-ignored': { wrong: 'closes with 4400 on complete for an ended operation', fault: { fromClient: (m, c) => (isType(m, 'complete') && m.id !== undefined && c.ended.has(m.id) ? { close: [4400, 'Unknown operation'] } : 'forward') } },
  'ws.complete.client-stops-events': { wrong: 'ignores complete from the client', fault: { fromClient: (m) => (isType(m, 'complete') ? 'drop' : 'forward') } },
};
