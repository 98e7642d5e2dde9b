/**
 * The GraphiQL IDE in the browser, served by the server itself from assets bundled at build
 * time (scripts/build-graphiql.ts writes them to dist/graphiql/): no CDN, and it works with no
 * internet. Transport-free like handler.ts: a pathname and headers in, `[body, init]` out.
 *
 *   GET <path>, Accept preferring text/html          the page (a strict Content-Security-Policy)
 *   GET <path>/graphiql/<file>                       a file the manifest names; anything else 404
 *   assets not built                                 503, saying to run `npm run build:graphiql`
 *   the IDE off (production), Accept preferring HTML  406, a short page saying it is off and how to query
 *
 * The assets live under the endpoint's own path so that a proxy which forwards only the
 * endpoint forwards the IDE too, and the page refers to them relatively, so that it also
 * works when a proxy mounts the server under another path.
 *
 * A request's file name is looked up, as a string, among the names manifest.json lists; the
 * file system is never asked about a name a client sent. So no spelling of `..`, encoded
 * slashes, backslashes or NUL can reach a file: they simply are not names in the manifest.
 */
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { pathToFileURL } from 'node:url';
import { ErrorCode, errorBody, httpStatus } from '../../errors/codes.ts';
import type { PromiseOrValue } from '../../jsutils/promiseOrValue.ts';
import type { HandlerResponse, PlainRequest } from './handler.ts';
import { etagOf, headerOf, matchesEtag, mediaRanges } from '../httpHeaders.ts';
import { memoizeText } from '../../jsutils/lruCache.ts';
import { JSON_CONTENT_TYPE as JSON_RESPONSE } from '../../jsutils/jsonContentType.ts';

export interface GraphiqlOptions {
  /** The page's title (default `GraphiQL`). */
  title?: string;
  /** The query a new tab starts with (default GraphiQL's own). */
  defaultQuery?: string;
  /** Where the built assets are: a directory path or file: URL (default the package's dist/graphiql/). */
  assetsDirectory?: string | URL;
}

/** What the handler knows that the page needs. */
export interface GraphiqlSettings {
  /** The endpoint's path: where the page is served. */
  path: string;
  /** The handler's `graphiql` option. */
  option: boolean | GraphiqlOptions | undefined;
  /** The pipeline's production flag: the page is off there unless asked for. */
  production: boolean;
  /** Whether a graphql-transport-ws WebSocket listens on the same path, for subscriptions. */
  webSocket: boolean;
}

export interface GraphiqlRoutes {
  /** The answer to a GET of the page or of an asset; null for a request that is neither. */
  serve(pathname: string, headers: PlainRequest['headers']): PromiseOrValue<HandlerResponse> | null;
}

/** The package's dist/graphiql/, from src/transports/http/ as from dist/transports/http/. */
const DEFAULT_ASSETS = new URL('../../../dist/graphiql/', import.meta.url);
const NOT_BUILT = 'The GraphiQL assets are not built: run `npm run build:graphiql` (or `npm run build`), then reload.';

/** The page and its assets; when the IDE is off (by default in production), a page that says so. */
export function createGraphiql(settings: GraphiqlSettings): GraphiqlRoutes {
  const { option } = settings;
  if (option === false || (option === undefined && settings.production)) return new GraphiqlOff(settings.path, option === false ? 'graphiql: false' : 'production');
  const options = typeof option === 'object' && option !== null ? option : {};
  for (const name of ['title', 'defaultQuery'] as const) {
    if (options[name] !== undefined && typeof options[name] !== 'string') throw new TypeError(`graphiql.${name} must be a string, got ${typeof options[name]}.`);
  }
  return new GraphiqlPages(settings.path, options, settings.webSocket);
}

/** The IDE at the endpoint's path: its page for a browser's GET, its built assets under `<path>/graphiql/`. */
class GraphiqlPages implements GraphiqlRoutes {
  private readonly title: string;
  private readonly assets: Assets;
  /** Where the assets are served. */
  private readonly prefix: string;
  /** The same, relative to the page (the endpoint): `./graphql/graphiql/` from `/graphql`. */
  private readonly relativePrefix: string;

