/**
 * The authentication layer, end to end through `createHandler` (a plain request in, `[body,
 * init]` out) and through the exported factories directly: API keys (`apiKeyAuth`), JWTs
 * (`jwtAuth`, with a PEM, a JWK, a KeyObject or a JWKS URL), opaque OAuth 2.0 tokens
 * (`oauth2IntrospectionAuth`, RFC 7662), and the chain that asks them in order
 * (`createAuthentication`, the handler's `authenticate` option).
 *
 * Every refusal is checked whole: the status, the `{ error: { code, message } }` body and the
 * exact `WWW-Authenticate` value (RFC 6750 section 3; none for a 503). Every acceptance is
 * checked by the identity resolvers receive as `context.identity`.
 *
 * Issuers are local: a JWKS endpoint and an introspection endpoint on 127.0.0.1:0
 * (support/tokens.ts), which count their hits so that caching and refetch rules can be seen.
 * Time is moved with a faked `Date` (vi.useFakeTimers({ toFake: ['Date'] })): timers stay real,
 * so no test waits for a cache or a cooldown to run out; the only real waits are an
 * introspection endpoint's configured delays of at most 150 ms.
 */
import fc from 'fast-check';
import { afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import {
  ANONYMOUS,
  AuthError,
  ErrorCode,
  apiKeyAuth,
  createAuthentication,
  createHandler,
  hashApiKey,
  jwtAuth,
  makeIdentity,
  makeSchema,
  oauth2IntrospectionAuth,
} from '../src/index.ts';
import type {
  ApiKeyRecord,
  Authenticator,
  AuthRequest,
  AuthResult,
  HandlerOptions,
  HandlerResponse,
  Identity,
  IdentityKind,
  OperationScope,
  PlainRequest,
} from '../src/index.ts';
import {
  algNoneToken,
  corruptedSignature,
  hmacConfusionToken,
  makeKeyPair,
  nowSeconds,
  signToken,
  startIntrospectionServer,
  startJwksServer,
  tamperedToken,
  unusedUrl,
  validClaims,
} from './support/tokens.ts';
import type { IntrospectionServer, JwksServer, KeyPair } from './support/tokens.ts';

const JSON_RESPONSE = 'application/json; charset=utf-8';

// ---------------------------------------------------------------------------------------------
// The schema, the handler and the expected answers
// ---------------------------------------------------------------------------------------------

/** The context the resolver reads: the default context, or a factory's (which copies the scope's identity). */
interface IdentityContext {
  readonly identity: Identity;
}

/** Every `context.identity` the resolver saw, in order; emptied before each test. */
const seen: Identity[] = [];

const schema = makeSchema({
  typeDefs: /* GraphQL */ `
    type Query {
      "The caller's identity id, as the resolver sees it in context.identity."
      me: String
    }
  `,
  resolvers: {
    Query: {
      me: (_parent: unknown, _args: unknown, context: IdentityContext) => {
        seen.push(context.identity);
        return context.identity.id;
      },
    },
  },
});

beforeEach(() => {
  seen.splice(0);
});

afterEach(() => {
  vi.useRealTimers();
});

type Answer = HandlerResponse | Promise<HandlerResponse>;

function handlerWith(options: Partial<HandlerOptions<null>>): (request: PlainRequest<null>) => Answer {
  return createHandler<null>({ schema, production: false, reportCost: false, ...options });
}

/** A POST of `{ me }` with these extra headers. */
function post(headers: Readonly<Record<string, string | string[]>> = {}): PlainRequest<null> {
  return {
    method: 'POST',
    url: '/graphql',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ query: '{ me }' }),
    raw: null,
  };
}

function bearer(token: string): Record<string, string> {
  return { authorization: `Bearer ${token}` };
}

/** A synchronous answer: not a Promise. */
function sync(answer: Answer): HandlerResponse {
  expect(answer).not.toBeInstanceOf(Promise);
  return answer as HandlerResponse;
}

/** An asynchronous answer, awaited. */
async function later(answer: Answer): Promise<HandlerResponse> {
  expect(answer).toBeInstanceOf(Promise);
  return await answer;
}

/** The answer to `{ me }` run as the caller `id`. */
function ok(id: string): HandlerResponse {
  return [JSON.stringify({ data: { me: id } }), { status: 200, headers: { 'content-type': JSON_RESPONSE } }];
}

/** An authentication failure, exactly: status, body, and the challenge (none for null). */
function refused(status: 401 | 403 | 503, code: string, message: string, challenge: string | null): HandlerResponse {
  const headers: Record<string, string> = { 'content-type': JSON_RESPONSE };
  if (challenge !== null) headers['www-authenticate'] = challenge;
  return [JSON.stringify({ error: { code, message } }), { status, headers }];
}

