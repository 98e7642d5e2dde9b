/**
 * The Redis pub/sub's connections: at most one publisher and one subscriber (a connection that
 * has subscribed can run no other command), each made when it is first needed, with ioredis
 * imported then too, so a server without Redis never loads it. How each behaves when Redis goes
 * away is described in redisPubSub.ts.
 */
import type { Redis, RedisOptions } from 'ioredis';
import { loadIoredis } from '../redis/loadIoredis.ts';
import type { ReadinessCheck } from '../observability/health.ts';

/** Longest wait between two reconnection attempts. */
export const RECONNECT_CAP_MS = 2000;
/** Reconnection attempts a queued PUBLISH waits through before publish rejects. */
export const PUBLISH_RETRIES = 2;
/**
 * What the pub/sub asks of a connection. The package's types name no ioredis type in a public
 * signature: ioredis is an optional dependency, and the types must compile without it.
 */
export interface PubSubConnection {
  subscribe(channel: string): Promise<unknown>;
  unsubscribe(channel: string): Promise<unknown>;
  publish(channel: string, message: string): Promise<unknown>;
}

/** Longest a publish waits for Redis's reply. */
export const PUBLISH_TIMEOUT_MS = 5000;
const CONNECT_TIMEOUT_MS = 5000;
const DISCONNECT_TIMEOUT_MS = 200;

export type Role = 'publisher' | 'subscriber';

export class RedisConnections {
  /** Ready while every connection made is (for a server's `readinessChecks`); a probe before any was needed makes the publisher's. */
  readonly readiness: ReadinessCheck;
  private readonly url: string;
  /** Called with each message the subscriber connection receives. */
  private readonly receive: (channel: string, message: string) => void;
  private readonly made = new Map<Role, Promise<Redis>>();
  /** The connections once made, for readiness to read their status. */
  private readonly live = new Map<Role, Redis>();
  private closed = false;

  constructor(url: string, receive: (channel: string, message: string) => void) {
    this.url = url;
    this.receive = receive;
    this.readiness = {
      name: 'pub/sub (Redis)',
      ready: () => this.ready(),
      state: () => this.state(),
    };
  }

  /**
   * The connection for role, made on first use. Every command is issued in a `then` of this one
   * promise, and `then` callbacks run in the order they were attached: so commands reach Redis
   * in the order they were asked for, even those asked for while ioredis was still loading.
   */
  get(role: Role): Promise<PubSubConnection> {
    let made = this.made.get(role);
    if (made === undefined) {
      made = loadIoredis('createRedisPubSub').then(({ Redis }) => {
        const redis = new Redis(this.url, connectionOptions(role));
        // Without a listener ioredis prints every failed reconnection attempt to the console.
        redis.on('error', ignore);
        if (role === 'subscriber') redis.on('message', this.receive);
        this.live.set(role, redis);
        return redis;
      });
      this.made.set(role, made);
    }
    return made;
  }

  /** Closes every connection made (see disconnect). */
  async close(): Promise<void> {
    this.closed = true;
    await Promise.all([...this.made].map(([role, made]) => made.then((redis) => disconnect(redis, role), ignore)));
  }

  private ready(): boolean {
    if (this.live.size === 0) {
      if (!this.closed) this.get('publisher').catch(ignore);
      return false;
    }
    for (const redis of this.live.values()) if (redis.status !== 'ready') return false;
    return true;
  }

  private state(): string {
    if (this.live.size === 0) return 'not connected yet';
    return [...this.live].map(([role, redis]) => `${role} connection ${redis.status}`).join(', ');
  }
}

/** How each connection behaves when Redis goes away (see redisPubSub.ts). */
function connectionOptions(role: Role): RedisOptions {
  return {
    connectionName: `graphql-pubsub-${role}`,
    connectTimeout: CONNECT_TIMEOUT_MS,
    // How long disconnect() lets a socket close politely before destroying it. ioredis arms this
    // timer even for a socket that is already gone (closing while Redis is down), and it keeps
    // the process alive: so it is short.
    disconnectTimeout: DISCONNECT_TIMEOUT_MS,
    // Exponential backoff with a little jitter, so the instances of a cluster do not all
    // reconnect in the same millisecond after Redis restarts.
    retryStrategy: (attempt) => Math.min(100 * 2 ** (attempt - 1), RECONNECT_CAP_MS) + Math.floor(Math.random() * 50),
    ...(role === 'publisher'
      ? { maxRetriesPerRequest: PUBLISH_RETRIES, commandTimeout: PUBLISH_TIMEOUT_MS }
      : { maxRetriesPerRequest: null }),
  };
}

/**
 * The publisher QUITs, so that the publishes still in flight get their replies (it waits at most
 * PUBLISH_TIMEOUT_MS, its command timeout); the subscriber, and a connection that is down, are
 * closed at once.
 */
async function disconnect(redis: Redis, role: Role): Promise<void> {
  if (role === 'publisher' && redis.status === 'ready') await redis.quit().catch(ignore);
  if (redis.status !== 'end') redis.disconnect();
}

export function ignore(): void {}
