/**
 * The GraphiQL page and its assets (src/transports/http/graphiql.ts), through the handler: the
 * page's HTML, config blob and Content-Security-Policy; the assets' media types, entity tags and
 * caching; the file names a request can reach (only the manifest's, whatever the spelling); when
 * the IDE is on (not in production unless asked); and the 503 that says to build the assets.
 * A fixture build in a temporary directory stands in for dist/graphiql/, so these tests need no
 * bundling; the real build is exercised in graphiql.browser.test.ts.
 */
import net from 'node:net';
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { createHandler, createServer, makeSchema } from '../src/index.ts';
import type { HandlerOptions, HandlerResponse, PlainRequest } from '../src/index.ts';
import { closeNow, listenOnLoopback } from './support/httpServer.ts';

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,image/apng,*/*;q=0.8';
const JSON_RESPONSE = 'application/json; charset=utf-8';
const JS = 'graphiql-ABCD1234.js';
const CSS = 'graphiql-EFGH5678.css';
const MAP = 'graphiql-ABCD1234.js.map';
const JS_TEXT = 'console.log("fixture");\n//# sourceMappingURL=graphiql-ABCD1234.js.map\n';
const CSS_TEXT = 'body { margin: 0; }\n';
const MAP_TEXT = '{"version":3,"sources":[],"mappings":""}';
/** In the assets directory, but not in the manifest: never served. */
const SECRET = 'not for the web';

const schema = makeSchema({ typeDefs: 'type Query { hello: String }', resolvers: { Query: { hello: () => 'world' } } });

let root: string;
let assets: string;

beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'graphiql-test-'));
  assets = path.join(root, 'assets');
  await mkdir(assets);
  await writeFile(path.join(assets, JS), JS_TEXT);
  await writeFile(path.join(assets, CSS), CSS_TEXT);
  await writeFile(path.join(assets, MAP), MAP_TEXT);
  await writeFile(path.join(assets, 'secret.txt'), SECRET);
  await writeFile(path.join(root, 'escape.js'), SECRET);
  await writeFile(path.join(root, 'package.json'), SECRET);
  await writeFile(path.join(assets, 'manifest.json'), JSON.stringify(manifest()));
});

afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

function manifest(extra: Record<string, unknown> = {}) {
  return {
    version: 1,
    entries: { js: JS, css: CSS },
    files: {
      [JS]: { bytes: JS_TEXT.length, sha256: 'x', hashed: true },
      [CSS]: { bytes: CSS_TEXT.length, sha256: 'x', hashed: true },
      [MAP]: { bytes: MAP_TEXT.length, sha256: 'x', hashed: false },
      // A name that is not a plain file name: refused even though the manifest lists it.
      '../escape.js': { bytes: 1, sha256: 'x', hashed: false },
      ...extra,
    },
  };
}

