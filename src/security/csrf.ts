/**
 * CSRF prevention, for deployments where something in front of this server authenticates by
 * cookie (this server never reads one; see credentials.ts).
 *
 * A browser sends some requests cross-site without asking the server first: GET, and POST with
 * a "simple" Content-Type (text/plain, application/x-www-form-urlencoded, multipart/form-data)
 * and no custom header. Those are the only requests a hostile page can make with the user's
 * cookies without a CORS preflight that the server would refuse. So, as Apollo Server does, a
 * request is let through only if it could not be one of them: it has a Content-Type other than
 * the simple ones, or one of the headers named here (a page can set neither without a
 * preflight). Off by default: plain GET queries, which the GraphQL-over-HTTP audits expect to
 * work, must then carry the header.
 */
export interface CsrfPreventionOptions {
  /** Headers any of which marks a request as not cross-site (default: x-graphql-csrf). */
  requestHeaders?: ReadonlyArray<string>;
}

const SIMPLE_CONTENT_TYPES = new Set(['text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data']);

/** Null when the request may proceed; else why it is refused. */
export type CsrfCheck = (headers: Readonly<Record<string, string | string[] | undefined>>) => string | null;

export function createCsrfCheck(options: CsrfPreventionOptions | true): CsrfCheck {
  const required = (options === true ? undefined : options.requestHeaders) ?? ['x-graphql-csrf'];
  const names = required.map((name) => name.toLowerCase());
  const message =
    `This request has been blocked as a possible cross-site request forgery: send it with a Content-Type ` +
    `such as application/json, or with a header named ${names.join(' or ')}.`;
  return (headers) => {
    if (names.some((name) => headers[name] !== undefined)) return null;
    const contentType = headers['content-type'];
    if (typeof contentType === 'string') {
      const type = (contentType.split(';')[0] ?? '').trim().toLowerCase();
      if (type !== '' && !SIMPLE_CONTENT_TYPES.has(type)) return null;
    }
    return message;
  };
}