/** RFC 6750 allows no `"` inside error_description: the server writes `'` for it. */
function described(message: string): string {
  return message.replace(/"/g, "'");
}

/** A 401 for a credential of `scheme` that is not valid, with its invalid_token challenge. */
function invalid(scheme: 'Bearer' | 'ApiKey', message: string, realm = 'graphql'): HandlerResponse {
  return refused(401, 'UNAUTHENTICATED', message, `${scheme} realm="${realm}", error="invalid_token", error_description="${described(message)}"`);
}

function invalidBearer(message: string): HandlerResponse {
  return invalid('Bearer', message);
}

const UNAVAILABLE_JWKS = "The issuer's key set could not be fetched to verify the token; try again later.";
const UNAVAILABLE_INTROSPECTION = 'The authorization server could not be asked about the token; try again later.';

/** What an AuthRequest with a bearer token looks like to an authenticator. */
function bearerRequest(token: string): AuthRequest {
  return { credential: { scheme: 'Bearer', value: token }, headers: { authorization: `Bearer ${token}` } };
}

/** Fakes `Date` only (timers stay real), starting at a whole second; `at(ms)` moves it to start + ms. */
function fakeClock(): { start: number; at(offsetMs: number): void } {
  vi.useFakeTimers({ toFake: ['Date'] });
  const start = (Math.floor(Date.now() / 1000) + 1) * 1000;
  vi.setSystemTime(start);
  return { start, at: (offsetMs) => vi.setSystemTime(start + offsetMs) };
}

/** Whether the value and everything reachable from it is frozen. */
function deeplyFrozen(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return true;
  if (!Object.isFrozen(value)) return false;
  return Object.values(value).every(deeplyFrozen);
}

/** The error a function throws (fails the test when it throws nothing). */
function thrownBy(run: () => unknown): Error {
  try {
    run();
  } catch (error) {
    return error as Error;
  }
  throw new Error('Expected a throw; nothing was thrown.');
}

function expectTypeError(run: () => unknown, message: string): void {
  const error = thrownBy(run);
  expect(error).toBeInstanceOf(TypeError);
  expect(error.message).toBe(message);
}

// ---------------------------------------------------------------------------------------------
// apiKeyAuth
// ---------------------------------------------------------------------------------------------

describe('apiKeyAuth', () => {
  const KEY = 'sk_live_4f9a1c2e7b3d8f60a5c4e1b2d3f4a5b6';
  const OTHER_KEY = 'sk_live_00000000000000000000000000000000';
  const EXPIRES = '2099-12-31T23:59:59.000Z';
  const REPORTS: ApiKeyRecord = {
    id: 'svc-reports',
    hash: hashApiKey(KEY),
    roles: ['reader', 'auditor'],
    scopes: ['reports:read'],
    expiresAt: EXPIRES,
    claims: { team: 'analytics', limits: { daily: 1000, burst: [10, 20] } },
  };
  const REPORTS_IDENTITY: Identity = {
    id: 'svc-reports',
    kind: 'apiKey',
    roles: ['reader', 'auditor'],
    scopes: ['reports:read'],
    mfa: false,
    expiresAt: Date.parse(EXPIRES),
    claims: { team: 'analytics', limits: { daily: 1000, burst: [10, 20] } },
  };

  describe('keys given as a list', () => {
    it('hashApiKey is the lowercase hex SHA-256 of the key', () => {
      expect(hashApiKey('abc')).toBe('ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad');
      expect(hashApiKey(KEY)).toMatch(/^[0-9a-f]{64}$/);
    });

    it('accepts a listed key sent as X-API-Key, synchronously, and resolvers see its identity as context.identity', () => {
      const handle = handlerWith({ authenticate: [apiKeyAuth({ keys: [REPORTS] })] });
      expect(sync(handle(post({ 'x-api-key': KEY })))).toEqual(ok('svc-reports'));
      expect(seen).toEqual([REPORTS_IDENTITY]);
    });

    it.each(['ApiKey', 'apikey', 'APIKEY', 'aPiKeY'])('accepts the key sent as Authorization: %s <key> (the scheme is case-insensitive)', (scheme) => {
      const handle = handlerWith({ authenticate: [apiKeyAuth({ keys: [REPORTS] })] });
      expect(sync(handle(post({ authorization: `${scheme} ${KEY}` })))).toEqual(ok('svc-reports'));
      expect(seen).toEqual([REPORTS_IDENTITY]);
    });

    it('hands the context factory { identity, signal } as its second argument', () => {
      const scopes: OperationScope[] = [];
      const handle = handlerWith({
        authenticate: [apiKeyAuth({ keys: [REPORTS] })],
        context: (_raw, scope) => {
          scopes.push(scope);
          return { identity: scope.identity };
        },
      });
      expect(sync(handle(post({ 'x-api-key': KEY })))).toEqual(ok('svc-reports'));
      expect(scopes).toHaveLength(1);
      const scope = scopes[0] as OperationScope;
      expect(scope.identity).toEqual(REPORTS_IDENTITY);
      expect(scope.identity).toBe(seen[0]);
      expect(scope.signal).toBeInstanceOf(AbortSignal);
      expect(scope.signal.aborted).toBe(false);
    });

    it('gives every request with the key the same identity, frozen all the way down', () => {
      const handle = handlerWith({ authenticate: [apiKeyAuth({ keys: [REPORTS] })] });
      sync(handle(post({ 'x-api-key': KEY })));
      sync(handle(post({ authorization: `ApiKey ${KEY}` })));
      expect(seen).toHaveLength(2);
      const [first, second] = seen as [Identity, Identity];
      expect(second).toBe(first);
      expect(deeplyFrozen(first)).toBe(true);
      expect(() => (first.roles as string[]).push('admin')).toThrow(TypeError);
      expect(() => {
        (first.claims['limits'] as { daily: number }).daily = 1e9;
      }).toThrow(TypeError);
      expect(first).toEqual(REPORTS_IDENTITY);
    });

    it('leaves the configured record untouched (the identity holds copies)', () => {
      const claims = { team: 'analytics' };
      const roles = ['reader'];
      apiKeyAuth({ keys: [{ id: 'copy', hash: hashApiKey(KEY), roles, claims }] }).authenticate({
        credential: { scheme: 'ApiKey', value: KEY },
        headers: {},
      });
      expect(Object.isFrozen(claims)).toBe(false);
      expect(Object.isFrozen(roles)).toBe(false);
    });

    it('identifies a key without roles, scopes, expiry or claims with empty lists, null and {}', () => {
      const handle = handlerWith({ authenticate: [apiKeyAuth({ keys: [{ id: 'bare', hash: hashApiKey(KEY) }] })] });
      expect(sync(handle(post({ 'x-api-key': KEY })))).toEqual(ok('bare'));
      expect(seen).toEqual([{ id: 'bare', kind: 'apiKey', roles: [], scopes: [], mfa: false, expiresAt: null, claims: {} }]);
    });

    it('refuses an unknown key with 401 and an ApiKey invalid_token challenge', () => {
      const handle = handlerWith({ authenticate: [apiKeyAuth({ keys: [REPORTS] })] });
      expect(sync(handle(post({ 'x-api-key': OTHER_KEY })))).toEqual(
        refused(401, 'UNAUTHENTICATED', 'The API key is not valid.', 'ApiKey realm="graphql", error="invalid_token", error_description="The API key is not valid."'),
      );
      expect(sync(handle(post({ authorization: `ApiKey ${OTHER_KEY}` })))).toEqual(invalid('ApiKey', 'The API key is not valid.'));
      expect(seen).toEqual([]);
    });

    it('refuses a key whose hash is listed only as a prefix or in another case of the key', () => {
      const handle = handlerWith({ authenticate: [apiKeyAuth({ keys: [REPORTS] })] });
      expect(sync(handle(post({ 'x-api-key': KEY.slice(0, -1) })))).toEqual(invalid('ApiKey', 'The API key is not valid.'));
      expect(sync(handle(post({ 'x-api-key': KEY.toUpperCase() })))).toEqual(invalid('ApiKey', 'The API key is not valid.'));
    });

    it('refuses an expired key with 401 saying when it expired', () => {
      const handle = handlerWith({
        authenticate: [apiKeyAuth({ keys: [{ id: 'old', hash: hashApiKey(KEY), expiresAt: new Date('2020-01-02T03:04:05.000Z') }] })],
      });
      expect(sync(handle(post({ 'x-api-key': KEY })))).toEqual(
        refused(
          401,
          'UNAUTHENTICATED',
          'The API key expired at 2020-01-02T03:04:05.000Z.',
          'ApiKey realm="graphql", error="invalid_token", error_description="The API key expired at 2020-01-02T03:04:05.000Z."',
        ),
      );
    });

    it('accepts expiresAt as milliseconds since the epoch, and refuses the key from that millisecond on', () => {
      const clock = fakeClock();
      const expiresAt = clock.start + 5_000;
      const handle = handlerWith({ authenticate: [apiKeyAuth({ keys: [{ id: 'soon', hash: hashApiKey(KEY), expiresAt }] })] });
      expect(sync(handle(post({ 'x-api-key': KEY })))).toEqual(ok('soon'));
      expect(seen[0]?.expiresAt).toBe(expiresAt);
      clock.at(4_999);
      expect(sync(handle(post({ 'x-api-key': KEY })))).toEqual(ok('soon'));
      clock.at(5_000);
      expect(sync(handle(post({ 'x-api-key': KEY })))).toEqual(invalid('ApiKey', `The API key expired at ${new Date(expiresAt).toISOString()}.`));
    });
  });

  /** A lookup that always answers `record`, counting its calls. */
  function countingLookup(record: ApiKeyRecord | null): ((hash: string) => ApiKeyRecord | null) & { calls: number } {
    const lookup = Object.assign(() => {
      lookup.calls += 1;
      return record;
    }, { calls: 0 });
    return lookup;
  }

  describe('keys found by lookup', () => {
    it('passes lookup the lowercase hex SHA-256 of the key (hashApiKey), and accepts the record it returns', async () => {
      const asked: string[] = [];
      const handle = handlerWith({
        authenticate: [
          apiKeyAuth({
            lookup: (hash) => {
              asked.push(hash);
              return hash === REPORTS.hash ? REPORTS : null;
            },
          }),
        ],
      });
      expect(await later(handle(post({ 'x-api-key': KEY })))).toEqual(ok('svc-reports'));
      expect(asked).toEqual([hashApiKey(KEY)]);
      expect(asked[0]).toMatch(/^[0-9a-f]{64}$/);
      expect(seen).toEqual([REPORTS_IDENTITY]);
      expect(deeplyFrozen(seen[0])).toBe(true);
    });

    it('accepts a lookup that answers with a promise', async () => {
      const handle = handlerWith({ authenticate: [apiKeyAuth({ lookup: async () => REPORTS })] });
      expect(await later(handle(post({ authorization: `apikey ${KEY}` })))).toEqual(ok('svc-reports'));
    });

    it.each([
      ['null', null],
      ['undefined', undefined],
    ])('refuses a key lookup answers %s for, with 401', async (_name, answer) => {
      const handle = handlerWith({ authenticate: [apiKeyAuth({ lookup: () => answer })] });
      expect(await later(handle(post({ 'x-api-key': OTHER_KEY })))).toEqual(invalid('ApiKey', 'The API key is not valid.'));
    });

    it('refuses a key when lookup returns a record whose hash is not the key’s (a store that matched loosely)', async () => {
      const handle = handlerWith({ authenticate: [apiKeyAuth({ lookup: () => ({ ...REPORTS, hash: hashApiKey(OTHER_KEY) }) })] });
      expect(await later(handle(post({ 'x-api-key': KEY })))).toEqual(invalid('ApiKey', 'The API key is not valid.'));
      expect(seen).toEqual([]);
    });

    it('refuses an expired key from lookup, saying when it expired', async () => {
      const handle = handlerWith({
        authenticate: [apiKeyAuth({ lookup: () => ({ id: 'old', hash: hashApiKey(KEY), expiresAt: '2021-06-01T00:00:00Z' }) })],
      });
      expect(await later(handle(post({ 'x-api-key': KEY })))).toEqual(invalid('ApiKey', 'The API key expired at 2021-06-01T00:00:00.000Z.'));
    });

    it('calls lookup once for a repeated key, answering the repeats synchronously', async () => {
      const lookup = countingLookup(REPORTS);
      const handle = handlerWith({ authenticate: [apiKeyAuth({ lookup })] });
      expect(await later(handle(post({ 'x-api-key': KEY })))).toEqual(ok('svc-reports'));
      expect(sync(handle(post({ 'x-api-key': KEY })))).toEqual(ok('svc-reports'));
      expect(sync(handle(post({ authorization: `ApiKey ${KEY}` })))).toEqual(ok('svc-reports'));
      expect(lookup.calls).toBe(1);
      expect(seen[1]).toBe(seen[0]);
    });

    it('makes one lookup for concurrent first requests with one key', async () => {
      let calls = 0;
      let release!: () => void;
      const released = new Promise<void>((resolve) => {
        release = resolve;
      });
      const handle = handlerWith({
        authenticate: [
          apiKeyAuth({
            lookup: async () => {
              calls += 1;
              await released;
              return REPORTS;
            },
          }),
        ],
      });
      const answers = [1, 2, 3, 4].map(() => handle(post({ 'x-api-key': KEY })));
      release();
      expect(await Promise.all(answers)).toEqual([1, 2, 3, 4].map(() => ok('svc-reports')));
      expect(calls).toBe(1);
    });

    it('asks lookup again once cacheMaxAgeMs has passed (a revoked key stops working)', async () => {
      const clock = fakeClock();
      let record: ApiKeyRecord | null = REPORTS;
      let calls = 0;
      const handle = handlerWith({
        authenticate: [
          apiKeyAuth({
            cacheMaxAgeMs: 1_000,
            lookup: () => {
              calls += 1;
              return record;
            },
          }),
        ],
      });
      expect(await later(handle(post({ 'x-api-key': KEY })))).toEqual(ok('svc-reports'));
      record = null;
      clock.at(999);
      expect(sync(handle(post({ 'x-api-key': KEY })))).toEqual(ok('svc-reports'));
      expect(calls).toBe(1);
      clock.at(1_000);
      expect(await later(handle(post({ 'x-api-key': KEY })))).toEqual(invalid('ApiKey', 'The API key is not valid.'));
      expect(calls).toBe(2);
    });

    it('remembers a looked-up key for 60 s by default', async () => {
      const clock = fakeClock();
      const lookup = countingLookup(REPORTS);
      const handle = handlerWith({ authenticate: [apiKeyAuth({ lookup })] });
      await later(handle(post({ 'x-api-key': KEY })));
      clock.at(59_999);
      expect(sync(handle(post({ 'x-api-key': KEY })))).toEqual(ok('svc-reports'));
      expect(lookup.calls).toBe(1);
      clock.at(60_000);
      expect(await later(handle(post({ 'x-api-key': KEY })))).toEqual(ok('svc-reports'));
      expect(lookup.calls).toBe(2);
    });

    it('does not remember a refusal: an unknown key is looked up every time', async () => {
      const lookup = countingLookup(null);
      const handle = handlerWith({ authenticate: [apiKeyAuth({ lookup })] });
      await later(handle(post({ 'x-api-key': OTHER_KEY })));
      await later(handle(post({ 'x-api-key': OTHER_KEY })));
      expect(lookup.calls).toBe(2);
    });
  });

  describe('construction errors are TypeErrors that say what to fix', () => {
    const EITHER = 'apiKeyAuth: give either `keys` (a list of records with hashes) or `lookup` (a function from a hash to a record), not both or neither.';

    it('refuses both keys and lookup', () => {
      expectTypeError(() => apiKeyAuth({ keys: [REPORTS], lookup: () => null }), EITHER);
    });

    it('refuses neither keys nor lookup', () => {
      expectTypeError(() => apiKeyAuth({}), EITHER);
    });

    it('refuses a lookup that is not a function', () => {
      expectTypeError(
        () => apiKeyAuth({ lookup: 'select * from keys' as unknown as () => null }),
        'apiKeyAuth: lookup must be a function from a SHA-256 hex hash to a record, got a string.',
      );
    });

    it.each([
      ['is too short', 'abc123'],
      ['is the key itself, not its hash', KEY],
      ['has a character no hex digit is', `${hashApiKey(KEY).slice(0, 63)}g`],
    ])('refuses a record whose hash %s', (_why, hash) => {
      expectTypeError(
        () => apiKeyAuth({ keys: [{ id: 'svc', hash }] }),
        'apiKeyAuth: keys[0] ("svc") needs a "hash": the key\'s SHA-256 in hex (64 characters; see hashApiKey).',
      );
    });

    it('refuses two records with the same id', () => {
      expectTypeError(
        () => apiKeyAuth({ keys: [{ id: 'svc', hash: hashApiKey(KEY) }, { id: 'svc', hash: hashApiKey(OTHER_KEY) }] }),
        'apiKeyAuth: two keys have the id "svc"; ids must be unique.',
      );
    });

    it('refuses two records with the same hash, however its hex digits are cased', () => {
      expectTypeError(
        () => apiKeyAuth({ keys: [{ id: 'a', hash: hashApiKey(KEY) }, { id: 'b', hash: hashApiKey(KEY).toUpperCase() }] }),
        'apiKeyAuth: keys[1] ("b") has the same hash as an earlier key.',
      );
    });

    it('refuses a record without an id', () => {
      expectTypeError(() => apiKeyAuth({ keys: [{ id: '', hash: hashApiKey(KEY) }] }), 'apiKeyAuth: keys[0] needs an "id" (a non-empty string).');
    });

    it('refuses an expiresAt that is not a date', () => {
      expectTypeError(
        () => apiKeyAuth({ keys: [{ id: 'svc', hash: hashApiKey(KEY), expiresAt: 'soon' }] }),
        'apiKeyAuth: keys[0] ("svc") has an expiresAt that is not a date: soon.',
      );
    });

    it('refuses roles that are not an array of strings', () => {
      expectTypeError(
        () => apiKeyAuth({ keys: [{ id: 'svc', hash: hashApiKey(KEY), roles: 'admin' as unknown as string[] }] }),
        'apiKeyAuth: keys[0] ("svc") has roles that are not an array of strings.',
      );
    });
  });

  describe('properties', () => {
    const KEYS = fc.stringMatching(/^[A-Za-z0-9\-._~+/]{1,64}$/);

    it('accepts exactly the listed keys, from either header, and refuses every other key', () => {
      fc.assert(
        fc.property(fc.uniqueArray(KEYS, { minLength: 1, maxLength: 5 }), KEYS, (keys, other) => {
          fc.pre(!keys.includes(other));
          const authenticator = apiKeyAuth({ keys: keys.map((key, index) => ({ id: `key-${index}`, hash: hashApiKey(key) })) });
          const authentication = createAuthentication({ authenticate: [authenticator] });
          keys.forEach((key, index) => {
            const byHeader = authentication.authenticate({ 'x-api-key': key }) as Identity;
            const byAuthorization = authentication.authenticate({ authorization: `ApiKey ${key}` }) as Identity;
            expect(byHeader.id).toBe(`key-${index}`);
            expect(byAuthorization).toBe(byHeader);
          });
          const refusal = authentication.authenticate({ 'x-api-key': other });
          expect(refusal).toBeInstanceOf(AuthError);
          expect((refusal as AuthError).message).toBe('The API key is not valid.');
        }),
        { numRuns: 60 },
      );
    });
  });
});

// ---------------------------------------------------------------------------------------------
// jwtAuth
// ---------------------------------------------------------------------------------------------

describe('jwtAuth', () => {
  const FUTURE_IAT = 'The token was issued in the future ("iat" is later than now).';
  const ISSUER = 'https://issuer.example.test';
  const AUDIENCE = 'https://api.example.test/graphql';
  let rsa: KeyPair;
  let ec: KeyPair;
  let ed: KeyPair;

  beforeAll(async () => {
    [rsa, ec, ed] = await Promise.all([makeKeyPair('RS256', 'rsa-1'), makeKeyPair('ES256', 'ec-1'), makeKeyPair('EdDSA', 'ed-1')]);
  });

  describe('valid tokens become identities', () => {
    it('verifies an RS256 token with a PEM public key: id = sub, roles, space-separated scopes, mfa from amr, expiresAt = (exp + the 30 s tolerance) * 1000, claims', async () => {
      const claims = validClaims({
        sub: 'alice',
        iss: ISSUER,
        aud: AUDIENCE,
        roles: ['editor', 'reader'],
        scope: 'posts:read  posts:write',
        amr: ['pwd', 'mfa'],
        tenant: { id: 'acme', plan: 'gold' },
      });
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem, issuer: ISSUER, audience: AUDIENCE })] });
      expect(await later(handle(post(bearer(await signToken(rsa, claims)))))).toEqual(ok('alice'));
      expect(seen).toEqual([
        {
          id: 'alice',
          kind: 'jwt',
          roles: ['editor', 'reader'],
          scopes: ['posts:read', 'posts:write'],
          mfa: true,
          expiresAt: ((claims.exp as number) + 30) * 1000,
          claims,
        },
      ]);
      expect(deeplyFrozen(seen[0])).toBe(true);
    });

    it('verifies an ES256 token with a JWK; mfa is false when amr lacks "mfa"', async () => {
      const claims = validClaims({ sub: 'bob', amr: ['pwd', 'otp'], roles: ['viewer'] });
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: ec.publicJwk })] });
      expect(await later(handle(post(bearer(await signToken(ec, claims)))))).toEqual(ok('bob'));
      expect(seen).toEqual([{ id: 'bob', kind: 'jwt', roles: ['viewer'], scopes: [], mfa: false, expiresAt: ((claims.exp as number) + 30) * 1000, claims }]);
    });

    it('verifies an EdDSA token with an Ed25519 KeyObject', async () => {
      const claims = validClaims({ sub: 'carol', scope: 'a b c' });
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: ed.publicKeyObject })] });
      expect(await later(handle(post(bearer(await signToken(ed, claims)))))).toEqual(ok('carol'));
      expect(seen).toEqual([{ id: 'carol', kind: 'jwt', roles: [], scopes: ['a', 'b', 'c'], mfa: false, expiresAt: ((claims.exp as number) + 30) * 1000, claims }]);
    });

    it('accepts an EdDSA token with an Ed25519 public key in PEM, and any of several issuers and audiences', async () => {
      const handle = handlerWith({
        authenticate: [jwtAuth({ publicKey: ed.publicPem, issuer: ['https://other.test', ISSUER], audience: ['urn:other', AUDIENCE] })],
      });
      const token = await signToken(ed, validClaims({ sub: 'dave', iss: ISSUER, aud: ['urn:unrelated', AUDIENCE] }));
      expect(await later(handle(post(bearer(token))))).toEqual(ok('dave'));
    });

    it('reads roles from a dotted path (realm_access.roles) and scopes from a custom claim holding an array', async () => {
      const claims = validClaims({ sub: 'erin', realm_access: { roles: ['admin', 'ops'] }, roles: ['ignored'], scp: ['read', 'write'], scope: 'ignored' });
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem, rolesClaim: 'realm_access.roles', scopesClaim: 'scp' })] });
      expect(await later(handle(post(bearer(await signToken(rsa, claims)))))).toEqual(ok('erin'));
      expect(seen[0]?.roles).toEqual(['admin', 'ops']);
      expect(seen[0]?.scopes).toEqual(['read', 'write']);
    });

    it('finds a claim whose own name contains dots (a namespaced claim) before trying it as a path', async () => {
      const claims = validClaims({ sub: 'frank', 'https://example.test/roles': ['billing'] });
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem, rolesClaim: 'https://example.test/roles' })] });
      expect(await later(handle(post(bearer(await signToken(rsa, claims)))))).toEqual(ok('frank'));
      expect(seen[0]?.roles).toEqual(['billing']);
    });

    it('grants no roles or scopes for claims of the wrong shape', async () => {
      const claims = validClaims({ sub: 'gina', roles: { admin: true }, scope: 42, amr: 'mfa-ish' });
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem })] });
      expect(await later(handle(post(bearer(await signToken(rsa, claims)))))).toEqual(ok('gina'));
      expect(seen[0]).toMatchObject({ roles: [], scopes: [], mfa: false });
    });

    it.each<[string, unknown]>([
      ['the string "mfa"', 'mfa'],
      ['the string "pwd mfa"', 'pwd mfa'],
      ['an array holding "mfa" and a number', ['mfa', 42]],
      ['an array holding "mfa" inside another array', [['mfa']]],
      ['an object with an mfa member', { mfa: true }],
    ])('accepts a token whose amr is %s, without multi-factor status (RFC 8176: amr is an array of strings)', async (_title, amr) => {
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem })] });
      expect(await later(handle(post(bearer(await signToken(rsa, validClaims({ sub: 'odile', amr }))))))).toEqual(ok('odile'));
      expect(seen[0]).toMatchObject({ id: 'odile', mfa: false, claims: { amr } });
    });

    it('grants multi-factor status for amr ["mfa"], an array of strings holding "mfa"', async () => {
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem })] });
      expect(await later(handle(post(bearer(await signToken(rsa, validClaims({ sub: 'paul', amr: ['mfa'] }))))))).toEqual(ok('paul'));
      expect(seen[0]).toMatchObject({ id: 'paul', mfa: true });
    });

    it('accepts a token whose iat is now or in the past', async () => {
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem })] });
      expect(await later(handle(post(bearer(await signToken(rsa, validClaims({ sub: 'quinn', iat: nowSeconds() }))))))).toEqual(ok('quinn'));
      expect(await later(handle(post(bearer(await signToken(rsa, validClaims({ sub: 'rita', iat: nowSeconds() - 3600 }))))))).toEqual(ok('rita'));
    });

    it('accepts a token that expires far ahead when maxLifetimeSeconds is null', async () => {
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem, maxLifetimeSeconds: null })] });
      const token = await signToken(rsa, validClaims({ sub: 'henry', exp: nowSeconds() + 10 * 365 * 86_400 }));
      expect(await later(handle(post(bearer(token))))).toEqual(ok('henry'));
    });

    it('accepts a token with typ at+jwt when typ is required', async () => {
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem, typ: 'at+jwt' })] });
      const token = await signToken(rsa, validClaims({ sub: 'ivy' }), { header: { typ: 'at+jwt' } });
      expect(await later(handle(post(bearer(token))))).toEqual(ok('ivy'));
    });

    it('leaves a bearer token without a dot to the next authenticator ("not mine")', () => {
      const authenticator = jwtAuth({ publicKey: rsa.publicPem });
      expect(authenticator.scheme).toBe('Bearer');
      expect(authenticator.authenticate(bearerRequest('opaque-token'))).toBeNull();
      expect(authenticator.authenticate({ credential: { scheme: 'ApiKey', value: 'a.b.c' }, headers: {} })).toBeNull();
      expect(authenticator.authenticate({ credential: null, headers: {} })).toBeNull();
    });
  });

  describe('refusals: 401 with an invalid_token challenge saying why', () => {
    const ALGORITHM = 'The token is not signed with an accepted algorithm (RS256).';
    const SIGNATURE = 'The token signature is not valid.';

    /** The RSA verifier every refusal below runs against: issuer and audience configured, default tolerance (30 s) and lifetime (1 day). */
    function rsaHandler(): (request: PlainRequest<null>) => Answer {
      return handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem, issuer: ISSUER, audience: AUDIENCE })] });
    }

    function good(extra: Record<string, unknown> = {}) {
      return validClaims({ sub: 'mallory', iss: ISSUER, aud: AUDIENCE, ...extra });
    }

    const cases: ReadonlyArray<readonly [string, () => Promise<string> | string, string]> = [
      ['an unsecured token (alg none)', () => algNoneToken(good()), ALGORITHM],
      ['an unsecured token (alg none) that also names the key', () => algNoneToken(good(), { kid: 'rsa-1' }), ALGORITHM],
      ['an HS256 token signed with the RSA public key’s PEM as the secret (algorithm confusion)', () => hmacConfusionToken(rsa.publicPem, good()), ALGORITHM],
      ['an ES256 token when the configured key is RSA', () => signToken(ec, good()), ALGORITHM],
      ['an expired token (exp two minutes ago)', async () => signToken(rsa, good({ exp: nowSeconds() - 120 })), 'The token has expired.'],
      ['a token not valid yet (nbf two minutes ahead)', async () => signToken(rsa, good({ nbf: nowSeconds() + 120 })), 'The token is not valid yet ("nbf" is in the future).'],
      ['a token issued an hour in the future (iat an hour ahead)', async () => signToken(rsa, good({ iat: nowSeconds() + 3600 })), FUTURE_IAT],
      ['a token whose iat is not a number', async () => signToken(rsa, good({ iat: 'now' })), 'The token has an invalid "iat" claim.'],
      ['a token from another issuer', async () => signToken(rsa, good({ iss: 'https://evil.test' })), 'The token was not issued by an accepted issuer ("iss").'],
      ['a token without an issuer', async () => signToken(rsa, good({ iss: undefined })), 'The token was not issued by an accepted issuer ("iss").'],
      ['a token for another audience', async () => signToken(rsa, good({ aud: ['https://other.test'] })), 'The token is not meant for this server ("aud").'],
      ['a token with a tampered payload (sub and roles changed)', async () => tamperedToken(await signToken(rsa, good()), (claims) => ({ ...claims, sub: 'admin', roles: ['admin'] })), SIGNATURE],
      ['a token whose signature has one bit flipped', async () => corruptedSignature(await signToken(rsa, good())), SIGNATURE],
      ['a token signed by another RSA key with the same kid', async () => signToken(await makeKeyPair('RS256', 'rsa-1'), good()), SIGNATURE],
      ['a token without exp', async () => signToken(rsa, good({ exp: undefined })), 'The token has no valid "exp" claim; every token must expire.'],
      ['a token whose exp is not a number', async () => signToken(rsa, good({ exp: 'tomorrow' })), 'The token has no valid "exp" claim; every token must expire.'],
      [
        'a token expiring further ahead than maxLifetimeSeconds (one day)',
        async () => signToken(rsa, good({ exp: nowSeconds() + 86_400 + 120 })),
        'The token expires more than 86400 seconds from now; this server accepts shorter-lived tokens only.',
      ],
      ['a token without sub', async () => signToken(rsa, good({ sub: undefined })), 'The token has no "sub" claim naming its subject.'],
      ['a token whose sub is empty', async () => signToken(rsa, good({ sub: '' })), 'The token has no "sub" claim naming its subject.'],
      ['a token of two parts only', () => 'eyJhbGciOiJSUzI1NiJ9.eyJzdWIiOiJ4In0', 'The token is malformed: Invalid Compact JWS.'],
    ];

    it.each(cases)('refuses %s', async (_name, makeToken, message) => {
      const handle = rsaHandler();
      const token = await makeToken();
      expect(await later(handle(post(bearer(token))))).toEqual(invalidBearer(message));
      expect(seen).toEqual([]);
    });

    it('writes the challenge with the description’s double quotes as single quotes (RFC 6750 allows no " in it)', async () => {
      const handle = rsaHandler();
      const token = await signToken(rsa, good({ iss: 'https://evil.test' }));
      const [, init] = await later(handle(post(bearer(token))));
      expect(init.headers['www-authenticate']).toBe(
        'Bearer realm="graphql", error="invalid_token", error_description="The token was not issued by an accepted issuer (\'iss\')."',
      );
    });

    it('refuses a token with an unknown crit header parameter with 401 invalid_token', async () => {
      const handle = rsaHandler();
      const token = await signToken(rsa, good(), { header: { crit: ['x-unknown'], 'x-unknown': 'must-understand' }, crit: { 'x-unknown': true } });
      const [body, init] = await later(handle(post(bearer(token))));
      expect(init.status).toBe(401);
      const { error } = JSON.parse(body as string) as { error: { code: string; message: string } };
      expect(error.code).toBe('UNAUTHENTICATED');
      expect(init.headers['www-authenticate']).toBe(`Bearer realm="graphql", error="invalid_token", error_description="${described(error.message)}"`);
      expect(seen).toEqual([]);
    });

    it('says that the crit header, not the signature algorithm, is what is wrong with such a token', async () => {
      const handle = rsaHandler();
      const token = await signToken(rsa, good(), { header: { crit: ['x-unknown'], 'x-unknown': 'must-understand' }, crit: { 'x-unknown': true } });
      const [body] = await later(handle(post(bearer(token))));
      const { error } = JSON.parse(body as string) as { error: { code: string; message: string } };
      // The token is RS256, an accepted algorithm: a message blaming the algorithm sends the client the wrong way.
      expect(error.message).not.toBe(ALGORITHM);
      expect(error.message).toMatch(/crit/i);
    });

    it('refuses a token without the required typ', async () => {
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem, typ: 'at+jwt' })] });
      const token = await signToken(rsa, validClaims(), { header: { typ: 'JWT' } });
      expect(await later(handle(post(bearer(token))))).toEqual(invalidBearer('The token does not have the required "typ" header.'));
    });

    it('honours a smaller maxLifetimeSeconds', async () => {
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem, maxLifetimeSeconds: 600 })] });
      expect(await later(handle(post(bearer(await signToken(rsa, validClaims({ exp: nowSeconds() + 500 }))))))).toEqual(ok('user-1'));
      expect(await later(handle(post(bearer(await signToken(rsa, validClaims({ exp: nowSeconds() + 700 }))))))).toEqual(
        invalidBearer('The token expires more than 600 seconds from now; this server accepts shorter-lived tokens only.'),
      );
    });

    it('never remembers a refusal: the same bad token is refused again, asynchronously', async () => {
      const handle = rsaHandler();
      const token = await signToken(rsa, good({ iss: 'https://evil.test' }));
      const first = await later(handle(post(bearer(token))));
      const second = await later(handle(post(bearer(token))));
      expect(second).toEqual(first);
    });
  });

  describe('clock tolerance (clockToleranceSeconds, default 30)', () => {
    it('accepts a token that expired less than the tolerance ago', async () => {
      fakeClock();
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem })] });
      const token = await signToken(rsa, validClaims({ sub: 'late', exp: nowSeconds() - 10 }));
      expect(await later(handle(post(bearer(token))))).toEqual(ok('late'));
    });

    it('accepts a token that expired less than a larger configured tolerance ago', async () => {
      fakeClock();
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem, clockToleranceSeconds: 120 })] });
      const token = await signToken(rsa, validClaims({ sub: 'late', exp: nowSeconds() - 90 }));
      expect(await later(handle(post(bearer(token))))).toEqual(ok('late'));
    });

    it('refuses a token that expired the tolerance ago or longer', async () => {
      fakeClock();
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem })] });
      expect(await later(handle(post(bearer(await signToken(rsa, validClaims({ exp: nowSeconds() - 30 }))))))).toEqual(invalidBearer('The token has expired.'));
      expect(await later(handle(post(bearer(await signToken(rsa, validClaims({ exp: nowSeconds() - 31 }))))))).toEqual(invalidBearer('The token has expired.'));
    });

    it('with a tolerance of 0, refuses a token from its exp second on', async () => {
      fakeClock();
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem, clockToleranceSeconds: 0 })] });
      expect(await later(handle(post(bearer(await signToken(rsa, validClaims({ exp: nowSeconds() }))))))).toEqual(invalidBearer('The token has expired.'));
      expect(await later(handle(post(bearer(await signToken(rsa, validClaims({ sub: 'on-time', exp: nowSeconds() + 1 }))))))).toEqual(ok('on-time'));
    });

    it('accepts a token whose nbf is less than the tolerance ahead, and refuses one further ahead', async () => {
      fakeClock();
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem })] });
      expect(await later(handle(post(bearer(await signToken(rsa, validClaims({ sub: 'early', nbf: nowSeconds() + 30 }))))))).toEqual(ok('early'));
      expect(await later(handle(post(bearer(await signToken(rsa, validClaims({ nbf: nowSeconds() + 31 }))))))).toEqual(
        invalidBearer('The token is not valid yet ("nbf" is in the future).'),
      );
    });

    it('accepts a token whose iat is the tolerance ahead, and refuses one further ahead as issued in the future', async () => {
      fakeClock();
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem })] });
      expect(await later(handle(post(bearer(await signToken(rsa, validClaims({ sub: 'skewed', iat: nowSeconds() + 30 }))))))).toEqual(ok('skewed'));
      expect(await later(handle(post(bearer(await signToken(rsa, validClaims({ iat: nowSeconds() + 31 }))))))).toEqual(invalidBearer(FUTURE_IAT));
    });

    it('measures a future iat against a larger configured tolerance', async () => {
      fakeClock();
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem, clockToleranceSeconds: 120 })] });
      expect(await later(handle(post(bearer(await signToken(rsa, validClaims({ sub: 'skewed', iat: nowSeconds() + 120 }))))))).toEqual(ok('skewed'));
      expect(await later(handle(post(bearer(await signToken(rsa, validClaims({ iat: nowSeconds() + 121 }))))))).toEqual(invalidBearer(FUTURE_IAT));
    });

    it('with a tolerance of 0, refuses a token whose iat is one second ahead', async () => {
      fakeClock();
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem, clockToleranceSeconds: 0 })] });
      expect(await later(handle(post(bearer(await signToken(rsa, validClaims({ iat: nowSeconds() + 1 }))))))).toEqual(invalidBearer(FUTURE_IAT));
      expect(await later(handle(post(bearer(await signToken(rsa, validClaims({ sub: 'now', iat: nowSeconds() }))))))).toEqual(ok('now'));
    });

    it('with a tolerance of 0, refuses a token whose nbf is one second ahead', async () => {
      fakeClock();
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem, clockToleranceSeconds: 0 })] });
      expect(await later(handle(post(bearer(await signToken(rsa, validClaims({ nbf: nowSeconds() + 1 }))))))).toEqual(
        invalidBearer('The token is not valid yet ("nbf" is in the future).'),
      );
      expect(await later(handle(post(bearer(await signToken(rsa, validClaims({ sub: 'now', nbf: nowSeconds() }))))))).toEqual(ok('now'));
    });
  });

  describe('requiredScopes', () => {
    const REQUIRED = ['posts:read', 'posts:write'];

    it('refuses a valid token lacking one required scope with 403 FORBIDDEN and an insufficient_scope challenge naming the scopes', async () => {
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem, requiredScopes: REQUIRED })] });
      const token = await signToken(rsa, validClaims({ scope: 'posts:read profile' }));
      expect(await later(handle(post(bearer(token))))).toEqual(
        refused(
          403,
          'FORBIDDEN',
          'The token lacks the scope posts:write.',
          'Bearer realm="graphql", error="insufficient_scope", error_description="The token lacks the scope posts:write.", scope="posts:read posts:write"',
        ),
      );
      expect(seen).toEqual([]);
    });

    it('names every missing scope', async () => {
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem, requiredScopes: REQUIRED })] });
      const token = await signToken(rsa, validClaims());
      expect(await later(handle(post(bearer(token))))).toEqual(
        refused(
          403,
          'FORBIDDEN',
          'The token lacks the scopes posts:read, posts:write.',
          'Bearer realm="graphql", error="insufficient_scope", error_description="The token lacks the scopes posts:read, posts:write.", scope="posts:read posts:write"',
        ),
      );
    });

    it('accepts a token holding every required scope (from the configured scopes claim)', async () => {
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem, requiredScopes: REQUIRED, scopesClaim: 'scp' })] });
      const token = await signToken(rsa, validClaims({ sub: 'writer', scp: ['posts:write', 'posts:read'] }));
      expect(await later(handle(post(bearer(token))))).toEqual(ok('writer'));
    });
  });

  describe('verified tokens are remembered', () => {
    it('answers a repeated token synchronously, without verifying it again', async () => {
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem })] });
      const token = await signToken(rsa, validClaims({ sub: 'repeat' }));
      expect(await later(handle(post(bearer(token))))).toEqual(ok('repeat'));
      expect(sync(handle(post(bearer(token))))).toEqual(ok('repeat'));
      expect(sync(handle(post({ authorization: `bearer ${token}` })))).toEqual(ok('repeat'));
      expect(seen[1]).toBe(seen[0]);
      expect(seen[2]).toBe(seen[0]);
    });

    it('verifies concurrent first requests with one token once, giving them one identity', async () => {
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem })] });
      const token = await signToken(rsa, validClaims({ sub: 'burst' }));
      const answers = await Promise.all([1, 2, 3].map(() => later(handle(post(bearer(token))))));
      expect(answers).toEqual([ok('burst'), ok('burst'), ok('burst')]);
      expect(new Set(seen).size).toBe(1);
    });

    it('stops serving a remembered token once it expires, refusing it at once', async () => {
      const clock = fakeClock();
      const handle = handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem, clockToleranceSeconds: 0 })] });
      const token = await signToken(rsa, validClaims({ sub: 'brief', exp: nowSeconds() + 60 }));
      expect(await later(handle(post(bearer(token))))).toEqual(ok('brief'));
      clock.at(59_999);
      expect(sync(handle(post(bearer(token))))).toEqual(ok('brief'));
      clock.at(60_000);
      expect(sync(handle(post(bearer(token))))).toEqual(invalidBearer('The token has expired.'));
    });
  });

  describe('keys from a JWKS (jwksUrl)', () => {
    let jwks: JwksServer;
    let signer: KeyPair;
    let stranger: KeyPair;

    beforeAll(async () => {
      [signer, stranger] = await Promise.all([makeKeyPair('RS256', 'jwks-1'), makeKeyPair('ES256', 'ghost')]);
    });

    beforeEach(async () => {
      jwks = await startJwksServer([signer.publicJwk, ec.publicJwk]);
    });

    afterEach(async () => {
      await jwks.close();
    });

    it('verifies tokens with the published keys, fetching the key set once for many tokens', async () => {
      const handle = handlerWith({ authenticate: [jwtAuth({ jwksUrl: jwks.url })] });
      const concurrent = await Promise.all(
        ['u1', 'u2', 'u3'].map(async (sub) => later(handle(post(bearer(await signToken(signer, validClaims({ sub }))))))),
      );
      expect(concurrent).toEqual([ok('u1'), ok('u2'), ok('u3')]);
      expect(await later(handle(post(bearer(await signToken(ec, validClaims({ sub: 'u4' }))))))).toEqual(ok('u4'));
      expect(await later(handle(post(bearer(await signToken(signer, validClaims({ sub: 'u5' }))))))).toEqual(ok('u5'));
      expect(jwks.hits).toBe(1);
      expect(seen.map((identity) => identity.kind)).toEqual(['jwt', 'jwt', 'jwt', 'jwt', 'jwt']);
    });

    it('answers a repeated token synchronously, without asking the JWKS endpoint or verifying again', async () => {
      const handle = handlerWith({ authenticate: [jwtAuth({ jwksUrl: jwks.url })] });
      const token = await signToken(signer, validClaims({ sub: 'again' }));
      expect(await later(handle(post(bearer(token))))).toEqual(ok('again'));
      await jwks.close();
      expect(sync(handle(post(bearer(token))))).toEqual(ok('again'));
      expect(jwks.hits).toBe(1);
    });

    it('refuses a token whose kid is not in the key set with 401', async () => {
      const handle = handlerWith({ authenticate: [jwtAuth({ jwksUrl: jwks.url })] });
      expect(await later(handle(post(bearer(await signToken(stranger, validClaims())))))).toEqual(
        invalidBearer('No key of the issuer matches the token (unknown "kid").'),
      );
    });

    it.each([
      ['alg none', () => algNoneToken(validClaims(), { kid: 'jwks-1' })],
      ['HS256 keyed with the public key (algorithm confusion)', () => hmacConfusionToken(signer.publicPem, validClaims(), { kid: 'jwks-1' })],
    ])('refuses %s without fetching a key for it', async (_name, makeToken) => {
      const handle = handlerWith({ authenticate: [jwtAuth({ jwksUrl: jwks.url })] });
      expect(await later(handle(post(bearer(makeToken()))))).toEqual(
        invalidBearer('The token is not signed with an accepted algorithm (RS256, ES256, EdDSA).'),
      );
      expect(jwks.hits).toBe(0);
    });

    it('refetches for unknown kids at most once per 30 s, and finds a rotated key once the cooldown has passed', async () => {
      const clock = fakeClock();
      const handle = handlerWith({ authenticate: [jwtAuth({ jwksUrl: jwks.url })] });
      const tokenOf = (key: KeyPair, sub: string) => signToken(key, validClaims({ sub }));
      const unknownKid = 'No key of the issuer matches the token (unknown "kid").';

      // t = 0: the first token fetches the key set.
      expect(await later(handle(post(bearer(await tokenOf(signer, 'first')))))).toEqual(ok('first'));
      expect(jwks.hits).toBe(1);

      // t = 1 s: an unknown kid, within 30 s of that fetch: no refetch.
      clock.at(1_000);
      expect(await later(handle(post(bearer(await tokenOf(stranger, 'x0')))))).toEqual(invalidBearer(unknownKid));
      expect(jwks.hits).toBe(1);

      // t = 31 s and 32 s: two different unknown kids: one refetch between them.
      clock.at(31_000);
      const ghost1 = await makeKeyPair('RS256', 'ghost-1');
      const ghost2 = await makeKeyPair('RS256', 'ghost-2');
      expect(await later(handle(post(bearer(await tokenOf(ghost1, 'x1')))))).toEqual(invalidBearer(unknownKid));
      clock.at(32_000);
      expect(await later(handle(post(bearer(await tokenOf(ghost2, 'x2')))))).toEqual(invalidBearer(unknownKid));
      expect(jwks.hits).toBe(2);

      // The issuer rotates in a new key; within 30 s of the refetch it is not looked for yet.
      const rotated = await makeKeyPair('RS256', 'rotated');
      jwks.setKeys([signer.publicJwk, rotated.publicJwk]);
      clock.at(40_000);
      expect(await later(handle(post(bearer(await tokenOf(rotated, 'too-soon')))))).toEqual(invalidBearer(unknownKid));
      expect(jwks.hits).toBe(2);

      // t = 61 s: the cooldown has passed: one refetch finds it, and later tokens need none.
      clock.at(61_000);
      expect(await later(handle(post(bearer(await tokenOf(rotated, 'rotated-1')))))).toEqual(ok('rotated-1'));
      expect(jwks.hits).toBe(3);
      clock.at(62_000);
      expect(await later(handle(post(bearer(await tokenOf(rotated, 'rotated-2')))))).toEqual(ok('rotated-2'));
      expect(await later(handle(post(bearer(await tokenOf(signer, 'old-key')))))).toEqual(ok('old-key'));
      expect(jwks.hits).toBe(3);
    });

    it('answers 503 AUTHENTICATION_UNAVAILABLE, with no challenge, when the JWKS endpoint answers 500', async () => {
      jwks.behave({ kind: 'status', status: 500 });
      const handle = handlerWith({ authenticate: [jwtAuth({ jwksUrl: jwks.url })] });
      expect(await later(handle(post(bearer(await signToken(signer, validClaims())))))).toEqual(
        refused(503, 'AUTHENTICATION_UNAVAILABLE', UNAVAILABLE_JWKS, null),
      );
    });

    it('answers 503 when the JWKS endpoint answers something that is not JSON, or not a key set', async () => {
      const handle = handlerWith({ authenticate: [jwtAuth({ jwksUrl: jwks.url })] });
      jwks.behave({ kind: 'text', text: '<html>maintenance</html>' });
      expect(await later(handle(post(bearer(await signToken(signer, validClaims())))))).toEqual(
        refused(503, 'AUTHENTICATION_UNAVAILABLE', UNAVAILABLE_JWKS, null),
      );
      jwks.behave({ kind: 'text', text: '{"keys": "none"}' });
      expect(await later(handle(post(bearer(await signToken(signer, validClaims())))))).toEqual(
        refused(503, 'AUTHENTICATION_UNAVAILABLE', UNAVAILABLE_JWKS, null),
      );
    });

    it('answers 503 when nothing listens at the JWKS URL', async () => {
      const handle = handlerWith({ authenticate: [jwtAuth({ jwksUrl: await unusedUrl('/.well-known/jwks.json') })] });
      expect(await later(handle(post(bearer(await signToken(signer, validClaims())))))).toEqual(
        refused(503, 'AUTHENTICATION_UNAVAILABLE', UNAVAILABLE_JWKS, null),
      );
    });

    it('tries the key set again on the next request after a failed fetch', async () => {
      const handle = handlerWith({ authenticate: [jwtAuth({ jwksUrl: jwks.url })] });
      jwks.behave({ kind: 'status', status: 500 });
      expect((await later(handle(post(bearer(await signToken(signer, validClaims()))))))[1].status).toBe(503);
      jwks.behave({ kind: 'keys' });
      expect(await later(handle(post(bearer(await signToken(signer, validClaims({ sub: 'recovered' }))))))).toEqual(ok('recovered'));
      expect(jwks.hits).toBe(2);
    });
  });

  describe('construction errors are TypeErrors', () => {
    const NOT_ACCEPTED = (algorithm: string) =>
      `jwtAuth: algorithm ${algorithm} is not accepted: tokens are verified with the issuer's public key, never a shared secret or none.`;

    it.each(['HS256', 'hs512', 'none', 'NONE'])('refuses %s among the algorithms', (algorithm) => {
      expectTypeError(() => jwtAuth({ publicKey: rsa.publicPem, algorithms: ['RS256', algorithm] }), NOT_ACCEPTED(algorithm));
      expectTypeError(() => jwtAuth({ jwksUrl: 'https://issuer.example.test/jwks.json', algorithms: [algorithm] }), NOT_ACCEPTED(algorithm));
    });

    it('refuses both publicKey and jwksUrl, and neither', () => {
      const EITHER = 'jwtAuth: give either `publicKey` (PEM, JWK or KeyObject) or `jwksUrl`, not both or neither.';
      expectTypeError(() => jwtAuth({ publicKey: rsa.publicPem, jwksUrl: 'https://issuer.example.test/jwks.json' }), EITHER);
      expectTypeError(() => jwtAuth({}), EITHER);
    });

    it('refuses an RSA key with algorithms it cannot verify (ES256)', () => {
      expectTypeError(() => jwtAuth({ publicKey: rsa.publicPem, algorithms: ['ES256'] }), 'jwtAuth: the public key (rsa) verifies none of the algorithms ES256.');
    });

    it('refuses an Ed25519 key with only RS256 and ES256', () => {
      expectTypeError(
        () => jwtAuth({ publicKey: ed.publicKeyObject, algorithms: ['RS256', 'ES256'] }),
        'jwtAuth: the public key (ed25519) verifies none of the algorithms RS256, ES256.',
      );
    });

    it('refuses a publicKey that is no key', () => {
      const error = thrownBy(() => jwtAuth({ publicKey: 'not a pem' }));
      expect(error).toBeInstanceOf(TypeError);
      expect(error.message.startsWith('jwtAuth: publicKey is not a public key in PEM or JWK form: ')).toBe(true);
    });
  });

  describe('properties', () => {
    const NAME = fc.string({ minLength: 0, maxLength: 12 });
    const SCOPE_NAME = fc.stringMatching(/^[!#-[\]-~]{1,12}$/);

    it('roles are the claim’s non-empty strings, scopes the space-separated names, whatever the token says', async () => {
      const authenticator = jwtAuth({ publicKey: ed.publicKeyObject });
      await fc.assert(
        fc.asyncProperty(
          fc.oneof(fc.array(fc.oneof(NAME, fc.integer(), fc.constant(null)), { maxLength: 6 }), fc.integer(), fc.constant(null), fc.object({ maxDepth: 1 })),
          fc.array(SCOPE_NAME, { maxLength: 6 }),
          fc.array(fc.constantFrom(' ', '  '), { minLength: 6, maxLength: 6 }),
          fc.uuid(),
          async (roles, scopes, gaps, sub) => {
            const scope = scopes.map((name, index) => `${gaps[index]}${name}`).join('');
            const token = await signToken(ed, validClaims({ sub, roles, scope }));
            const identity = (await authenticator.authenticate(bearerRequest(token))) as Identity;
            const expectedRoles = Array.isArray(roles) ? roles.filter((role): role is string => typeof role === 'string' && role !== '') : [];
            expect(identity.id).toBe(sub);
            expect(identity.roles).toEqual(expectedRoles);
            expect(identity.scopes).toEqual(scopes);
            expect(deeplyFrozen(identity)).toBe(true);
          },
        ),
        { numRuns: 40 },
      );
    });
  });
});

