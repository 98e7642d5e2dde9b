/**
 * The dispatcher: claims due deliveries from the store and starts an attempt for each, within
 * the limits of `maxConcurrency` attempts in all and `concurrencyPerEndpoint` per endpoint (a
 * slow endpoint fills its own places, never the others'). It looks again when an attempt ends,
 * when a retry falls due (a timer), and every `pollMs` for deliveries other instances enqueued
 * or gave up.
 */
import type { DeliverySender } from './deliverySender.ts';
import type { ClaimedDelivery, WebhookStore } from './store.ts';
import type { WebhooksConfig } from './webhookConfig.ts';

export class Dispatcher {
  private readonly store: WebhookStore;
  private readonly config: WebhooksConfig;
  private readonly sender: DeliverySender;
  /** Attempts in flight per endpoint id. */
  private readonly inFlight = new Map<string, number>();
  /** Attempts in flight in all. */
  private running = 0;
  private readonly attempts = new Set<Promise<void>>();
  private started = false;
  private closing = false;
  /** A claiming loop is running; `again` asks it for one more round. */
  private pumping = false;
  private again = false;
  /** The timer for the earliest known due time, and that time. */
  private timer: ReturnType<typeof setTimeout> | null = null;
  private timerAt = 0;
  private poller: ReturnType<typeof setInterval> | null = null;

  constructor(store: WebhookStore, config: WebhooksConfig, sender: DeliverySender) {
    this.store = store;
    this.config = config;
    this.sender = sender;
  }

  /** Opens the store and starts sending what is due (pending deliveries from before a restart too). */
  async start(): Promise<void> {
    if (this.started) return;
    await this.store.open();
    this.started = true;
    if (this.config.pollMs > 0) {
      this.poller = setInterval(() => this.pump(), this.config.pollMs);
      this.poller.unref();
    }
    this.pump();
  }

  /** Stops claiming and waits for the attempts in flight. */
  async stop(): Promise<void> {
    this.closing = true;
    if (this.timer !== null) clearTimeout(this.timer);
    if (this.poller !== null) clearInterval(this.poller);
    await Promise.all([...this.attempts]);
  }

  /** Claims what is due, as long as there are free places, and starts an attempt for each. */
  pump(): void {
    if (!this.started || this.closing) return;
    if (this.pumping) {
      this.again = true;
      return;
    }
    this.pumping = true;
    void this.claimWhileFree();
  }

  /** A timer for the earliest time something is due (a retry scheduled here, or the store's next). */
  wakeAt(due: number): void {
    if (this.closing || (this.timer !== null && this.timerAt <= due)) return;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timerAt = due;
    this.timer = setTimeout(
      () => {
        this.timer = null;
        // A timer counts from the event loop's clock, which lags Date.now() after a long turn:
        // early by that clock, it waits the rest rather than find nothing due and sleep.
        if (Date.now() < due) this.wakeAt(due);
        else this.pump();
      },
      Math.min(Math.max(due - Date.now(), 1), 2 ** 31 - 1),
    );
    this.timer.unref();
  }

  private async claimWhileFree(): Promise<void> {
    try {
      do {
        this.again = false;
        const free = this.config.maxConcurrency - this.running;
        if (free <= 0) break;
        const busy = new Set<string>();
        for (const [id, count] of this.inFlight) if (count >= this.config.perEndpoint) busy.add(id);
        const claimed = await this.store.claimDue(Date.now(), free, busy, this.config.leaseMs);
        // Closing meanwhile: what was just claimed is left to its lease (due again after it).
        if (this.closing) break;
        for (const each of claimed) this.startAttempt(each);
        if (claimed.length > 0) this.again = true;
      } while (this.again && !this.closing);
    } catch (error) {
      this.config.log({ level: 'error', message: 'Webhooks: claiming due deliveries failed.', error });
    } finally {
      this.pumping = false;
    }
    // While attempts are in flight, each one's end looks again (and the poller, for retries
    // that fall due meanwhile); idle, a timer wakes the dispatcher when the next one is due.
    if (this.running === 0) await this.wakeAtNextDue();
  }

  /** Idle: the store says when the next delivery is due (deliveries left by a restart, other instances' retries). */
  private async wakeAtNextDue(): Promise<void> {
    if (this.closing) return;
    const due = await this.store.nextDue().catch(() => null);
    if (due !== null) this.wakeAt(due);
  }

  private startAttempt(claimed: ClaimedDelivery): void {
    const endpointId = claimed.endpoint.id;
    this.running++;
    this.inFlight.set(endpointId, (this.inFlight.get(endpointId) ?? 0) + 1);
    const attempt = this.sender
      .deliver(claimed)
      .catch((error: unknown) => this.config.log({ level: 'error', message: 'Webhooks: recording an attempt failed.', error }))
      .finally(() => {
        this.running--;
        const count = (this.inFlight.get(endpointId) ?? 1) - 1;
        if (count === 0) this.inFlight.delete(endpointId);
        else this.inFlight.set(endpointId, count);
        this.attempts.delete(attempt);
        this.pump();
      });
    this.attempts.add(attempt);
  }
}