  constructor(
    private readonly path: string,
    private readonly options: GraphiqlOptions,
    private readonly webSocket: boolean,
  ) {
    this.title = options.title ?? 'GraphiQL';
    this.assets = new Assets(directoryOf(options.assetsDirectory));
    this.prefix = `${path.endsWith('/') ? path : path + '/'}graphiql/`;
    this.relativePrefix = `./${path.endsWith('/') ? '' : path.slice(path.lastIndexOf('/') + 1) + '/'}graphiql/`;
  }

  serve(pathname: string, headers: PlainRequest['headers']): PromiseOrValue<HandlerResponse> | null {
    // The asset's name, or null for the page.
    let name: string | null;
    if (pathname === this.path) {
      if (!prefersHtml(headerOf(headers, 'accept'))) return null;
      name = null;
    } else if (pathname.startsWith(this.prefix)) {
      name = pathname.slice(this.prefix.length);
    } else {
      return null;
    }
    const answer = (manifest: Manifest | null): PromiseOrValue<HandlerResponse> =>
      manifest === null ? notBuilt() : name === null ? this.page(headers, manifest) : this.asset(name, headers, manifest);
    const manifest = this.assets.manifest();
    return manifest instanceof Promise ? manifest.then(answer) : answer(manifest);
  }

  private page(headers: PlainRequest['headers'], manifest: Manifest): HandlerResponse {
    // A fresh nonce per page: the one inline <style> GraphiQL's dialogs inject carries it
    // (read from __webpack_nonce__, which main.jsx sets from the config).
    const styleNonce = randomBytes(16).toString('base64');
    const { title, webSocket, options } = this;
    const config = { title, webSocket, styleNonce, ...(options.defaultQuery !== undefined ? { defaultQuery: options.defaultQuery } : {}) };
    const html = pageHtml(title, config, this.relativePrefix + manifest.css, this.relativePrefix + manifest.js);
    return [
      html,
      {
        status: 200,
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': contentSecurityPolicy(styleNonce, webSocket ? headerOf(headers, 'host') : undefined),
          // Never reused: each page has its own nonce.
          'cache-control': 'no-store',
          // The same URL answers JSON to API clients.
          vary: 'Accept',
          'x-content-type-options': 'nosniff',
          'referrer-policy': 'no-referrer',
        },
      },
    ];
  }

  private asset(name: string, headers: PlainRequest['headers'], manifest: Manifest): PromiseOrValue<HandlerResponse> {
    const file = manifest.files.get(name);
    if (file === undefined) return failure(ErrorCode.NotFound, `Nothing is served at ${this.prefix}${name}; GraphiQL has no such file.`);
    if (file.loaded !== undefined) return assetResponse(file, file.loaded, headers);
    return this.assets.read(file).then((loaded) => (loaded === null ? notBuilt() : assetResponse(file, loaded, headers)));
  }
}

/**
 * The IDE off: a browser opening the endpoint is told so, in a page it shows, instead of a JSON
 * refusal it would show as text (406 NOT_ACCEPTABLE, or CSRF_PREVENTED for a browser whose
 * Accept also allows any type). The status is 406: the URL exists (it is the GraphQL endpoint, and
 * answers JSON to the same GET from an API client), only not as HTML, which is what 406 says
 * (RFC 9110 §15.5.7, its body naming the representations there are); a 404 would tell a
 * browser, a crawler or a monitor that there is nothing at the endpoint. Apollo Server's
 * production landing page is a 200, which a monitor would take for the IDE itself. Nothing
 * else is served: the assets' URLs are 404s, as for any other path.
 */
class GraphiqlOff implements GraphiqlRoutes {
  private readonly answer: HandlerResponse;

