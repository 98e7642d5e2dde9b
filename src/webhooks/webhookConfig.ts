/**
 * The options of createWebhooks, checked once and read into the settings every part of the
 * webhook service shares (the endpoint registry, the dispatcher, the sender).
 */
import type { LookupAddress } from 'node:dns';
import type { LookupFunction } from 'node:net';
import { describe } from '../jsutils/describe.ts';
import type { WebhookStore } from './store.ts';
import { positiveInteger } from '../jsutils/positiveInteger.ts';

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
  /** How an operator sets allowedHosts (an environment variable, a config key), named when a host is refused. */
  allowedHostsSetting?: string;
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

/** The options with their defaults, checked. */
export interface WebhooksConfig {
  readonly eventTypes: ReadonlyArray<string>;
  readonly production: boolean;
  readonly allowedHosts: ReadonlyArray<string>;
  readonly allowedHostsSetting: string | undefined;
  readonly schedule: ReadonlyArray<number>;
  readonly jitter: number;
  readonly attemptTimeoutMs: number;
  readonly perEndpoint: number;
  readonly maxConcurrency: number;
  readonly disableAfter: number;
  readonly pollMs: number;
  readonly log: NonNullable<WebhooksOptions['log']>;
  /** How long a claimed delivery stays claimed: longer than its attempt, so that no other instance takes it meanwhile. */
  readonly leaseMs: number;
  /** The resolver given, for the connections (undefined: dns.lookup). */
  readonly lookup: LookupFunction | undefined;
  /** The same resolver as registration asks it: every address of a name. */
  readonly lookupAll: ((hostname: string) => Promise<LookupAddress[]>) | undefined;
}

export function readWebhooksOptions(options: WebhooksOptions): WebhooksConfig {
  const eventTypes = readEventTypes(options.eventTypes);
  const schedule = readSchedule(options.retrySchedule ?? DEFAULT_RETRY_SCHEDULE);
  const jitter = options.jitter ?? 0.1;
  if (typeof jitter !== 'number' || !(jitter >= 0 && jitter < 1)) throw new TypeError(`jitter must be a number from 0 to below 1, got ${describe(jitter)}.`);
  const attemptTimeoutMs = positive(options.attemptTimeoutMs ?? 10_000, 'attemptTimeoutMs');
  const perEndpoint = positive(options.concurrencyPerEndpoint ?? 4, 'concurrencyPerEndpoint');
  const maxConcurrency = positive(options.maxConcurrency ?? 64, 'maxConcurrency');
  const disableAfter = positive(options.disableAfterFailures ?? 5, 'disableAfterFailures');
  const lookup = options.lookup;
  if (lookup !== undefined && typeof lookup !== 'function') throw new TypeError(`lookup must be a function like dns.lookup, got ${describe(lookup)}.`);
  return {
    eventTypes,
    production: options.production ?? process.env.NODE_ENV === 'production',
    allowedHosts: [...(options.allowedHosts ?? [])],
    allowedHostsSetting: options.allowedHostsSetting,
    schedule,
    jitter,
    attemptTimeoutMs,
    perEndpoint,
    maxConcurrency,
    disableAfter,
    pollMs: options.pollMs ?? 1000,
    log: options.log ?? ((entry) => console.error(entry.message, entry.error ?? '')),
    leaseMs: attemptTimeoutMs + 5000,
    lookup,
    lookupAll: lookup === undefined ? undefined : lookupAll(lookup),
  };
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

const positive = positiveInteger;
