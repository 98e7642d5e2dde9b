/**
 * GraphiQL in a real browser (headless Chromium through playwright-core) against the real
 * server and the demo schema, with the assets as `npm run build:graphiql` builds them: the page
 * loads with no failed request and no console error (so its Content-Security-Policy lets
 * through everything GraphiQL needs), a query runs over HTTP, a deferred query's parts arrive
 * over multipart/mixed and the deferred one appears in the result pane after the first, a
 * subscription over the WebSocket hears a review added from outside, and the Trace plugin draws
 * a waterfall a learner can read (a batch row says "1 batch · 2 keys", a row's label keeps the end
 * of its path and says the whole path on hover) and the plan as a tree of the operation.
 *
 * Skipped, with the reason printed, where /usr/bin/chromium is missing (.ci/run installs it).
 * Screenshots go to spec-tests/__output__/graphiql/ (ignored by git); each one's path is printed.
 */
import { existsSync } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServer } from '../src/index.ts';
import type { GraphQLServer } from '../src/index.ts';
import { demoSecurity } from '../src/demo/config.ts';
import { createDemoContext, createDemoData, demoSchema } from '../src/demo/librarySchema.ts';
import { buildGraphiql } from '../scripts/build-graphiql.ts';
import { closeNow, listenOnLoopback } from './support/httpServer.ts';

/**
 * What the functions run in the page read (the project's TypeScript has no DOM library): the
 * element CodeMirror 5 keeps its editor on, and what GraphiQL adds to it.
 */
declare const document: { querySelector(selector: string): { CodeMirror?: CodeMirrorEditor } | null };
interface CodeMirrorEditor {
  getValue(): string;
  /** GraphiQL's parse of the query editor's text, 100 ms after it last changed. */
  documentAST?: { loc?: { source: { body: string } } } | null;
}

const CHROMIUM = '/usr/bin/chromium';
const SCREENSHOTS = fileURLToPath(new URL('./__output__/graphiql/', import.meta.url));
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`graphiql.browser.test.ts: skipped, ${CHROMIUM} is missing (apt-get install chromium; .ci/run does it as root).`);

/** Whether Book.reviews loads wait for releaseReviews (the deferred query's test holds its deferred part). */
let reviewsHeld = false;
let releaseReviews: () => void = () => undefined;
const reviewsReleased = new Promise<void>((resolve) => {
  releaseReviews = resolve;
});

/** The demo's context, with its reviews loader waiting, while reviewsHeld, until releaseReviews. */
function holdReviews(context: ReturnType<typeof createDemoContext>): ReturnType<typeof createDemoContext> {
  const loader = context.loaders.reviewsByBook;
  const load = loader.load.bind(loader);
  loader.load = (id: string) => (reviewsHeld ? reviewsReleased.then(() => load(id)) : load(id));
  return context;
}

