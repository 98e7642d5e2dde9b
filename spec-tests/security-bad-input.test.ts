/**
 * Credential headers no well-behaved client sends: malformed Authorization and X-API-Key
 * values, JWT-shaped tokens that are not JWTs, JWTs whose JSON is not an object, absurd
 * expiry times. Each is refused with 401 UNAUTHENTICATED, a message that says what is wrong,
 * and a WWW-Authenticate challenge; none is a 5xx, a crash or a hang.
 *
 * Then the laws over random input, on `createHandler` with jwtAuth (an RSA key made here) and
 * apiKeyAuth (three keys): whatever the header holds, the answer is 401 in the error shape with
 * a challenge, or 200 exactly when it holds a valid key (or a correctly signed token with
 * acceptable claims); and one law over real HTTP for the header values node lets through.
 * Runs: AUTH_FUZZ_RUNS (default 300; the HTTP law runs a tenth, at least 30). To replay a
 * failure, set AUTH_FUZZ_SEED (and AUTH_FUZZ_PATH) to the `seed` (and `path`) fast-check printed.
 */
import fc from 'fast-check';
import { CompactSign, SignJWT, exportSPKI, generateKeyPair } from 'jose';
import { describe, expect, it } from 'vitest';
import { apiKeyAuth, createHandler, hashApiKey, jwtAuth, makeSchema } from '../src/index.ts';
import type { Identity } from '../src/index.ts';
import { json, send, serveDuringSuite } from './support/httpServer.ts';

const RUNS = Number(process.env.AUTH_FUZZ_RUNS ?? 300);
const SEED = process.env.AUTH_FUZZ_SEED === undefined ? undefined : Number(process.env.AUTH_FUZZ_SEED);
const PATH = process.env.AUTH_FUZZ_PATH;
function parameters<T>(numRuns: number): fc.Parameters<T> {
  return {
    numRuns,
    ...(SEED === undefined ? {} : { seed: SEED }),
    ...(PATH === undefined ? {} : { path: PATH }),
  };
}

const JSON_RESPONSE = 'application/json; charset=utf-8';
const QUERY = JSON.stringify({ query: '{ whoami }' });
const KEYS = ['demo-reader', 'demo-editor', 'demo-admin'] as const;
const ISSUER = 'https://issuer.example.com';

const { publicKey, privateKey } = await generateKeyPair('RS256');
const { privateKey: strangerKey } = await generateKeyPair('RS256');
const PEM = await exportSPKI(publicKey);
type SigningKey = typeof privateKey;

const schema = makeSchema({
  typeDefs: 'type Query { whoami: String! }',
  resolvers: { Query: { whoami: (_parent: unknown, _args: unknown, context: { identity: Identity }) => context.identity.id } },
});

const authenticate = [
  jwtAuth({ publicKey: PEM, issuer: ISSUER }),
  apiKeyAuth({ keys: KEYS.map((key) => ({ id: key, hash: hashApiKey(key), roles: [key.slice(5)] })) }),
];
const handle = createHandler<null>({ schema, authenticate, log: () => undefined });

interface Answer {
  status: number;
  headers: Record<string, string>;
  body: unknown;
}

