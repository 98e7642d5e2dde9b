/**
 * The demo server's security settings, from the environment. With none set, `npm start` serves
 * anonymous callers and accepts the three demo API keys (outside production only).
 *
 *   JWT_PUBLIC_KEY     the token issuer's public key: PEM text, or the path of a PEM file
 *   JWKS_URL           or the issuer's JSON Web Key Set URL (one of the two)
 *   JWT_ISSUER         the accepted `iss` (advised with either)
 *   JWT_AUDIENCE       this API's identifier, the accepted `aud` (advised with either)
 *   OAUTH2_INTROSPECTION_URL, OAUTH2_CLIENT_ID, OAUTH2_CLIENT_SECRET
 *                      opaque access tokens, checked at the issuer (RFC 7662)
 *   REQUIRE_AUTH       true: refuse requests without a credential (401)
 *   CORS_ORIGINS       web origins allowed to call the API, separated by commas (or *)
 *   RATE_LIMIT_PER_MINUTE   operations per client per minute (default: no limit); admins get 10×
 *   COST_LIMIT_PER_MINUTE   query-cost points per client per minute (default: no limit); admins 10×
 *   RATE_LIMIT_HOLD_MS      with either limit, how long a 429 is held before it is sent (default 1000; 0: at once)
 *   TRUST_PROXY        how many proxies in front append to X-Forwarded-For (default 0)
 *   REDIS_URL          events, rate limits and persisted queries go through Redis, so that
 *                      several instances share subscriptions, budgets and registered queries
 *   DATA_DIR           where the webhooks' embedded store lives (default ./data; with REDIS_URL, Redis instead)
 *   WEBHOOK_ALLOWED_HOSTS   hosts exempt from the private-address rule, separated by commas
 *   WEBHOOK_RETRY_SCHEDULE  seconds between attempts, separated by commas (default 5,300,1800,7200,18000,36000,36000)
 *   METRICS_TOKEN      the bearer token /metrics requires (at least 16 characters, no spaces);
 *                      unset: /metrics is open outside production, and off (404) in production
 *   NODE_ENV           production: demo keys refused (401), no introspection, errors masked,
 *                      no /metrics without METRICS_TOKEN
 *   LOG_LEVEL          debug, info (the demo's default: a JSON line per request), warn, error or silent
 */
import { readFileSync } from 'node:fs';
import { createPubSub } from '../events/pubsub.ts';
import type { PubSub } from '../events/pubsub.ts';
import { createRedisPubSub } from '../events/redisPubSub.ts';
import { apiKeyAuth, hashApiKey } from '../security/apiKeyAuth.ts';
import type { Authenticator } from '../security/authenticate.ts';
import type { CorsOptions } from '../security/cors.ts';
import type { MetricsOptions } from '../observability/endpoints.ts';
import type { RateLimitOptions } from '../ratelimit/rateLimiter.ts';
import type { PersistedQueriesOptions } from '../security/trustedDocuments.ts';
import { jwtAuth } from '../security/jwtAuth.ts';
import { oauth2IntrospectionAuth } from '../security/oauth2IntrospectionAuth.ts';
import { FileStore } from '../webhooks/fileStore.ts';
import { RedisWebhookStore } from '../webhooks/redisStore.ts';
import { DEFAULT_RETRY_SCHEDULE, createWebhooks } from '../webhooks/webhooks.ts';
import type { Webhooks } from '../webhooks/webhooks.ts';
import { DEMO_EVENT_TYPES } from './librarySchema.ts';
import { LOG_LEVELS } from '../observability/requestLog.ts';
import type { LogLevel } from '../observability/requestLog.ts';
import type { WebhookStore } from '../webhooks/store.ts';

/** The demo API keys: each key is also its id, and has the role it names. Refused in production. */
export const DEMO_API_KEYS = [
  { key: 'demo-reader', roles: ['reader'] },
  { key: 'demo-editor', roles: ['editor'] },
  { key: 'demo-admin', roles: ['admin'] },
] as const;

export interface DemoSecurity {
  production: boolean;
  authenticate: Authenticator[];
  requireAuthentication: boolean;
  cors?: CorsOptions;
  rateLimit?: RateLimitOptions;
  trustProxy?: number;
  persistedQueries?: PersistedQueriesOptions;
  /** createServer's `metrics`: see demoMetrics. */
  metrics: boolean | MetricsOptions;
}

