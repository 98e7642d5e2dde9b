/**
 * The operations every server answers in the HTTP benchmark: the smallest useful query, where
 * the cost of HTTP dominates, and the executor benchmark's nested lists (100 authors × 10
 * books, about 194 KB of JSON), where execution and serialization do.
 */
import { NESTED_QUERY } from '../schema.ts';

export interface HttpScenario {
  name: string;
  query: string;
}

export const SCENARIOS: readonly HttpScenario[] = [
  { name: 'hello', query: '{ hello }' },
  { name: 'nested-lists', query: NESTED_QUERY },
];

/** Every server is asked at this path, with a POST of `{ "query": ... }` as application/json. */
export const GRAPHQL_PATH = '/graphql';