/** POSTs `{ whoami }` with these headers; a handler that throws (or rejects) fails the caller. */
async function post(headers: Record<string, string | string[]>): Promise<Answer> {
  const [body, init] = await Promise.resolve().then(() =>
    handle({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json', ...headers }, body: QUERY, raw: null }),
  );
  return { status: init.status, headers: init.headers, body: body === null ? null : (JSON.parse(body as string) as unknown) };
}

const base64url = (text: string | Uint8Array): string => Buffer.from(text).toString('base64url');
const now = (): number => Math.floor(Date.now() / 1000);

/** A compact JWS over exactly these payload bytes, signed with RS256. */
function signBytes(payload: string | Uint8Array, key: SigningKey = privateKey, header: Record<string, unknown> = { alg: 'RS256' }): Promise<string> {
  const bytes = typeof payload === 'string' ? new TextEncoder().encode(payload) : payload;
  return new CompactSign(bytes).setProtectedHeader({ alg: 'RS256', ...header }).sign(key);
}

/** A good token: sub alice, from the issuer, expiring in an hour, with these claims on top. */
function goodToken(claims: Record<string, unknown> = {}): Promise<string> {
  return signBytes(JSON.stringify({ sub: 'alice', iss: ISSUER, exp: now() + 3600, ...claims }));
}

/** The challenge for a refusal, as RFC 6750 writes it (the description quoted as printable ASCII). */
function challenge(schemes: ReadonlyArray<string>, error: 'invalid_request' | 'invalid_token', message: string): string {
  const description = message.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '?');
  return schemes.map((scheme) => `${scheme} realm="graphql", error="${error}", error_description="${description}"`).join(', ');
}

const EVERY_SCHEME = ['Bearer', 'ApiKey'];
const NO_SCHEME = 'The Authorization header has no scheme; send "Bearer <token>" or "ApiKey <key>".';
const EMPTY = 'The Authorization header is empty; send "Bearer <token>" or "ApiKey <key>".';
const BAD_CHARACTERS =
  'The credential in the Authorization header has characters no token has; expected letters, digits and - . _ ~ + / (then = padding only).';
const TWICE = 'The Authorization header is sent more than once; send one credential.';
const NOT_AN_OBJECT = 'The token is malformed: JWT Claims Set must be a top-level JSON object.';
const BAD_HEADER = 'The token is malformed: JWS Protected Header is invalid.';
const TOO_LONG_LIVED = 'The token expires more than 86400 seconds from now; this server accepts shorter-lived tokens only.';

/** A refusal: the header value (or values), the message, the schemes challenged, the RFC 6750 error. */
interface Refusal {
  headers: Record<string, string | string[]>;
  message: string;
  schemes: ReadonlyArray<string>;
  error: 'invalid_request' | 'invalid_token';
}

const malformed = (message: string, schemes: ReadonlyArray<string> = EVERY_SCHEME) => ({ message, schemes, error: 'invalid_request' as const });
const invalidToken = (message: string) => ({ message, schemes: ['Bearer'], error: 'invalid_token' as const });

async function expectRefused(refusal: Refusal): Promise<void> {
  const answer = await post(refusal.headers);
  expect(answer.status).toBe(401);
  expect(answer.headers['content-type']).toBe(JSON_RESPONSE);
  expect(answer.body).toEqual({ error: { code: 'UNAUTHENTICATED', message: refusal.message } });
  expect(answer.headers['www-authenticate']).toBe(challenge(refusal.schemes, refusal.error, refusal.message));
}

describe('malformed Authorization headers', () => {
  const cases: Array<[string, Refusal]> = [
    ['a credential without a scheme', { headers: { authorization: 'abc123' }, ...malformed(NO_SCHEME) }],
    ['a JWT without a scheme', { headers: { authorization: 'eyJhbGciOiJSUzI1NiJ9.e30.c2ln' }, ...malformed(NO_SCHEME) }],
    ['an unknown scheme on its own', { headers: { authorization: 'Basic' }, ...malformed(NO_SCHEME) }],
    ['the scheme Bearer alone', { headers: { authorization: 'Bearer' }, ...malformed('The Authorization header has the scheme Bearer but no credential after it.', ['Bearer']) }],
    ['the scheme bearer (any case) with trailing spaces', { headers: { authorization: 'bEaReR   ' }, ...malformed('The Authorization header has the scheme Bearer but no credential after it.', ['Bearer']) }],
    ['the scheme ApiKey alone', { headers: { authorization: 'ApiKey' }, ...malformed('The Authorization header has the scheme ApiKey but no credential after it.', ['ApiKey']) }],
    ['an empty header', { headers: { authorization: '' }, ...malformed(EMPTY) }],
    ['a header of whitespace only', { headers: { authorization: ' \t  ' }, ...malformed(EMPTY) }],
    [
      'two schemes and two credentials',
      { headers: { authorization: 'Bearer a Bearer b' }, ...malformed('The Authorization header holds more than one word after Bearer; send exactly one scheme and one credential.', ['Bearer']) },
    ],
    [
      'a credential with a tab inside',
      { headers: { authorization: 'ApiKey demo\tadmin' }, ...malformed('The Authorization header holds more than one word after ApiKey; send exactly one scheme and one credential.', ['ApiKey']) },
    ],
    ['a 64 KB bearer token', { headers: { authorization: `Bearer ${'a'.repeat(64 * 1024)}` }, ...malformed('The Authorization header is longer than 8192 characters.') }],
    [
      'a token one character over 8192',
      { headers: { authorization: `Bearer ${'a'.repeat(8193)}` }, ...malformed('The credential in the Authorization header is longer than 8192 characters.', ['Bearer']) },
    ],
    ['non-ASCII characters', { headers: { authorization: 'Bearer tökén' }, ...malformed(BAD_CHARACTERS, ['Bearer']) }],
    ['an emoji', { headers: { authorization: 'Bearer 🔑' }, ...malformed(BAD_CHARACTERS, ['Bearer']) }],
    ['a NUL character', { headers: { authorization: 'Bearer abc\u0000def' }, ...malformed(BAD_CHARACTERS, ['Bearer']) }],
    ['an escape character', { headers: { authorization: 'ApiKey demo-admin\u001b[0m' }, ...malformed(BAD_CHARACTERS, ['ApiKey']) }],
    ['a DEL character', { headers: { authorization: 'Bearer abc\u007f' }, ...malformed(BAD_CHARACTERS, ['Bearer']) }],
    ['padding in the middle', { headers: { authorization: 'Bearer a=b.c.d' }, ...malformed(BAD_CHARACTERS, ['Bearer']) }],
    ['a quote in the credential', { headers: { authorization: 'Bearer "abc"' }, ...malformed(BAD_CHARACTERS, ['Bearer']) }],
    [
      'a scheme that is not a token',
      { headers: { authorization: '"Bearer" abc' }, ...malformed('The Authorization header does not start with a scheme name; send "Bearer <token>" or "ApiKey <key>".') },
    ],
    [
      'a scheme of 8,000 characters (it would be named in the message and every challenge)',
      { headers: { authorization: 'a'.repeat(8000) + ' x' }, ...malformed('The Authorization header does not start with a scheme name; send "Bearer <token>" or "ApiKey <key>".') },
    ],
    ['the header twice', { headers: { authorization: ['Bearer a.b.c', 'ApiKey demo-admin'] }, ...malformed(TWICE) }],
    ['the same good key twice', { headers: { authorization: ['ApiKey demo-admin', 'ApiKey demo-admin'] }, ...malformed(TWICE) }],
    [
      'an unknown scheme with a credential (Basic)',
      {
        headers: { authorization: 'Basic dXNlcjpwYXNzd29yZA==' },
        message:
          'The Basic credential is not accepted here. This server accepts Authorization: Bearer <token> or an API key (X-API-Key: <key> or Authorization: ApiKey <key>).',
        schemes: EVERY_SCHEME,
        error: 'invalid_token',
      },
    ],
    [
      'a bearer credential that is not a JWT (opaque tokens have no authenticator here)',
      {
        headers: { authorization: 'Bearer opaque-token' },
        message:
          'The Bearer credential is not accepted here. This server accepts Authorization: Bearer <token> or an API key (X-API-Key: <key> or Authorization: ApiKey <key>).',
        schemes: EVERY_SCHEME,
        error: 'invalid_token',
      },
    ],
    ['an API key that is not valid', { headers: { authorization: 'ApiKey demo-root' }, message: 'The API key is not valid.', schemes: ['ApiKey'], error: 'invalid_token' }],
  ];

  it.each(cases)('refuses %s with 401 UNAUTHENTICATED and says why', async (_title, refusal) => {
    await expectRefused(refusal);
  });

  it('accepts the scheme in any case and spaces around the credential', async () => {
    const answer = await post({ authorization: '  apikey    demo-editor  ' });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: { whoami: 'demo-editor' }, extensions: { cost: { requested: 0, actual: 0, limit: 1000 } } });
  });

  it('never repeats the credential in the message or the challenge', async () => {
    const secret = 'S3cr3tT0k3nValue';
    for (const authorization of [
      secret,
      `Bearer ${secret}`,
      `ApiKey ${secret}`,
      `Bearer ${secret} ${secret}`,
      `Bearer ${secret}.${secret}.${secret}`,
      `Bearer ${secret}!`,
      `Basic ${secret}`,
      `Bearer ${secret}${'x'.repeat(9000)}`,
    ]) {
      const answer = await post({ authorization });
      expect(answer.status, authorization).toBe(401);
      expect(JSON.stringify(answer.body), authorization).not.toContain(secret);
      expect(answer.headers['www-authenticate'], authorization).not.toContain(secret);
    }
  });
});