/** The settings the environment asks for; throws a TypeError naming a variable that is wrong. */
export function demoSecurity(env: Readonly<Record<string, string | undefined>>): DemoSecurity {
  const production = env['NODE_ENV'] === 'production';
  const authenticate: Authenticator[] = [];
  const publicKey = set(env['JWT_PUBLIC_KEY']);
  const jwksUrl = set(env['JWKS_URL']);
  if (publicKey !== undefined && jwksUrl !== undefined) throw new TypeError('Set JWT_PUBLIC_KEY or JWKS_URL, not both.');
  if (publicKey !== undefined || jwksUrl !== undefined) {
    authenticate.push(
      jwtAuth({
        ...(publicKey !== undefined ? { publicKey: readPem(publicKey) } : { jwksUrl: checkedUrl('JWKS_URL', jwksUrl as string) }),
        issuer: set(env['JWT_ISSUER']),
        audience: set(env['JWT_AUDIENCE']),
      }),
    );
  }
  const introspectionUrl = set(env['OAUTH2_INTROSPECTION_URL']);
  if (introspectionUrl !== undefined) {
    const clientId = set(env['OAUTH2_CLIENT_ID']);
    const clientSecret = set(env['OAUTH2_CLIENT_SECRET']);
    if (clientId === undefined || clientSecret === undefined) {
      throw new TypeError('OAUTH2_INTROSPECTION_URL needs OAUTH2_CLIENT_ID and OAUTH2_CLIENT_SECRET too.');
    }
    authenticate.push(
      oauth2IntrospectionAuth({ introspectionUrl: checkedUrl('OAUTH2_INTROSPECTION_URL', introspectionUrl), clientId, clientSecret }),
    );
  }
  const requireAuthentication = flag('REQUIRE_AUTH', env['REQUIRE_AUTH']);
  if (production && requireAuthentication && authenticate.length === 0) {
    throw new TypeError(
      'REQUIRE_AUTH=true in production needs JWT_PUBLIC_KEY, JWKS_URL or OAUTH2_INTROSPECTION_URL: the demo keys are not accepted there, so nobody could get in.',
    );
  }
  // In production API keys are still read, and refused: the demo keys are for development only.
  const keys = production ? [] : DEMO_API_KEYS.map(({ key, roles }) => ({ id: key, hash: hashApiKey(key), roles }));
  authenticate.push(apiKeyAuth({ keys }));
  const security: DemoSecurity = { production, authenticate, requireAuthentication, metrics: demoMetrics(env, production) };
  const origins = set(env['CORS_ORIGINS']);
  if (origins !== undefined) security.cors = { origins: origins.trim() === '*' ? '*' : origins.split(',').map(checkedOrigin) };
  const trustProxy = set(env['TRUST_PROXY']);
  if (trustProxy !== undefined) security.trustProxy = count('TRUST_PROXY', trustProxy, 0);
  const rateLimit = demoRateLimit(env);
  if (rateLimit !== undefined) security.rateLimit = rateLimit;
  if (set(env['REDIS_URL']) !== undefined) security.persistedQueries = { store: { type: 'redis', url: set(env['REDIS_URL']) as string } };
  return security;
}

/**
 * `/metrics` from METRICS_TOKEN: when set, a scrape must send `Authorization: Bearer <token>`.
 * Unset, the metrics are open outside production, as the library serves them by default, and
 * off in production (404, and nothing counted).
 *
 * Production without a token turns the metrics off rather than refusing to start: they are an
 * extra, not the service, and a demo that will not start over an optional route is worse than
 * one that serves without it. Serving them open is not an option there: they tell anyone the
 * traffic, the error codes, the cache behaviour and the process's memory (docs/operations.md,
 * Exposure). Off leaks nothing, and main.ts says at startup which variable turns them on.
 * REQUIRE_AUTH without an issuer is refused instead, because that server could serve nobody.
 */
function demoMetrics(env: Readonly<Record<string, string | undefined>>, production: boolean): boolean | MetricsOptions {
  const value = set(env['METRICS_TOKEN']);
  if (value === undefined) return !production;
  const token = value.trim();
  // The rule createServer applies (observability/endpoints.ts), stated here with the variable's name and without the secret.
  if (token.length < 16) throw new TypeError(`METRICS_TOKEN must be at least 16 characters long; it has ${token.length}.`);
  if (/\s/.test(token)) throw new TypeError('METRICS_TOKEN must not contain spaces or other whitespace.');
  return { token };
}

/** Budgets per minute from the environment (none unless asked), shared through Redis when REDIS_URL is set; admins get ten times as much. */
function demoRateLimit(env: Readonly<Record<string, string | undefined>>): RateLimitOptions | undefined {
  const requests = set(env['RATE_LIMIT_PER_MINUTE']);
  const cost = set(env['COST_LIMIT_PER_MINUTE']);
  if (requests === undefined && cost === undefined) return undefined;
  const perMinute = (limit: number) => ({ limit, windowSeconds: 60 });
  const options: RateLimitOptions = {};
  const admin: NonNullable<RateLimitOptions['roles']>[string] = {};
  if (requests !== undefined) {
    const limit = count('RATE_LIMIT_PER_MINUTE', requests, 1);
    options.requests = perMinute(limit);
    admin.requests = perMinute(limit * 10);
  }
  if (cost !== undefined) {
    const limit = count('COST_LIMIT_PER_MINUTE', cost, 1);
    options.cost = perMinute(limit);
    admin.cost = perMinute(limit * 10);
  }
  options.roles = { admin };
  // A client over its budget gets its 429 after a second: one that waits for each answer then
  // sends about one request a second per connection, rather than one per refusal's microseconds.
  const hold = set(env['RATE_LIMIT_HOLD_MS']);
  options.holdRefusalsMs = hold === undefined ? 1000 : count('RATE_LIMIT_HOLD_MS', hold, 0);
  const redisUrl = set(env['REDIS_URL']);
  if (redisUrl !== undefined) options.store = { type: 'redis', url: redisUrl };
  return options;
}

