/**
 * The links an answer carries to other resources: `Link` (RFC 8288) to the next and previous
 * pages of a collection, and `Location` (RFC 9110 §10.2.2) to an item a POST created.
 */
import type { CompiledRoute, CompiledVersion } from './resourceRoutes.ts';

/**
 * Link headers of a page: a route with `limit` and `offset` variables whose resource says its
 * `total` gets `rel="next"` while there is more, `rel="prev"` past the first page; a route with
 * a `cursor` variable, `rel="next"` from its connection's `pageInfo`.
 */
export function pagingLinks(route: CompiledRoute, variables: Record<string, unknown>, value: unknown, path: string, search: string): string | null {
  if (route.variables.some((variable) => variable.name === 'cursor')) return cursorLink(value, path, search);
  const limitVariable = route.variables.find((variable) => variable.name === 'limit');
  const offsetVariable = route.variables.find((variable) => variable.name === 'offset');
  if (limitVariable === undefined || offsetVariable === undefined || value === null || typeof value !== 'object') return null;
  const total = (value as { total?: unknown }).total;
  const limit = Number(variables['limit'] ?? limitVariable.defaultValue);
  const offset = Number(variables['offset'] ?? offsetVariable.defaultValue ?? 0);
  if (typeof total !== 'number' || !Number.isInteger(limit) || limit <= 0 || !Number.isInteger(offset)) return null;
  const link = (to: number, rel: string): string => {
    const query = new URLSearchParams(search);
    query.set('limit', String(limit));
    query.set('offset', String(to));
    return `<${path}?${query.toString()}>; rel="${rel}"`;
  };
  const links: string[] = [];
  if (offset + limit < total) links.push(link(offset + limit, 'next'));
  if (offset > 0) links.push(link(Math.max(offset - limit, 0), 'prev'));
  return links.length === 0 ? null : links.join(', ');
}

/**
 * Cursor paging (a Relay connection whose `first` and `after` the route names `limit` and
 * `cursor`): the next page starts after the page's end cursor. Relay connections page forwards
 * only, so there is no `rel="prev"`.
 */
function cursorLink(value: unknown, path: string, search: string): string | null {
  const pageInfo = (value as { pageInfo?: { hasNextPage?: unknown; endCursor?: unknown } } | null)?.pageInfo;
  if (pageInfo?.hasNextPage !== true || typeof pageInfo.endCursor !== 'string') return null;
  const query = new URLSearchParams(search);
  query.set('cursor', pageInfo.endCursor);
  return `<${path}?${query.toString()}>; rel="next"`;
}

/**
 * The GET route of the new item (`/reviews/{id}`), filled with its id: of the item routes of its
 * type, the one named by the collection it was created in (`POST /books/{id}/reviews`), else the first.
 */
export function locationOf(version: CompiledVersion, created: CompiledRoute, value: unknown, prefix: string): string | null {
  if (value === null || typeof value !== 'object' || !('id' in value)) return null;
  const items = version.routes.filter(
    (route) => route.method === 'GET' && route.typeName === created.typeName && route.segments.length === 2 && typeof route.segments[1] !== 'string',
  );
  const collection = [...created.segments].reverse().find((segment) => typeof segment === 'string');
  const item = items.find((route) => route.segments[0] === collection) ?? items[0];
  if (item === undefined) return null;
  return `${prefix}/${version.version}/${item.segments[0] as string}/${encodeURIComponent(String((value as { id: unknown }).id))}`;
}
