/**
 * The registered endpoints: registration (its URL checked against SSRF, callbackUrl.ts), the
 * views the API shows, secret rotation, enabling a disabled endpoint again, removal.
 */
import { randomBytes } from 'node:crypto';
import { describe } from '../jsutils/describe.ts';
import { validateCallbackUrl } from './callbackUrl.ts';
import { generateSecret } from './signing.ts';
import type { WebhookEndpoint, WebhookStore } from './store.ts';
import type { WebhooksConfig } from './webhookConfig.ts';
import { ErrorCode } from '../errors/codes.ts';
import { WebhookError } from './webhookError.ts';

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

export interface EndpointInput {
  url: string;
  events: ReadonlyArray<string>;
  description?: string | null;
}

const MAX_DESCRIPTION = 500;

export class EndpointRegistry {
  private readonly store: WebhookStore;
  private readonly config: WebhooksConfig;

  constructor(store: WebhookStore, config: WebhooksConfig) {
    this.store = store;
    this.config = config;
  }

  async list(): Promise<EndpointView[]> {
    return (await this.store.endpoints()).map(view);
  }

  async get(id: string): Promise<EndpointView | null> {
    const endpoint = (await this.store.endpoints()).find((candidate) => candidate.id === id);
    return endpoint === undefined ? null : view(endpoint);
  }

  /** The stored endpoint, or the NOT_FOUND refusal. */
  async find(id: string): Promise<WebhookEndpoint> {
    const endpoint = (await this.store.endpoints()).find((candidate) => candidate.id === id);
    if (endpoint === undefined) throw new WebhookError(`No webhook endpoint has id "${id}".`, ErrorCode.NotFound);
    return endpoint;
  }

  async register(input: EndpointInput): Promise<{ endpoint: EndpointView; secret: string }> {
    if (input === null || typeof input !== 'object') throw new WebhookError('register needs { url, events }.', ErrorCode.BadUserInput);
    const { production, allowedHosts, allowedHostsSetting, lookupAll } = this.config;
    const url = await validateCallbackUrl(input.url, {
      production,
      allowedHosts,
      ...(allowedHostsSetting === undefined ? {} : { allowedHostsSetting }),
      ...(lookupAll === undefined ? {} : { lookup: lookupAll }),
    });
    if (typeof url === 'string') throw new WebhookError(url, ErrorCode.WebhookInvalidUrl);
    const events = checkEvents(input.events, this.config.eventTypes);
    const description = input.description ?? null;
    if (description !== null && (typeof description !== 'string' || description.length > MAX_DESCRIPTION)) {
      throw new WebhookError(`description must be a string of at most ${MAX_DESCRIPTION} characters.`, ErrorCode.BadUserInput);
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
    await this.store.saveEndpoint(endpoint);
    return { endpoint: view(endpoint), secret };
  }

  /** A new secret; the secrets in force keep signing for `graceSeconds`, so receivers can switch. */
  async rotateSecret(id: string, rotation: { graceSeconds?: number } = {}): Promise<{ endpoint: EndpointView; secret: string }> {
    const graceSeconds = rotation.graceSeconds ?? 86_400;
    if (!Number.isFinite(graceSeconds) || graceSeconds < 0) throw new WebhookError(`graceSeconds must be a number of seconds, got ${describe(graceSeconds)}.`, ErrorCode.BadUserInput);
    const endpoint = await this.find(id);
    const now = Date.now();
    const secret = generateSecret();
    const kept = endpoint.secrets
      .filter((each) => each.expiresAt === null || each.expiresAt > now)
      .map((each) => ({ secret: each.secret, expiresAt: each.expiresAt ?? now + graceSeconds * 1000 }))
      .filter((each) => each.expiresAt > now);
    const rotated: WebhookEndpoint = { ...endpoint, secrets: [...kept, { secret, expiresAt: null }] };
    await this.store.saveEndpoint(rotated);
    return { endpoint: view(rotated), secret };
  }

  /** The endpoint enabled again, its failure count reset. */
  async enable(id: string): Promise<EndpointView> {
    const endpoint = await this.find(id);
    const enabled: WebhookEndpoint = { ...endpoint, disabled: null, consecutiveFailures: 0 };
    await this.store.saveEndpoint(enabled);
    return view(enabled);
  }

  remove(id: string): Promise<boolean> {
    return this.store.removeEndpoint(id);
  }
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

function checkEvents(events: unknown, known: ReadonlyArray<string>): string[] {
  if (!Array.isArray(events) || events.length === 0) throw new WebhookError('events must be a non-empty list of event types.', ErrorCode.BadUserInput);
  const unknown = events.filter((type) => typeof type !== 'string' || !known.includes(type));
  if (unknown.length > 0) {
    throw new WebhookError(`Unknown event type${unknown.length === 1 ? '' : 's'} ${unknown.map((type) => JSON.stringify(type)).join(', ')}; the types are: ${known.join(', ')}.`, ErrorCode.WebhookUnknownEventType);
  }
  return [...new Set(events as string[])];
}

/** A random id part: 12 random bytes, base64url. */
export function randomId(): string {
  return randomBytes(12).toString('base64url');
}