  constructor(
    private readonly path: string,
    why: 'production' | 'graphiql: false',
  ) {
    const reason = why === 'production' ? 'in production (NODE_ENV=production, or the production option)' : 'on this server (graphiql: false)';
    const text =
      `GraphiQL is off ${reason}. This URL is the GraphQL endpoint: send GraphQL requests to it with ` +
      'POST, Content-Type: application/json and Accept: application/graphql-response+json.' +
      (why === 'production' ? ' To serve GraphiQL in production anyway, set graphiql: true.' : '');
    const html = `<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>GraphiQL is off</title></head>\n<body><p>${escapeHtml(text)}</p></body>\n</html>\n`;
    this.answer = [
      html,
      {
        status: 406,
        headers: {
          'content-type': 'text/html; charset=utf-8',
          'content-security-policy': "default-src 'none'",
          // The same URL answers JSON to API clients.
          vary: 'Accept',
          'x-content-type-options': 'nosniff',
        },
      },
    ];
  }

  serve(pathname: string, headers: PlainRequest['headers']): HandlerResponse | null {
    return pathname === this.path && prefersHtml(headerOf(headers, 'accept')) ? this.answer : null;
  }
}

interface AssetFile {
  readonly name: string;
  readonly contentType: string;
  /** The name carries a content hash: the file under it never changes. */
  readonly hashed: boolean;
  loaded?: LoadedFile;
}

interface LoadedFile {
  readonly body: string;
  readonly etag: string;
}

interface Manifest {
  readonly js: string;
  readonly css: string;
  /** Every file that may be served, by name: the only names a request can reach. */
  readonly files: Map<string, AssetFile>;
}

/**
 * The built assets, read into memory on first use (each file when first asked for: the source
 * maps are only fetched by developer tools). A manifest that is missing or unreadable is not
 * remembered, so that building while the server runs is enough.
 */
class Assets {
  private known: Manifest | null = null;
  private loading: Promise<Manifest | null> | null = null;
  private readonly reading = new Map<string, Promise<LoadedFile | null>>();

  constructor(private readonly directory: URL) {}

  manifest(): PromiseOrValue<Manifest | null> {
    if (this.known !== null) return this.known;
    this.loading ??= readFile(new URL('manifest.json', this.directory), 'utf8').then(
      (text) => {
        this.loading = null;
        this.known = parseManifest(text);
        return this.known;
      },
      () => {
        this.loading = null;
        return null;
      },
    );
    return this.loading;
  }

  /** A file's text, or null when it cannot be read (the build is incomplete). */
  read(file: AssetFile): Promise<LoadedFile | null> {
    let reading = this.reading.get(file.name);
    if (reading === undefined) {
      reading = readFile(new URL(file.name, this.directory), 'utf8').then(
        (body) => {
          this.reading.delete(file.name);
          return (file.loaded = { body, etag: etagOf(body) });
        },
        () => {
          this.reading.delete(file.name);
          // Rebuilt under the running server, perhaps: read the manifest again next time.
          this.known = null;
          return null;
        },
      );
      this.reading.set(file.name, reading);
    }
    return reading;
  }
}

function parseManifest(text: string): Manifest | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return null;
  }
  const { entries, files } = (parsed ?? {}) as { entries?: { js?: unknown; css?: unknown }; files?: Record<string, { hashed?: unknown }> };
  if (typeof entries?.js !== 'string' || typeof entries.css !== 'string' || typeof files !== 'object' || files === null) return null;
  const byName = new Map<string, AssetFile>();
  for (const [name, entry] of Object.entries(files)) {
    // Our own build writes the manifest; a name that is not a plain file name is refused all the same.
    if (!/^[A-Za-z0-9_-][A-Za-z0-9._-]*$/.test(name)) continue;
    byName.set(name, { name, contentType: contentTypeOf(name), hashed: entry?.hashed === true });
  }
  if (!byName.has(entries.js) || !byName.has(entries.css)) return null;
  return { js: entries.js, css: entries.css, files: byName };
}