function handlerWith(options: Partial<HandlerOptions> = {}) {
  const handle = createHandler({ schema, graphiql: { assetsDirectory: assets }, ...options });
  return (url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<HandlerResponse> =>
    Promise.resolve(handle({ method, url, headers, body: null, raw: null } satisfies PlainRequest));
}

const browser = { accept: BROWSER_ACCEPT, host: 'localhost:4000' };

/** The page's config blob, parsed. */
function configOf(html: string): Record<string, unknown> {
  const match = /<script type="application\/json" id="graphiql-config">(.*?)<\/script>/s.exec(html);
  expect(match).not.toBeNull();
  return JSON.parse(match![1]!) as Record<string, unknown>;
}

function directives(policy: string): Map<string, string[]> {
  return new Map(policy.split(';').map((part) => {
    const [name = '', ...sources] = part.trim().split(/\s+/);
    return [name, sources];
  }));
}

describe('the page', () => {
  it('is served to a browser at the endpoint: HTML with the assets, by relative URL, and the config blob', async () => {
    const [body, init] = await handlerWith()('/graphql', browser);
    expect(init.status).toBe(200);
    expect(init.headers['content-type']).toBe('text/html; charset=utf-8');
    expect(init.headers['cache-control']).toBe('no-store');
    expect(init.headers['vary']).toBe('Accept');
    expect(init.headers['x-content-type-options']).toBe('nosniff');
    const html = body as string;
    expect(html).toMatch(/^<!doctype html>/);
    expect(html).toContain('<title>GraphiQL</title>');
    expect(html).toContain(`<link rel="stylesheet" href="./graphql/graphiql/${CSS}">`);
    expect(html).toContain(`<script defer src="./graphql/graphiql/${JS}"></script>`);
    // Every <script> is either external or the JSON data block: nothing inline runs.
    const scripts = html.match(/<script\b[^>]*>/g) ?? [];
    expect(scripts).toHaveLength(2);
    for (const tag of scripts) expect(tag.includes(' src=') || tag.includes('type="application/json"')).toBe(true);
    const config = configOf(html);
    expect(config).toEqual({ title: 'GraphiQL', webSocket: false, styleNonce: expect.any(String) });
  });

  it('a relative asset URL resolves under the endpoint, also for a nested or slash-ended path', async () => {
    for (const [endpoint, prefix] of [
      ['/graphql', '/graphql/graphiql/'],
      ['/v2/api/graphql', '/v2/api/graphql/graphiql/'],
      ['/', '/graphiql/'],
      ['/gql/', '/gql/graphiql/'],
    ] as const) {
      const request = handlerWith({ path: endpoint });
      const [body] = await request(endpoint, browser);
      const href = /<script defer src="([^"]+)"/.exec(body as string)![1]!;
      expect(new URL(href, `http://localhost${endpoint}`).pathname).toBe(prefix + JS);
      const [asset, init] = await request(prefix + JS);
      expect([init.status, asset]).toEqual([200, JS_TEXT]);
    }
  });

  it('escapes the title in <title> and in the blob, where </script> cannot end the element', async () => {
    const title = '</script><script>alert(1)</script><!-- & "quotes" \u2028';
    const defaultQuery = '# </SCRIPT> <!--\n{ hello }';
    const [body] = await handlerWith({ graphiql: { assetsDirectory: assets, title, defaultQuery } })('/graphql', browser);
    const html = body as string;
    expect(html).toContain('<title>&#60;/script&#62;&#60;script&#62;alert(1)&#60;/script&#62;&#60;!-- &#38; &#34;quotes&#34; \u2028</title>');
    // Two scripts, two end tags (any case): the values added none.
    expect(html.match(/<\/script/gi)).toHaveLength(2);
    expect(html.match(/<!--/g)).toBeNull();
    const config = configOf(html);
    expect(config['title']).toBe(title);
    expect(config['defaultQuery']).toBe(defaultQuery);
  });

  it('has a Content-Security-Policy: scripts from itself only, styles by nonce, connections to itself and its WebSocket', async () => {
    const [body, init] = await handlerWith({ subscriptionsOverWebSocket: true })('/graphql', browser);
    const policy = directives(init.headers['content-security-policy']!);
    const nonce = configOf(body as string)['styleNonce'];
    expect(configOf(body as string)['webSocket']).toBe(true);
    expect(Object.fromEntries(policy)).toEqual({
      'default-src': ["'none'"],
      'script-src': ["'self'"],
      'style-src': ["'self'", `'nonce-${nonce}'`],
      'img-src': ["'self'", 'data:'],
      'font-src': ["'self'", 'data:'],
      'connect-src': ["'self'", 'ws://localhost:4000', 'wss://localhost:4000'],
      'base-uri': ["'none'"],
      'form-action': ["'none'"],
      'frame-ancestors': ["'none'"],
    });
    expect(init.headers['content-security-policy']).not.toMatch(/unsafe/);
  });

  it('a new nonce for every page', async () => {
    const request = handlerWith();
    const [first] = await request('/graphql', browser);
    const [second] = await request('/graphql', browser);
    expect(configOf(first as string)['styleNonce']).not.toBe(configOf(second as string)['styleNonce']);
  });

  it('connects only to itself without a WebSocket, or when the Host header does not look like a host', async () => {
    const [, without] = await handlerWith()('/graphql', browser);
    expect(directives(without.headers['content-security-policy']!).get('connect-src')).toEqual(["'self'"]);
    for (const host of ['evil.example; script-src *', 'a b', "x'", '']) {
      const [, init] = await handlerWith({ subscriptionsOverWebSocket: true })('/graphql', { ...browser, host });
      expect(directives(init.headers['content-security-policy']!).get('connect-src')).toEqual(["'self'"]);
    }
    const [, ipv6] = await handlerWith({ subscriptionsOverWebSocket: true })('/graphql', { ...browser, host: '[::1]:8080' });
    expect(directives(ipv6.headers['content-security-policy']!).get('connect-src')).toEqual(["'self'", 'ws://[::1]:8080', 'wss://[::1]:8080']);
  });

  it('only when the Accept header prefers HTML: API clients get JSON from the same URL, GET queries still run', async () => {
    const request = handlerWith();
    for (const accept of ['text/html', 'application/json;q=0.9, text/html', 'application/xhtml+xml']) {
      const [, init] = await request('/graphql', { accept });
      expect(init.headers['content-type'], accept).toBe('text/html; charset=utf-8');
    }
    // (With the header CSRF prevention, on by default, asks of a GET.)
    for (const accept of ['application/json', '*/*', 'text/html, application/json', 'text/html;q=0.5, application/graphql-response+json', 'text/html;q=0, */*']) {
      const [body, init] = await request('/graphql?query=%7Bhello%7D', { accept, 'x-graphql-csrf': '1' });
      expect(init.status, accept).toBe(200);
      expect(JSON.parse(body as string).data, accept).toEqual({ hello: 'world' });
    }
    const [body, init] = await request('/graphql?query=%7Bhello%7D', { 'x-graphql-csrf': '1' });
    expect([init.status, JSON.parse(body as string).data]).toEqual([200, { hello: 'world' }]);
  });

  it('a POST that accepts only HTML is still refused with 406', async () => {
    const handle = createHandler({ schema, graphiql: { assetsDirectory: assets } });
    const [body, init] = await Promise.resolve(
      handle({ method: 'POST', url: '/graphql', headers: { accept: 'text/html', 'content-type': 'application/json' }, body: '{"query":"{ hello }"}', raw: null }),
    );
    expect(init.status).toBe(406);
    expect(JSON.parse(body as string).error.code).toBe('NOT_ACCEPTABLE');
  });

  it('refuses options of the wrong type', () => {
    expect(() => createHandler({ schema, graphiql: { title: 42 as unknown as string } })).toThrow('graphiql.title must be a string, got number.');
  });
});

