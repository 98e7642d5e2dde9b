/**
 * createWebhooks: signed, retried, durable delivery of events to registered callback URLs.
 *
 *   register / list / remove / rotateSecret / enable      the endpoints (URL checked against SSRF)
 *   publish(type, data)       the event and one delivery per endpoint that wants it, in the
 *                             store before it resolves (at least once, whatever happens next)
 *   the dispatcher            claims due deliveries and POSTs them: signed (signing.ts), 10 s
 *                             per attempt, redirects never followed, at most 1 KB of the answer
 *                             kept; the URL checked again before every attempt and the address
 *                             at every connection (callbackUrl.ts)
 *   deliveries / redeliver    what happened, and sending an event again
 *
 * An attempt's outcome: 2xx, delivered; 410 Gone, the endpoint disabled; anything else (another
 * status, a redirect, a timeout, a refused or reset connection, a name that resolves to a
 * forbidden address) is retried after the next delay of the schedule, with jitter, until the
 * schedule is used up: the delivery failed, and after `disableAfterFailures` failed deliveries
 * in a row the endpoint is disabled. A URL the sending instance's rule refuses (see `deliver`)
 * is not an attempt: nothing is sent, and the endpoint is disabled with the refusal as reason.
 *
 * Each endpoint has at most `concurrencyPerEndpoint` attempts in flight and the whole server
 * `maxConcurrency`: a slow endpoint fills its own places, never the others'.
 */
import http from 'node:http';
import https from 'node:https';
import { randomBytes } from 'node:crypto';
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { describe } from '../jsutils/describe.ts';
import { FORBIDDEN_ADDRESS_CODE, checkCallbackUrl, guardedAgent, validateCallbackUrl } from './callbackUrl.ts';
import { generateSecret, signatureHeader } from './signing.ts';
import type { AttemptOutcome, ClaimedDelivery, Delivery, DeliveryAttempt, WebhookEndpoint, WebhookEvent, WebhookStore } from './store.ts';

/** Standard Webhooks' schedule: the delays (s) before the 2nd, 3rd, ... attempt; the first is immediate. */
export const DEFAULT_RETRY_SCHEDULE = [5, 300, 1800, 7200, 18_000, 36_000, 36_000];

export interface WebhooksOptions {
  store: WebhookStore;
  /** The event types endpoints may ask for (e.g. `review.created`). */
  eventTypes: ReadonlyArray<string>;
  /** Production: callback URLs must be https. */
  production?: boolean;
  /** Hosts exempt from the private-address rule (for receivers on your own network, and tests); checked at registration and at every attempt. */
  allowedHosts?: ReadonlyArray<string>;
  /** The resolver, at registration and at every connection (default dns.lookup); tests give a fake one. */
  lookup?: LookupFunction;
  /** Seconds before each retry (default Standard Webhooks': 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, 10 h). */
  retrySchedule?: ReadonlyArray<number>;
  /** Each delay is multiplied by a random factor in [1 − jitter, 1 + jitter] (default 0.1). */
  jitter?: number;
  /** Time allowed for one attempt, connection to last byte (default 10,000 ms). */
  attemptTimeoutMs?: number;
  /** Attempts in flight per endpoint (default 4) and in all (default 64). */
  concurrencyPerEndpoint?: number;
  maxConcurrency?: number;
  /** Failed deliveries in a row that disable an endpoint (default 5). */
  disableAfterFailures?: number;
  /** How often to look for deliveries other instances enqueued or gave up (default 1,000 ms; 0: only when told). */
  pollMs?: number;
  log?: (entry: { level: 'error' | 'info'; message: string; error?: unknown }) => void;
}

/** An endpoint as the API shows it: never its secrets. */
export interface EndpointView {
  readonly id: string;
  readonly url: string;
  readonly events: ReadonlyArray<string>;
  readonly description: string | null;
  readonly createdAt: string;
  readonly disabled: { readonly reason: string; readonly at: string } | null;
  readonly consecutiveFailures: number;
}

/** A refusal of the API's input: a message for the caller, and a stable code. */
export class WebhookError extends Error {
  readonly code: string;
  constructor(message: string, code: string) {
    super(message);
    this.name = 'WebhookError';
    this.code = code;
  }
}

export const WebhookErrorCode = {
  InvalidUrl: 'WEBHOOK_INVALID_URL',
  UnknownEventType: 'WEBHOOK_UNKNOWN_EVENT_TYPE',
  InvalidInput: 'BAD_USER_INPUT',
  NotFound: 'NOT_FOUND',
} as const;

