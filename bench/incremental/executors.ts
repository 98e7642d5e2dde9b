/**
 * The executors of `npm run bench:incremental`'s first part, each on its own copy of one schema:
 * ten authors (synchronous) and a `slow` field that resolves after SLOW_MS.
 */
import * as graphql from 'graphql';
import type { DocumentNode, GraphQLFieldResolver, GraphQLSchema } from 'graphql';
import { execute as toolsExecute } from '@graphql-tools/executor';
import { GraphQLDeferDirective, GraphQLStreamDirective } from '@graphql-tools/utils';
import { experimentalExecuteIncrementally, makeSchema } from '../../src/index.ts';

export const SLOW_MS = 20;

const typeDefs = /* GraphQL */ `
  type Query {
    authors: [Author!]!
    slow: String
  }
  type Author {
    id: ID!
    name: String!
  }
`;

const AUTHORS = Array.from({ length: 10 }, (_, index) => ({ id: `a${index}`, name: `Author ${index}` }));

const resolvers = {
  Query: {
    authors: () => AUTHORS,
    slow: () => new Promise<string>((resolve) => setTimeout(resolve, SLOW_MS, 'at last')),
  },
};

/** A payload stream as every executor here answers one: the first payload, then the others. */
export type Answer = graphql.ExecutionResult | { initialResult: unknown; subsequentResults: AsyncIterable<unknown> };

export interface Executor {
  readonly name: string;
  run(query: string): Promise<Answer>;
}

/** Parsed once per query text: parsing is not what is measured. */
function parsedOnce(): (query: string) => DocumentNode {
  const documents = new Map<string, DocumentNode>();
  return (query) => {
    let document = documents.get(query);
    if (document === undefined) documents.set(query, (document = graphql.parse(query)));
    return document;
  };
}

/** graphql's buildSchema, with `directives` declared and our resolvers attached. */
function peerSchema(directives: ReadonlyArray<graphql.GraphQLDirective>): GraphQLSchema {
  const built = graphql.buildSchema(typeDefs);
  const schema = new graphql.GraphQLSchema({ ...built.toConfig(), directives: [...graphql.specifiedDirectives, ...directives] });
  for (const [typeName, fields] of Object.entries(resolvers)) {
    const type = schema.getType(typeName) as graphql.GraphQLObjectType;
    for (const [fieldName, resolve] of Object.entries(fields)) (type.getFields()[fieldName] as { resolve?: unknown }).resolve = resolve as GraphQLFieldResolver<unknown, unknown>;
  }
  return schema;
}

/** Ours, @graphql-tools/executor, and graphql-js's own when the installed graphql has incremental delivery (17). */
export async function EXECUTORS(): Promise<Executor[]> {
  const ours = makeSchema({ typeDefs, resolvers, incremental: true });
  const oursDocument = parsedOnce();
  const tools = peerSchema([GraphQLDeferDirective, GraphQLStreamDirective]);
  const toolsDocument = parsedOnce();
  const executors: Executor[] = [
    { name: 'ours', run: async (query) => (await experimentalExecuteIncrementally({ schema: ours, document: oursDocument(query) })) as Answer },
    { name: '@graphql-tools/executor (Yoga)', run: async (query) => (await toolsExecute({ schema: tools, document: toolsDocument(query) })) as Answer },
  ];
  const js = graphql as unknown as {
    experimentalExecuteIncrementally?: (args: { schema: GraphQLSchema; document: DocumentNode }) => Promise<Answer> | Answer;
    GraphQLDeferDirective?: graphql.GraphQLDirective;
    GraphQLStreamDirective?: graphql.GraphQLDirective;
  };
  if (js.experimentalExecuteIncrementally !== undefined && js.GraphQLDeferDirective !== undefined && js.GraphQLStreamDirective !== undefined) {
    const run = js.experimentalExecuteIncrementally;
    const schema = peerSchema([js.GraphQLDeferDirective, js.GraphQLStreamDirective]);
    const document = parsedOnce();
    executors.push({ name: `graphql-js ${graphql.version}`, run: async (query) => await run({ schema, document: document(query) }) });
  }
  return executors;
}