describe.skipIf(!hasChromium)('GraphiQL in Chromium', () => {
  const demo = { url: '' };
  let server: GraphQLServer;
  let browser: Browser;
  let page: Page;
  /** Everything that went wrong while the page ran: failed requests, error statuses, console errors, uncaught exceptions. */
  const problems: string[] = [];
  /** The bodies of the POSTs the page sent to the endpoint. */
  const sent: unknown[] = [];
  /** The WebSockets the page opened, by URL. */
  const sockets: string[] = [];

  beforeAll(async () => {
    // Fast when nothing changed since the last build (npm start's `--if-stale`).
    const [build] = await Promise.all([
      buildGraphiql({ ifStale: true, quiet: true }),
      mkdir(SCREENSHOTS, { recursive: true }),
    ]);
    console.log(build.summary);
    // The demo as `npm start` serves it (its own store), on a port of its own.
    const data = createDemoData();
    server = createServer({
      schema: demoSchema,
      context: (_request, { identity }) => holdReviews(createDemoContext(data, identity)),
      ...demoSecurity({}),
      log: () => undefined,
    });
    demo.url = `http://127.0.0.1:${await listenOnLoopback(server)}/graphql`;
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    page.on('requestfailed', (request) => problems.push(`request failed: ${request.method()} ${request.url()} ${request.failure()?.errorText ?? ''}`));
    page.on('response', (response) => {
      if (response.status() >= 400) problems.push(`${response.status()} for ${response.request().method()} ${response.url()}`);
    });
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`uncaught: ${error.message}`));
    page.on('request', (request) => {
      if (request.method() === 'POST' && request.url() === demo.url) sent.push(request.postDataJSON());
    });
    page.on('websocket', (socket) => sockets.push(socket.url()));
  }, 60_000);

  afterAll(async () => {
    await browser?.close();
    if (server !== undefined) await closeNow(server);
  });

  it('loads from our own server with no failed request and no console error', async () => {
    // GraphiQL asks for the schema first (introspection): it must get it.
    const schemaLoaded = page.waitForResponse((answer) => answer.request().postData()?.includes('query IntrospectionQuery') === true);
    const response = await page.goto(demo.url);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    expect((await schemaLoaded).status()).toBe(200);
    await page.locator('.graphiql-query-editor .CodeMirror').waitFor();
    await page.locator('.graphiql-execute-button').waitFor();
    await screenshot(page, 'page');
    expect(problems).toEqual([]);
  });

  it('runs a query typed into the editor, over HTTP', async () => {
    await typeQuery(page, '{ books(limit: 2, sort: TITLE) { total items { title author { name } } } }');
    await page.locator('.graphiql-execute-button').click();
    await waitForResponse(page, '"Cosmos"');
    const result = JSON.parse(await responseText(page)) as { data: unknown };
    expect(result.data).toEqual({
      books: { total: 5, items: [{ title: 'Cosmos', author: { name: 'Carl Sagan' } }, { title: 'Pale Blue Dot', author: { name: 'Carl Sagan' } }] },
    });
    await screenshot(page, 'query');
    expect(problems).toEqual([]);
  });

  it('runs a deferred query over multipart/mixed: the first part in the pane, then the deferred one merged in', async () => {
    // The deferred part waits until the test has seen the first one in the pane (holdReviews).
    reviewsHeld = true;
    const answered = page.waitForResponse((answer) => answer.request().postData()?.includes('@defer') === true);
    await typeQuery(page, '{ books(limit: 2, sort: TITLE) { items { title ... @defer { reviews { stars } } } } }');
    await page.locator('.graphiql-execute-button').click();
    const response = await answered;
    expect(response.headers()['content-type']).toBe('multipart/mixed; boundary="-"');
    const request = response.request();
    const over = Promise.race([page.waitForEvent('requestfinished', (each) => each === request), page.waitForEvent('requestfailed', (each) => each === request)]);
    await waitForResponse(page, '"Pale Blue Dot"');
    expect(JSON.parse(await responseText(page))).toEqual({ data: { books: { items: [{ title: 'Cosmos' }, { title: 'Pale Blue Dot' }] } }, extensions: { cost: { requested: 4, limit: 1000 } } });
    await screenshot(page, 'deferred-first');
    releaseReviews();
    await waitForResponse(page, '"stars"');
    expect(JSON.parse(await responseText(page))).toEqual({
      data: { books: { items: [{ title: 'Cosmos', reviews: [{ stars: 5 }] }, { title: 'Pale Blue Dot', reviews: [] }] } },
      // The last payload's whole cost report (its `actual` counts the deferred part), merged in.
      extensions: { cost: { requested: 4, actual: 4, limit: 1000 } },
    });
    await screenshot(page, 'deferred-whole');
    // GraphiQL's multipart reader (meros) cancels the body once it has read the close delimiter,
    // which Chromium reports as an aborted request when the chunked body's own end had not been
    // processed yet: the whole answer arrived (above), so that one report is no problem.
    await over;
    const aborted = `request failed: POST ${demo.url} net::ERR_ABORTED`;
    expect(problems.filter((problem) => problem !== aborted)).toEqual([]);
    problems.length = 0;
  });

  it('runs a subscription over the WebSocket and shows an event added from outside', async () => {
    sent.length = 0;
    await typeQuery(page, 'subscription { reviewAdded(bookId: "b2") { id bookId stars text } }');
    await page.locator('.graphiql-execute-button').click();
    // The subscription may not be registered at the very moment the socket opens: add reviews
    // until one arrives (each is a new one; the demo's store is this suite's own).
    const deadline = Date.now() + 15_000;
    let heard = false;
    while (!heard && Date.now() < deadline) {
      const added = await fetch(demo.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': 'demo-editor' },
        body: JSON.stringify({ query: 'mutation { addReview(review: { bookId: "b2", stars: 4, text: "Heard in the browser." }) { id } }' }),
      });
      expect(added.status).toBe(200);
      heard = await page
        .waitForFunction(() => document.querySelector('.graphiql-response .CodeMirror')?.CodeMirror?.getValue().includes('Heard in the browser.'), undefined, { timeout: 500 })
        .then(() => true, () => false);
    }
    expect(heard).toBe(true);
    const event = JSON.parse(await responseText(page)) as { data: { reviewAdded: unknown } };
    expect(event.data.reviewAdded).toEqual({ id: expect.stringMatching(/^r\d+$/), bookId: 'b2', stars: 4, text: 'Heard in the browser.' });
    await screenshot(page, 'subscription');
    // Over the WebSocket on the endpoint's own path, not over HTTP.
    expect(sockets).toEqual([demo.url.replace(/^http:/, 'ws:')]);
    expect(sent).toEqual([]);
    // Stop it (the same button).
    await page.locator('.graphiql-execute-button').click();
    expect(problems).toEqual([]);
  });

  it('the Trace plugin sends extensions.trace with each request once turned on', async () => {
    await page.locator('[aria-label="Show Trace"]').click();
    const toggle = page.getByLabel('Trace each request');
    await toggle.check();
    sent.length = 0;
    await typeQuery(page, '{\n  books(limit: 3) {\n    items {\n      title\n      author { name books { title } }\n    }\n  }\n}');
    await page.locator('.graphiql-execute-button').click();
    await waitForResponse(page, '"The Dispossessed"');
    expect(sent).toContainEqual(expect.objectContaining({ extensions: { trace: true } }));
    // Whether or not this server traces, the panel says what it got.
    await page.locator('.engine-trace-summary, .engine-trace-note').first().waitFor();
    await screenshot(page, 'trace-panel');
    expect(problems).toEqual([]);
  });

  it('draws the last response\'s trace as a waterfall: resolver bars, and batch bars that say "1 batch · 2 keys"', async () => {
    await page.locator('.engine-trace-waterfall').waitFor();
    // books(limit: 3): three books by two authors (a1, a2), so one batch of two keys per level.
    expect(await page.locator('.engine-trace-summary').textContent()).toMatch(/^\d+(?:\.\d+)? (?:ns|µs|ms) · 7 resolver calls · 2 batches$/);
    expect(await page.locator('.engine-trace-resolver .engine-trace-bar').count()).toBe(7);
    // A batch row: its loader, and beside its bar how many batches (one) and keys, never "authorById ×2".
    expect(await page.locator('.engine-trace-batch').allTextContents()).toEqual(['authorById1 batch · 2 keys', 'booksByAuthor1 batch · 2 keys']);
    expect(await page.locator('.engine-trace-batch .engine-trace-label').allTextContents()).toEqual(['authorById', 'booksByAuthor']);
    expect(await page.locator('.engine-trace-batch .engine-trace-batch-count').allTextContents()).toEqual(['1 batch · 2 keys', '1 batch · 2 keys']);
    const batchTitle = await page.locator('.engine-trace-batch').first().getAttribute('title');
    expect(batchTitle).toMatch(/^authorById, batch #0: 1 batch · 2 keys\nkeys: \["a1","a2"\]\nstarts at .+, takes .+\ncalls that waited on it: books\.items\.0\.author, books\.items\.1\.author, books\.items\.2\.author$/);
    const title = await page.locator('.engine-trace-resolver').first().getAttribute('title');
    expect(title).toMatch(/starts at .+, takes /);
    await screenshot(page, 'trace-waterfall');
    expect(problems).toEqual([]);
  });

  it('labels a resolver row with the end of its path, cut from the left at a dot, and the whole path on hover', async () => {
    const labels = await page.locator('.engine-trace-resolver .engine-trace-label').evaluateAll((each) =>
      each.map((label) => ({
        text: label.textContent ?? '',
        title: label.getAttribute('title') ?? '',
        name: label.querySelector('.engine-trace-label-name')?.textContent ?? '',
        fits: label.scrollWidth <= label.clientWidth,
      })),
    );
    expect(labels.map((label) => label.title)).toEqual([
      'books',
      'books.items.0.author',
      'books.items.1.author',
      'books.items.2.author',
      'books.items.0.author.books',
      'books.items.1.author.books',
      'books.items.2.author.books',
    ]);
    for (const label of labels) {
      // The field, the end of the path, is whole; the rest is the path's end too, cut at a dot.
      expect(label.name).toBe(label.title.split('.').at(-1));
      expect(label.text === label.title || (label.text.startsWith('…') && label.title.endsWith(`.${label.text.slice(1)}`))).toBe(true);
      // Cut by the page, not by the browser: the text fits its column.
      expect(label).toMatchObject({ fits: true });
    }
    // At this width the deepest paths do not fit whole: cut from the left, at a dot.
    expect(labels.at(-1)?.text).toMatch(/^….*\.author\.books$/);
    const deep = page.locator('.engine-trace-resolver .engine-trace-label[title="books.items.2.author.books"]');
    await deep.hover();
    await screenshot(page, 'trace-label-hover');
    expect(problems).toEqual([]);
  });

  it('draws the plan as a tree of the operation: each field, how it is resolved, its batches per level, and the cost', async () => {
    const plan = page.locator('.engine-trace-plan');
    const cost = (JSON.parse(await responseText(page)) as { extensions: { cost: { requested: number; actual: number; limit: number } } }).extensions.cost;
    expect(await plan.locator('.engine-trace-plan-headline').textContent()).toBe(`query (anonymous) · cost ${cost.actual} as run, estimated ${cost.requested}, limit 1000`);
    // Times vary from run to run: each is read as T.
    const timeless = (text: string) => text.replace(/\d+(?:\.\d+)? (?:ns|µs|ms)/g, 'T');
    const indent: Record<string, string> = { 'engine-trace-set-type': '', 'engine-trace-plan-field': '  ', 'engine-trace-plan-batch': '    ' };
    const rows = await plan
      .locator('.engine-trace-set-type, .engine-trace-plan-field, .engine-trace-plan-batch')
      .evaluateAll((each) => each.map((element) => [element.className, element.textContent ?? ''] as const));
    expect(rows.map(([kind, text]) => `${indent[kind] ?? '?'}${timeless(text)}`)).toEqual([
      'Query',
      '  books: BookPage! · resolver · 1 call',
      'BookPage',
      '  items · default resolver',
      'Book',
      '  title · plain read',
      '  author: Author! · resolver · 3 calls',
      '    level 1: authorById, 1 batch · 2 keys, T',
      'Author',
      '  name · plain read',
      '  books: [Book!]! · resolver · 3 calls',
      '    level 2: booksByAuthor, 1 batch · 2 keys, T',
      'Book',
      '  title · plain read',
    ]);
    // Nested as the operation is: Author's fields inside author's item, inside Book's.
    expect(await plan.locator('li:has(> [title="books.items.author"]) [title="books.items.author.books"]').count()).toBe(1);
    expect(await plan.locator('.engine-trace-plan-field[title="books.items.author"]').getAttribute('data-how')).toBe('resolver');
    expect((await plan.locator('.engine-trace-levels li').allTextContents()).map(timeless)).toEqual([
      'level 1: authorById, 1 batch · 2 keys, T',
      'level 2: booksByAuthor, 1 batch · 2 keys, T',
    ]);
    // Said in the README's words, not the trace's member names, and not as JSON.
    const text = (await plan.textContent()) ?? '';
    for (const internal of ['jsonWriter', 'plainReads', 'selectionSets', 'interpreted', '{']) expect(text).not.toContain(internal);
    await plan.scrollIntoViewIfNeeded();
    await screenshot(page, 'trace-plan');
    expect(problems).toEqual([]);
  });

  it('a deferred query traced: the trace of its last payload, its payloads drawn as lines on the waterfall', async () => {
    await typeQuery(page, '{ books(limit: 2, sort: TITLE) { items { title ... @defer(label: "later") { author { name } } } } }');
    await page.locator('.graphiql-execute-button').click();
    await waitForResponse(page, '"Carl Sagan"');
    await page.locator('.engine-trace-payloads').waitFor();
    expect(await page.locator('.engine-trace-axis .engine-trace-payload').count()).toBeGreaterThanOrEqual(2);
    expect(await page.locator('.engine-trace-payloads').textContent()).toMatch(/^payload 0 at .+: delivered \(root\); announced 0, 1\npayload 1 at /);
    expect(await page.locator('.engine-trace-parts').textContent()).toMatch(/part 0: defer "later" at books\.items\.0/);
    const title = await page.locator('.engine-trace-resolver[title*="Book.author"]').first().getAttribute('title');
    expect(title).toMatch(/delivered in payload [1-9]/);
    await screenshot(page, 'trace-deferred');
    // The multipart reader's cancelled body (see the deferred query's test) is no problem.
    expect(problems.filter((problem) => !problem.includes('net::ERR_ABORTED'))).toEqual([]);
  });
});

