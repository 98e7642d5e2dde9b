/**
 * What an attempt's answer means for its delivery: 2xx, delivered; 410 Gone, failed and the
 * endpoint disabled; anything else, retried after the schedule's next delay (with jitter), or
 * failed once the schedule is used up. The store applies the effect on the endpoint (its
 * failure count, disabling after `disableAfter` failed deliveries in a row).
 */
import type { AttemptOutcome, Delivery, DeliveryAttempt } from './store.ts';
import type { WebhooksConfig } from './webhookConfig.ts';

export function attemptOutcome(delivery: Delivery, attempt: DeliveryAttempt, config: WebhooksConfig): AttemptOutcome {
  const { disableAfter, schedule, jitter } = config;
  const status = attempt.status;
  const at = new Date().toISOString();
  if (status !== null && status >= 200 && status < 300) return { attempt, status: 'delivered', nextAttemptAt: null, effect: { kind: 'delivered', disableAfter, at } };
  if (status === 410) return { attempt, status: 'failed', nextAttemptAt: null, effect: { kind: 'gone', disableAfter, at } };
  const made = delivery.attempts.length + 1;
  if (made <= schedule.length) {
    const delay = (schedule[made - 1] as number) * 1000 * (1 - jitter + 2 * jitter * Math.random());
    const nextAttemptAt = Date.now() + Math.round(delay);
    return { attempt, status: 'pending', nextAttemptAt, effect: { kind: 'pending', disableAfter, at } };
  }
  return { attempt, status: 'failed', nextAttemptAt: null, effect: { kind: 'failed', disableAfter, at } };
}
