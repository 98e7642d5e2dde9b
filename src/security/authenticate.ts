/**
 * Authentication: from a request's headers to an Identity, or to the AuthError that refuses it.
 *
 *   no authenticator configured ──────────────────────── anonymous, headers unread (authentication is off)
 *   credential header ─ none ─────────────────────────── anonymous (401 when authentication is required)
 *                     ─ malformed ──────────────────────── 401 invalid_request
 *                     ─ each authenticator, in order:
 *                         "not mine" (null) ─ ask the next one; nobody's ─ 401
 *                         an AuthError ───── 401 / 403 / 503, as it says
 *                         an Identity ────── expired? 401 : the caller
 *
 * A request with a bad credential is always refused, never treated as anonymous: a client whose
 * token expired must learn it, not silently see less data.
 *
 * Transport-free: HTTP hands in its headers; a WebSocket its upgrade request's headers or its
 * `connection_init` payload as headers.
 */
import { LruCache } from '../jsutils/lruCache.ts';
import { ErrorCode } from '../errors/codes.ts';
import { AuthError, invalidCredential } from './authError.ts';
import { DEFAULT_MAX_CREDENTIAL_LENGTH, readCredential } from './credentials.ts';
import type { Credential } from './credentials.ts';
import { ANONYMOUS } from './identity.ts';
import type { Identity } from './identity.ts';
import { positiveInteger } from '../jsutils/positiveInteger.ts';
import type { PromiseOrValue } from '../jsutils/promiseOrValue.ts';

export type RequestHeaders = Readonly<Record<string, string | string[] | undefined>>;

/** What an authenticator sees of a request. */
export interface AuthRequest {
  /** The credential, already read and checked for form; null when the request has none. */
  readonly credential: Credential | null;
  /** Every header, lower-case, for authenticators that need more (a proxy's signed header). */
  readonly headers: RequestHeaders;
}

/** An authenticator's answer: the caller, a refusal, or null for "not mine" (ask the next one). */
export type AuthResult = Identity | AuthError | null;

export interface Authenticator {
  /** The scheme it accepts (`Bearer`, `ApiKey`), offered in `WWW-Authenticate` challenges. */
  readonly scheme: string;
  authenticate(request: AuthRequest): AuthResult | Promise<AuthResult>;
}

export interface AuthenticationOptions {
  /** Asked in order; the first that does not answer "not mine" decides. */
  authenticate?: ReadonlyArray<Authenticator>;
  /** Refuse requests without a credential (401) instead of running them as anonymous (default false). */
  requireAuthentication?: boolean;
  /** Longest credential read (default 8192 characters). */
  maxCredentialLength?: number;
}

/** Authenticates one request from its headers. */
export type Authenticate = (headers: RequestHeaders) => PromiseOrValue<Identity | AuthError>;

export interface Authentication {
  readonly authenticate: Authenticate;
  /** The schemes the authenticators accept, for challenges. */
  readonly schemes: ReadonlyArray<string>;
}

export function createAuthentication(options: AuthenticationOptions): Authentication {
  const authenticators = [...(options.authenticate ?? [])];
  for (const [index, authenticator] of authenticators.entries()) {
    if (authenticator === null || typeof authenticator !== 'object' || typeof authenticator.authenticate !== 'function') {
      throw new TypeError(`authenticate[${index}] must be an authenticator (apiKeyAuth(), jwtAuth(), ...), got ${String(authenticator)}.`);
    }
  }
  const required = options.requireAuthentication ?? false;
  if (required && authenticators.length === 0) {
    throw new TypeError('requireAuthentication needs at least one authenticator in `authenticate`: as configured, nobody could get in.');
  }
  const maxLength = positiveInteger(options.maxCredentialLength ?? DEFAULT_MAX_CREDENTIAL_LENGTH, 'maxCredentialLength');
  const chain = new AuthenticatorChain(authenticators, required);
  // With no authenticator, authentication is off: every caller is anonymous, and credential
  // headers, meant for something else (a gateway in front, say), are not read at all.
  if (authenticators.length === 0) return { schemes: chain.schemes, authenticate: () => ANONYMOUS };
  const credentials = new CredentialReader(maxLength);
  return {
    schemes: chain.schemes,
    authenticate(headers) {
      const credential = credentials.read(headers);
      if (credential instanceof AuthError) return credential;
      return chain.ask({ credential, headers }, 0);
    },
  };
}

