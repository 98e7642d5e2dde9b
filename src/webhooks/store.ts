/**
 * What webhooks keep, and the interface of the stores that keep it (fileStore.ts, embedded and
 * the default; redisStore.ts, shared by instances). The delivery engine (webhooks.ts) knows
 * nothing of files or Redis: it registers endpoints, enqueues events with one delivery per
 * endpoint that wants them, claims deliveries that are due, and records each attempt.
 *
 * At least once: an event is in the store before `enqueue` resolves, with its deliveries; a
 * delivery leaves the store's queue only when an attempt's outcome is recorded. A claim is a
 * lease: a delivery claimed by a process that dies is due again once the lease runs out (the
 * file store's leases live in memory, so after a restart everything pending is due at once).
 */

/** An event, as published and as delivered (the JSON body of every attempt). */
export interface WebhookEvent {
  /** `evt_` and 26 characters; the `webhook-id` of every delivery of it. */
  readonly id: string;
  readonly type: string;
  /** ISO 8601. */
  readonly occurredAt: string;
  readonly data: unknown;
}

export interface EndpointSecret {
  readonly secret: string;
  /** When it stops being used (ms since the epoch), after a rotation; null while it is the current one. */
  readonly expiresAt: number | null;
}

export interface WebhookEndpoint {
  readonly id: string;
  readonly url: string;
  readonly events: ReadonlyArray<string>;
  readonly description: string | null;
  /** The current secret last. */
  readonly secrets: ReadonlyArray<EndpointSecret>;
  readonly createdAt: string;
  /** Why and when deliveries to it stopped (410 Gone, or too many failed deliveries); null while enabled. */
  readonly disabled: { readonly reason: string; readonly at: string } | null;
  /** Deliveries that failed in a row (every attempt used up). */
  readonly consecutiveFailures: number;
}

export interface DeliveryAttempt {
  /** ISO 8601. */
  readonly at: string;
  readonly durationMs: number;
  /** The receiver's status, or null when there was no answer (timeout, connection refused or reset, refused address). */
  readonly status: number | null;
  readonly error: string | null;
  /** At most 1 KB of what the receiver answered. */
  readonly responseBody: string;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'failed';

export interface Delivery {
  readonly id: string;
  readonly eventId: string;
  readonly endpointId: string;
  readonly status: DeliveryStatus;
  readonly attempts: ReadonlyArray<DeliveryAttempt>;
  /** When the next attempt is due (ms since the epoch), while pending. */
  readonly nextAttemptAt: number | null;
}

/** A delivery claimed for an attempt, with what the attempt needs. */
export interface ClaimedDelivery {
  readonly delivery: Delivery;
  readonly event: WebhookEvent;
  readonly endpoint: WebhookEndpoint;
}

/** What an attempt came to, as recorded. */
export interface AttemptOutcome {
  readonly attempt: DeliveryAttempt;
  readonly status: DeliveryStatus;
  readonly nextAttemptAt: number | null;
  /**
   * What the outcome does to the endpoint, applied by the store to the endpoint as it is then
   * (not to the copy the attempt started with: an admin may have rotated its secret, or another
   * delivery failed, meanwhile; and a removed endpoint stays removed). See applyEffect.
   */
  readonly effect: EndpointEffect;
}

/**
 * `delivered`: the failure count back to 0; `failed` (every attempt used up): one more failure
 * in a row, the endpoint disabled once there are `disableAfter`; `gone` (410): disabled.
 * `pending` (a retry to come): nothing.
 */
export interface EndpointEffect {
  readonly kind: 'delivered' | 'failed' | 'gone' | 'pending';
  readonly disableAfter: number;
  /** ISO 8601: when, for `disabled.at`. */
  readonly at: string;
}

/** The endpoint after an attempt's effect, or null when the effect changes nothing. */
export function applyEffect(endpoint: WebhookEndpoint, effect: EndpointEffect): WebhookEndpoint | null {
  switch (effect.kind) {
    case 'pending':
      return null;
    case 'delivered':
      return endpoint.consecutiveFailures === 0 ? null : { ...endpoint, consecutiveFailures: 0 };
    case 'gone':
      return { ...endpoint, disabled: endpoint.disabled ?? { reason: 'The endpoint answered 410 Gone.', at: effect.at } };
    case 'failed': {
      const failures = endpoint.consecutiveFailures + 1;
      const disabled = endpoint.disabled ?? (failures >= effect.disableAfter ? { reason: `${failures} deliveries in a row failed.`, at: effect.at } : null);
      return { ...endpoint, consecutiveFailures: failures, disabled };
    }
  }
}

export interface WebhookStore {
  /** Loads what the store holds (the file store replays its journal). */
  open(): Promise<void>;
  saveEndpoint(endpoint: WebhookEndpoint): Promise<void>;
  removeEndpoint(id: string): Promise<boolean>;
  endpoints(): Promise<WebhookEndpoint[]>;
  /** Stores the event and one pending delivery, due now, per endpoint id; durable when it resolves. */
  enqueue(event: WebhookEvent, deliveries: ReadonlyArray<{ id: string; endpointId: string }>): Promise<void>;
  /**
   * Claims up to `limit` deliveries due at `now`, none for the endpoints in `busy`, each for
   * `leaseMs`: no other claim gets it meanwhile.
   */
  claimDue(now: number, limit: number, busy: ReadonlySet<string>, leaseMs: number): Promise<ClaimedDelivery[]>;
  /** Records an attempt of a claimed delivery, and releases the claim. */
  recordAttempt(deliveryId: string, outcome: AttemptOutcome): Promise<void>;
  /** The endpoint's most recent deliveries, newest first. */
  deliveries(endpointId: string, limit: number): Promise<Delivery[]>;
  /** An event still kept (for a manual redelivery). */
  event(id: string): Promise<WebhookEvent | null>;
  /** When the earliest pending delivery is due (ms), or null: when to look again. */
  nextDue(): Promise<number | null>;
  close(): Promise<void>;
}
