/**
 * Reading the one credential a request carries, from its headers, before any authenticator
 * looks at it. Every malformed header is refused here, once, with the same messages for every
 * authenticator and every transport:
 *
 *   Authorization: <scheme> <credential>     (RFC 9110 section 11.6.2; the credential a token68)
 *   X-API-Key: <key>
 *
 * A WebSocket's connection_init payload may carry the same two, as members (readParamsCredential).
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
/** The payload members that carry a credential, in any case of ASCII letters (see readParamsCredential). */
const AUTHORIZATION_MEMBER = /^authorization$/i;
const API_KEY_MEMBER = /^x-api-key$/i;

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

/**
 * The credential among a connection_init payload's members (graphql-transport-ws): a browser
 * cannot set headers on a WebSocket, so clients put them in the payload (graphql-ws's
 * connectionParams). Outcomes that differ are told apart by `kind`; the transport decides how
 * each is answered.
 */
export type ParamsCredential =
  /** The payload names no credential: the upgrade request's headers stand. */
  | { readonly kind: 'none' }
  /** The credential, as headers would hold it (at most one of the two; readCredential refuses both). */
  | { readonly kind: 'found'; readonly authorization: string | undefined; readonly apiKey: string | undefined }
  /** Two members name one credential (`Authorization` and `authorization`): which was meant cannot be known. */
  | { readonly kind: 'repeated'; readonly names: readonly [string, string] }
  /** A credential member whose value is not a string. */
  | { readonly kind: 'notString'; readonly name: string };

/**
 * The credential members of a connection_init payload, or of its `headers` object when it has
 * one: `authorization` and `x-api-key`, their names in any case of ASCII letters, as HTTP
 * compares header names (RFC 9110 section 5.1). The `i` flag without `u` folds ASCII letters
 * only: the Kelvin sign does not stand for a `k`.
 *
 * A credential named twice in different cases is refused rather than resolved. Over HTTP node
 * joins a repeated header and readCredential refuses it ("sent more than once"); a payload is a
 * JSON object, where the two names are two members, and taking the last (or the first) would let
 * whoever adds a member to a client's connectionParams choose which credential counts.
 */
export function readParamsCredential(payload: Readonly<Record<string, unknown>>): ParamsCredential {
  const headers = payload['headers'];
  const source = headers !== null && typeof headers === 'object' && !Array.isArray(headers) ? (headers as Record<string, unknown>) : payload;
  let authorization: { readonly name: string; readonly value: unknown } | undefined;
  let apiKey: { readonly name: string; readonly value: unknown } | undefined;
  for (const [name, value] of Object.entries(source)) {
    if (AUTHORIZATION_MEMBER.test(name)) {
      if (authorization !== undefined) return { kind: 'repeated', names: [authorization.name, name] };
      authorization = { name, value };
    } else if (API_KEY_MEMBER.test(name)) {
      if (apiKey !== undefined) return { kind: 'repeated', names: [apiKey.name, name] };
      apiKey = { name, value };
    }
  }
  if (authorization === undefined && apiKey === undefined) return { kind: 'none' };
  for (const member of [authorization, apiKey]) {
    if (member !== undefined && typeof member.value !== 'string') return { kind: 'notString', name: member.name };
  }
  return { kind: 'found', authorization: authorization?.value as string | undefined, apiKey: apiKey?.value as string | undefined };
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