function assetResponse(file: AssetFile, loaded: LoadedFile, headers: PlainRequest['headers']): HandlerResponse {
  const cacheControl = file.hashed ? 'public, max-age=31536000, immutable' : 'no-cache';
  if (matchesEtag(headerOf(headers, 'if-none-match'), loaded.etag)) {
    return [null, { status: 304, headers: { etag: loaded.etag, 'cache-control': cacheControl } }];
  }
  return [
    loaded.body,
    { status: 200, headers: { 'content-type': file.contentType, etag: loaded.etag, 'cache-control': cacheControl, 'x-content-type-options': 'nosniff' } },
  ];
}

function contentTypeOf(name: string): string {
  if (name.endsWith('.js')) return 'text/javascript; charset=utf-8';
  if (name.endsWith('.css')) return 'text/css; charset=utf-8';
  if (name.endsWith('.map') || name.endsWith('.json')) return JSON_RESPONSE;
  if (name.endsWith('.txt')) return 'text/plain; charset=utf-8';
  return 'application/octet-stream';
}

function failure(code: ErrorCode, message: string): HandlerResponse {
  return [errorBody(code, message), { status: httpStatus(code), headers: { 'content-type': JSON_RESPONSE, 'cache-control': 'no-store' } }];
}

function notBuilt(): HandlerResponse {
  return failure(ErrorCode.ServiceUnavailable, NOT_BUILT);
}

function directoryOf(directory: string | URL | undefined): URL {
  if (directory === undefined) return DEFAULT_ASSETS;
  const url = directory instanceof URL ? directory : pathToFileURL(directory);
  // A directory URL ends with a slash, or its last segment would be replaced by the file name.
  return url.href.endsWith('/') ? url : new URL(url.href + '/');
}

/**
 * The policy: scripts and styles only from this origin (the JSON config is a data block, which
 * is never executed, so it needs no exception), GraphiQL's one injected <style> by nonce, its
 * fonts as data: URLs, requests to this origin and, for subscriptions, its WebSocket.
 */
function contentSecurityPolicy(styleNonce: string, host: string | undefined): string {
  // 'self' covers ws: and wss: in CSP 3; the explicit sources are for browsers before it. The
  // Host header is the client's own, but it must look like a host before it goes in a header.
  const sockets = host !== undefined && HOST.test(host) ? ` ws://${host} wss://${host}` : '';
  return [
    "default-src 'none'",
    "script-src 'self'",
    `style-src 'self' 'nonce-${styleNonce}'`,
    "img-src 'self' data:",
    "font-src 'self' data:",
    `connect-src 'self'${sockets}`,
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** A host name, IPv4 or bracketed IPv6 address, with an optional port. */
const HOST = /^(?:[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?|\[[0-9A-Fa-f:.]{2,45}\])(?::\d{1,5})?$/;

function pageHtml(title: string, config: Record<string, unknown>, css: string, js: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="${escapeHtml(css)}">
<script type="application/json" id="graphiql-config">${scriptJson(config)}</script>
<script defer src="${escapeHtml(js)}"></script>
</head>
<body>
<div id="graphiql"><noscript>GraphiQL needs JavaScript.</noscript></div>
</body>
</html>
`;
}

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&#${char.charCodeAt(0)};`);
}

/**
 * JSON inside a <script> element: `<` escaped, so that no `</script>` or `<!--` in a value can
 * end the element or change how it is parsed; `>` and `&` too, and the two line separators
 * JavaScript did not always allow in strings. The result is still JSON, with the same value.
 */
function scriptJson(value: unknown): string {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * Whether the Accept header prefers a web page to any JSON (or event stream) answer: a
 * browser's navigation (`text/html,...,*\/*;q=0.8`) does, API clients and `*\/*` alone do not.
 * A tie goes to JSON, so that a client listing both equally still gets the API.
 */
function prefersHtml(accept: string | undefined): boolean {
  return accept !== undefined && htmlPreferred(accept);
}

const htmlPreferred = memoizeText((accept: string): boolean => {
  let html = 0;
  let api = 0;
  for (const { type, q } of mediaRanges(accept)) {
    if (type === 'text/html' || type === 'application/xhtml+xml') html = Math.max(html, q);
    else if (type === 'application/json' || type === 'application/graphql-response+json' || type === 'text/event-stream') api = Math.max(api, q);
  }
  return html > api;
});
