/**
 * Reading the one credential a request carries, from its headers, before any authenticator
 * looks at it. Every malformed header is refused here, once, with the same messages for every
 * authenticator and every transport:
 *
 *   Authorization: <scheme> <credential>     (RFC 9110 section 11.6.2; the credential a token68)
 *   X-API-Key: <key>
 *
 * Cookies are never read: a browser attaches them to cross-site requests on its own, so a
 * credential taken from one could be used by any page the user visits (CSRF). A credential in
 * a header can only be sent by code that holds it.
 */
import { malformedCredential } from './authError.ts';
import type { AuthError } from './authError.ts';

export interface Credential {
  /** The scheme: `Bearer` and `ApiKey` (from either header) as spelled here, any other as sent. */
  readonly scheme: string;
  /** The credential itself: the token or the key. */
  readonly value: string;
}

/** Longest credential read, by default: a generous JWT; anything longer is refused before it is parsed. */
export const DEFAULT_MAX_CREDENTIAL_LENGTH = 8192;

/** RFC 9110's token68: the characters a bearer token or an API key may have. */
const TOKEN68 = /^[A-Za-z0-9\-._~+/]+=*$/;
/** Longer than any scheme in use; the scheme is named in messages, so it must stay short. */
const MAX_SCHEME_LENGTH = 32;
/** A scheme is an RFC 9110 token. */
const SCHEME = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;

/**
 * The request's credential; null when it has none; an AuthError (401) when a credential header
 * is there but cannot be read: empty, too long, sent twice, without a scheme, with more than one
 * credential, or with characters no token has.
 */
export function readCredential(
  headers: Readonly<Record<string, string | string[] | undefined>>,
  maxLength: number = DEFAULT_MAX_CREDENTIAL_LENGTH,
): Credential | AuthError | null {
  const authorization = headers['authorization'];
  const apiKey = headers['x-api-key'];
  if (authorization === undefined && apiKey === undefined) return null;
  if (authorization !== undefined && apiKey !== undefined) {
    return malformedCredential('The request sends both an Authorization and an X-API-Key header; send one credential.');
  }
  if (authorization !== undefined) {
    if (typeof authorization !== 'string') {
      return malformedCredential('The Authorization header is sent more than once; send one credential.');
    }
    return fromAuthorization(authorization, maxLength);
  }
  // Node joins repeated X-API-Key headers with ", "; a key has no comma or space anyway.
  if (typeof apiKey !== 'string' || apiKey.includes(',')) {
    return malformedCredential('The X-API-Key header is sent more than once; send one key.', 'ApiKey');
  }
  const key = apiKey.trim();
  const refused = checkToken(key, 'X-API-Key header', maxLength, 'ApiKey');
  return refused ?? { scheme: 'ApiKey', value: key };
}

function fromAuthorization(header: string, maxLength: number): Credential | AuthError {
  const text = header.trim();
  if (text === '') return malformedCredential('The Authorization header is empty; send "Bearer <token>" or "ApiKey <key>".');
  if (text.length > maxLength + 16) return tooLong('Authorization header', maxLength, null);
  const space = text.indexOf(' ');
  if (space === -1) {
    const scheme = canonicalScheme(text);
    if (known(scheme) !== null) return malformedCredential(`The Authorization header has the scheme ${scheme} but no credential after it.`, scheme);
    return malformedCredential('The Authorization header has no scheme; send "Bearer <token>" or "ApiKey <key>".');
  }
  const rawScheme = text.slice(0, space);
  if (rawScheme.length > MAX_SCHEME_LENGTH || !SCHEME.test(rawScheme)) {
    return malformedCredential('The Authorization header does not start with a scheme name; send "Bearer <token>" or "ApiKey <key>".');
  }
  const scheme = canonicalScheme(rawScheme);
  const value = text.slice(space + 1).trimStart();
  if (value === '') return malformedCredential(`The Authorization header has the scheme ${scheme} but no credential after it.`, known(scheme));
  if (/\s/.test(value)) {
    return malformedCredential(
      `The Authorization header holds more than one word after ${scheme}; send exactly one scheme and one credential.`,
      known(scheme),
    );
  }
  const refused = checkToken(value, 'credential in the Authorization header', maxLength, known(scheme));
  return refused ?? { scheme, value };
}

function checkToken(value: string, where: string, maxLength: number, scheme: string | null): AuthError | null {
  if (value === '') return malformedCredential(`The ${where} is empty.`, scheme);
  if (value.length > maxLength) return tooLong(where, maxLength, scheme);
  if (!TOKEN68.test(value)) {
    return malformedCredential(
      `The ${where} has characters no token has; expected letters, digits and - . _ ~ + / (then = padding only).`,
      scheme,
    );
  }
  return null;
}

function tooLong(where: string, maxLength: number, scheme: string | null): AuthError {
  return malformedCredential(`The ${where} is longer than ${maxLength} characters.`, scheme);
}

/** Schemes are case-insensitive (RFC 9110 section 11.1): the two we know are spelled one way. */
function canonicalScheme(scheme: string): string {
  const lower = scheme.toLowerCase();
  return lower === 'bearer' ? 'Bearer' : lower === 'apikey' ? 'ApiKey' : scheme;
}

/** A scheme an authenticator may answer for, to name in the challenge; others offer every scheme. */
function known(scheme: string): string | null {
  return scheme === 'Bearer' || scheme === 'ApiKey' ? scheme : null;
}