const MAX_RESPONSE_BYTES = 1024;
const MAX_DESCRIPTION = 500;

export interface Webhooks {
  /** Registers an endpoint; its secret is returned here, and never again. */
  register(input: { url: string; events: ReadonlyArray<string>; description?: string | null }): Promise<{ endpoint: EndpointView; secret: string }>;
  list(): Promise<EndpointView[]>;
  get(id: string): Promise<EndpointView | null>;
  remove(id: string): Promise<boolean>;
  /** A new secret; the old ones keep signing for `graceSeconds` (default a day). */
  rotateSecret(id: string, options?: { graceSeconds?: number }): Promise<{ endpoint: EndpointView; secret: string }>;
  /** Enables a disabled endpoint again, its failure count reset. */
  enable(id: string): Promise<EndpointView>;
  /** Stores the event and its deliveries, then sends them; resolves once the event is durable. */
  publish(type: string, data: unknown): Promise<WebhookEvent>;
  /** The endpoint's recent deliveries, newest first. */
  deliveries(endpointId: string, limit?: number): Promise<Delivery[]>;
  /** Sends a kept event again, to one endpoint or to every endpoint that wants its type; the number of deliveries made. */
  redeliver(eventId: string, endpointId?: string): Promise<number>;
  readonly eventTypes: ReadonlyArray<string>;
  /** Opens the store and starts sending what is due (pending deliveries from before a restart too). */
  start(): Promise<void>;
  /** Stops sending, waits for attempts in flight (at most one attempt's time), closes the store. */
  close(): Promise<void>;
}