describe('malformed X-API-Key headers', () => {
  it.each<[string, Refusal]>([
    ['an empty header', { headers: { 'x-api-key': '' }, ...malformed('The X-API-Key header is empty.', ['ApiKey']) }],
    ['whitespace only', { headers: { 'x-api-key': '   ' }, ...malformed('The X-API-Key header is empty.', ['ApiKey']) }],
    ['two keys, as node joins a repeated header', { headers: { 'x-api-key': 'demo-admin, demo-admin' }, ...malformed('The X-API-Key header is sent more than once; send one key.', ['ApiKey']) }],
    ['the header as a list', { headers: { 'x-api-key': ['demo-admin', 'demo-reader'] }, ...malformed('The X-API-Key header is sent more than once; send one key.', ['ApiKey']) }],
    [
      'a key with a space inside',
      { headers: { 'x-api-key': 'demo admin' }, ...malformed('The X-API-Key header has characters no token has; expected letters, digits and - . _ ~ + / (then = padding only).', ['ApiKey']) },
    ],
    ['a 9 KB key', { headers: { 'x-api-key': 'k'.repeat(9000) }, ...malformed('The X-API-Key header is longer than 8192 characters.', ['ApiKey']) }],
    [
      'an X-API-Key beside an Authorization header',
      { headers: { 'x-api-key': 'demo-admin', authorization: 'ApiKey demo-admin' }, ...malformed('The request sends both an Authorization and an X-API-Key header; send one credential.') },
    ],
    ['a key that is not valid', { headers: { 'x-api-key': 'Demo-Admin' }, message: 'The API key is not valid.', schemes: ['ApiKey'], error: 'invalid_token' }],
  ])('refuses %s with 401 UNAUTHENTICATED and says why', async (_title, refusal) => {
    await expectRefused(refusal);
  });

  it('accepts a good key with spaces around it', async () => {
    const answer = await post({ 'x-api-key': ' demo-reader ' });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ data: { whoami: 'demo-reader' } });
  });
});

