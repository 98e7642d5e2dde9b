/**
 * The conformance kit's WebSocket target (`wsChecks`): the graphql-transport-ws protocol rule by
 * rule. Every check passes against createServer (requiring an API key in connection_init too)
 * and against graphql-ws's own `useServer` (the protocol's reference server), is skipped, never
 * passed, when the operation or the credentials it needs are not given, and fails against the server made wrong in exactly the way its rule forbids
 * (support/brokenWsServer.ts), with the messages sent and received as evidence.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest';
import type { Check, CheckOutcome } from '../src/conformance/check.ts';
import { wsChecks } from '../src/conformance/ws/index.ts';
import type { WsTargetOptions } from '../src/conformance/ws/index.ts';
import { BROKEN_WS, startBrokenWsServer } from './support/brokenWsServer.ts';
import { FINITE_SUBSCRIPTION, KEY_PARAMS, QUERY, SUBSCRIPTION, startGraphqlWs, startOurs, startOursWithKeys } from './support/conformanceServers.ts';
import type { Started } from './support/conformanceServers.ts';

const checks = wsChecks();
const ids = checks.map((check) => check.id);

/** The target options for a server: every operation given, waits short (its init wait is 300 ms). */
function target(server: Started, options: Partial<WsTargetOptions> = {}): WsTargetOptions {
  return { url: server.wsUrl, query: QUERY, subscription: SUBSCRIPTION, timeoutMs: 1500, ...options };
}

function check(id: string): Check<WsTargetOptions> {
  const found = checks.find((each) => each.id === id);
  if (found === undefined) throw new Error(`No check ${id}.`);
  return found;
}

describe('the WebSocket checks', () => {
  it('have stable, distinct ids under ws., a link to PROTOCOL.md, and a requirement', () => {
    expect(new Set(ids).size).toBe(ids.length);
    for (const each of checks) {
      expect(each.id).toMatch(/^ws\.[a-z]+\.[a-z0-9-]+$/);
      expect(each.rule).toMatch(/^https:\/\/github\.com\/enisdenjo\/graphql-ws\/blob\/master\/PROTOCOL\.md#[a-z-]+$/);
      expect(['MUST', 'SHOULD', 'MAY']).toContain(each.requirement);
    }
  });

  it('each has a broken server that must make it fail, and no broken server is for a check that does not exist', () => {
    expect(Object.keys(BROKEN_WS).sort()).toEqual([...ids].sort());
  });
});

describe.each([
  ['createServer', startOurs],
  ["graphql-ws's useServer", startGraphqlWs],
])('against %s', (_name, start) => {
  let server: Started;
  beforeAll(async () => {
    server = await start();
  });
  afterAll(() => server.close());

  it.each(ids.filter((id) => id !== 'ws.init.forbidden-4403'))('%s passes', async (id) => {
    const outcome = await check(id).run(target(server));
    expect(outcome).toEqual(id === 'ws.handshake.unsupported-subprotocol' ? { status: 'pass', evidence: { why: expect.any(String) } } : { status: 'pass' });
  });

  it('ws.init.forbidden-4403 is skipped without connectionParams: the server authenticates nothing', async () => {
    const outcome = await check('ws.init.forbidden-4403').run(target(server));
    expect(outcome).toEqual({ status: 'skip', evidence: { why: expect.stringContaining('give the credentials it accepts with the `connectionParams` option') } });
  });
});

describe('against createServer requiring an API key in connection_init', () => {
  let server: Started;
  beforeAll(async () => {
    server = await startOursWithKeys();
  });
  afterAll(() => server.close());

  it.each(ids)('%s passes, the key given as connectionParams', async (id) => {
    const outcome = await check(id).run(target(server, { connectionParams: KEY_PARAMS }));
    expect(outcome).toEqual(id === 'ws.handshake.unsupported-subprotocol' ? { status: 'pass', evidence: { why: expect.any(String) } } : { status: 'pass' });
  });

  it('ws.init.ack fails without the key, saying the connection was not acknowledged', async () => {
    const outcome = await check('ws.init.ack').run(target(server));
    expect(outcome).toMatchObject({ status: 'fail', evidence: { why: 'Expected connection_ack.', received: { closed: { code: 4403 } } } });
  });
});

describe('checks that need an operation', () => {
  let server: Started;
  beforeAll(async () => {
    server = await startOurs();
  });
  afterAll(() => server.close());

  const needsQuery = ['ws.query.next-then-complete'];
  const needsSubscription = ['ws.subscribe.duplicate-id-4409', 'ws.complete.client-stops-events'];

  it.each([...needsQuery, ...needsSubscription, 'ws.next.execution-result'])('%s is skipped, naming the option, when no operation is given', async (id) => {
    const outcome = await check(id).run({ url: server.wsUrl, timeoutMs: 1500 });
    const option = needsSubscription.includes(id) ? 'subscription' : 'query';
    expect(outcome).toEqual({ status: 'skip', evidence: { why: expect.stringContaining(`\`${option}\` option (--${option} on the command line)`) } });
  });

  it.each(['ws.subscribe.duplicate-id-4409', 'ws.complete.client-stops-events'])('%s is skipped, not passed, when the subscription given ends on its own', async (id) => {
    const outcome = await check(id).run(target(server, { subscription: FINITE_SUBSCRIPTION }));
    expect(outcome).toMatchObject({ status: 'skip', evidence: { why: expect.stringContaining('ended on its own') } });
  });
});

describe('a target that is not there', () => {
  it('fails every check that needs a socket, saying the socket could not be opened', async () => {
    const gone = await startOurs();
    await gone.close();
    const outcome = await check('ws.ping.pong').run(target(gone));
    expect(outcome).toEqual({ status: 'fail', evidence: { why: expect.stringMatching(/^Could not open a WebSocket: .*ECONNREFUSED/), sent: { url: gone.wsUrl, subprotocols: ['graphql-transport-ws'] } } });
  });
});

describe('each check fails against the server broken in its way', () => {
  it.each(Object.entries(BROKEN_WS).map(([id, variant]) => [id, variant.wrong, variant] as const))('%s fails against a server that %s', async (id, _wrong, variant) => {
    const broken = await startBrokenWsServer(variant.fault, variant.connectionParams !== undefined);
    onTestFinished(() => broken.close());
    const outcome: CheckOutcome = await check(id).run(target(broken, { timeoutMs: 1000, ...(variant.connectionParams === undefined ? {} : { connectionParams: variant.connectionParams }) }));
    expect(outcome.status).toBe('fail');
    if (outcome.status !== 'fail') return;
    expect(outcome.evidence.why).toEqual(expect.any(String));
    if (!id.startsWith('ws.handshake.')) expect(outcome.evidence).toMatchObject({ sent: expect.any(Array), received: { messages: expect.any(Array) } });
  });
});
