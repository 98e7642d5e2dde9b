/**
 * CORS: which web pages, by origin, a browser lets read this server's answers.
 *
 * The server lists the origins it trusts. A request from a listed origin gets
 * `Access-Control-Allow-Origin` naming it (never `*` with credentials), and its preflight
 * (`OPTIONS` with `Access-Control-Request-Method`) is answered 204 with the methods and headers
 * allowed. A request from any other origin gets no CORS header at all, so the browser keeps
 * the answer from the page: nothing is refused here, the browser enforces it. With a list of
 * origins, every answer varies by Origin, which `Vary: Origin` tells caches.
 *
 * Transport-free: it reads header values and returns headers to add.
 */
import { describe } from '../jsutils/describe.ts';
import { LruCache } from '../jsutils/lruCache.ts';
import { DEFAULT_CSRF_HEADERS } from './csrf.ts';

export interface CorsOptions {
  /** Origins allowed, as browsers send them (`https://app.example.com`), or `'*'` for any (not with credentials). */
  origins: ReadonlyArray<string> | '*';
  /** Let pages send credentials mode requests and read the answers (`Access-Control-Allow-Credentials`; default false). */
  credentials?: boolean;
  /**
   * Request headers allowed besides the CORS-safelisted ones (default: content-type,
   * authorization, x-api-key, and the CSRF prevention headers x-graphql-csrf,
   * apollo-require-preflight, x-apollo-operation-name).
   */
  allowedHeaders?: ReadonlyArray<string>;
  /** Response headers pages may read besides the safelisted ones (default: etag). */
  exposedHeaders?: ReadonlyArray<string>;
  /** How long a browser may keep a preflight's answer, in seconds (default 600). */
  maxAgeSeconds?: number;
}

export interface CorsPolicy {
  /** Headers for the answer to a request from `origin`: CORS headers when it is allowed; else only `Vary: Origin` (with a list), or none. */
  headers(origin: string | undefined): Readonly<Record<string, string>> | null;
  /** The answer to a preflight from `origin`: 204 with CORS headers when listed, without when not. */
  preflight(origin: string | undefined): Record<string, string>;
}

// A listed page may send whichever header CSRF prevention accepts (csrf.ts).
const DEFAULT_ALLOWED_HEADERS = ['content-type', 'authorization', 'x-api-key', ...DEFAULT_CSRF_HEADERS];

export function createCors(options: CorsOptions, methods: ReadonlyArray<string>): CorsPolicy {
  if (options === null || typeof options !== 'object') throw new TypeError(`cors: expected options, got ${describe(options)}.`);
  const { origins } = options;
  const anyOrigin = origins === '*';
  if (!anyOrigin && (!Array.isArray(origins) || origins.some((origin) => typeof origin !== 'string'))) {
    throw new TypeError(`cors.origins must be a list of origins (like "https://app.example.com") or "*", got ${describe(origins)}.`);
  }
  const credentials = options.credentials ?? false;
  if (anyOrigin && credentials) {
    throw new TypeError('cors: origins "*" cannot be combined with credentials: true; list the origins that may send credentials.');
  }
  // Origins compare as browsers serialize them: scheme and host in lower case, no trailing slash.
  const allowed = new Set(anyOrigin ? [] : origins.map((origin) => origin.trim().toLowerCase().replace(/\/$/, '')));
  const vary = anyOrigin ? null : 'Origin';
  // Keyed by the Origin as sent: a listed origin can be sent in many spellings (case), so the
  // verdicts are bounded, not one per spelling.
  const perOrigin = new LruCache<string, Readonly<Record<string, string>>>(256, { maxBytes: 1 << 20 });
  const exposed = (options.exposedHeaders ?? ['etag']).join(', ');
  const preflightHeaders: Record<string, string> = {
    'access-control-allow-methods': methods.join(', '),
    'access-control-allow-headers': (options.allowedHeaders ?? DEFAULT_ALLOWED_HEADERS).join(', '),
    'access-control-max-age': String(options.maxAgeSeconds ?? 600),
  };

  function build(allowOrigin: string): Readonly<Record<string, string>> {
    const own: Record<string, string> = { 'access-control-allow-origin': allowOrigin };
    if (vary !== null) own['vary'] = vary;
    if (credentials) own['access-control-allow-credentials'] = 'true';
    if (exposed !== '') own['access-control-expose-headers'] = exposed;
    return own;
  }
  const forAnyOrigin = anyOrigin ? build('*') : null;

  // With a list, every answer depends on the Origin (the Fetch standard's "CORS protocol and
  // HTTP caches"): even one with no CORS header says so, or a cache could serve it to a listed origin.
  const varyOnly = vary === null ? null : { vary };

  function headers(origin: string | undefined): Readonly<Record<string, string>> | null {
    if (forAnyOrigin !== null) return origin === undefined ? null : forAnyOrigin;
    if (origin === undefined) return varyOnly;
    let found = perOrigin.get(origin);
    if (found === undefined) {
      if (!allowed.has(origin.toLowerCase())) return varyOnly;
      // Each origin's headers are made once while it is in use.
      found = build(origin);
      perOrigin.set(origin, found);
    }
    return found;
  }

  return {
    headers,
    preflight(origin) {
      const own = headers(origin);
      if (own === null || own === varyOnly) return { ...own };
      return { ...own, ...preflightHeaders };
    },
  };
}