export function createWebhooks(options: WebhooksOptions): Webhooks {
  const store = options.store;
  const eventTypes = readEventTypes(options.eventTypes);
  const production = options.production ?? process.env.NODE_ENV === 'production';
  const allowedHosts = [...(options.allowedHosts ?? [])];
  const schedule = readSchedule(options.retrySchedule ?? DEFAULT_RETRY_SCHEDULE);
  const jitter = options.jitter ?? 0.1;
  if (typeof jitter !== 'number' || !(jitter >= 0 && jitter < 1)) throw new TypeError(`jitter must be a number from 0 to below 1, got ${describe(jitter)}.`);
  const attemptTimeoutMs = positive(options.attemptTimeoutMs ?? 10_000, 'attemptTimeoutMs');
  const perEndpoint = positive(options.concurrencyPerEndpoint ?? 4, 'concurrencyPerEndpoint');
  const maxConcurrency = positive(options.maxConcurrency ?? 64, 'maxConcurrency');
  const disableAfter = positive(options.disableAfterFailures ?? 5, 'disableAfterFailures');
  const pollMs = options.pollMs ?? 1000;
  const log = options.log ?? ((entry) => console.error(entry.message, entry.error ?? ''));
  // A claim outlives the attempt it is for, so that no other instance takes it meanwhile.
  const leaseMs = attemptTimeoutMs + 5000;
  const resolver = options.lookup;
  if (resolver !== undefined && typeof resolver !== 'function') throw new TypeError(`lookup must be a function like dns.lookup, got ${describe(resolver)}.`);
  const resolveAll = resolver === undefined ? undefined : lookupAll(resolver);
  // Connections per endpoint, not per host: two endpoints on one host never wait on each other's
  // sockets. Each agent checks every socket it opens (guardedAgent).
  const agents = new Map<string, http.Agent>();
  const agentFor = (endpoint: WebhookEndpoint, protocol: string): http.Agent => {
    let agent = agents.get(endpoint.id);
    if (agent === undefined) {
      agent = guardedAgent(protocol === 'https:' ? 'https:' : 'http:', { allowedHosts, maxSockets: perEndpoint, ...(resolver === undefined ? {} : { lookup: resolver }) });
      agents.set(endpoint.id, agent);
    }
    return agent;
  };

  const inFlight = new Map<string, number>();
  let running = 0;
  let started = false;
  let closing = false;
  let pumping = false;
  let again = false;
  let timer: ReturnType<typeof setTimeout> | null = null;
  let timerAt = 0;
  let poller: ReturnType<typeof setInterval> | null = null;
  const attempts = new Set<Promise<void>>();

  async function find(id: string): Promise<WebhookEndpoint> {
    const endpoint = (await store.endpoints()).find((candidate) => candidate.id === id);
    if (endpoint === undefined) throw new WebhookError(`No webhook endpoint has id "${id}".`, WebhookErrorCode.NotFound);
    return endpoint;
  }

  async function register(input: { url: string; events: ReadonlyArray<string>; description?: string | null }) {
    if (input === null || typeof input !== 'object') throw new WebhookError('register needs { url, events }.', WebhookErrorCode.InvalidInput);
    const url = await validateCallbackUrl(input.url, { production, allowedHosts, ...(resolveAll === undefined ? {} : { lookup: resolveAll }) });
    if (typeof url === 'string') throw new WebhookError(url, WebhookErrorCode.InvalidUrl);
    const events = checkEvents(input.events, eventTypes);
    const description = input.description ?? null;
    if (description !== null && (typeof description !== 'string' || description.length > MAX_DESCRIPTION)) {
      throw new WebhookError(`description must be a string of at most ${MAX_DESCRIPTION} characters.`, WebhookErrorCode.InvalidInput);
    }
    const secret = generateSecret();
    const endpoint: WebhookEndpoint = {
      id: `ep_${randomId()}`,
      url: url.href,
      events,
      description,
      secrets: [{ secret, expiresAt: null }],
      createdAt: new Date().toISOString(),
      disabled: null,
      consecutiveFailures: 0,
    };
    await store.saveEndpoint(endpoint);
    return { endpoint: view(endpoint), secret };
  }

  async function rotateSecret(id: string, rotation: { graceSeconds?: number } = {}) {
    const graceSeconds = rotation.graceSeconds ?? 86_400;
    if (!Number.isFinite(graceSeconds) || graceSeconds < 0) throw new WebhookError(`graceSeconds must be a number of seconds, got ${describe(graceSeconds)}.`, WebhookErrorCode.InvalidInput);
    const endpoint = await find(id);
    const now = Date.now();
    const secret = generateSecret();
    const kept = endpoint.secrets
      .filter((each) => each.expiresAt === null || each.expiresAt > now)
      .map((each) => ({ secret: each.secret, expiresAt: each.expiresAt ?? now + graceSeconds * 1000 }))
      .filter((each) => each.expiresAt > now);
    const rotated: WebhookEndpoint = { ...endpoint, secrets: [...kept, { secret, expiresAt: null }] };
    await store.saveEndpoint(rotated);
    return { endpoint: view(rotated), secret };
  }

  async function publish(type: string, data: unknown): Promise<WebhookEvent> {
    if (!eventTypes.includes(type)) throw new WebhookError(`Unknown event type "${String(type)}"; the types are: ${eventTypes.join(', ')}.`, WebhookErrorCode.UnknownEventType);
    const event: WebhookEvent = { id: newEventId(), type, occurredAt: new Date().toISOString(), data: JSON.parse(JSON.stringify(data ?? null)) };
    const wanting = (await store.endpoints()).filter((endpoint) => endpoint.disabled === null && endpoint.events.includes(type));
    await store.enqueue(event, wanting.map((endpoint) => ({ id: `dlv_${randomId()}`, endpointId: endpoint.id })));
    pump();
    return event;
  }

  async function redeliver(eventId: string, endpointId?: string): Promise<number> {
    const event = await store.event(eventId);
    if (event === null) throw new WebhookError(`No event with id "${eventId}" is kept.`, WebhookErrorCode.NotFound);
    const endpoints = endpointId === undefined ? (await store.endpoints()).filter((endpoint) => endpoint.events.includes(event.type)) : [await find(endpointId)];
    const enabled = endpoints.filter((endpoint) => endpoint.disabled === null);
    await store.enqueue(event, enabled.map((endpoint) => ({ id: `dlv_${randomId()}`, endpointId: endpoint.id })));
    pump();
    return enabled.length;
  }

  /** Claims what is due, as long as there are free places, and starts an attempt for each. */
  function pump(): void {
    if (!started || closing) return;
    if (pumping) {
      again = true;
      return;
    }
    pumping = true;
    void (async () => {
      try {
        do {
          again = false;
          const free = maxConcurrency - running;
          if (free <= 0) break;
          const busy = new Set<string>();
          for (const [id, count] of inFlight) if (count >= perEndpoint) busy.add(id);
          const claimed = await store.claimDue(Date.now(), free, busy, leaseMs);
          // Closing meanwhile: what was just claimed is left to its lease (due again after it).
          if (closing) break;
          for (const each of claimed) start(each);
          if (claimed.length > 0) again = true;
        } while (again && !closing);
      } catch (error) {
        log({ level: 'error', message: 'Webhooks: claiming due deliveries failed.', error });
      } finally {
        pumping = false;
      }
      // While attempts are in flight, each one's end looks again (and the poller, for retries
      // that fall due meanwhile); idle, a timer wakes the dispatcher when the next one is due.
      if (running === 0) await wakeAtNextDue();
    })();
  }

  /** Idle: the store says when the next delivery is due (deliveries left by a restart, other instances' retries). */
  async function wakeAtNextDue(): Promise<void> {
    if (closing) return;
    const due = await store.nextDue().catch(() => null);
    if (due !== null) wakeAt(due);
  }

  /** A timer for the earliest time something is due (a retry scheduled here, or the store's next). */
  function wakeAt(due: number): void {
    if (closing || (timer !== null && timerAt <= due)) return;
    if (timer !== null) clearTimeout(timer);
    timerAt = due;
    timer = setTimeout(
      () => {
        timer = null;
        // A timer counts from the event loop's clock, which lags Date.now() after a long turn:
        // early by that clock, it waits the rest rather than find nothing due and sleep.
        if (Date.now() < due) wakeAt(due);
        else pump();
      },
      Math.min(Math.max(due - Date.now(), 1), 2 ** 31 - 1),
    );
    timer.unref();
  }

  function start(claimed: ClaimedDelivery): void {
    const endpointId = claimed.endpoint.id;
    running++;
    inFlight.set(endpointId, (inFlight.get(endpointId) ?? 0) + 1);
    const attempt = deliver(claimed)
      .catch((error: unknown) => log({ level: 'error', message: 'Webhooks: recording an attempt failed.', error }))
      .finally(() => {
        running--;
        const count = (inFlight.get(endpointId) ?? 1) - 1;
        if (count === 0) inFlight.delete(endpointId);
        else inFlight.set(endpointId, count);
        attempts.delete(attempt);
        pump();
      });
    attempts.add(attempt);
  }

  /**
   * One attempt, and its outcome recorded; or, when the endpoint's URL is refused, none.
   *
   * The stored URL is judged first by checkCallbackUrl, registration's own check, under this
   * instance's `allowedHosts` and `production`: an allowance removed since registration (a
   * restart without it), an IP-literal host in any spelling, `localhost`, http in production.
   * That answer depends on the URL and the configuration alone, so a retry would get the same
   * one: the endpoint is disabled at once with the refusal as its reason (refuse), and nothing
   * is sent. The address a name resolves to is judged later, when the socket opens
   * (guardedAgent), and a forbidden one fails the attempt like a refused connection: retried on
   * the schedule, counted toward `disableAfterFailures`, never disabling by itself. DNS answers
   * change without anyone touching the endpoint (a receiver moving, a split-horizon resolver, a
   * short misconfiguration, an attacker's rebinding attempt), and one answer must not switch off
   * an endpoint its owner never changed; an address that stays forbidden fails every attempt and
   * disables the endpoint as any unreachable receiver is disabled, which is how the established
   * webhook services treat a receiver they cannot reach: retried, disabled only after failing
   * for long. Either way no request leaves the process and no answer is read.
   */
  async function deliver(claimed: ClaimedDelivery): Promise<void> {
    const url = checkCallbackUrl(claimed.endpoint.url, { production, allowedHosts });
    if (typeof url === 'string') return refuse(claimed, url);
    const { delivery, event, endpoint } = claimed;
    const body = JSON.stringify(event);
    const now = Date.now();
    const secrets = endpoint.secrets.filter((each) => each.expiresAt === null || each.expiresAt > now).map((each) => each.secret);
    const timestamp = Math.floor(now / 1000);
    const headers = {
      'content-type': 'application/json',
      'user-agent': 'graphql-engine-webhooks',
      'webhook-id': event.id,
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signatureHeader(secrets, event.id, timestamp, body),
    };
    const answer = await post(url, headers, body, agentFor(endpoint, url.protocol));
    const attempt: DeliveryAttempt = {
      at: new Date(now).toISOString(),
      durationMs: Date.now() - now,
      status: answer.status,
      error: answer.error,
      responseBody: answer.body,
    };
    await store.recordAttempt(delivery.id, outcomeOf(delivery, attempt));
  }

  /**
   * The endpoint disabled with `reason` (as after a 410: a `disabled` the admin sees in the
   * endpoint view and clears with enable), then the refusal recorded as an attempt without an
   * answer. The delivery stays pending, like the endpoint's other deliveries while it is
   * disabled: enabled again where its URL is allowed, it is sent; enabled where it is not, it is
   * refused again. Saved before the record, so that the record's release of the claim finds the
   * endpoint disabled and no instance claims its deliveries meanwhile.
   */
  async function refuse({ delivery, endpoint }: ClaimedDelivery, reason: string): Promise<void> {
    const at = new Date().toISOString();
    // The endpoint as it is now (a secret rotated meanwhile is kept; a removed one stays removed).
    const current = (await store.endpoints()).find((candidate) => candidate.id === endpoint.id);
    if (current !== undefined && current.disabled === null) await store.saveEndpoint({ ...current, disabled: { reason, at } });
    const attempt: DeliveryAttempt = { at, durationMs: 0, status: null, error: reason, responseBody: '' };
    await store.recordAttempt(delivery.id, { attempt, status: 'pending', nextAttemptAt: Date.now(), effect: { kind: 'pending', disableAfter, at } });
  }

  function outcomeOf(delivery: Delivery, attempt: DeliveryAttempt): AttemptOutcome {
    const status = attempt.status;
    const at = new Date().toISOString();
    if (status !== null && status >= 200 && status < 300) return { attempt, status: 'delivered', nextAttemptAt: null, effect: { kind: 'delivered', disableAfter, at } };
    if (status === 410) return { attempt, status: 'failed', nextAttemptAt: null, effect: { kind: 'gone', disableAfter, at } };
    const made = delivery.attempts.length + 1;
    if (made <= schedule.length) {
      const delay = (schedule[made - 1] as number) * 1000 * (1 - jitter + 2 * jitter * Math.random());
      const nextAttemptAt = Date.now() + Math.round(delay);
      wakeAt(nextAttemptAt);
      return { attempt, status: 'pending', nextAttemptAt, effect: { kind: 'pending', disableAfter, at } };
    }
    return { attempt, status: 'failed', nextAttemptAt: null, effect: { kind: 'failed', disableAfter, at } };
  }

  /** POSTs the body; never throws, never follows a redirect, never reads more than 1 KB, never waits past the attempt's time. */
  function post(url: URL, headers: Record<string, string>, body: string, agent: http.Agent): Promise<{ status: number | null; error: string | null; body: string }> {
    return new Promise((resolve) => {
      const transport = url.protocol === 'https:' ? https : http;
      let settled = false;
      const finish = (status: number | null, error: string | null, answer: Buffer): void => {
        if (settled) return;
        settled = true;
        clearTimeout(deadline);
        // At most 1 KB, cut before a character the limit splits.
        resolve({ status, error, body: new TextDecoder().decode(answer.subarray(0, MAX_RESPONSE_BYTES), { stream: true }) });
      };
      const request = transport.request(url, {
        method: 'POST',
        headers: { ...headers, 'content-length': String(Buffer.byteLength(body)) },
        agent,
      });
      const deadline = setTimeout(() => {
        request.destroy();
        finish(null, `No answer within ${attemptTimeoutMs} ms.`, Buffer.alloc(0));
      }, attemptTimeoutMs);
      request.on('error', (error: NodeJS.ErrnoException) => finish(null, connectionError(error), Buffer.alloc(0)));
      request.on('response', (response) => {
        const status = response.statusCode ?? null;
        const chunks: Buffer[] = [];
        let size = 0;
        const error = status !== null && status >= 300 && status < 400 ? `Redirects are not followed (Location: ${String(response.headers.location ?? 'none')}).` : null;
        response.on('data', (chunk: Buffer) => {
          chunks.push(chunk);
          size += chunk.length;
          // Enough of an endless answer: the status is what counts.
          if (size > MAX_RESPONSE_BYTES) {
            response.destroy();
            finish(status, error, Buffer.concat(chunks));
          }
        });
        response.on('end', () => finish(status, error, Buffer.concat(chunks)));
        response.on('error', () => finish(status, error, Buffer.concat(chunks)));
        response.on('close', () => finish(status, error, Buffer.concat(chunks)));
      });
      request.end(body);
    });
  }

  return {
    eventTypes,
    register,
    list: async () => (await store.endpoints()).map(view),
    get: async (id) => {
      const endpoint = (await store.endpoints()).find((candidate) => candidate.id === id);
      return endpoint === undefined ? null : view(endpoint);
    },
    async remove(id) {
      const removed = await store.removeEndpoint(id);
      agents.get(id)?.destroy();
      agents.delete(id);
      return removed;
    },
    rotateSecret,
    async enable(id) {
      const endpoint = await find(id);
      const enabled: WebhookEndpoint = { ...endpoint, disabled: null, consecutiveFailures: 0 };
      await store.saveEndpoint(enabled);
      pump();
      return view(enabled);
    },
    publish,
    deliveries: (endpointId, limit = 20) => store.deliveries(endpointId, limit),
    redeliver,
    async start() {
      if (started) return;
      await store.open();
      started = true;
      if (pollMs > 0) {
        poller = setInterval(pump, pollMs);
        poller.unref();
      }
      pump();
    },
    async close() {
      closing = true;
      if (timer !== null) clearTimeout(timer);
      if (poller !== null) clearInterval(poller);
      await Promise.all([...attempts]);
      for (const agent of agents.values()) agent.destroy();
      await store.close();
    },
  };
}

