/**
 * If-Match on a PUT, PATCH or DELETE (RFC 9110 §13.1.1): the change applies to the resource as
 * the client last saw it, or not at all (412 Precondition Failed, §15.5.13). The resource's
 * current entity tag is that of what its GET route answers for the same path, read through the
 * pipeline as the same caller. (If-None-Match on a GET is answered with the read: resourceAnswer.ts.)
 */
import type { OperationPipeline } from '../../server/pipeline.ts';
import type { Identity } from '../../security/identity.ts';
import { etagOf, headerOf, matchesEtag } from '../httpHeaders.ts';
import { HttpOperation } from '../httpOperation.ts';
import { resourceOf, resultOf } from './resourceAnswer.ts';
import type { ResourceRequest, RouteCall } from './resourceCall.ts';
import type { CompiledRoute } from './resourceRoutes.ts';
import { pathVariables } from './routeParameters.ts';
import { routeFor } from './routeTable.ts';

/** What an If-Match is checked against: its condition, and the GET route whose answer's entity tag it must name. */
export interface Precondition {
  readonly ifMatch: string;
  readonly reader: CompiledRoute;
}

/** The precondition a write carries; null when there is none to check (no If-Match, or no GET route of its path). */
export function preconditionOf(call: RouteCall, request: ResourceRequest<unknown>): Precondition | null {
  if (call.method !== 'PUT' && call.method !== 'PATCH' && call.method !== 'DELETE') return null;
  const ifMatch = headerOf(request.headers, 'if-match');
  if (ifMatch === undefined) return null;
  const reader = routeFor(call.version, call.parts, 'GET');
  return reader === undefined ? null : { ifMatch, reader };
}

/** Whether If-Match names the resource's current entity tag (strong comparison); false when there is no resource. */
export async function preconditionHolds<Raw>(
  pipeline: OperationPipeline<Raw>,
  precondition: Precondition,
  call: RouteCall,
  request: ResourceRequest<Raw>,
  identity: Identity,
): Promise<boolean> {
  const current = await currentEtag(pipeline, precondition.reader, call.parts, request, identity);
  return current !== null && matchesEtag(precondition.ifMatch, current, false);
}

/** The entity tag of what GET answers for these path parts (null: nothing there). */
async function currentEtag<Raw>(
  pipeline: OperationPipeline<Raw>,
  reader: CompiledRoute,
  parts: ReadonlyArray<string>,
  request: ResourceRequest<Raw>,
  identity: Identity,
): Promise<string | null> {
  const variables = pathVariables(reader, parts);
  // Part of the request it precedes, which is charged: not charged again.
  const outcome = await pipeline.run(new HttpOperation(request, identity, { query: reader.query, operationName: null, variables }, true, false, true));
  const operation = resultOf(outcome);
  if (operation === null || (operation.result.errors?.length ?? 0) > 0) return null;
  const value = resourceOf(reader, operation.result.data);
  return value === null ? null : etagOf(JSON.stringify({ data: value }));
}
