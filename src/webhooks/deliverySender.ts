/**
 * Sends one claimed delivery: one signed POST and its outcome recorded, or, when the endpoint's
 * URL is refused, no request and the endpoint disabled. It keeps one connection pool per
 * endpoint, not per host, so two endpoints on one host never wait on each other's sockets; each
 * pool checks every socket it opens (guardedAgent).
 */
import type http from 'node:http';
import { checkCallbackUrl, guardedAgent } from './callbackUrl.ts';
import { attemptOutcome } from './attemptOutcome.ts';
import { post } from './post.ts';
import type { PostAnswer } from './post.ts';
import { telemetry } from '../observability/openTelemetry.ts';
import { deliveryHeaders } from './signing.ts';
import type { ClaimedDelivery, DeliveryAttempt, WebhookEndpoint, WebhookStore } from './store.ts';
import type { WebhooksConfig } from './webhookConfig.ts';

export class DeliverySender {
  private readonly store: WebhookStore;
  private readonly config: WebhooksConfig;
  /** Told the time of every retry scheduled, to wake the dispatcher then. */
  private readonly retryAt: (due: number) => void;
  private readonly agents = new Map<string, http.Agent>();

  constructor(store: WebhookStore, config: WebhooksConfig, retryAt: (due: number) => void) {
    this.store = store;
    this.config = config;
    this.retryAt = retryAt;
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
  async deliver(claimed: ClaimedDelivery): Promise<void> {
    const { production, allowedHosts, allowedHostsSetting } = this.config;
    const url = checkCallbackUrl(claimed.endpoint.url, { production, allowedHosts, ...(allowedHostsSetting === undefined ? {} : { allowedHostsSetting }) });
    if (typeof url === 'string') return this.refuse(claimed, url);
    const { delivery, event, endpoint } = claimed;
    const body = JSON.stringify(event);
    const now = Date.now();
    const secrets = endpoint.secrets.filter((each) => each.expiresAt === null || each.expiresAt > now).map((each) => each.secret);
    const headers = deliveryHeaders(secrets, event.id, now, body);
    const answer = await this.post(url, headers, body, endpoint);
    const attempt: DeliveryAttempt = {
      at: new Date(now).toISOString(),
      durationMs: Date.now() - now,
      status: answer.status,
      error: answer.error,
      responseBody: answer.body,
    };
    const outcome = attemptOutcome(delivery, attempt, this.config);
    if (outcome.status === 'pending' && outcome.nextAttemptAt !== null) this.retryAt(outcome.nextAttemptAt);
    await this.store.recordAttempt(delivery.id, outcome);
  }

  /**
   * The attempt's request; when a tracer provider is registered, as an OpenTelemetry client
   * span whose `traceparent` the receiver gets, to continue the trace.
   */
  private async post(url: URL, headers: Record<string, string>, body: string, endpoint: WebhookEndpoint): Promise<PostAnswer> {
    const agent = this.agentFor(endpoint, url.protocol);
    const otel = telemetry();
    if (otel === null) return post(url, headers, body, agent, this.config.attemptTimeoutMs);
    const span = otel.httpClientSpan('POST', url);
    const answer = await post(url, { ...headers, ...otel.traceHeaders(span) }, body, agent, this.config.attemptTimeoutMs);
    otel.endHttpClient(span, answer.status ?? 0, answer.error);
    return answer;
  }

  /** Closes the connections kept for an endpoint (removed). */
  forget(endpointId: string): void {
    this.agents.get(endpointId)?.destroy();
    this.agents.delete(endpointId);
  }

  /** Closes every connection kept. */
  destroyAll(): void {
    for (const agent of this.agents.values()) agent.destroy();
  }

  /**
   * The endpoint disabled with `reason` (as after a 410: a `disabled` the admin sees in the
   * endpoint view and clears with enable), then the refusal recorded as an attempt without an
   * answer. The delivery stays pending, like the endpoint's other deliveries while it is
   * disabled: enabled again where its URL is allowed, it is sent; enabled where it is not, it is
   * refused again. Saved before the record, so that the record's release of the claim finds the
   * endpoint disabled and no instance claims its deliveries meanwhile.
   */
  private async refuse({ delivery, endpoint }: ClaimedDelivery, reason: string): Promise<void> {
    const at = new Date().toISOString();
    // The endpoint as it is in the store (a secret rotated meanwhile is kept; a removed one stays removed).
    const current = (await this.store.endpoints()).find((candidate) => candidate.id === endpoint.id);
    if (current !== undefined && current.disabled === null) await this.store.saveEndpoint({ ...current, disabled: { reason, at } });
    const attempt: DeliveryAttempt = { at, durationMs: 0, status: null, error: reason, responseBody: '' };
    await this.store.recordAttempt(delivery.id, { attempt, status: 'pending', nextAttemptAt: Date.now(), effect: { kind: 'pending', disableAfter: this.config.disableAfter, at } });
  }

  private agentFor(endpoint: WebhookEndpoint, protocol: string): http.Agent {
    let agent = this.agents.get(endpoint.id);
    if (agent === undefined) {
      const { allowedHosts, perEndpoint, lookup } = this.config;
      agent = guardedAgent(protocol === 'https:' ? 'https:' : 'http:', { allowedHosts, maxSockets: perEndpoint, ...(lookup === undefined ? {} : { lookup }) });
      this.agents.set(endpoint.id, agent);
    }
    return agent;
  }
}
