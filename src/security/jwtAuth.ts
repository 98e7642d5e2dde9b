/**
 * jwtAuth: JSON Web Tokens sent as `Authorization: Bearer <token>`, verified with jose.
 *
 * Signature and key handling is security-critical parsing that a well-kept library does better
 * than hand-written code, so jose does all of it: the JWS, the JWKS fetch and its refetch rules,
 * the registered claims. What this module decides is policy, following RFC 8725 (JWT best
 * current practices):
 *  - the verifier, not the token, says which algorithms are acceptable: an explicit allowlist
 *    (default RS256, ES256, EdDSA), narrowed to what the configured key can verify, so `alg:
 *    none` and HS256-signed-with-the-public-key (algorithm confusion) never reach a key;
 *  - `exp` is required (every credential expires), and one further in the future than
 *    `maxLifetimeSeconds` is refused: a token that never expires is not an expiring credential;
 *  - `iss` and `aud` are checked when configured, `nbf` and `exp` with a small clock tolerance;
 *  - an `iat` (optional) later than now plus that tolerance is refused: a token cannot have been
 *    issued in the future, so it comes from an issuer whose clock is wrong, or was minted ahead
 *    of time to be used later; jose checks this only with `maxTokenAge`, which would also make
 *    `iat` required, so the check is made here;
 *  - `amr` grants multi-factor status only as RFC 8176's array of strings (see multiFactorIn);
 *  - a `crit` header parameter jose does not understand is refused (jose's default).
 *
 * With `jwksUrl`, keys come from the issuer's JWKS: fetched on first use, kept for ten minutes,
 * and refetched when a token names an unknown `kid`, at most once per 30 seconds (jose's
 * cooldown), so a stream of made-up `kid`s cannot make the server hammer the issuer.
 *
 * RFC 9068 JWT access tokens from an OAuth 2.0 authorization server are verified here too
 * (set `typ: 'at+jwt'` to insist on that profile); opaque access tokens go to
 * oauth2IntrospectionAuth.
 */
import { createPublicKey } from 'node:crypto';
import type { KeyObject } from 'node:crypto';
import { createRemoteJWKSet, jwtVerify } from 'jose';
import type { JWK, JWTPayload, JWTVerifyGetKey, JWTVerifyOptions } from 'jose';
import { describe } from '../jsutils/describe.ts';
import { authenticationUnavailable, invalidCredential } from './authError.ts';
import type { AuthError } from './authError.ts';
import type { Authenticator, AuthRequest, AuthResult } from './authenticate.ts';
import { CredentialCache } from './credentialCache.ts';
import { claimAt, makeIdentity, multiFactorIn, namesIn, scopeRefusal } from './identity.ts';
import type { Identity } from './identity.ts';

export interface JwtAuthOptions {
  /** The issuer's public key: PEM text (SPKI or a certificate), a JWK, or a KeyObject. Give this or `jwksUrl`. */
  publicKey?: string | JWK | KeyObject;
  /** The issuer's JSON Web Key Set (`https://issuer/.well-known/jwks.json`). */
  jwksUrl?: string | URL;
  /** Accepted `iss` values (strongly advised). */
  issuer?: string | ReadonlyArray<string>;
  /** Accepted `aud` values: this API's identifier (strongly advised). */
  audience?: string | ReadonlyArray<string>;
  /** Accepted signature algorithms (default RS256, ES256, EdDSA). HS* and none are never accepted. */
  algorithms?: ReadonlyArray<string>;
  /** Leeway for `exp`, `nbf` and `iat`, in seconds (default 30). */
  clockToleranceSeconds?: number;
  /** Longest accepted time to `exp`, in seconds (default one day); null: no bound. */
  maxLifetimeSeconds?: number | null;
  /** The claim holding the roles, a dotted path allowed (default `roles`). */
  rolesClaim?: string;
  /** The claim holding the scopes, a space-separated string or an array (default `scope`). */
  scopesClaim?: string;
  /** Scopes every token must carry; a valid token without them gets 403 insufficient_scope. */
  requiredScopes?: ReadonlyArray<string>;
  /** The `typ` header the token must have, e.g. `at+jwt` for RFC 9068 access tokens. */
  typ?: string;
  /** Verified tokens remembered (default 10,000). */
  cacheSize?: number;
  /** Time allowed for fetching the JWKS, in milliseconds (default 5,000). */
  jwksTimeoutMs?: number;
}

const DEFAULT_ALGORITHMS = ['RS256', 'ES256', 'EdDSA'];

/** What a key of each type can verify (RFC 7518, RFC 8037). */
const ALGORITHMS_BY_KEY_TYPE: Record<string, ReadonlyArray<string>> = {
  rsa: ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512'],
  'rsa-pss': ['PS256', 'PS384', 'PS512'],
  ed25519: ['EdDSA', 'Ed25519'],
  ed448: ['EdDSA'],
};
const ALGORITHM_BY_CURVE: Record<string, string> = { prime256v1: 'ES256', secp384r1: 'ES384', secp521r1: 'ES512' };