// ---------------------------------------------------------------------------------------------
// oauth2IntrospectionAuth
// ---------------------------------------------------------------------------------------------

describe('oauth2IntrospectionAuth', () => {
  const CLIENT_ID = 'graphql-api';
  const CLIENT_SECRET = 's3cret-value';
  const TOKEN = 'opaque-access-token-0001';
  let server: IntrospectionServer;

  beforeEach(async () => {
    server = await startIntrospectionServer();
  });

  afterEach(async () => {
    await server.close();
  });

  function introspection(extra: Partial<Parameters<typeof oauth2IntrospectionAuth>[0]> = {}): Authenticator {
    return oauth2IntrospectionAuth({ introspectionUrl: server.url, clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, ...extra });
  }

  function active(extra: Record<string, unknown> = {}): Record<string, unknown> {
    return { active: true, sub: 'bob', scope: 'read write', exp: nowSeconds() + 300, ...extra };
  }

  describe('the introspection request (RFC 7662 section 2.1)', () => {
    it('is a POST with client credentials in Basic, a form body holding the token and its hint, asking for JSON', async () => {
      server.reply({ json: active() });
      const handle = handlerWith({ authenticate: [introspection()] });
      await later(handle(post(bearer(TOKEN))));
      expect(server.requests).toHaveLength(1);
      const request = server.requests[0]!;
      expect(request.method).toBe('POST');
      expect(request.url).toBe('/introspect');
      expect(request.headers['authorization']).toBe(`Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`);
      expect(request.headers['content-type']).toBe('application/x-www-form-urlencoded');
      expect(request.headers['accept']).toBe('application/json');
      expect(request.body).toBe(`token=${TOKEN}&token_type_hint=access_token`);
      expect(request.form).toEqual([
        ['token', TOKEN],
        ['token_type_hint', 'access_token'],
      ]);
    });

    it('form-urlencodes client id and secret before joining them (RFC 6749 section 2.3.1)', async () => {
      const clientId = 'api:client id';
      const clientSecret = 'p%ss:w&rd+=/é';
      server.reply({ json: active() });
      const handle = handlerWith({ authenticate: [introspection({ clientId, clientSecret })] });
      await later(handle(post(bearer(TOKEN))));
      const header = server.requests[0]!.headers['authorization'] ?? '';
      expect(header.startsWith('Basic ')).toBe(true);
      const decoded = Buffer.from(header.slice('Basic '.length), 'base64').toString('utf8');
      const parts = decoded.split(':');
      expect(parts).toHaveLength(2);
      const formDecode = (text: string) => decodeURIComponent(text.replace(/\+/g, ' '));
      expect(parts.map(formDecode)).toEqual([clientId, clientSecret]);
    });
  });

  describe('answers', () => {
    it('makes an active answer an oauth2 identity: id from sub, scopes from scope, roles, mfa, expiresAt = exp * 1000, the answer as claims', async () => {
      const answer = active({ client_id: 'mobile-app', roles: ['editor'], amr: ['pwd', 'mfa'], iss: 'https://as.test', aud: 'api' });
      server.reply({ json: answer });
      const handle = handlerWith({ authenticate: [introspection()] });
      expect(await later(handle(post(bearer(TOKEN))))).toEqual(ok('bob'));
      expect(seen).toEqual([
        { id: 'bob', kind: 'oauth2', roles: ['editor'], scopes: ['read', 'write'], mfa: true, expiresAt: (answer['exp'] as number) * 1000, claims: answer },
      ]);
      expect(deeplyFrozen(seen[0])).toBe(true);
    });

    it.each<[string, unknown]>([
      ['the string "mfa"', 'mfa'],
      ['the string "pwd mfa"', 'pwd mfa'],
      ['an array holding "mfa" and a number', ['mfa', 42]],
      ['an object with an mfa member', { mfa: true }],
    ])('makes an active answer whose amr is %s an identity without multi-factor status (amr is an array of strings)', async (_title, amr) => {
      server.reply({ json: active({ amr }) });
      const handle = handlerWith({ authenticate: [introspection()] });
      expect(await later(handle(post(bearer(TOKEN))))).toEqual(ok('bob'));
      expect(seen[0]).toMatchObject({ id: 'bob', kind: 'oauth2', mfa: false, claims: { amr } });
    });

    it('takes the id from client_id when the answer has no sub (a client credentials token)', async () => {
      server.reply({ json: { active: true, client_id: 'batch-job', exp: nowSeconds() + 300 } });
      const handle = handlerWith({ authenticate: [introspection()] });
      expect(await later(handle(post(bearer(TOKEN))))).toEqual(ok('batch-job'));
      expect(seen[0]).toMatchObject({ id: 'batch-job', kind: 'oauth2', roles: [], scopes: [], mfa: false });
    });

    it('reads roles from a configured dotted path', async () => {
      server.reply({ json: active({ realm_access: { roles: ['ops'] } }) });
      const handle = handlerWith({ authenticate: [introspection({ rolesClaim: 'realm_access.roles' })] });
      expect(await later(handle(post(bearer(TOKEN))))).toEqual(ok('bob'));
      expect(seen[0]?.roles).toEqual(['ops']);
    });

    it('refuses an inactive token with 401', async () => {
      server.reply({ json: { active: false } });
      const handle = handlerWith({ authenticate: [introspection()] });
      expect(await later(handle(post(bearer(TOKEN))))).toEqual(
        invalidBearer('The token is not active: it expired, was revoked, or was never issued.'),
      );
    });

    it('refuses an active answer whose exp has passed', async () => {
      server.reply({ json: active({ exp: nowSeconds() - 5 }) });
      const handle = handlerWith({ authenticate: [introspection()] });
      expect(await later(handle(post(bearer(TOKEN))))).toEqual(invalidBearer('The token has expired.'));
    });

    it('refuses an active answer naming neither sub nor client_id', async () => {
      server.reply({ json: { active: true, exp: nowSeconds() + 300 } });
      const handle = handlerWith({ authenticate: [introspection()] });
      expect(await later(handle(post(bearer(TOKEN))))).toEqual(invalidBearer('The token names no subject ("sub") or client ("client_id").'));
    });

    it('refuses a token from another issuer when issuer is configured, and accepts a listed one', async () => {
      const handle = handlerWith({ authenticate: [introspection({ issuer: ['https://as.test', 'https://as2.test'] })] });
      server.reply({ json: active({ iss: 'https://evil.test' }) });
      expect(await later(handle(post(bearer(TOKEN))))).toEqual(invalidBearer('The token was not issued by an accepted issuer ("iss").'));
      server.reply({ json: active({ iss: 'https://as2.test' }) });
      expect(await later(handle(post(bearer(TOKEN))))).toEqual(ok('bob'));
    });

    it('refuses a token for another audience when audience is configured, and accepts one whose aud includes it', async () => {
      const handle = handlerWith({ authenticate: [introspection({ audience: 'graphql' })] });
      server.reply({ json: active({ aud: ['billing', 'reports'] }) });
      expect(await later(handle(post(bearer(TOKEN))))).toEqual(invalidBearer('The token is not meant for this server ("aud").'));
      server.reply({ json: active({ aud: ['billing', 'graphql'] }) });
      expect(await later(handle(post(bearer(TOKEN))))).toEqual(ok('bob'));
    });

    it('refuses an active token lacking a required scope with 403 insufficient_scope', async () => {
      server.reply({ json: active({ scope: 'read' }) });
      const handle = handlerWith({ authenticate: [introspection({ requiredScopes: ['read', 'admin'] })] });
      expect(await later(handle(post(bearer(TOKEN))))).toEqual(
        refused(
          403,
          'FORBIDDEN',
          'The token lacks the scope admin.',
          'Bearer realm="graphql", error="insufficient_scope", error_description="The token lacks the scope admin.", scope="read admin"',
        ),
      );
    });
  });

  describe('the endpoint failing: 503 AUTHENTICATION_UNAVAILABLE, no challenge', () => {
    const UNAVAILABLE = refused(503, 'AUTHENTICATION_UNAVAILABLE', UNAVAILABLE_INTROSPECTION, null);

    it.each([
      ['answers 500', { status: 500, json: { error: 'server_error' } }],
      ['answers 401 (it does not know this server)', { status: 401, json: { error: 'invalid_client' } }],
      ['answers 302 (redirects are not followed)', { status: 302, text: '' }],
      ['answers text that is not JSON', { text: '<html>down for maintenance</html>' }],
      ['answers JSON without a boolean "active"', { json: { active: 'yes', sub: 'bob' } }],
      ['answers JSON that is not an object', { json: [true] }],
    ])('when the endpoint %s', async (_name, reply) => {
      server.reply(reply);
      const handle = handlerWith({ authenticate: [introspection()] });
      expect(await later(handle(post(bearer(TOKEN))))).toEqual(UNAVAILABLE);
    });

    it('when the endpoint does not answer within timeoutMs', async () => {
      server.reply({ json: active(), delayMs: 150 });
      const handle = handlerWith({ authenticate: [introspection({ timeoutMs: 30 })] });
      expect(await later(handle(post(bearer(TOKEN))))).toEqual(UNAVAILABLE);
    });

    it('when nothing listens at the endpoint', async () => {
      const handle = handlerWith({
        authenticate: [oauth2IntrospectionAuth({ introspectionUrl: await unusedUrl('/introspect'), clientId: CLIENT_ID, clientSecret: CLIENT_SECRET })],
      });
      expect(await later(handle(post(bearer(TOKEN))))).toEqual(UNAVAILABLE);
    });

    it('and asks again on the next request (a failure is not remembered)', async () => {
      server.reply({ status: 500, json: {} });
      const handle = handlerWith({ authenticate: [introspection()] });
      expect(await later(handle(post(bearer(TOKEN))))).toEqual(UNAVAILABLE);
      server.reply({ json: active() });
      expect(await later(handle(post(bearer(TOKEN))))).toEqual(ok('bob'));
      expect(server.hits).toBe(2);
    });
  });

  describe('caching', () => {
    it('remembers an active answer until the token’s exp: repeats are answered synchronously without a call, then refused as expired without one', async () => {
      const clock = fakeClock();
      server.reply({ json: active({ exp: clock.start / 1000 + 100 }) });
      const handle = handlerWith({ authenticate: [introspection()] });
      expect(await later(handle(post(bearer(TOKEN))))).toEqual(ok('bob'));
      server.reply({ json: { active: false } });
      clock.at(99_999);
      expect(sync(handle(post(bearer(TOKEN))))).toEqual(ok('bob'));
      expect(server.hits).toBe(1);
      clock.at(100_000);
      expect(sync(handle(post(bearer(TOKEN))))).toEqual(invalidBearer('The token has expired.'));
      expect(server.hits).toBe(1);
    });

    it('asks again about a token whose remembered answer cacheMaxAgeMs ended before its exp', async () => {
      const clock = fakeClock();
      server.reply({ json: active({ exp: clock.start / 1000 + 100 }) });
      const handle = handlerWith({ authenticate: [introspection({ cacheMaxAgeMs: 10_000 })] });
      expect(await later(handle(post(bearer(TOKEN))))).toEqual(ok('bob'));
      server.reply({ json: { active: false } });
      clock.at(9_999);
      expect(sync(handle(post(bearer(TOKEN))))).toEqual(ok('bob'));
      clock.at(10_000);
      expect(await later(handle(post(bearer(TOKEN))))).toEqual(
        invalidBearer('The token is not active: it expired, was revoked, or was never issued.'),
      );
      expect(server.hits).toBe(2);
    });

    it('remembers an answer without exp for 60 s by default', async () => {
      const clock = fakeClock();
      server.reply({ json: { active: true, sub: 'bob' } });
      const handle = handlerWith({ authenticate: [introspection()] });
      expect(await later(handle(post(bearer(TOKEN))))).toEqual(ok('bob'));
      expect(seen[0]?.expiresAt).toBeNull();
      clock.at(59_999);
      expect(sync(handle(post(bearer(TOKEN))))).toEqual(ok('bob'));
      expect(server.hits).toBe(1);
      clock.at(60_000);
      expect(await later(handle(post(bearer(TOKEN))))).toEqual(ok('bob'));
      expect(server.hits).toBe(2);
    });

    it('remembers an answer no longer than cacheMaxAgeMs, even when exp is later', async () => {
      const clock = fakeClock();
      server.reply({ json: active({ exp: clock.start / 1000 + 3_600 }) });
      const handle = handlerWith({ authenticate: [introspection({ cacheMaxAgeMs: 5_000 })] });
      await later(handle(post(bearer(TOKEN))));
      clock.at(4_999);
      expect(sync(handle(post(bearer(TOKEN))))).toEqual(ok('bob'));
      clock.at(5_000);
      expect(await later(handle(post(bearer(TOKEN))))).toEqual(ok('bob'));
      expect(server.hits).toBe(2);
    });

    it('does not remember an inactive answer', async () => {
      server.reply({ json: { active: false } });
      const handle = handlerWith({ authenticate: [introspection()] });
      await later(handle(post(bearer(TOKEN))));
      await later(handle(post(bearer(TOKEN))));
      expect(server.hits).toBe(2);
    });

    it('makes one introspection call for concurrent first requests with one token', async () => {
      server.reply({ json: active(), delayMs: 40 });
      const handle = handlerWith({ authenticate: [introspection()] });
      const answers = await Promise.all([1, 2, 3, 4, 5].map(() => later(handle(post(bearer(TOKEN))))));
      expect(answers).toEqual([1, 2, 3, 4, 5].map(() => ok('bob')));
      expect(server.hits).toBe(1);
      expect(new Set(seen).size).toBe(1);
    });

    it('keeps tokens apart: each distinct token is introspected for itself', async () => {
      server.reply((request) => {
        const token = request.form.find(([name]) => name === 'token')?.[1] ?? '';
        return { json: active({ sub: `owner-of-${token}` }) };
      });
      const handle = handlerWith({ authenticate: [introspection()] });
      expect(await later(handle(post(bearer('token-a'))))).toEqual(ok('owner-of-token-a'));
      expect(await later(handle(post(bearer('token-b'))))).toEqual(ok('owner-of-token-b'));
      expect(sync(handle(post(bearer('token-a'))))).toEqual(ok('owner-of-token-a'));
      expect(server.hits).toBe(2);
    });
  });

  describe('beside jwtAuth: [jwtAuth, oauth2IntrospectionAuth]', () => {
    let rsa: KeyPair;

    beforeAll(async () => {
      rsa = await makeKeyPair('RS256', 'beside-1');
    });

    function chain(): (request: PlainRequest<null>) => Answer {
      return handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem }), introspection()] });
    }

    it('sends a JWT-shaped token (with dots) to jwtAuth, never to the introspection endpoint', async () => {
      server.reply({ json: active({ sub: 'introspected' }) });
      const token = await signToken(rsa, validClaims({ sub: 'from-jwt' }));
      expect(await later(chain()(post(bearer(token))))).toEqual(ok('from-jwt'));
      expect(seen[0]?.kind).toBe('jwt');
      expect(server.hits).toBe(0);
    });

    it('sends an opaque token (no dot) to the introspection endpoint', async () => {
      server.reply({ json: active({ sub: 'introspected' }) });
      expect(await later(chain()(post(bearer(TOKEN))))).toEqual(ok('introspected'));
      expect(seen[0]?.kind).toBe('oauth2');
      expect(server.hits).toBe(1);
    });

    it('refuses a forged JWT in jwtAuth instead of letting the introspection endpoint decide', async () => {
      server.reply({ json: active({ sub: 'introspected' }) });
      const forged = tamperedToken(await signToken(rsa, validClaims()), (claims) => ({ ...claims, sub: 'admin' }));
      expect(await later(chain()(post(bearer(forged))))).toEqual(invalidBearer('The token signature is not valid.'));
      expect(server.hits).toBe(0);
    });
  });

  describe('construction errors are TypeErrors', () => {
    it.each(['clientId', 'clientSecret'] as const)('refuses an empty %s', (name) => {
      expectTypeError(
        () => oauth2IntrospectionAuth({ introspectionUrl: 'https://as.test/introspect', clientId: 'id', clientSecret: 'secret', [name]: '' }),
        `oauth2IntrospectionAuth: ${name} must be a non-empty string.`,
      );
    });
  });
});