describe('JWT-shaped tokens that are not good JWTs', () => {
  const header = base64url('{"alg":"RS256"}');
  const payload = base64url(JSON.stringify({ sub: 'alice', iss: ISSUER, exp: now() + 3600 }));

  it.each([
    ['characters outside base64url in every segment', 'ab+c.de/f.g~h', BAD_HEADER],
    ['a header segment that is not base64 at all', `~~~.${payload}.c2ln`, BAD_HEADER],
    ['a signature segment that is not base64url', `${header}.${payload}.a+b`, 'The token is malformed: Failed to base64url decode the signature.'],
    ['two segments', `${header}.${payload}`, 'The token is malformed: Invalid Compact JWS.'],
    ['four segments', `${header}.${payload}.c2ln.c2ln`, 'The token is malformed: Invalid Compact JWS.'],
    ['nothing but dots', '..', BAD_HEADER],
    ['a header that is a JSON array', `${base64url('[]')}.${payload}.c2ln`, BAD_HEADER],
    ['a header that is a JSON string', `${base64url('"x"')}.${payload}.c2ln`, BAD_HEADER],
    ['a header that is a JSON number', `${base64url('1')}.${payload}.c2ln`, BAD_HEADER],
    ['a header that is not JSON', `${base64url('{alg:RS256}')}.${payload}.c2ln`, BAD_HEADER],
    ['a header without alg', `${base64url('{"typ":"JWT"}')}.${payload}.c2ln`, 'The token is malformed: JWS "alg" (Algorithm) Header Parameter missing or invalid.'],
  ])('refuses a token with %s with 401', async (_title, token, message) => {
    await expectRefused({ headers: { authorization: `Bearer ${token}` }, ...invalidToken(message) });
  });

  it.each([
    ['a JSON array', '[]'],
    ['a JSON string', '"x"'],
    ['a JSON number', '1'],
    ['JSON null', 'null'],
    ['text that is not JSON', 'sub=alice'],
  ])('refuses a correctly signed token whose payload is %s', async (_title, text) => {
    await expectRefused({ headers: { authorization: `Bearer ${await signBytes(text)}` }, ...invalidToken(NOT_AN_OBJECT) });
  });

  it('refuses a correctly signed token whose payload is not UTF-8', async () => {
    const token = await signBytes(new Uint8Array([0x7b, 0xff, 0xfe, 0x7d]));
    await expectRefused({ headers: { authorization: `Bearer ${token}` }, ...invalidToken(NOT_AN_OBJECT) });
  });

  it('refuses a correctly signed token that expires at 1e300 through maxLifetimeSeconds', async () => {
    const token = await signBytes(`{"sub":"alice","iss":"${ISSUER}","exp":1e300}`);
    await expectRefused({ headers: { authorization: `Bearer ${token}` }, ...invalidToken(TOO_LONG_LIVED) });
  });

  it('refuses a correctly signed token that expires at 1e400, which JSON reads as Infinity', async () => {
    const token = await signBytes(`{"sub":"alice","iss":"${ISSUER}","exp":1e400}`);
    await expectRefused({ headers: { authorization: `Bearer ${token}` }, ...invalidToken(TOO_LONG_LIVED) });
  });

  it('refuses a correctly signed token that expired at -1e400 (-Infinity)', async () => {
    const token = await signBytes(`{"sub":"alice","iss":"${ISSUER}","exp":-1e400}`);
    await expectRefused({ headers: { authorization: `Bearer ${token}` }, ...invalidToken('The token has expired.') });
  });

  it.each([
    ['no exp', { exp: undefined }, 'The token has no valid "exp" claim; every token must expire.'],
    ['an exp that is a string', { exp: 'tomorrow' }, 'The token has no valid "exp" claim; every token must expire.'],
    ['an exp that is null', { exp: null }, 'The token has no valid "exp" claim; every token must expire.'],
    ['no sub', { sub: undefined }, 'The token has no "sub" claim naming its subject.'],
    ['a sub that is a number', { sub: 42 }, 'The token has no "sub" claim naming its subject.'],
    ['an empty sub', { sub: '' }, 'The token has no "sub" claim naming its subject.'],
    ['another issuer', { iss: 'https://evil.example.net' }, 'The token was not issued by an accepted issuer ("iss").'],
    ['an iat that is a string', { iat: 'now' }, 'The token has an invalid "iat" claim.'],
    ['an nbf in the future', { nbf: now() + 3600 }, 'The token is not valid yet ("nbf" is in the future).'],
  ])('refuses a correctly signed token with %s', async (_title, claims, message) => {
    await expectRefused({ headers: { authorization: `Bearer ${await goodToken(claims)}` }, ...invalidToken(message) });
  });

  it('refuses a token signed by another key', async () => {
    const token = await signBytes(JSON.stringify({ sub: 'alice', iss: ISSUER, exp: now() + 3600 }), strangerKey);
    await expectRefused({ headers: { authorization: `Bearer ${token}` }, ...invalidToken('The token signature is not valid.') });
  });

  it('refuses an unsigned token (alg none)', async () => {
    const token = `${base64url('{"alg":"none"}')}.${payload}.`;
    await expectRefused({ headers: { authorization: `Bearer ${token}` }, ...invalidToken('The token is not signed with an accepted algorithm (RS256).') });
  });

  it('refuses a token signed with HS256 using the public key as the secret (algorithm confusion)', async () => {
    const token = await new SignJWT({ sub: 'alice', iss: ISSUER })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime(now() + 3600)
      .sign(new TextEncoder().encode(PEM));
    await expectRefused({ headers: { authorization: `Bearer ${token}` }, ...invalidToken('The token is not signed with an accepted algorithm (RS256).') });
  });

  it('accepts a good token, which shows the cases above fail for the reason they name', async () => {
    const answer = await post({ authorization: `Bearer ${await goodToken()}` });
    expect(answer.status).toBe(200);
    expect(answer.body).toMatchObject({ data: { whoami: 'alice' } });
  });
});

