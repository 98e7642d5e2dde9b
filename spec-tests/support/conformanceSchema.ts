/**
 * The schema the conformance kit's tests and the server matrix (scripts/conformance-matrix-servers.ts)
 * serve: a query, a subscription that ticks on its own (what the kit's `subscription` option asks
 * for) and one that ends after three events. It imports nothing of vitest, so a script can use it.
 */
import { makeSchema } from '../../src/index.ts';

const TYPE_DEFS = /* GraphQL */ `
  type Query {
    hello: String!
    "A chain as deep as the query asks."
    node: Node
  }

  type Node {
    id: ID!
    child: Node
  }

  type Subscription {
    "1, 2, 3, ... one every 20 ms, until the subscriber leaves."
    tick: Int!
    "1, 2, 3, then the source ends."
    three: Int!
  }
`;

/** The operations the kit's options name, for this schema. */
export const QUERY = '{ hello }';
export const SUBSCRIPTION = 'subscription { tick }';
export const FINITE_SUBSCRIPTION = 'subscription { three }';

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * The schema; `incremental: false` leaves `@defer` and `@stream` undeclared, for a server that
 * runs graphql-js's own `execute` (graphql 17's refuses a schema declaring them).
 */
export function conformanceSchema(options: { incremental?: boolean } = {}) {
  return makeSchema({
    typeDefs: TYPE_DEFS,
    incremental: options.incremental ?? true,
    resolvers: {
      Query: { hello: () => 'world', node: () => ({ id: '1' }) },
      Node: { child: (node: { id: string }) => ({ id: `${node.id}.1` }) },
      Subscription: {
        tick: {
          subscribe: async function* tick() {
            for (let count = 1; ; count++) {
              await sleep(20);
              yield count;
            }
          },
          resolve: (value: number) => value,
        },
        three: {
          subscribe: async function* three() {
            for (let count = 1; count <= 3; count++) yield count;
          },
          resolve: (value: number) => value,
        },
      },
    },
  });
}