// ---------------------------------------------------------------------------------------------
// The chain: createAuthentication and the handler's `authenticate` option
// ---------------------------------------------------------------------------------------------

describe('the authentication chain', () => {
  const KEY = 'chain-key-0123456789abcdef';
  const KEY_RECORD: ApiKeyRecord = { id: 'chain-svc', hash: hashApiKey(KEY) };
  let rsa: KeyPair;

  beforeAll(async () => {
    rsa = await makeKeyPair('RS256', 'chain-1');
  });

  /** Both built-in schemes, JWT first. */
  function bothSchemes(extra: Partial<HandlerOptions<null>> = {}): (request: PlainRequest<null>) => Answer {
    return handlerWith({ authenticate: [jwtAuth({ publicKey: rsa.publicPem }), apiKeyAuth({ keys: [KEY_RECORD] })], ...extra });
  }

  /** A custom authenticator for the scheme `Custom`, answering what `answer` gives. */
  function custom(answer: (request: AuthRequest) => AuthResult | Promise<AuthResult>, scheme = 'Custom'): Authenticator & { calls: number } {
    const authenticator = {
      scheme,
      calls: 0,
      authenticate(request: AuthRequest) {
        authenticator.calls += 1;
        return answer(request);
      },
    };
    return authenticator;
  }

  function identity(fields: Partial<Identity> & { id: string; kind: IdentityKind }): Identity {
    return makeIdentity({ roles: [], scopes: [], mfa: false, expiresAt: null, claims: {}, ...fields });
  }

  const BOTH = 'Authorization: Bearer <token> or an API key (X-API-Key: <key> or Authorization: ApiKey <key>)';

  describe('without a credential', () => {
    it('runs the request as the anonymous caller', () => {
      const handle = bothSchemes();
      expect(sync(handle(post()))).toEqual(ok('anonymous'));
      expect(seen).toEqual([ANONYMOUS]);
      expect(seen[0]).toBe(ANONYMOUS);
      expect(ANONYMOUS).toEqual({ id: 'anonymous', kind: 'anonymous', roles: [], scopes: [], mfa: false, expiresAt: null, claims: {} });
      expect(deeplyFrozen(ANONYMOUS)).toBe(true);
    });

    it('runs the request as the anonymous caller when no authenticator is configured', () => {
      expect(sync(handlerWith({})(post()))).toEqual(ok('anonymous'));
      expect(createAuthentication({}).authenticate({})).toBe(ANONYMOUS);
    });

    it('with requireAuthentication, refuses with 401 and a challenge for every configured scheme, without an error parameter', () => {
      const handle = bothSchemes({ requireAuthentication: true });
      expect(sync(handle(post()))).toEqual(
        refused(401, 'UNAUTHENTICATED', `This server requires authentication; send ${BOTH}.`, 'Bearer realm="graphql", ApiKey realm="graphql"'),
      );
      expect(seen).toEqual([]);
    });

    it('with requireAuthentication, still lets a valid credential in', () => {
      const handle = bothSchemes({ requireAuthentication: true });
      expect(sync(handle(post({ 'x-api-key': KEY })))).toEqual(ok('chain-svc'));
    });
  });

  describe('a credential nobody accepts is refused, never treated as anonymous', () => {
    it('offers Bearer once when two authenticators accept it', () => {
      const handle = handlerWith({
        authenticate: [
          jwtAuth({ publicKey: rsa.publicPem }),
          oauth2IntrospectionAuth({ introspectionUrl: 'http://127.0.0.1:9/introspect', clientId: 'id', clientSecret: 'secret' }),
        ],
      });
      const message = 'The Basic credential is not accepted here. This server accepts Authorization: Bearer <token>.';
      expect(sync(handle(post({ authorization: 'Basic dXNlcjpwYXNzd29yZA==' })))).toEqual(invalidBearer(message));
    });

    it('names the realm option in the challenge', () => {
      const handle = bothSchemes({ realm: 'example-api' });
      const message = `The Basic credential is not accepted here. This server accepts ${BOTH}.`;
      const [, init] = sync(handle(post({ authorization: 'Basic dXNlcjpwYXNzd29yZA==' })));
      expect(init.headers['www-authenticate']).toBe(
        `Bearer realm="example-api", error="invalid_token", error_description="${message}", ApiKey realm="example-api", error="invalid_token", error_description="${message}"`,
      );
      expect(sync(handle(post({ 'x-api-key': 'unknown-key' })))).toEqual(invalid('ApiKey', 'The API key is not valid.', 'example-api'));
    });

    it('refuses a Basic credential with 401, offering every scheme', () => {
      const handle = bothSchemes();
      const message = `The Basic credential is not accepted here. This server accepts ${BOTH}.`;
      expect(sync(handle(post({ authorization: 'Basic dXNlcjpwYXNzd29yZA==' })))).toEqual(
        refused(
          401,
          'UNAUTHENTICATED',
          message,
          `Bearer realm="graphql", error="invalid_token", error_description="${message}", ApiKey realm="graphql", error="invalid_token", error_description="${message}"`,
        ),
      );
      expect(seen).toEqual([]);
    });

    it('refuses an opaque bearer token when only jwtAuth reads bearer tokens', () => {
      const handle = bothSchemes();
      const message = `The Bearer credential is not accepted here. This server accepts ${BOTH}.`;
      expect(sync(handle(post(bearer('no-dots-here'))))).toEqual(
        refused(
          401,
          'UNAUTHENTICATED',
          message,
          `Bearer realm="graphql", error="invalid_token", error_description="${message}", ApiKey realm="graphql", error="invalid_token", error_description="${message}"`,
        ),
      );
    });

    it('refuses a request sending both Authorization and X-API-Key with 401 invalid_request', () => {
      const handle = bothSchemes();
      const message = 'The request sends both an Authorization and an X-API-Key header; send one credential.';
      expect(sync(handle(post({ authorization: `ApiKey ${KEY}`, 'x-api-key': KEY })))).toEqual(
        refused(
          401,
          'UNAUTHENTICATED',
          message,
          `Bearer realm="graphql", error="invalid_request", error_description="${message}", ApiKey realm="graphql", error="invalid_request", error_description="${message}"`,
        ),
      );
      expect(seen).toEqual([]);
    });

    it('refuses an Authorization header sent twice', () => {
      const handle = bothSchemes();
      const message = 'The Authorization header is sent more than once; send one credential.';
      const [body, init] = sync(handle(post({ authorization: [`ApiKey ${KEY}`, `ApiKey ${KEY}`] })));
      expect(init.status).toBe(401);
      expect(JSON.parse(body as string)).toEqual({ error: { code: 'UNAUTHENTICATED', message } });
    });
  });

  describe('custom authenticators', () => {
    it('accepts an identity given as a promise', async () => {
      const who = identity({ id: 'proxy-user', kind: 'jwt', roles: ['staff'] });
      const handle = handlerWith({ authenticate: [custom(async () => who)] });
      expect(await later(handle(post({ authorization: 'Custom abc123' })))).toEqual(ok('proxy-user'));
      expect(seen).toEqual([who]);
      expect(seen[0]).toBe(who);
    });

    it('asks the next authenticator when one answers null ("not mine"), synchronously or as a promise', async () => {
      const first = custom(() => null);
      const second = custom(async () => null);
      const third = custom(() => identity({ id: 'third', kind: 'oauth2' }));
      const handle = handlerWith({ authenticate: [first, second, third] });
      expect(await later(handle(post({ authorization: 'Custom abc123' })))).toEqual(ok('third'));
      expect([first.calls, second.calls, third.calls]).toEqual([1, 1, 1]);
    });

    it('stops at the first authenticator that answers: later ones are not asked', () => {
      const first = custom(() => identity({ id: 'first', kind: 'jwt' }));
      const second = custom(() => identity({ id: 'second', kind: 'jwt' }));
      const handle = handlerWith({ authenticate: [first, second] });
      expect(sync(handle(post({ authorization: 'Custom abc123' })))).toEqual(ok('first'));
      expect(second.calls).toBe(0);
    });

    it('refuses with 401 when every authenticator answers null', async () => {
      const handle = handlerWith({ authenticate: [custom(async () => null)] });
      const message = 'The Custom credential is not accepted here. This server accepts Authorization: Custom <token>.';
      expect(await later(handle(post({ authorization: 'Custom abc123' })))).toEqual(
        refused(401, 'UNAUTHENTICATED', message, `Custom realm="graphql", error="invalid_token", error_description="${message}"`),
      );
    });

    it('answers an AuthError as it says: a 403 with its scheme, scopes and message', () => {
      const handle = handlerWith({
        authenticate: [
          custom(
            () =>
              new AuthError(ErrorCode.Forbidden, 'Only operators may call this API.', {
                scheme: 'Custom',
                challengeError: 'insufficient_scope',
                requiredScopes: ['ops', 'admin'],
              }),
          ),
        ],
      });
      expect(sync(handle(post({ authorization: 'Custom abc123' })))).toEqual(
        refused(
          403,
          'FORBIDDEN',
          'Only operators may call this API.',
          'Custom realm="graphql", error="insufficient_scope", error_description="Only operators may call this API.", scope="ops admin"',
        ),
      );
    });

    it('answers a 503 AuthError without a challenge', async () => {
      const handle = handlerWith({ authenticate: [custom(async () => new AuthError(ErrorCode.AuthenticationUnavailable, 'The directory is down.'))] });
      expect(await later(handle(post({ authorization: 'Custom abc123' })))).toEqual(refused(503, 'AUTHENTICATION_UNAVAILABLE', 'The directory is down.', null));
    });

    it('refuses a token identity whose expiresAt has passed with 401', () => {
      const expiresAt = Date.parse('2024-02-29T12:00:00.000Z');
      const handle = handlerWith({ authenticate: [custom(() => identity({ id: 'stale', kind: 'oauth2', expiresAt }))] });
      expect(sync(handle(post({ authorization: 'Custom abc123' })))).toEqual(invalid('Bearer', 'The token has expired.'));
      expect(seen).toEqual([]);
    });

    it('refuses an expired API-key identity with an ApiKey challenge, saying when it expired', async () => {
      const handle = handlerWith({ authenticate: [custom(async () => identity({ id: 'stale-key', kind: 'apiKey', expiresAt: 0 }))] });
      expect(await later(handle(post({ authorization: 'Custom abc123' })))).toEqual(invalid('ApiKey', 'The API key expired at 1970-01-01T00:00:00.000Z.'));
    });

    it('shows authenticators the credential already read, and every header', () => {
      const requests: AuthRequest[] = [];
      const handle = handlerWith({
        authenticate: [
          custom((request) => {
            requests.push(request);
            return identity({ id: 'reader', kind: 'jwt' });
          }),
        ],
      });
      sync(handle(post({ authorization: 'Custom   abc123', 'x-forwarded-user': 'alice' })));
      expect(requests).toHaveLength(1);
      expect(requests[0]?.credential).toEqual({ scheme: 'Custom', value: 'abc123' });
      expect(requests[0]?.headers['x-forwarded-user']).toBe('alice');
    });
  });

  describe('createAuthentication directly', () => {
    it('lists the schemes once each, in order', () => {
      const authentication = createAuthentication({
        authenticate: [apiKeyAuth({ keys: [KEY_RECORD] }), jwtAuth({ publicKey: rsa.publicPem }), custom(() => null, 'ApiKey')],
      });
      expect(authentication.schemes).toEqual(['ApiKey', 'Bearer']);
    });

    it('answers synchronously for a listed API key and for no credential', () => {
      const authentication = createAuthentication({ authenticate: [apiKeyAuth({ keys: [KEY_RECORD] })] });
      expect(authentication.authenticate({})).toBe(ANONYMOUS);
      expect((authentication.authenticate({ 'x-api-key': KEY }) as Identity).id).toBe('chain-svc');
    });

    it('refuses something that is not an authenticator with a TypeError', () => {
      expectTypeError(
        () => createAuthentication({ authenticate: [{ scheme: 'X' } as unknown as Authenticator] }),
        'authenticate[0] must be an authenticator (apiKeyAuth(), jwtAuth(), ...), got [object Object].',
      );
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Identities
// ---------------------------------------------------------------------------------------------

describe('makeIdentity', () => {
  const KEY_NAME = fc.string({ maxLength: 8 }).filter((name) => name !== '__proto__');
  const CLAIM: fc.Arbitrary<unknown> = fc.letrec<{ value: unknown }>((tie) => ({
    value: fc.oneof(
      { depthSize: 'small' },
      fc.string({ maxLength: 8 }),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie('value'), { maxLength: 3 }),
      fc.dictionary(KEY_NAME, tie('value'), { maxKeys: 3 }),
    ),
  })).value;
  const FIELDS: fc.Arbitrary<Identity> = fc.record({
    id: fc.string({ minLength: 1, maxLength: 12 }),
    kind: fc.constantFrom<IdentityKind>('apiKey', 'jwt', 'oauth2', 'anonymous'),
    roles: fc.array(fc.string({ maxLength: 8 }), { maxLength: 4 }),
    scopes: fc.array(fc.string({ maxLength: 8 }), { maxLength: 4 }),
    mfa: fc.boolean(),
    expiresAt: fc.option(fc.integer({ min: 0, max: 4_102_444_800_000 }), { nil: null }),
    claims: fc.dictionary(KEY_NAME, CLAIM, { maxKeys: 5 }),
  });

  it('makes an equal identity, frozen all the way down, from copies: the fields given stay unfrozen', () => {
    fc.assert(
      fc.property(FIELDS, (fields) => {
        const made = makeIdentity(fields);
        expect(made).toEqual(fields);
        expect(deeplyFrozen(made)).toBe(true);
        expect(made.roles).not.toBe(fields.roles);
        expect(made.claims).not.toBe(fields.claims);
        expect(Object.isFrozen(fields.roles)).toBe(false);
        expect(Object.isFrozen(fields.claims)).toBe(false);
      }),
      { numRuns: 200 },
    );
  });
});
