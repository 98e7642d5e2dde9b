/**
 * createWebhooks: signed, retried, durable delivery of events to registered callback URLs.
 *
 *   register / list / remove / rotateSecret / enable      the endpoints (URL checked against
 *                             SSRF): endpointRegistry.ts
 *   publish(type, data)       the event and one delivery per endpoint that wants it, in the
 *                             store before it resolves (at least once, whatever happens next):
 *                             eventPublisher.ts
 *   the dispatcher            claims due deliveries within the concurrency limits, and wakes
 *                             when the next one is due: dispatcher.ts
 *   the sender                one attempt: signed (signing.ts), 10 s, redirects never followed,
 *                             at most 1 KB of the answer kept (post.ts); the URL checked again
 *                             before every attempt and the address at every connection
 *                             (callbackUrl.ts); its outcome (attemptOutcome.ts): deliverySender.ts
 *   deliveries / redeliver    what happened, and sending an event again
 *
 * An attempt's outcome: 2xx, delivered; 410 Gone, the endpoint disabled; anything else (another
 * status, a redirect, a timeout, a refused or reset connection, a name that resolves to a
 * forbidden address) is retried after the next delay of the schedule, with jitter, until the
 * schedule is used up: the delivery failed, and after `disableAfterFailures` failed deliveries
 * in a row the endpoint is disabled. A URL the sending instance's rule refuses (see
 * DeliverySender.deliver) is not an attempt: nothing is sent, and the endpoint is disabled with
 * the refusal as reason.
 *
 * Each endpoint has at most `concurrencyPerEndpoint` attempts in flight and the whole server
 * `maxConcurrency`: a slow endpoint fills its own places, never the others'.
 */
import { readWebhooksOptions } from './webhookConfig.ts';
import type { WebhooksOptions } from './webhookConfig.ts';
import { DeliverySender } from './deliverySender.ts';
import { Dispatcher } from './dispatcher.ts';
import { EndpointRegistry } from './endpointRegistry.ts';
import type { EndpointView } from './endpointRegistry.ts';
import { EventPublisher } from './eventPublisher.ts';
import type { Delivery, WebhookEvent } from './store.ts';

export { DEFAULT_RETRY_SCHEDULE, readSchedule } from './webhookConfig.ts';
export type { WebhooksOptions } from './webhookConfig.ts';
export type { EndpointView } from './endpointRegistry.ts';
export { WebhookError } from './webhookError.ts';
export { newEventId } from './eventPublisher.ts';

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

/**
 * The service assembled from its parts: the options read once (webhookConfig.ts), the endpoint
 * registry, the publisher, the dispatcher that claims due deliveries, and the sender that makes
 * each attempt.
 */
export function createWebhooks(options: WebhooksOptions): Webhooks {
  const store = options.store;
  const config = readWebhooksOptions(options);
  const endpoints = new EndpointRegistry(store, config);
  const sender: DeliverySender = new DeliverySender(store, config, (due) => dispatcher.wakeAt(due));
  const dispatcher = new Dispatcher(store, config, sender);
  const publisher = new EventPublisher(store, config.eventTypes, endpoints, () => dispatcher.pump());
  return {
    eventTypes: config.eventTypes,
    register: (input) => endpoints.register(input),
    list: () => endpoints.list(),
    get: (id) => endpoints.get(id),
    async remove(id) {
      const removed = await endpoints.remove(id);
      sender.forget(id);
      return removed;
    },
    rotateSecret: (id, rotation) => endpoints.rotateSecret(id, rotation),
    async enable(id) {
      const enabled = await endpoints.enable(id);
      dispatcher.pump();
      return enabled;
    },
    publish: (type, data) => publisher.publish(type, data),
    deliveries: (endpointId, limit = 20) => store.deliveries(endpointId, limit),
    redeliver: (eventId, endpointId) => publisher.redeliver(eventId, endpointId),
    start: () => dispatcher.start(),
    async close() {
      await dispatcher.stop();
      sender.destroyAll();
      await store.close();
    },
  };
}
