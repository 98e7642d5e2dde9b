/**
 * The subscription benchmark's workload, which both servers serve and the clients check, and,
 * when this file is the script run, our server.
 *
 * What both servers share is kept here, so that only the transport and the executor differ
 * between them: the schema (graphql-js `buildSchema`, resolvers attached by hand as in
 * bench/schema.ts), the event source (our in-memory `createPubSub`, which to graphql-js is just
 * an async iterable), the events, and the control channel through which the runner drives
 * either server process. graphql-ws.ts imports them from here; our server itself, and with it
 * `src/index.ts`, is loaded only when this file is the main script, so the peer's process never
 * holds our server's code.
 *
 * Control channel (like bench/http/servers/serve.ts): the server prints its port on stdout,
 * then answers each JSON line on stdin with one JSON line carrying the same `id`:
 *   {"cmd":"cpu"}        the CPU time this process has used ({ user, system }, µs)
 *   {"cmd":"memory"}     process.memoryUsage() after two full collections (needs --expose-gc)
 *   {"cmd":"publish","tick":{"id":…,"label":…}}
 *                        stamps the tick with the shared monotonic clock and publishes it to the
 *                        topic; answers its `at` and how many subscribers it was offered to
 * and exits when stdin closes (through process.exit, so that --cpu-prof writes its profile).
 */
import '../../production-mode.ts';
import { buildSchema } from 'graphql';
import type { GraphQLFieldResolver, GraphQLSchema } from 'graphql';
import { realpathSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { createPubSub } from '../../../src/events/pubsub.ts';
import type { PubSub } from '../../../src/events/pubsub.ts';
import { GRAPHQL_PATH } from '../../http/scenarios.ts';
import { listen } from '../../http/servers/serve.ts';

export { GRAPHQL_PATH };

/** The WebSocket subprotocol both servers speak (graphql-ws's PROTOCOL.md). */
export const SUBPROTOCOL = 'graphql-transport-ws';

export const TYPE_DEFS = /* GraphQL */ `
  type Query {
    hello: String
  }

  type Subscription {
    ticked(topic: String!): Tick!
  }

  type Tick {
    id: ID!
    at: Float!
    label: String!
  }
`;

/** The topic every subscriber listens to and every event is published to. */
export const TOPIC = 'ticks';

/** What every client subscribes with. */
export const SUBSCRIPTION_QUERY = 'subscription Ticks($topic: String!) { ticked(topic: $topic) { id at label } }';
export const SUBSCRIPTION_VARIABLES = { topic: TOPIC } as const;

/** An event: the runner chooses `id` and `label`, the server stamps `at` as it publishes. */
export interface Tick {
  id: string;
  /** When it was published: `monotonicMs()` in the server process. */
  at: number;
  label: string;
}

/**
 * Untimed events (they make sure every subscription is live, and warm the servers up) and
 * timed ones, numbered from 1 in each kind. Their `id`s tell them apart.
 */
export type TickKind = 'warm-up' | 'event';

export function tickFor(kind: TickKind, sequence: number): Omit<Tick, 'at'> {
  return { id: `${kind === 'warm-up' ? 'w' : 'e'}${sequence}`, label: `${kind} ${sequence}` };
}

/**
 * Milliseconds on CLOCK_MONOTONIC, which every process on the machine reads alike: the
 * server stamps events with it and the clients subtract it from their own reading. (Unlike
 * `performance.timeOrigin + performance.now()`, which pins the wall clock once per process and
 * so differs between processes by however much NTP slewed the wall clock in between.)
 */
export function monotonicMs(): number {
  return Number(process.hrtime.bigint()) / 1e6;
}

/** The schema, its subscription fed by `pubsub`: each event is the Tick published. */
export function createTickSchema(pubsub: PubSub): GraphQLSchema {
  const schema = buildSchema(TYPE_DEFS);
  const ticked = schema.getSubscriptionType()?.getFields()['ticked'];
  const hello = schema.getQueryType()?.getFields()['hello'];
  if (ticked === undefined || hello === undefined) throw new Error('The benchmark schema lost its fields.');
  const subscribeToTopic: GraphQLFieldResolver<unknown, unknown, { topic: string }> = (_root, { topic }) => pubsub.subscribe<Tick>(topic);
  ticked.subscribe = subscribeToTopic as GraphQLFieldResolver<unknown, unknown>;
  ticked.resolve = (tick: Tick) => tick;
  hello.resolve = () => 'world';
  return schema;
}

/** A command on the control channel. */
export type ControlCommand =
  | { id: number; cmd: 'cpu' }
  | { id: number; cmd: 'memory' }
  | { id: number; cmd: 'publish'; tick: Omit<Tick, 'at'> };

export interface PublishReply {
  at: number;
  /** Subscribers of the topic when it was published: every one of them is offered the event. */
  subscribers: number;
}

export type MemoryReply = NodeJS.MemoryUsage;

/** Prints the port, then answers the runner's commands until stdin closes (see the top of this file). */
export function serveControl(server: Server, pubsub: PubSub): void {
  const { port } = server.address() as AddressInfo;
  process.stdout.write(`${port}\n`);
  const reply = (id: number, body: object) => process.stdout.write(`${JSON.stringify({ id, ...body })}\n`);
  const lines = createInterface({ input: process.stdin });
  lines.on('line', (line) => {
    const command = JSON.parse(line) as ControlCommand;
    switch (command.cmd) {
      case 'cpu':
        reply(command.id, process.cpuUsage());
        return;
      case 'memory': {
        const gc = (globalThis as { gc?: () => void }).gc;
        if (gc === undefined) {
          reply(command.id, { error: 'memory needs node --expose-gc' });
          return;
        }
        gc();
        gc();
        reply(command.id, process.memoryUsage());
        return;
      }
      case 'publish': {
        const tick: Tick = { id: command.tick.id, at: monotonicMs(), label: command.tick.label };
        const subscribers = pubsub.subscriberCount(TOPIC);
        // In memory, publish offers the event to every subscriber before it returns.
        pubsub.publish(TOPIC, tick).catch((error: unknown) => {
          console.error('publish failed:', error);
          process.exit(1);
        });
        reply(command.id, { at: tick.at, subscribers } satisfies PublishReply);
        return;
      }
    }
  });
  lines.on('close', () => {
    server.closeAllConnections();
    server.close();
    process.exit(0);
  });
}

/** Whether this file is the script node was started with (rather than imported by graphql-ws.ts or the runner). */
function isMainScript(): boolean {
  const script = process.argv[1];
  if (script === undefined) return false;
  try {
    return realpathSync(script) === realpathSync(fileURLToPath(import.meta.url));
  } catch {
    return false;
  }
}

if (isMainScript()) {
  // Our server as a user would start it: createServer with its WebSocket transport on its own
  // port and path, at its defaults (maxConnections 20,000, pings every 30 s). The cost report is
  // off, so that each event's payload is the same JSON graphql-ws sends.
  const { createServer } = await import('../../../src/index.ts');
  const pubsub = createPubSub();
  // BENCH_SUB_SHARE=0: every subscription its own source and execution (shareSubscriptions: false).
  const shareSubscriptions = process.env.BENCH_SUB_SHARE !== '0';
  // Log lines (the ready line among them) on stderr: stdout is the control channel.
  const server = createServer({ schema: createTickSchema(pubsub), path: GRAPHQL_PATH, reportCost: false, shareSubscriptions, logger: { fd: 2 } });
  await listen(server);
  serveControl(server, pubsub);
}
