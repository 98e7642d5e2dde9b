/**
 * oauth2IntrospectionAuth: opaque OAuth 2.0 access tokens (`Authorization: Bearer <token>`),
 * checked by asking the authorization server that issued them (RFC 7662 token introspection).
 *
 * This server is an OAuth 2.0 *resource server*: it accepts access tokens and never sees a
 * refresh token; obtaining and refreshing tokens is between the client and the authorization
 * server. JWT access tokens (RFC 9068) need no round trip: verify them with jwtAuth.
 *
 * The introspection request authenticates this server as a client (client credentials, HTTP
 * Basic, RFC 6749 section 2.3.1). An active answer is cached until the token's `exp` (or at
 * most `cacheMaxAgeMs`, which bounds how long a revoked token keeps working); an inactive one
 * is a 401; an endpoint that does not answer properly is a 503, since the client did nothing
 * wrong.
 */
import { describe } from '../jsutils/describe.ts';
import { authenticationUnavailable, invalidCredential } from './authError.ts';
import type { AuthError } from './authError.ts';
import type { Authenticator, AuthRequest, AuthResult } from './authenticate.ts';
import { CredentialCache } from './credentialCache.ts';
import { claimAt, makeIdentity, multiFactorIn, namesIn, scopeRefusal } from './identity.ts';
import type { Identity } from './identity.ts';

export interface OAuth2IntrospectionOptions {
  /** The authorization server's introspection endpoint. */
  introspectionUrl: string | URL;
  /** This server's client id and secret at the authorization server. */
  clientId: string;
  clientSecret: string;
  /** Accepted `iss` values of active tokens (checked when the answer has one). */
  issuer?: string | ReadonlyArray<string>;
  /** This API's identifier: an active token whose `aud` does not include it is refused (checked when the answer has one). */
  audience?: string;
  /** The member of the answer holding roles, a dotted path allowed (default `roles`). */
  rolesClaim?: string;
  /** Scopes every token must carry; an active token without them gets 403 insufficient_scope. */
  requiredScopes?: ReadonlyArray<string>;
  /** Active tokens remembered (default 10,000). */
  cacheSize?: number;
  /** Longest an active answer is remembered, in milliseconds (default: until the token's `exp`; 60 s for a token without one). */
  cacheMaxAgeMs?: number;
  /** Time allowed for the introspection request, in milliseconds (default 5,000). */
  timeoutMs?: number;
}

export function oauth2IntrospectionAuth(options: OAuth2IntrospectionOptions): Authenticator {
  if (options === null || typeof options !== 'object') {
    throw new TypeError(`oauth2IntrospectionAuth: expected options, got ${describe(options)}.`);
  }
  const introspection = new Introspection(options);
  // Without an exp in the answer, an active token is trusted for a minute before it is asked about again.
  const cache = new CredentialCache(options.cacheSize ?? 10_000, options.cacheMaxAgeMs ?? Infinity, options.cacheMaxAgeMs ?? 60_000);
  return {
    scheme: 'Bearer',
    authenticate({ credential }: AuthRequest): AuthResult | Promise<AuthResult> {
      if (credential === null || credential.scheme !== 'Bearer') return null;
      const token = credential.value;
      return cache.get(token) ?? cache.verify(token, () => introspection.ask(token));
    },
  };
}

/** Asks the authorization server about a token (RFC 7662 section 2) and reads its answer into an identity. */
class Introspection {
  private readonly endpoint: URL;
  /** The client credentials, for HTTP Basic. */
  private readonly basic: string;
  private readonly issuers: string[] | null;
  private readonly audience: string | undefined;
  private readonly rolesClaim: string;
  private readonly requiredScopes: string[];
  private readonly timeoutMs: number;

  constructor(options: OAuth2IntrospectionOptions) {
    this.endpoint = new URL(String(options.introspectionUrl));
    for (const name of ['clientId', 'clientSecret'] as const) {
      if (typeof options[name] !== 'string' || options[name] === '') {
        throw new TypeError(`oauth2IntrospectionAuth: ${name} must be a non-empty string.`);
      }
    }
    // RFC 6749 section 2.3.1: both parts form-urlencoded before they are joined.
    this.basic = Buffer.from(`${encodeURIComponent(options.clientId)}:${encodeURIComponent(options.clientSecret)}`).toString('base64');
    this.issuers = options.issuer === undefined ? null : typeof options.issuer === 'string' ? [options.issuer] : [...options.issuer];
    this.audience = options.audience;
    this.rolesClaim = options.rolesClaim ?? 'roles';
    this.requiredScopes = [...(options.requiredScopes ?? [])];
    this.timeoutMs = options.timeoutMs ?? 5_000;
  }

  async ask(token: string): Promise<Identity | AuthError> {
    let answer: unknown;
    try {
      const response = await fetch(this.endpoint, {
        method: 'POST',
        headers: {
          authorization: `Basic ${this.basic}`,
          'content-type': 'application/x-www-form-urlencoded',
          accept: 'application/json',
        },
        body: new URLSearchParams({ token, token_type_hint: 'access_token' }).toString(),
        redirect: 'manual',
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      if (response.status !== 200) {
        await response.body?.cancel();
        return unavailable();
      }
      answer = await response.json();
    } catch {
      return unavailable();
    }
    if (answer === null || typeof answer !== 'object' || typeof (answer as { active?: unknown }).active !== 'boolean') {
      return unavailable();
    }
    return this.identityFrom(answer as Record<string, unknown>);
  }

  private identityFrom(answer: Record<string, unknown>): Identity | AuthError {
    if (answer['active'] !== true) return invalidCredential('Bearer', 'The token is not active: it expired, was revoked, or was never issued.');
    const exp = answer['exp'];
    if (exp !== undefined && (typeof exp !== 'number' || exp * 1000 <= Date.now())) return invalidCredential('Bearer', 'The token has expired.');
    if (this.issuers !== null && answer['iss'] !== undefined && !this.issuers.includes(answer['iss'] as string)) {
      return invalidCredential('Bearer', 'The token was not issued by an accepted issuer ("iss").');
    }
    if (this.audience !== undefined && answer['aud'] !== undefined && !namesIn(answer['aud']).includes(this.audience)) {
      return invalidCredential('Bearer', 'The token is not meant for this server ("aud").');
    }
    const id = typeof answer['sub'] === 'string' ? answer['sub'] : typeof answer['client_id'] === 'string' ? answer['client_id'] : null;
    if (id === null || id === '') return invalidCredential('Bearer', 'The token names no subject ("sub") or client ("client_id").');
    const scopes = namesIn(answer['scope']);
    const refused = scopeRefusal(scopes, this.requiredScopes);
    if (refused !== null) return refused;
    return makeIdentity({
      id,
      kind: 'oauth2',
      roles: namesIn(claimAt(answer, this.rolesClaim)),
      scopes,
      // RFC 7662 answers may carry any claim; amr counts as in a JWT, as an array of strings only.
      mfa: multiFactorIn(answer['amr']),
      expiresAt: typeof exp === 'number' ? exp * 1000 : null,
      claims: answer,
    });
  }
}

function unavailable(): AuthError {
  return authenticationUnavailable('The authorization server could not be asked about the token; try again later.');
}
