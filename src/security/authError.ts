/**
 * Why a request was not let in, as every transport answers it: an HTTP status (401, 403 or
 * 503), a stable code for the `{ error: { code, message } }` body, and what the
 * `WWW-Authenticate` challenge says (RFC 6750 section 3 for bearer tokens).
 *
 * Like jose's typed errors, callers map the code and never parse the message. The message is
 * for the client: it says what was wrong and what was expected, and never echoes the credential.
 */
import { ErrorCode } from '../errors/codes.ts';
import { fastClass } from '../jsutils/fastClass.ts';

/**
 * The codes an AuthError carries: no acceptable credential (401), a valid credential without a
 * scope the request needs (403), or a credential that could not be checked (503).
 */
export type AuthErrorCodeValue = typeof ErrorCode.Unauthenticated | typeof ErrorCode.Forbidden | typeof ErrorCode.AuthenticationUnavailable;

/** The `error` parameter of an RFC 6750 challenge. */
export type ChallengeError = 'invalid_request' | 'invalid_token' | 'insufficient_scope';

export class AuthError extends Error {
  readonly code: AuthErrorCodeValue;
  readonly status: 401 | 403 | 503;
  /**
   * The scheme whose challenge answers this failure (`Bearer`, `ApiKey`), or null when the
   * credential's scheme is not known: then every accepted scheme is offered.
   */
  readonly scheme: string | null;
  /** The challenge's `error` parameter; null when no credential was sent (RFC 6750 section 3.1). */
  readonly challengeError: ChallengeError | null;
  /** For insufficient_scope: the scopes the request needs (the challenge's `scope`). */
  readonly requiredScopes: ReadonlyArray<string>;

  constructor(
    code: AuthErrorCodeValue,
    message: string,
    options: { scheme?: string | null; challengeError?: ChallengeError | null; requiredScopes?: ReadonlyArray<string> } = {},
  ) {
    super(message);
    this.name = 'AuthError';
    this.code = code;
    this.status = code === ErrorCode.Unauthenticated ? 401 : code === ErrorCode.Forbidden ? 403 : 503;
    this.scheme = options.scheme ?? null;
    // An explicit null means "no error parameter" (no credential was sent); absent means the default.
    this.challengeError =
      options.challengeError !== undefined ? options.challengeError : code === ErrorCode.Unauthenticated ? 'invalid_token' : null;
    this.requiredScopes = options.requiredScopes ?? [];
  }
}
fastClass(AuthError);

/** A credential of this scheme that is not valid: unknown, expired, forged, of the wrong audience... */
export function invalidCredential(scheme: string, message: string): AuthError {
  return new AuthError(ErrorCode.Unauthenticated, message, { scheme, challengeError: 'invalid_token' });
}

/** A credential header that cannot be read at all (RFC 6750 `invalid_request`). */
export function malformedCredential(message: string, scheme: string | null = null): AuthError {
  return new AuthError(ErrorCode.Unauthenticated, message, { scheme, challengeError: 'invalid_request' });
}

/** A valid credential that lacks scopes the request needs. */
export function insufficientScope(scheme: string, message: string, requiredScopes: ReadonlyArray<string>): AuthError {
  return new AuthError(ErrorCode.Forbidden, message, { scheme, challengeError: 'insufficient_scope', requiredScopes });
}

/** The credential could not be checked now (a network failure, not the client's fault). */
export function authenticationUnavailable(message: string): AuthError {
  return new AuthError(ErrorCode.AuthenticationUnavailable, message, { challengeError: null });
}

/**
 * The `WWW-Authenticate` value for a 401 or 403: one challenge per scheme concerned, each with
 * the realm and, when there was a credential, the RFC 6750 error and its description. Null for
 * a 503, which challenges nothing, and when no scheme is concerned.
 */
export function challengeFor(error: AuthError, acceptedSchemes: ReadonlyArray<string>, realm: string): string | null {
  const schemes = error.scheme !== null ? [error.scheme] : acceptedSchemes;
  if (error.status === 503 || schemes.length === 0) return null;
  return schemes
    .map((scheme) => {
      const parameters = [`realm="${quotable(realm)}"`];
      if (error.challengeError !== null) {
        parameters.push(`error="${error.challengeError}"`, `error_description="${quotable(error.message)}"`);
      }
      if (error.requiredScopes.length > 0) parameters.push(`scope="${quotable(error.requiredScopes.join(' '))}"`);
      return `${scheme} ${parameters.join(', ')}`;
    })
    .join(', ');
}

/**
 * Text that may stand inside a quoted challenge parameter: RFC 6750 allows printable ASCII
 * except `"` and `\` in `error_description`, and a header value must not break its line.
 */
function quotable(text: string): string {
  return text.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '?');
}
