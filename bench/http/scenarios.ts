/**
 * The operations every server answers in the HTTP benchmark: the smallest useful query, where
 * the cost of HTTP dominates, and the executor benchmark's nested lists (100 authors × 10
 * books, about 144 KB of JSON), where execution and serialization do.
 */
export interface HttpScenario {
  name: string;
  query: string;
}

const NESTED_LISTS_QUERY = /* GraphQL */ `
  {
    authors {
      id
      name
      books {
        id
        title
        pages
        genre
        rating
        tags
        author {
          id
          name
        }
      }
    }
  }
`;

export const SCENARIOS: readonly HttpScenario[] = [
  { name: 'hello', query: '{ hello }' },
  { name: 'nested-lists', query: NESTED_LISTS_QUERY },
];

/** Every server is asked at this path, with a POST of `{ "query": ... }` as application/json. */
export const GRAPHQL_PATH = '/graphql';
