/**
 * The server's one event bus: `publish(type, data)` makes the event `{ id, type, occurredAt,
 * data }`, puts it in the webhooks' outbox (durably, before it resolves: webhooks.ts), then
 * hands `data` to the pub/sub under the topic `type`, where subscriptions hear it. So a
 * subscription field subscribes to the event type's topic (`review.created`), and an event
 * reaches both ways out from one call.
 *
 * The outbox comes first: once `publish` resolves, every webhook endpoint registered for the
 * type will get the event, whatever happens to the process. The pub/sub is best effort, as
 * live subscriptions are: a publish it refuses (Redis away) is logged, not thrown, since the
 * event has happened and is recorded.
 */
import type { PubSub } from './pubsub.ts';
import { newEventId } from '../webhooks/webhooks.ts';
import type { Webhooks } from '../webhooks/webhooks.ts';
import type { WebhookEvent } from '../webhooks/store.ts';

export interface EventBus {
  publish(type: string, data: unknown): Promise<WebhookEvent>;
}

export function createEventBus(options: {
  pubsub?: PubSub;
  webhooks?: Webhooks;
  log?: (entry: { level: 'error'; message: string; error: unknown }) => void;
}): EventBus {
  const log = options.log ?? ((entry) => console.error(entry.message, entry.error));
  return {
    async publish(type, data) {
      const event: WebhookEvent =
        options.webhooks !== undefined ? await options.webhooks.publish(type, data) : { id: newEventId(), type, occurredAt: new Date().toISOString(), data };
      await options.pubsub?.publish(type, data).catch((error: unknown) => log({ level: 'error', message: `The pub/sub refused the event ${event.id} (${type}).`, error }));
      return event;
    },
  };
}