function view(endpoint: WebhookEndpoint): EndpointView {
  return {
    id: endpoint.id,
    url: endpoint.url,
    events: endpoint.events,
    description: endpoint.description,
    createdAt: endpoint.createdAt,
    disabled: endpoint.disabled,
    consecutiveFailures: endpoint.consecutiveFailures,
  };
}

function connectionError(error: NodeJS.ErrnoException): string {
  if (error.code === FORBIDDEN_ADDRESS_CODE) return error.message;
  return `The connection failed: ${error.code ?? error.message}.`;
}

/** A dns.lookup-like resolver as registration asks it: every address of a name, as a promise. */
function lookupAll(resolver: LookupFunction): (hostname: string) => Promise<LookupAddress[]> {
  return (hostname) =>
    new Promise((resolve, reject) => {
      resolver(hostname, { all: true }, (error, addresses) => {
        if (error) reject(error);
        else resolve(Array.isArray(addresses) ? addresses : []);
      });
    });
}

function checkEvents(events: unknown, known: ReadonlyArray<string>): string[] {
  if (!Array.isArray(events) || events.length === 0) throw new WebhookError('events must be a non-empty list of event types.', WebhookErrorCode.InvalidInput);
  const unknown = events.filter((type) => typeof type !== 'string' || !known.includes(type));
  if (unknown.length > 0) {
    throw new WebhookError(`Unknown event type${unknown.length === 1 ? '' : 's'} ${unknown.map((type) => JSON.stringify(type)).join(', ')}; the types are: ${known.join(', ')}.`, WebhookErrorCode.UnknownEventType);
  }
  return [...new Set(events as string[])];
}