/** A screenshot of the page into SCREENSHOTS, its path printed so that a reader of the test output can open it. */
async function screenshot(page: Page, name: string): Promise<void> {
  const path = `${SCREENSHOTS}${name}.png`;
  await page.screenshot({ path });
  console.log(`screenshot: ${path}`);
}

/**
 * Replaces the query editor's text, as typing would (without the editor's auto-closing brackets
 * getting in the way), and waits until GraphiQL has parsed it: it does so 100 ms after the last
 * change, and a run before then would go by the document parsed before (over HTTP or the
 * WebSocket by the old operation's type).
 */
async function typeQuery(page: Page, text: string): Promise<void> {
  await page.locator('.graphiql-query-editor .CodeMirror').click();
  await page.keyboard.press('ControlOrMeta+A');
  await page.keyboard.insertText(text);
  const parsed = await page
    .waitForFunction(
      (expected) => {
        const editor = document.querySelector('.graphiql-query-editor .CodeMirror');
        return editor?.CodeMirror?.documentAST?.loc?.source.body === expected;
      },
      text,
      { timeout: 5_000 },
    )
    .then(() => true, () => false);
  if (!parsed) throw new Error(`GraphiQL never parsed the query typed; the editor holds ${JSON.stringify(await editorText(page, '.graphiql-query-editor'))}.`);
}

async function editorText(page: Page, selector: string): Promise<string> {
  return page.evaluate(
    (within) => document.querySelector(`${within} .CodeMirror`)?.CodeMirror?.getValue() ?? '',
    selector,
  );
}

async function responseText(page: Page): Promise<string> {
  return page.evaluate(() => document.querySelector('.graphiql-response .CodeMirror')?.CodeMirror?.getValue() ?? '');
}

async function waitForResponse(page: Page, expected: string): Promise<void> {
  await page
    .waitForFunction(
      (text) => document.querySelector('.graphiql-response .CodeMirror')?.CodeMirror?.getValue().includes(text),
      expected,
      { timeout: 10_000 },
    )
    .catch(async () => {
      throw new Error(`The response pane never showed ${expected}; it holds: ${await responseText(page)}`);
    });
}