describe('the assets', () => {
  it.each([
    [JS, 'text/javascript; charset=utf-8', JS_TEXT, 'public, max-age=31536000, immutable'],
    [CSS, 'text/css; charset=utf-8', CSS_TEXT, 'public, max-age=31536000, immutable'],
    [MAP, JSON_RESPONSE, MAP_TEXT, 'no-cache'],
  ])('%s: its media type, an ETag, and a year of caching only when its name is hashed', async (name, contentType, text, cacheControl) => {
    const request = handlerWith();
    const [body, init] = await request(`/graphql/graphiql/${name}`);
    expect(init.status).toBe(200);
    expect(body).toBe(text);
    expect(init.headers['content-type']).toBe(contentType);
    expect(init.headers['cache-control']).toBe(cacheControl);
    expect(init.headers['x-content-type-options']).toBe('nosniff');
    const etag = init.headers['etag']!;
    expect(etag).toMatch(/^"[\w-]+"$/);
    // A query string changes nothing; the second read comes from memory, the same.
    const [again, againInit] = await request(`/graphql/graphiql/${name}?v=2`);
    expect([again, againInit.headers['etag']]).toEqual([text, etag]);
    for (const condition of [etag, `W/${etag}`, `"other", ${etag}`, '*']) {
      const [notModified, notModifiedInit] = await request(`/graphql/graphiql/${name}`, { 'if-none-match': condition });
      expect(notModifiedInit.status).toBe(304);
      expect(notModified).toBeNull();
      expect(notModifiedInit.headers).toEqual({ etag, 'cache-control': cacheControl });
    }
    const [, changed] = await request(`/graphql/graphiql/${name}`, { 'if-none-match': '"other"' });
    expect(changed.status).toBe(200);
  });

  it('answers HEAD as GET (the server leaves the body out)', async () => {
    const [, init] = await handlerWith()(`/graphql/graphiql/${JS}`, {}, 'HEAD');
    expect(init.status).toBe(200);
    expect(init.headers['content-type']).toBe('text/javascript; charset=utf-8');
  });

  const attempts = [
    '/graphql/graphiql/',
    '/graphql/graphiql/manifest.json',
    '/graphql/graphiql/secret.txt',
    '/graphql/graphiql/../escape.js',
    '/graphql/graphiql/../../package.json',
    '/graphql/graphiql/..%2fescape.js',
    '/graphql/graphiql/..%2Fescape.js',
    '/graphql/graphiql/%2e%2e/escape.js',
    '/graphql/graphiql/%2e%2e%2fescape.js',
    '/graphql/graphiql/%2E%2E%2F%2E%2E%2Fpackage.json',
    '/graphql/graphiql/%252e%252e%252fescape.js',
    '/graphql/graphiql/..\\escape.js',
    '/graphql/graphiql/..%5cescape.js',
    '/graphql/graphiql/..%5Cescape.js',
    '/graphql/graphiql/.%2e/escape.js',
    '/graphql/graphiql/%c0%ae%c0%ae/escape.js',
    '/graphql/graphiql/./' + JS,
    '/graphql/graphiql//' + JS,
    '/graphql/graphiql/' + JS + '/',
    '/graphql/graphiql/' + JS + '%00',
    '/graphql/graphiql/' + JS + '\0',
    '/graphql/graphiql/' + JS + '%00.txt',
    '/graphql/graphiql/%00',
    '/graphql/graphiql/' + JS.toUpperCase(),
    '/graphql/graphiql/' + JS.replace('.js', '%2ejs'),
    '/graphql/graphiql/%2fetc%2fpasswd',
    '/graphql/graphiql//etc/passwd',
    '/graphql/graphiql/C:\\Windows\\win.ini',
    '/graphql/graphiql/file:%2f%2f%2fetc%2fpasswd',
    '/graphql/graphiql/__proto__',
    '/graphql/graphiql/constructor',
    '/graphql/graphiql/toString',
    '/graphql/graphiql/hasOwnProperty',
  ];

  it.each(attempts)('%j reaches no file: 404 with the JSON error body', async (url) => {
    const [body, init] = await handlerWith()(url);
    expect(init.status).toBe(404);
    expect(init.headers['content-type']).toBe(JSON_RESPONSE);
    const error = (JSON.parse(body as string) as { error: { code: string; message: string } }).error;
    expect(error.code).toBe('NOT_FOUND');
    expect(body).not.toContain(SECRET);
  });

  it('over a socket too, with the request line exactly as written: never a file outside the manifest', async () => {
    const server = createServer({ schema, graphiql: { assetsDirectory: assets }, websocket: false, log: () => undefined });
    const port = await listenOnLoopback(server);
    try {
      for (const url of attempts) {
        const answer = await rawGet(port, url);
        // Node's parser refuses some request lines itself (400); everything else is ours (404).
        expect([400, 404], url).toContain(answer.status);
        expect(answer.text, url).not.toContain(SECRET);
      }
      const good = await rawGet(port, `/graphql/graphiql/${JS}`);
      expect(good.status).toBe(200);
      expect(good.text).toContain('console.log("fixture")');
    } finally {
      await closeNow(server);
    }
  });
});

