/**
 * CSRF prevention: on by default (as in Apollo Server 4+), for deployments where browsers hold
 * credentials for the API (cookies set by something in front of this server, which never reads
 * one itself, see credentials.ts; or HTTP authentication).
 *
 * A browser sends some requests cross-site without asking the server first: GET, and POST with
 * a "simple" Content-Type (text/plain, application/x-www-form-urlencoded, multipart/form-data)
 * and no custom header. Those are the only requests a hostile page can make with the user's
 * cookies without a CORS preflight that the server would refuse. So, as Apollo Server does, a
 * request is let through only if it could not be one of them: it has a Content-Type other than
 * the simple ones, or one of the headers named here (a page can set neither without a
 * preflight). Any value of the header will do, an empty one too: the browser preflights a
 * request for the header's name, whatever its value (Apollo Server asks for a non-empty value).
 *
 * What real clients send passes: Apollo Client sends `Content-Type: application/json` on its
 * GETs too, Apollo iOS and Kotlin send `x-apollo-operation-name`, the graphql-http and
 * graphql-sse clients POST JSON, GraphiQL too. urql's GETs (its default for short queries in
 * recent versions) carry neither: give it one of these headers in `fetchOptions`. A bare
 * `curl '/graphql?query=…'` or a browser's native EventSource is refused: that is exactly what
 * a hostile page can send.
 */
export interface CsrfPreventionOptions {
  /** Headers any of which marks a request as not cross-site (default: DEFAULT_CSRF_HEADERS). */
  requestHeaders?: ReadonlyArray<string>;
}

/**
 * Ours, and the two Apollo Server recommends (so that clients set up for Apollo Server, and
 * Apollo's mobile clients, pass unchanged).
 */
export const DEFAULT_CSRF_HEADERS: ReadonlyArray<string> = ['x-graphql-csrf', 'apollo-require-preflight', 'x-apollo-operation-name'];

const SIMPLE_CONTENT_TYPES = new Set(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data']);

/** Null when the request may proceed; else why it is refused. */
export type CsrfCheck = (headers: Readonly<Record<string, string | string[] | undefined>>) => string | null;

export function createCsrfCheck(options: CsrfPreventionOptions | true): CsrfCheck {
  const required = (options === true ? undefined : options.requestHeaders) ?? DEFAULT_CSRF_HEADERS;
  const names = required.map((name) => name.toLowerCase());
  const message =
    `This request has been blocked as a possible cross-site request forgery: send it with a Content-Type ` +
    `such as application/json, or with a header named ${alternatives(names)}.`;
  // The Content-Type first: it is what lets nearly every request through (application/json).
  return (headers) => {
    const contentType = headers['content-type'];
    if (typeof contentType === 'string' && !isSimpleContentType(contentType)) return null;
    for (const name of names) if (headers[name] !== undefined) return null;
    return message;
  };
}

/** Whether a Content-Type is empty or one a page may send without a preflight (its media type, in any case, parameters aside). */
function isSimpleContentType(value: string): boolean {
  const semicolon = value.indexOf(';');
  const end = semicolon === -1 ? value.length : semicolon;
  // Nearly every request says application/json: a media type with nothing to trim whose length
  // no simple type has is answered without a copy, a case change or a lookup.
  if (end !== 0 && end !== 10 && end !== 19 && end !== 33 && !mayBeTrimmed(value.charCodeAt(0)) && !mayBeTrimmed(value.charCodeAt(end - 1))) return false;
  const type = value.slice(0, end).trim().toLowerCase();
  return type === '' || SIMPLE_CONTENT_TYPES.has(type);
}

/** Whether String.prototype.trim might remove this character (every such character, and more). */
function mayBeTrimmed(code: number): boolean {
  return code <= 0x20 || code === 0xa0 || code >= 0x1680;
}

/** "a", "a or b", "a, b or c". */
function alternatives(names: ReadonlyArray<string>): string {
  return names.length <= 1 ? names.join('') : `${names.slice(0, -1).join(', ')} or ${names[names.length - 1]}`;
}
