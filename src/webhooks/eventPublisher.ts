/**
 * Publishing: an event and one delivery per enabled endpoint that wants its type, in the store
 * before publish resolves (at least once, whatever happens next); and redelivering a kept event.
 * The dispatcher is then told there is something to send.
 */
import { randomBytes } from 'node:crypto';
import type { EndpointRegistry } from './endpointRegistry.ts';
import { randomId } from './endpointRegistry.ts';
import type { WebhookEndpoint, WebhookEvent, WebhookStore } from './store.ts';
import { ErrorCode } from '../errors/codes.ts';
import { WebhookError } from './webhookError.ts';

export class EventPublisher {
  private readonly store: WebhookStore;
  private readonly eventTypes: ReadonlyArray<string>;
  private readonly endpoints: EndpointRegistry;
  private readonly enqueued: () => void;

  constructor(store: WebhookStore, eventTypes: ReadonlyArray<string>, endpoints: EndpointRegistry, enqueued: () => void) {
    this.store = store;
    this.eventTypes = eventTypes;
    this.endpoints = endpoints;
    this.enqueued = enqueued;
  }

  async publish(type: string, data: unknown): Promise<WebhookEvent> {
    if (!this.eventTypes.includes(type)) throw new WebhookError(`Unknown event type "${String(type)}"; the types are: ${this.eventTypes.join(', ')}.`, ErrorCode.WebhookUnknownEventType);
    const event: WebhookEvent = { id: newEventId(), type, occurredAt: new Date().toISOString(), data: JSON.parse(JSON.stringify(data ?? null)) };
    const wanting = (await this.store.endpoints()).filter((endpoint) => endpoint.disabled === null && endpoint.events.includes(type));
    await this.enqueue(event, wanting);
    return event;
  }

  /** Sends a kept event again, to one endpoint or to every endpoint that wants its type; the number of deliveries made. */
  async redeliver(eventId: string, endpointId?: string): Promise<number> {
    const event = await this.store.event(eventId);
    if (event === null) throw new WebhookError(`No event with id "${eventId}" is kept.`, ErrorCode.NotFound);
    const endpoints = endpointId === undefined ? (await this.store.endpoints()).filter((endpoint) => endpoint.events.includes(event.type)) : [await this.endpoints.find(endpointId)];
    const enabled = endpoints.filter((endpoint) => endpoint.disabled === null);
    await this.enqueue(event, enabled);
    return enabled.length;
  }

  private async enqueue(event: WebhookEvent, endpoints: ReadonlyArray<WebhookEndpoint>): Promise<void> {
    await this.store.enqueue(event, endpoints.map((endpoint) => ({ id: `dlv_${randomId()}`, endpointId: endpoint.id })));
    this.enqueued();
  }
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