describe('when the IDE is on', () => {
  it('in production it is off by default: a browser gets a 406 page that says so and how to query, API clients what they always got, the assets 404', async () => {
    const offPage = (reason: string, hint: string) =>
      '<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>GraphiQL is off</title></head>\n<body><p>' +
      `GraphiQL is off ${reason}. This URL is the GraphQL endpoint: send GraphQL requests to it with POST, ` +
      `Content-Type: application/json and Accept: application/graphql-response+json.${hint}</p></body>\n</html>\n`;
    const production = offPage('in production (NODE_ENV=production, or the production option)', ' To serve GraphiQL in production anyway, set graphiql: true.');
    const cases: Array<[Partial<HandlerOptions>, string]> = [
      [{ production: true }, production],
      [{ production: true, graphiql: undefined }, production],
      [{ graphiql: false }, offPage('on this server (graphiql: false)', '')],
      [{ production: true, graphiql: false }, offPage('on this server (graphiql: false)', '')],
    ];
    for (const [options, page] of cases) {
      const request = (url: string, headers: Record<string, string>) =>
        Promise.resolve(createHandler({ schema, ...options })({ method: 'GET', url, headers, body: null, raw: null }));
      // Whatever else the Accept header allows, when it prefers HTML: a browser's, and text/html alone.
      for (const headers of [browser, { accept: 'text/html' }, { accept: 'text/html', 'x-graphql-csrf': '1' }] as Array<Record<string, string>>) {
        const [body, init] = await request('/graphql', headers);
        expect(init).toEqual({
          status: 406,
          headers: { 'content-type': 'text/html; charset=utf-8', 'content-security-policy': "default-src 'none'", vary: 'Accept', 'x-content-type-options': 'nosniff' },
        });
        expect(body).toBe(page);
      }
      // An API client gets JSON from the same URL, as always.
      const [queryBody, queryInit] = await request('/graphql?query=%7Bhello%7D', { accept: 'application/json', 'x-graphql-csrf': '1' });
      expect(queryInit.status).toBe(200);
      expect(JSON.parse(queryBody as string).data).toEqual({ hello: 'world' });
      const [assetBody, assetInit] = await request(`/graphql/graphiql/${JS}`, {});
      expect(assetInit.status).toBe(404);
      expect(JSON.parse(assetBody as string).error.message).toBe(`Nothing is served at /graphql/graphiql/${JS}; the GraphQL endpoint is /graphql.`);
    }
  });

  it('NODE_ENV=production turns it off by default too', async () => {
    vi.stubEnv('NODE_ENV', 'production');
    try {
      const [, init] = await handlerWith({ graphiql: undefined })('/graphql', browser);
      expect([init.status, init.headers['content-type']]).toEqual([406, 'text/html; charset=utf-8']);
      const [, on] = await handlerWith({ graphiql: { assetsDirectory: assets } })('/graphql', browser);
      expect(on.status).toBe(200);
    } finally {
      vi.unstubAllEnvs();
    }
  });

  it('`graphiql: true` (or options) turns it on in production', async () => {
    const [, init] = await handlerWith({ production: true, graphiql: { assetsDirectory: assets } })('/graphql', browser);
    expect(init.status).toBe(200);
    expect(init.headers['content-type']).toBe('text/html; charset=utf-8');
    // `true` reads the package's own dist/graphiql/: built or not, the page is served or explained.
    const [, fromDist] = await handlerWith({ production: true, graphiql: true })('/graphql', browser);
    expect([200, 503]).toContain(fromDist.status);
  });
});