/**
 * Reads the credential of a request's headers. Clients send the same header again and again:
 * each distinct value is read once (values up to MEMO_LENGTH; longer ones, rare and suspicious,
 * are read every time).
 */
class CredentialReader {
  private readonly maxLength: number;
  private readonly byAuthorization = new LruCache<string, Credential | AuthError>(1024);
  private readonly byApiKey = new LruCache<string, Credential | AuthError>(1024);

  constructor(maxLength: number) {
    this.maxLength = maxLength;
  }

  read(headers: RequestHeaders): Credential | AuthError | null {
    const authorization = headers['authorization'];
    const apiKey = headers['x-api-key'];
    const single = authorization === undefined ? apiKey : apiKey === undefined ? authorization : undefined;
    if (typeof single !== 'string' || single.length > MEMO_LENGTH) return readCredential(headers, this.maxLength);
    const memo = authorization === undefined ? this.byApiKey : this.byAuthorization;
    let read = memo.get(single);
    if (read === undefined) {
      read = readCredential(headers, this.maxLength) as Credential | AuthError;
      memo.set(single, read);
    }
    return read;
  }
}

/** The authenticators asked in order, and what their answers (or their silence) mean. */
class AuthenticatorChain {
  /** The schemes the authenticators accept, for challenges. */
  readonly schemes: ReadonlyArray<string>;
  private readonly authenticators: ReadonlyArray<Authenticator>;
  private readonly required: boolean;
  /** The refusal of a request without a credential, when one is required. */
  private readonly missing: AuthError;

  constructor(authenticators: ReadonlyArray<Authenticator>, required: boolean) {
    this.authenticators = authenticators;
    this.required = required;
    this.schemes = [...new Set(authenticators.map((authenticator) => authenticator.scheme))];
    this.missing = new AuthError(
      ErrorCode.Unauthenticated,
      `This server requires authentication; send ${this.schemes.map(example).join(' or ')}.`,
      { challengeError: null },
    );
  }

  /** Asks the authenticators from `from` on; a promise only once one of them answers with one. */
  ask(request: AuthRequest, from: number): PromiseOrValue<Identity | AuthError> {
    for (let i = from; i < this.authenticators.length; i++) {
      const answer = (this.authenticators[i] as Authenticator).authenticate(request);
      if (answer instanceof Promise) {
        return answer.then((settled) => (settled === null ? this.ask(request, i + 1) : decide(settled)));
      }
      if (answer !== null) return decide(answer);
    }
    return this.nobodys(request.credential);
  }

  /** No authenticator took the request: anonymous without a credential, refused with one. */
  private nobodys(credential: Credential | null): Identity | AuthError {
    if (credential === null) return this.required ? this.missing : ANONYMOUS;
    return new AuthError(ErrorCode.Unauthenticated, `The ${credential.scheme} credential is not accepted here. This server accepts ${this.schemes.map(example).join(' or ')}.`, {
      challengeError: 'invalid_token',
    });
  }
}

function decide(answer: Identity | AuthError): Identity | AuthError {
  return answer instanceof AuthError ? answer : admit(answer);
}

/**
 * An identity is let in while its credential has not expired. This is where a cached
 * credential's expiry is enforced (credentialCache.ts), with the words its authenticator uses.
 */
function admit(identity: Identity): Identity | AuthError {
  if (identity.expiresAt !== null && identity.expiresAt <= Date.now()) {
    return identity.kind === 'apiKey'
      ? invalidCredential('ApiKey', `The API key expired at ${new Date(identity.expiresAt).toISOString()}.`)
      : invalidCredential('Bearer', 'The token has expired.');
  }
  return identity;
}

/** Credential headers up to this long have their reading remembered. */
const MEMO_LENGTH = 2048;

function example(scheme: string): string {
  return scheme === 'ApiKey' ? 'an API key (X-API-Key: <key> or Authorization: ApiKey <key>)' : `Authorization: ${scheme} <token>`;
}
