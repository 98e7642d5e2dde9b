/**
 * The rules a document is validated with, in one place: the event loop's thread (documents.ts)
 * and the validation worker (validationWorker.ts) must run the same list, in the same order.
 */
import { NoSchemaIntrospectionCustomRule } from 'graphql';
import type { ValidationRule } from 'graphql';
import { SPECIFIED_AND_INCREMENTAL_RULES } from '../language/graphqlCompat.ts';

/** graphql's specified rules, those of @defer/@stream (graphql 17's own, or ours under 16), and the no-introspection rule with `introspection: false`. */
export function validationRules(noIntrospection: boolean): ReadonlyArray<ValidationRule> {
  // With introspection for some roles, documents are validated as for everyone, and whether
  // they introspect is checked per caller (Documents.introspectionErrors).
  return noIntrospection ? [...SPECIFIED_AND_INCREMENTAL_RULES, NoSchemaIntrospectionCustomRule] : SPECIFIED_AND_INCREMENTAL_RULES;
}