describe('assets not built', () => {
  it('503 with a message that says to run npm run build:graphiql, for the page and the assets; building is enough', async () => {
    const empty = await mkdtemp(path.join(tmpdir(), 'graphiql-empty-'));
    try {
      const request = handlerWith({ graphiql: { assetsDirectory: pathToFileURL(empty) } });
      for (const url of ['/graphql', `/graphql/graphiql/${JS}`]) {
        const [body, init] = await request(url, browser);
        expect(init.status, url).toBe(503);
        expect(init.headers['content-type']).toBe(JSON_RESPONSE);
        expect(JSON.parse(body as string)).toEqual({
          error: { code: 'SERVICE_UNAVAILABLE', message: 'The GraphiQL assets are not built: run `npm run build:graphiql` (or `npm run build`), then reload.' },
        });
      }
      // Queries are not affected.
      const [, query] = await request('/graphql?query=%7Bhello%7D', { accept: 'application/json', 'x-graphql-csrf': '1' });
      expect(query.status).toBe(200);
      // A manifest that names a file that is not there: not built either.
      await writeFile(path.join(empty, 'manifest.json'), JSON.stringify(manifest()));
      expect((await request(`/graphql/graphiql/${JS}`))[1].status).toBe(503);
      // Built while the server runs: served without a restart.
      await writeFile(path.join(empty, JS), JS_TEXT);
      await writeFile(path.join(empty, CSS), CSS_TEXT);
      expect((await request('/graphql', browser))[1].status).toBe(200);
      expect((await request(`/graphql/graphiql/${JS}`))[0]).toBe(JS_TEXT);
    } finally {
      await rm(empty, { recursive: true, force: true });
    }
  });

  it('a manifest that is not one counts as not built', async () => {
    const broken = await mkdtemp(path.join(tmpdir(), 'graphiql-broken-'));
    try {
      const request = handlerWith({ graphiql: { assetsDirectory: broken } });
      for (const text of ['{', 'null', '{"entries":{"js":"a.js","css":"a.css"},"files":{}}']) {
        await writeFile(path.join(broken, 'manifest.json'), text);
        expect((await request('/graphql', browser))[1].status, text).toBe(503);
      }
    } finally {
      await rm(broken, { recursive: true, force: true });
    }
  });
});

/** A GET with the request line exactly as given (no client normalizes it), and its status and body. */
function rawGet(port: number, target: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('latin1');
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0), text });
    });
    socket.write(Buffer.from(`GET ${target} HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n`, 'latin1'));
  });
}