export function jwtAuth(options: JwtAuthOptions): Authenticator {
  if (options === null || typeof options !== 'object') throw new TypeError(`jwtAuth: expected options, got ${describe(options)}.`);
  if ((options.publicKey === undefined) === (options.jwksUrl === undefined)) {
    throw new TypeError('jwtAuth: give either `publicKey` (PEM, JWK or KeyObject) or `jwksUrl`, not both or neither.');
  }
  const verifier = new JwtVerifier(options, readKey(options, readAlgorithms(options)));
  const cache = new CredentialCache(options.cacheSize ?? 10_000);
  return {
    scheme: 'Bearer',
    authenticate({ credential }: AuthRequest): AuthResult | Promise<AuthResult> {
      // Bearer tokens with a dot are taken for JWTs (a compact JWS has two); opaque ones, left
      // to the next authenticator, rarely have any.
      if (credential === null || credential.scheme !== 'Bearer' || !credential.value.includes('.')) return null;
      const token = credential.value;
      return cache.get(token) ?? cache.verify(token, () => verifier.verify(token));
    },
  };
}

/** The algorithms asked for, none of them a shared-secret one or `none` (RFC 8725 section 3.1). */
function readAlgorithms(options: JwtAuthOptions): string[] {
  const requested = [...(options.algorithms ?? DEFAULT_ALGORITHMS)];
  for (const algorithm of requested) {
    if (typeof algorithm !== 'string' || /^(HS\d+|none)$/i.test(algorithm)) {
      throw new TypeError(
        `jwtAuth: algorithm ${String(algorithm)} is not accepted: tokens are verified with the issuer's public key, never a shared secret or none.`,
      );
    }
  }
  return requested;
}

/** The verification key, and the algorithms accepted: those requested that the key can verify. */
function readKey(options: JwtAuthOptions, requested: string[]): { key: KeyObject | JWTVerifyGetKey; algorithms: string[] } {
  if (options.publicKey === undefined) {
    const key = createRemoteJWKSet(new URL(String(options.jwksUrl)), { timeoutDuration: options.jwksTimeoutMs ?? 5_000, cooldownDuration: 30_000 });
    return { key, algorithms: requested };
  }
  const publicKey = toPublicKey(options.publicKey);
  const algorithms = requested.filter((algorithm) => keyAlgorithms(publicKey).includes(algorithm));
  if (algorithms.length === 0) {
    throw new TypeError(`jwtAuth: the public key (${publicKey.asymmetricKeyType}) verifies none of the algorithms ${requested.join(', ')}.`);
  }
  return { key: publicKey, algorithms };
}

/** Verifies a token with jose, applies this module's policy, and makes the identity. */
class JwtVerifier {
  private readonly key: KeyObject | JWTVerifyGetKey;
  private readonly algorithms: string[];
  private readonly tolerance: number;
  private readonly maxLifetime: number | null;
  private readonly rolesClaim: string;
  private readonly scopesClaim: string;
  private readonly requiredScopes: string[];
  private readonly verifyOptions: JWTVerifyOptions;

  constructor(options: JwtAuthOptions, { key, algorithms }: { key: KeyObject | JWTVerifyGetKey; algorithms: string[] }) {
    this.key = key;
    this.algorithms = algorithms;
    this.tolerance = options.clockToleranceSeconds ?? 30;
    this.maxLifetime = options.maxLifetimeSeconds === undefined ? 86_400 : options.maxLifetimeSeconds;
    this.rolesClaim = options.rolesClaim ?? 'roles';
    this.scopesClaim = options.scopesClaim ?? 'scope';
    this.requiredScopes = [...(options.requiredScopes ?? [])];
    this.verifyOptions = {
      algorithms,
      issuer: options.issuer as string | string[] | undefined,
      audience: options.audience as string | string[] | undefined,
      clockTolerance: this.tolerance,
      requiredClaims: ['exp'],
      typ: options.typ,
    };
  }

