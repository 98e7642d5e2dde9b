/**
 * Liveness and readiness: what `GET /healthz` and `GET /readyz` answer, and how the parts of a
 * server that depend on something outside the process (a Redis) say whether they can serve.
 *
 * Liveness says only that the process is serving HTTP: it stays 200 during shutdown, because
 * an orchestrator that restarts a process for being unhealthy must not kill one that is
 * finishing its requests. Readiness says whether new work should be sent here: 503 from the
 * moment shutdown begins, and while a Redis the server was configured with is not connected.
 *
 * A component reports through a ReadinessCheck: a name and a synchronous `ready()` that reads
 * state the component already has (ioredis's `status`), never a round trip, so a probe costs
 * nothing and cannot hang on the dependency it asks about. A connection the component has not
 * made yet (they are made on first use) is started by the first probe, and reported not ready
 * until it is: an instance is ready once its Redis answers, not merely once it is configured.
 */

/** One thing a server depends on, as readiness sees it. */
export interface ReadinessCheck {
  /** What it is, as /readyz names it when it is not ready: `rate limit store (Redis)`. */
  readonly name: string;
  /** Whether it can serve now. Synchronous and cheap: called on every probe. */
  ready(): boolean;
  /** Why it is not ready, in a few words (a connection's state), for /readyz's reasons. */
  state?(): string;
}

/** What readiness needs of an ioredis client. */
interface RedisLike {
  readonly status: string;
}

/**
 * A Redis connection's check: ready while ioredis says `ready`. `client` returns the connection
 * once made (null before); `connect`, when given, starts it when a probe finds none.
 */
export function redisReadiness(name: string, client: () => RedisLike | null, connect?: () => void): ReadinessCheck {
  return {
    name,
    ready() {
      const redis = client();
      if (redis === null) {
        connect?.();
        return false;
      }
      return redis.status === 'ready';
    },
    state() {
      const redis = client();
      return redis === null ? 'not connected yet' : `connection ${redis.status}`;
    },
  };
}

/** A component's check, if it has one (`readiness`, as the Redis stores and pub/sub expose it). */
export function readinessOf(component: unknown): ReadinessCheck | null {
  if (component === null || typeof component !== 'object') return null;
  const readiness = (component as { readiness?: unknown }).readiness;
  return readiness !== null && typeof readiness === 'object' && typeof (readiness as ReadinessCheck).ready === 'function' ? (readiness as ReadinessCheck) : null;
}

export const LIVE_BODY = '{"status":"ok"}';
export const READY_BODY = '{"status":"ready"}';
export const SHUTTING_DOWN = 'shutting down';

/** The server's readiness: shutdown, then every check, in order. */
export class Readiness {
  /** Set when shutdown begins; never unset. */
  shuttingDown = false;
  private readonly checks: ReadonlyArray<ReadinessCheck>;

  constructor(checks: ReadonlyArray<ReadinessCheck>) {
    for (const check of checks) {
      if (check === null || typeof check !== 'object' || typeof check.name !== 'string' || typeof check.ready !== 'function') {
        throw new TypeError(`readinessChecks: each check must be { name: string, ready(): boolean }, got ${String(check)}.`);
      }
    }
    this.checks = checks;
  }

  /** Why the server is not ready (empty: it is). A check that throws is not ready, and never makes the probe fail. */
  reasons(): string[] {
    const reasons: string[] = [];
    if (this.shuttingDown) reasons.push(SHUTTING_DOWN);
    for (const check of this.checks) {
      let ready: boolean;
      let state: string;
      try {
        ready = check.ready() === true;
        state = ready ? '' : (check.state?.() ?? 'not ready');
      } catch (error) {
        ready = false;
        state = `its check failed: ${error instanceof Error ? error.message : String(error)}`;
      }
      if (!ready) reasons.push(`${check.name}: ${state}`);
    }
    return reasons;
  }

  /** The /readyz answer: 200 ready, or 503 with the reasons. */
  answer(): [status: number, body: string] {
    const reasons = this.reasons();
    if (reasons.length === 0) return [200, READY_BODY];
    return [503, JSON.stringify({ status: 'not ready', reasons })];
  }
}