describe('JWT clock tolerance', () => {
  it('accepts a token that expired 10 seconds ago, within the default 30-second tolerance for exp', async () => {
    // jwtAuth.ts: clockToleranceSeconds is the "Leeway for `exp` and `nbf`, in seconds (default 30)".
    // jose lets such a token through, so the identity's expiresAt must include the tolerance too,
    // or authenticate.ts `admit` refuses it as expired.
    const answer = await post({ authorization: `Bearer ${await goodToken({ exp: now() - 10 })}` });
    expect(answer.body).toMatchObject({ data: { whoami: 'alice' } });
    expect(answer.status).toBe(200);
  });

  it('accepts a token whose nbf is 10 seconds ahead, within the tolerance', async () => {
    const answer = await post({ authorization: `Bearer ${await goodToken({ nbf: now() + 10 })}` });
    expect(answer.status).toBe(200);
  });

  it('refuses a token that expired a minute ago, past the tolerance', async () => {
    await expectRefused({ headers: { authorization: `Bearer ${await goodToken({ exp: now() - 60 })}` }, ...invalidToken('The token has expired.') });
  });
});

/** The laws' check of a refusal: 401, the error shape with a message, a challenge in printable ASCII. */
function expectUnauthenticated(answer: Answer, described: string): void {
  expect(answer.status, described).toBe(401);
  expect(answer.headers['content-type'], described).toBe(JSON_RESPONSE);
  expect(answer.body, described).toEqual({ error: { code: 'UNAUTHENTICATED', message: expect.any(String) } });
  expect((answer.body as { error: { message: string } }).error.message.length, described).toBeGreaterThan(0);
  const challenged = answer.headers['www-authenticate'];
  expect(challenged, described).toMatch(/^(Bearer|ApiKey) realm="graphql", error="invalid_(request|token)", error_description="[\x20-\x7e]+"/);
  expect(challenged, described).toMatch(/^[\x20-\x7e]+$/);
}

