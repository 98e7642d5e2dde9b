/**
 * The router: where an HTTP request goes, decided in one place, once, from its method, path and
 * headers, before its body is read.
 *
 *   /healthz, /readyz, /metrics     the server's operational routes (createServer's only)
 *   /api/...                        the resource routes (rest/resourceHandler.ts), with their CORS policy
 *   OPTIONS on the endpoint         a CORS preflight (204), when CORS is on
 *   GET <endpoint> from a browser   GraphiQL's page, and its assets under <endpoint>/graphiql/
 *   <endpoint>                      GraphQL over HTTP (handler.ts)
 *   anything else                   404 NOT_FOUND
 *
 * CORS is one step of routing: the route says which policy its answers follow, and the handler
 * adds that policy's headers to every answer, errors included, so that a page can read why.
 */
import type { IncomingHttpHeaders } from 'node:http';
import type { PromiseOrValue } from '../../jsutils/promiseOrValue.ts';
import type { OperationalRoutes, RouteAnswer } from '../../observability/endpoints.ts';
import type { CorsPolicy } from '../../security/cors.ts';
import type { GraphiqlRoutes } from './graphiql.ts';
import type { HandlerResponse, PlainRequest } from './handler.ts';
import { headerOf } from '../httpHeaders.ts';

export type Route =
  | { readonly kind: 'graphql' }
  | { readonly kind: 'resources' }
  | { readonly kind: 'operational'; readonly answer: RouteAnswer }
  | { readonly kind: 'preflight'; readonly headers: Record<string, string>; readonly policy: CorsPolicy }
  | { readonly kind: 'graphiql'; readonly answer: PromiseOrValue<HandlerResponse> }
  | { readonly kind: 'notFound'; readonly pathname: string };

/** The methods of the GraphQL endpoint, and of the resource routes. */
export const ENDPOINT_METHODS = ['GET', 'POST'];
export const RESOURCE_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

// The routes that carry nothing of their request are made once.
const GRAPHQL: Route = { kind: 'graphql' };
const RESOURCES: Route = { kind: 'resources' };

export interface RouterSettings {
  /** The GraphQL endpoint's path. */
  path: string;
  /** The resource routes' prefix test, when there are resource routes. */
  resources: { owns(pathname: string): boolean } | null;
  graphiql: GraphiqlRoutes | null;
  /** The endpoint's CORS policy, and the resource routes' (their methods and exposed headers). */
  cors: CorsPolicy | null;
  resourceCors: CorsPolicy | null;
  /** createServer's operational routes. */
  operational: OperationalRoutes | null;
}

export class Router {
  constructor(private readonly settings: RouterSettings) {}

  /** Where a request goes. */
  route(method: string, url: string, headers: PlainRequest['headers']): Route {
    const { path, resources, operational } = this.settings;
    // Most requests are POSTs to the endpoint itself, with no query string to look for.
    if (url === path && method === 'POST') return GRAPHQL;
    if (operational !== null && operational.any) {
      const answer = operational.answer(method, url, headers as IncomingHttpHeaders);
      if (answer !== null) return { kind: 'operational', answer };
    }
    const queryStart = url.indexOf('?');
    const pathname = queryStart === -1 ? url : url.slice(0, queryStart);
    if (pathname !== path && resources !== null && resources.owns(pathname)) {
      const policy = this.settings.resourceCors;
      if (method === 'OPTIONS' && policy !== null) {
        return { kind: 'preflight', headers: { allow: RESOURCE_METHODS.join(', '), ...policy.preflight(headerOf(headers, 'origin')) }, policy };
      }
      return RESOURCES;
    }
    if (this.settings.graphiql !== null && (method === 'GET' || method === 'HEAD')) {
      const answer = this.settings.graphiql.serve(pathname, headers);
      if (answer !== null) return { kind: 'graphiql', answer };
    }
    if (pathname !== path) return { kind: 'notFound', pathname };
    return method === 'OPTIONS' ? this.endpointOptions(headers) : GRAPHQL;
  }

  /** The CORS headers a route's answers carry for the request's origin (null: none). */
  corsHeaders(route: Route, headers: PlainRequest['headers']): Readonly<Record<string, string>> | null {
    const policy = route.kind === 'preflight' ? route.policy : route.kind === 'resources' && this.settings.resourceCors !== null ? this.settings.resourceCors : this.settings.cors;
    return policy === null ? null : policy.headers(headerOf(headers, 'origin'));
  }

  /** OPTIONS on the endpoint: a preflight when CORS is on; else the endpoint answers 405 like any other method. */
  private endpointOptions(headers: PlainRequest['headers']): Route {
    const cors = this.settings.cors;
    if (cors === null) return GRAPHQL;
    return { kind: 'preflight', headers: { allow: 'GET, POST, OPTIONS', ...cors.preflight(headerOf(headers, 'origin')) }, policy: cors };
  }
}
