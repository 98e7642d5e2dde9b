/** The media type of every JSON answer that is not a GraphQL response: `{ error }` bodies, probes, metrics' refusals. */
export const JSON_CONTENT_TYPE = 'application/json; charset=utf-8';