/** The law for one credential header: 200 for exactly the valid keys, else a clear 401. */
async function answersOneHeader(header: 'authorization' | 'x-api-key', value: string): Promise<void> {
  const answer = await post({ [header]: value });
  const described = `${header}: ${JSON.stringify(value)} -> ${answer.status} ${JSON.stringify(answer.body)}`;
  const key = validKeyIn(header, value);
  if (key !== null) {
    expect(answer.status, described).toBe(200);
    expect(answer.body, described).toMatchObject({ data: { whoami: key } });
  } else {
    expectUnauthenticated(answer, described);
  }
}

/** The key a header value holds, by the rules of credentials.ts, when it is a valid one; else null. */
function validKeyIn(header: 'authorization' | 'x-api-key', value: string): string | null {
  const keys = KEYS.join('|');
  const match = header === 'x-api-key' ? new RegExp(`^\\s*(${keys})\\s*$`).exec(value) : new RegExp(`^\\s*apikey \\s*(${keys})\\s*$`, 'i').exec(value);
  return match?.[1] ?? null;
}

const BASE64URL = [...'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'];
const segment = fc.string({ unit: fc.oneof({ weight: 20, arbitrary: fc.constantFrom(...BASE64URL) }, fc.constantFrom('+', '/', '=', '~', '%', ' ', 'é')), maxLength: 40 });
const jsonSegment = fc.jsonValue({ maxDepth: 2 }).map((value) => base64url(JSON.stringify(value)));
const jwtHeader = fc
  .record(
    {
      alg: fc.oneof(fc.constantFrom('RS256', 'none', 'HS256', 'ES256', 'PS256', 'RS512', 'EdDSA', ''), fc.jsonValue({ maxDepth: 1 })),
      typ: fc.constantFrom('JWT', 'at+jwt'),
      crit: fc.oneof(fc.constant(['b64']), fc.array(fc.string({ maxLength: 4 }), { maxLength: 2 }), fc.jsonValue({ maxDepth: 1 })),
      b64: fc.boolean(),
      kid: fc.string({ maxLength: 6 }),
    },
    { requiredKeys: [] },
  )
  .map((value) => base64url(JSON.stringify(value)));