function readEventTypes(types: unknown): string[] {
  if (!Array.isArray(types) || types.length === 0 || types.some((type) => typeof type !== 'string' || !/^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+$/.test(type))) {
    throw new TypeError(`eventTypes must be a non-empty list of dotted lower-case names like "review.created", got ${describe(types)}.`);
  }
  return [...types];
}

/** The retry delays, in seconds. */
export function readSchedule(schedule: unknown): number[] {
  if (!Array.isArray(schedule) || schedule.some((delay) => typeof delay !== 'number' || !Number.isFinite(delay) || delay < 0)) {
    throw new TypeError(`retrySchedule must be a list of delays in seconds (numbers, 0 or more), got ${describe(schedule)}.`);
  }
  return [...schedule];
}

function positive(value: number, name: string): number {
  if (!Number.isInteger(value) || value <= 0) throw new TypeError(`${name} must be a positive whole number, got ${describe(value)}.`);
  return value;
}

function randomId(): string {
  return randomBytes(12).toString('base64url');
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

/** An event's id: `evt_` and 26 characters that sort by time (48 bits of milliseconds, then 80 random bits), as a ULID. */
export function newEventId(): string {
  let time = Date.now();
  let text = '';
  for (let i = 0; i < 10; i++) {
    text = (CROCKFORD[time % 32] as string) + text;
    time = Math.floor(time / 32);
  }
  for (const byte of randomBytes(16)) text += CROCKFORD[byte % 32];
  return `evt_${text}`;
}