function count(name: string, value: string, least: number): number {
  const number = Number(value.trim());
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(number) || number < least) {
    throw new TypeError(`${name} must be a whole number${least > 0 ? ` of at least ${least}` : ''}, got "${value}".`);
  }
  return number;
}

/** The pub/sub the demo's events go through: Redis when REDIS_URL is set (several instances share it), else memory. */
export function demoEvents(env: Readonly<Record<string, string | undefined>>): PubSub {
  const url = set(env['REDIS_URL']);
  return url === undefined ? createPubSub() : createRedisPubSub({ url });
}

/**
 * What the demo logs: LOG_LEVEL, `info` by default. The library's default is `warn`; the demo is
 * an application run to be watched, so it shows a line per request.
 */
export function demoLogLevel(env: Readonly<Record<string, string | undefined>>): LogLevel {
  const value = set(env['LOG_LEVEL']);
  if (value === undefined) return 'info';
  const level = value.trim().toLowerCase();
  if (!(LOG_LEVELS as ReadonlyArray<string>).includes(level)) throw new TypeError(`LOG_LEVEL must be one of ${LOG_LEVELS.join(', ')}; got "${value}".`);
  return level as LogLevel;
}

/** The webhooks' store: Redis with REDIS_URL (several instances share it), else the embedded one in DATA_DIR. */
export function demoWebhookStore(env: Readonly<Record<string, string | undefined>>): WebhookStore {
  return set(env['REDIS_URL']) !== undefined ? new RedisWebhookStore({ url: set(env['REDIS_URL']) as string }) : new FileStore({ dir: set(env['DATA_DIR']) ?? './data' });
}

/** The demo's webhooks: their store (demoWebhookStore), the hosts and schedule the environment gives. Not started. */
export function demoWebhooks(env: Readonly<Record<string, string | undefined>>, store: WebhookStore = demoWebhookStore(env)): Webhooks {
  const production = env['NODE_ENV'] === 'production';
  const schedule = set(env['WEBHOOK_RETRY_SCHEDULE']);
  const retrySchedule =
    schedule === undefined
      ? DEFAULT_RETRY_SCHEDULE
      : schedule.split(',').map((part) => {
          const text = part.trim();
          if (!/^\d+(\.\d+)?$/.test(text)) throw new TypeError(`WEBHOOK_RETRY_SCHEDULE must list seconds separated by commas, like 5,300,1800; "${part}" is not a number of seconds.`);
          return Number(text);
        });
  const hosts = set(env['WEBHOOK_ALLOWED_HOSTS']);
  return createWebhooks({
    // Several instances share one Redis: they share the webhooks too, each attempt made by one of them.
    store,
    eventTypes: DEMO_EVENT_TYPES,
    production,
    allowedHosts: hosts === undefined ? [] : hosts.split(',').map((host) => host.trim()).filter((host) => host !== ''),
    allowedHostsSetting: 'WEBHOOK_ALLOWED_HOSTS (hosts separated by commas)',
    retrySchedule,
  });
}

function set(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

function flag(name: string, value: string | undefined): boolean {
  const text = (value ?? '').trim().toLowerCase();
  if (text === '' || text === 'false' || text === '0') return false;
  if (text === 'true' || text === '1') return true;
  throw new TypeError(`${name} must be true or false, got "${value}".`);
}

/** PEM text (with real or `\n`-escaped line breaks, as env files often hold it), or the path of a PEM file. */
function readPem(value: string): string {
  if (value.includes('-----BEGIN')) return value.replace(/\\n/g, '\n');
  try {
    return readFileSync(value, 'utf8');
  } catch (error) {
    throw new TypeError(`JWT_PUBLIC_KEY is neither PEM text nor a readable file: ${(error as Error).message}`);
  }
}

function checkedUrl(name: string, value: string): string {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new TypeError(`${name} must be an absolute URL, got "${value}".`);
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new TypeError(`${name} must be an http(s) URL, got "${value}".`);
  return value;
}

/** An origin is a scheme, a host and maybe a port: `https://app.example.com`. */
function checkedOrigin(value: string): string {
  const origin = value.trim().replace(/\/$/, '');
  let parsed: URL | undefined;
  try {
    parsed = new URL(origin);
  } catch {
    parsed = undefined;
  }
  if (parsed === undefined || parsed.origin !== origin.toLowerCase()) {
    throw new TypeError(`CORS_ORIGINS must list origins like https://app.example.com, separated by commas; "${value.trim()}" is not one.`);
  }
  return origin;
}