const jwtShaped = fc.oneof(
  fc.array(segment, { minLength: 1, maxLength: 5 }).map((parts) => parts.join('.')),
  fc.tuple(fc.oneof(jwtHeader, jsonSegment, segment), fc.oneof(jsonSegment, segment), segment).map((parts) => parts.join('.')),
);
const credential = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.string({ unit: 'grapheme' }),
  jwtShaped,
  fc.constantFrom(...KEYS),
  fc.constantFrom('', ' ', '\t', '\u00a0', ',', 'demo-admin,demo-admin', 'demo-admin demo-admin'),
  fc.integer({ min: 8150, max: 8250 }).map((length) => 'a'.repeat(length)),
);
const prefix = fc.oneof(
  fc.constantFrom('Bearer ', 'ApiKey ', 'bearer ', 'APIKEY ', 'Basic ', 'Bearer  ', 'Bearer\t', 'ApiKey\u00a0', '', ' '),
  fc.string({ maxLength: 8 }),
  fc.string({ maxLength: 8 }).map((scheme) => `${scheme} `),
);
const suffix = fc.constantFrom('', '', '', ' ', '\t', ' x', '\r\n');
const headerValue = fc.oneof(
  fc.tuple(prefix, credential, suffix).map(([before, value, after]) => before + value + after),
  // Near misses of a good key as well as good keys.
  fc.tuple(fc.constantFrom('ApiKey ', 'apikey   ', ' APIKEY ', 'ApiKey\t', 'Bearer ', 'ApiKey:', ''), fc.constantFrom(...KEYS), suffix).map((parts) => parts.join('')),
);

describe('law: whatever a credential header holds, the answer is 401 with a challenge, or 200 for a valid key', () => {
  it('holds for Authorization', async () => {
    await fc.assert(
      fc.asyncProperty(headerValue, (value) => answersOneHeader('authorization', value)),
      parameters(RUNS),
    );
  });

  it('holds for X-API-Key', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(credential, headerValue), (value) => answersOneHeader('x-api-key', value)),
      parameters(RUNS),
    );
  });

  it('holds for both headers at once, and for repeated Authorization headers: always 401', async () => {
    await fc.assert(
      fc.asyncProperty(headerValue, fc.oneof(headerValue, fc.constantFrom(...KEYS)), fc.boolean(), async (first, second, both) => {
        const headers: Record<string, string | string[]> = both ? { authorization: first, 'x-api-key': second } : { authorization: [first, second] };
        const answer = await post(headers);
        expectUnauthenticated(answer, `${JSON.stringify(headers)} -> ${answer.status} ${JSON.stringify(answer.body)}`);
      }),
      parameters(Math.max(50, Math.floor(RUNS / 3))),
    );
  });
});

const ABSENT = fc.constant(undefined);
const anyJson = fc.jsonValue({ maxDepth: 1 });
/** Claims that are mostly acceptable, each sometimes absent or wrong; times are at least a minute from every boundary. */
const claims = fc.record(
  {
    sub: fc.oneof({ weight: 6, arbitrary: fc.constantFrom('alice', 'bob') }, fc.constant(''), ABSENT, anyJson),
    exp: fc.oneof(
      { weight: 8, arbitrary: fc.integer({ min: 120, max: 86_000 }).map((ahead) => now() + ahead) },
      fc.integer({ min: 100, max: 10_000_000 }).map((ago) => now() - ago),
      fc.integer({ min: 86_500, max: 100_000_000 }).map((ahead) => now() + ahead),
      fc.constantFrom('tomorrow', null, 1e300),
      ABSENT,
      anyJson,
    ),
    nbf: fc.oneof(
      { weight: 6, arbitrary: ABSENT },
      { weight: 3, arbitrary: fc.integer({ min: 100, max: 10_000 }).map((ago) => now() - ago) },
      fc.integer({ min: 100, max: 10_000 }).map((ahead) => now() + ahead),
      anyJson,
    ),
    iat: fc.oneof({ weight: 6, arbitrary: ABSENT }, { weight: 3, arbitrary: fc.constant(now()) }, fc.constant('now'), anyJson),
    iss: fc.oneof({ weight: 8, arbitrary: fc.constant(ISSUER) }, ABSENT, fc.constant('https://evil.example.net'), anyJson),
    roles: fc.oneof(ABSENT, fc.constant(['admin']), anyJson),
    amr: fc.oneof(ABSENT, fc.constant(['mfa']), anyJson),
    scope: fc.oneof(ABSENT, fc.constant('read write'), anyJson),
  },
  { requiredKeys: [] },
);

