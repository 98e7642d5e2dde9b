/**
 * Who is calling: the one shape every authenticator produces and everything after it reads
 * (the context factory, resolvers as `context.identity`, field-level authorization, and the
 * rate limiter's client key).
 *
 * Identities are frozen, all the way down. A verified credential's identity is cached and
 * shared by every request that presents the same credential, so a resolver that pushed a role
 * onto `context.identity.roles` would otherwise grant it to the next request too.
 */
import { insufficientScope } from './authError.ts';
import type { AuthError } from './authError.ts';

export type IdentityKind = 'apiKey' | 'jwt' | 'oauth2' | 'anonymous';

export interface Identity {
  /** A stable id: the API key's id, the token's `sub`; `anonymous` for the anonymous caller. */
  readonly id: string;
  readonly kind: IdentityKind;
  readonly roles: ReadonlyArray<string>;
  readonly scopes: ReadonlyArray<string>;
  /** Whether the caller signed in with multi-factor authentication (`amr`, an array of strings, contains `mfa`). */
  readonly mfa: boolean;
  /**
   * When the server stops accepting the credential, in milliseconds since the epoch (for a JWT,
   * its `exp` plus the clock tolerance); null: it does not expire.
   */
  readonly expiresAt: number | null;
  /** The token's claims (or the API key record's fields), as verified. */
  readonly claims: Readonly<Record<string, unknown>>;
}

/** The caller who sent no credential. */
export const ANONYMOUS: Identity = makeIdentity({
  id: 'anonymous',
  kind: 'anonymous',
  roles: [],
  scopes: [],
  mfa: false,
  expiresAt: null,
  claims: {},
});

/** A frozen identity (and frozen roles, scopes and claims: see the module comment). */
export function makeIdentity(fields: Identity): Identity {
  return deepFreeze({
    id: fields.id,
    kind: fields.kind,
    roles: [...fields.roles],
    scopes: [...fields.scopes],
    mfa: fields.mfa,
    expiresAt: fields.expiresAt,
    claims: structuredClone(fields.claims),
  });
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze((value as Record<string, unknown>)[key]);
  }
  return value;
}

/**
 * The value at a dotted claim path (`realm_access.roles`, as Keycloak nests its roles), or
 * undefined. A claim whose own name contains a dot is found too: the whole path is tried first.
 */
export function claimAt(claims: Readonly<Record<string, unknown>>, path: string): unknown {
  if (Object.hasOwn(claims, path)) return claims[path];
  let value: unknown = claims;
  for (const part of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/**
 * A list of names from a claim: an array of strings, or one string of names separated by
 * spaces (OAuth 2.0's `scope`, RFC 6749 section 3.3). Anything else counts as none: a claim of
 * the wrong shape must never grant something.
 */
export function namesIn(value: unknown): string[] {
  if (typeof value === 'string') return value.split(' ').filter((name) => name !== '');
  if (Array.isArray(value)) return value.filter((name): name is string => typeof name === 'string' && name !== '');
  return [];
}

/**
 * Whether an `amr` claim (RFC 8176; OpenID Connect Core section 2) says the caller signed in
 * with more than one factor. The claim is a JSON array of strings, and only that shape counts:
 * `"mfa"` as a bare string, `"pwd mfa"`, or an array holding anything but strings grants no
 * second factor. Unlike `scope`, `amr` has no space-separated form, so namesIn would read a
 * string the issuer never meant.
 *
 * A claim of the wrong shape is ignored, not refused: jose checks only the registered claims of
 * RFC 7519 and leaves `amr` to the application, and a token is refused here only for what makes
 * it unusable (its signature, issuer, audience, times, subject). Every other optional claim of
 * the wrong shape (roles, scopes) grants nothing and lets the token in, and so does this one;
 * what needs a second factor then answers MFA_REQUIRED, which says what is missing, where a 401
 * would blame the whole credential.
 */
export function multiFactorIn(amr: unknown): boolean {
  return Array.isArray(amr) && amr.every((method) => typeof method === 'string') && amr.includes('mfa');
}

/** A bearer token carrying `scopes` refused for lacking some of `required` (RFC 6750 section 3.1, insufficient_scope); null when it lacks none. */
export function scopeRefusal(scopes: ReadonlyArray<string>, required: ReadonlyArray<string>): AuthError | null {
  const missing = required.filter((scope) => !scopes.includes(scope));
  if (missing.length === 0) return null;
  return insufficientScope('Bearer', `The token lacks the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')}.`, required);
}
