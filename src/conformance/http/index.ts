/**
 * The GraphQL over HTTP target of the conformance kit (`graphql-glassbox conformance http <url>`):
 * graphql-http's server audits, one check each (the library is used, not rewritten), then what
 * they do not cover: Server-Sent Events (graphql-sse's distinct connections mode), incremental
 * delivery over `multipart/mixed`, batching, and the answers to documents too deep or too large.
 *
 * `httpChecks` is async: graphql-http, an optional peer dependency, is imported when the checks
 * are built, and its absence rejects with "install graphql-http to run the HTTP audits".
 */
import type { Check } from '../check.ts';
import { auditChecks } from './audits.ts';
import type { HttpTargetOptions } from './exchange.ts';
import { incrementalCheck } from './incrementalCheck.ts';
import { limitChecks } from './limitChecks.ts';
import { streamChecks } from './streamChecks.ts';

export type { HttpTargetOptions } from './exchange.ts';

/** Every HTTP check: the audits of the installed graphql-http first, then the kit's own. */
export async function httpChecks(): Promise<Array<Check<HttpTargetOptions>>> {
  return [...(await auditChecks()), ...streamChecks, incrementalCheck, ...limitChecks];
}