/** Whether jwtAuth must accept these claims, by the rules jwtAuth.ts states (checked far from every boundary). */
function acceptable(payload: Record<string, unknown>): boolean {
  const at = Date.now() / 1000;
  const { sub, exp, nbf, iat, iss } = payload;
  return (
    typeof sub === 'string' &&
    sub !== '' &&
    iss === ISSUER &&
    typeof exp === 'number' &&
    exp > at &&
    exp - at <= 86_400 &&
    (nbf === undefined || (typeof nbf === 'number' && nbf <= at)) &&
    // An iat later than now plus the 30-second tolerance is refused (jwtAuth.ts: issued in the future).
    (iat === undefined || (typeof iat === 'number' && iat <= Math.floor(at) + 30))
  );
}

/** An iat within a few seconds of the tolerance's edge, where the server's clock and this test's can disagree. */
function iatNearTheEdge(payload: Record<string, unknown>): boolean {
  return typeof payload['iat'] === 'number' && Math.abs(payload['iat'] - (now() + 30)) < 5;
}

describe('law: a correctly signed token is let in exactly when its claims are acceptable', () => {
  it('holds for tokens with arbitrary claims', async () => {
    await fc.assert(
      fc.asyncProperty(claims, async (payload) => {
        fc.pre(!iatNearTheEdge(payload));
        const token = await signBytes(JSON.stringify(payload));
        const answer = await post({ authorization: `Bearer ${token}` });
        const described = `${JSON.stringify(payload)} -> ${answer.status} ${JSON.stringify(answer.body)}`;
        if (acceptable(payload)) {
          expect(answer.status, described).toBe(200);
          expect(answer.body, described).toMatchObject({ data: { whoami: payload.sub } });
        } else {
          expectUnauthenticated(answer, described);
        }
      }),
      parameters(Math.max(50, Math.floor(RUNS / 2))),
    );
  });

  it('holds for tokens whose payload is arbitrary bytes or JSON of any shape: always 401', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.uint8Array({ maxLength: 64 }),
          fc.jsonValue({ maxDepth: 2 }).map((value) => JSON.stringify(value)),
        ),
        async (payload) => {
          const answer = await post({ authorization: `Bearer ${await signBytes(payload)}` });
          expectUnauthenticated(answer, `${JSON.stringify(typeof payload === 'string' ? payload : [...payload])} -> ${answer.status} ${JSON.stringify(answer.body)}`);
        },
      ),
      parameters(Math.max(50, Math.floor(RUNS / 2))),
    );
  });
});

describe('law over real HTTP: header values node accepts get 401 or, for a valid key, 200', () => {
  const server = serveDuringSuite({ schema, authenticate, log: () => undefined });
  /** What node's client sends and its server reads: tab, printable ASCII and Latin-1's upper half. */
  const sendable = (value: string): boolean => /^[\t\x20-\x7e\x80-\xff]*$/.test(value);

  it('holds for Authorization and X-API-Key over a socket, and the server keeps serving', async () => {
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('authorization' as const, 'x-api-key' as const), headerValue.filter(sendable), async (name, value) => {
        const response = await send(server.url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', [name]: value },
          body: QUERY,
          timeoutMs: 5000,
        });
        const body = json(response);
        const described = `${name}: ${JSON.stringify(value)} -> ${response.status} ${response.text.slice(0, 300)}`;
        const key = validKeyIn(name, value);
        if (key !== null) {
          expect(response.status, described).toBe(200);
          expect(body, described).toMatchObject({ data: { whoami: key } });
        } else {
          expectUnauthenticated({ status: response.status, headers: response.headers as Record<string, string>, body }, described);
        }
      }),
      parameters(Math.max(30, Math.floor(RUNS / 10))),
    );

    const after = await send(server.url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'demo-admin' }, body: QUERY });
    expect(after.status).toBe(200);
    expect(json(after)).toMatchObject({ data: { whoami: 'demo-admin' } });
  });
});