  async verify(token: string): Promise<Identity | AuthError> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.key as KeyObject, this.verifyOptions));
    } catch (error) {
      return refusal(error, this.algorithms);
    }
    return this.identityFrom(payload);
  }

  /** The checks jose does not make (see the module comment), then the caller. */
  private identityFrom(payload: JWTPayload): Identity | AuthError {
    if (issuedInTheFuture(payload.iat, this.tolerance)) return invalidCredential('Bearer', 'The token was issued in the future ("iat" is later than now).');
    const exp = payload.exp as number;
    if (this.maxLifetime !== null && exp - Date.now() / 1000 > this.maxLifetime) {
      return invalidCredential('Bearer', `The token expires more than ${this.maxLifetime} seconds from now; this server accepts shorter-lived tokens only.`);
    }
    if (typeof payload.sub !== 'string' || payload.sub === '') return invalidCredential('Bearer', 'The token has no "sub" claim naming its subject.');
    const scopes = namesIn(claimAt(payload, this.scopesClaim));
    const refused = scopeRefusal(scopes, this.requiredScopes);
    if (refused !== null) return refused;
    return makeIdentity({
      id: payload.sub,
      kind: 'jwt',
      roles: namesIn(claimAt(payload, this.rolesClaim)),
      scopes,
      mfa: multiFactorIn(payload['amr']),
      // Accepted until exp plus the tolerance, as jose accepts it: the chain and the cache use this.
      expiresAt: (exp + this.tolerance) * 1000,
      claims: payload,
    });
  }
}

function toPublicKey(input: string | JWK | KeyObject): KeyObject {
  try {
    if (typeof input === 'string') return createPublicKey(input);
    if (isKeyObject(input)) return input.type === 'private' ? createPublicKey(input) : input;
    return createPublicKey({ key: input as import('node:crypto').JsonWebKey, format: 'jwk' });
  } catch (error) {
    throw new TypeError(`jwtAuth: publicKey is not a public key in PEM or JWK form: ${(error as Error).message}`);
  }
}

function isKeyObject(input: unknown): input is KeyObject {
  return typeof input === 'object' && input !== null && typeof (input as KeyObject).asymmetricKeyType === 'string' && typeof (input as KeyObject).export === 'function';
}

function keyAlgorithms(key: KeyObject): ReadonlyArray<string> {
  const type = key.asymmetricKeyType ?? '';
  if (type === 'ec') {
    const algorithm = ALGORITHM_BY_CURVE[key.asymmetricKeyDetails?.namedCurve ?? ''];
    return algorithm === undefined ? [] : [algorithm];
  }
  return ALGORITHMS_BY_KEY_TYPE[type] ?? [];
}

/** jose's typed error, as a 401 with a message saying what was wrong (or a 503 when the key set could not be had). */
function refusal(error: unknown, algorithms: ReadonlyArray<string>): AuthError {
  const code = (error as { code?: unknown }).code;
  const claim = (error as { claim?: unknown }).claim;
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return invalidCredential('Bearer', 'The token has expired.');
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      return invalidCredential('Bearer', claimMessage(claim, (error as Error).message));
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return invalidCredential('Bearer', 'The token signature is not valid.');
    case 'ERR_JOSE_NOT_SUPPORTED':
      if ((error as Error).message.startsWith('Extension Header Parameter')) {
        return invalidCredential('Bearer', 'The token has a critical header parameter ("crit") this server does not understand.');
      }
      return invalidCredential('Bearer', `The token is not signed with an accepted algorithm (${algorithms.join(', ')}).`);
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
      return invalidCredential('Bearer', `The token is not signed with an accepted algorithm (${algorithms.join(', ')}).`);
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return invalidCredential('Bearer', 'No key of the issuer matches the token (unknown "kid").');
    case 'ERR_JWS_INVALID':
    case 'ERR_JWT_INVALID':
      return invalidCredential('Bearer', `The token is malformed: ${(error as Error).message}.`);
    case 'ERR_JWKS_TIMEOUT':
    case 'ERR_JWKS_INVALID':
      return authenticationUnavailable('The issuer\'s key set could not be fetched to verify the token; try again later.');
  }
  // The rest: the JWKS fetch failed (a network error, a non-200 answer, JSON that is not a
  // key set), or jose refused the key for the token's algorithm.
  if (error instanceof TypeError && !(error.cause instanceof Error)) {
    return invalidCredential('Bearer', 'The token cannot be verified with the issuer\'s key.');
  }
  return authenticationUnavailable('The issuer\'s key set could not be fetched to verify the token; try again later.');
}

function claimMessage(claim: unknown, fallback: string): string {
  switch (claim) {
    case 'exp':
      return 'The token has no valid "exp" claim; every token must expire.';
    case 'nbf':
      return 'The token is not valid yet ("nbf" is in the future).';
    case 'iat':
      return 'The token has an invalid "iat" claim.';
    case 'iss':
      return 'The token was not issued by an accepted issuer ("iss").';
    case 'aud':
      return 'The token is not meant for this server ("aud").';
    case 'typ':
      return 'The token does not have the required "typ" header.';
    default:
      return `The token is not valid: ${fallback}.`;
  }
}

/** An `iat` later than now plus the tolerance, in whole seconds as jose counts for nbf: one exactly the tolerance ahead is still accepted. */
function issuedInTheFuture(iat: number | undefined, toleranceSeconds: number): boolean {
  return iat !== undefined && iat > Math.floor(Date.now() / 1000) + toleranceSeconds;
}
