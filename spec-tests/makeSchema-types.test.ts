/**
 * The types of makeSchema's resolver map (schema/makeSchema.ts, FieldResolver): a resolver
 * written without annotations gets its parameters' types (under `strict`, which this repository
 * type-checks with: no implicit `any`), and annotated resolvers, hooks, scalars and enum values
 * are taken as they are. Checked by the type check (`npm run typecheck`): an `@ts-expect-error`
 * that finds no error fails it. The schema is then run, so that the resolvers are real ones.
 */
import { graphql } from 'graphql';
import type { GraphQLResolveInfo } from 'graphql';
import { describe, expect, expectTypeOf, it } from 'vitest';
import { makeSchema } from '../src/index.ts';

interface Book {
  kind: 'Book';
  id: string;
  title: string;
}
interface BookArgs {
  id: string;
}
interface Context {
  books: ReadonlyArray<Book>;
}

const schema = makeSchema({
  // graphql-js runs it below: graphql 17's refuses a schema declaring @defer and @stream.
  incremental: false,
  typeDefs: /* GraphQL */ `
    interface Node { id: ID! }
    type Book implements Node { id: ID! title: String! }
    enum Color { RED BLUE }
    type Query {
      field(name: String): String!
      book(id: ID!): Book
      node(id: ID!): Node
      color: Color!
      long(limit: Int): Int!
    }
  `,
  resolvers: {
    Query: {
      // Without annotations: info is graphql-js's, args a record; parent and context any.
      field: (parent, args, context, info) => {
        expectTypeOf(info).toEqualTypeOf<GraphQLResolveInfo>();
        expectTypeOf(args).toEqualTypeOf<Record<string, any>>();
        // @ts-expect-error info is not any: it has no such member.
        void info.notAMember;
        void parent;
        void context;
        return `${info.fieldName} ${String(args['name'] ?? 'none')}`;
      },
      // Annotated, with an interface for the arguments and the context.
      book: (_parent: unknown, args: BookArgs, context: Context) => context.books.find((book) => book.id === args.id) ?? null,
      node: (_parent: unknown, args: { id: string }, context: Context) => context.books.find((book) => book.id === args.id) ?? null,
      color: () => 'r',
      // Apollo's long form.
      long: { resolve: (_parent, args) => (typeof args['limit'] === 'number' ? args['limit'] * 2 : 0) },
    },
    Node: { __resolveType: (value: { kind: string }) => value.kind },
    // A hook without annotations: graphql-js's types.
    Book: { __isTypeOf: (value, _context, info) => typeof value === 'object' && info.fieldName !== '', title: (book: Book) => book.title.toUpperCase() },
    Color: { RED: 'r', BLUE: 'b' },
  },
});

describe('makeSchema: the resolver map as TypeScript sees it', () => {
  it('runs the resolvers written with and without annotations', async () => {
    const contextValue: Context = { books: [{ kind: 'Book', id: 'b1', title: 'Dune' }] };
    const result = await graphql({
      schema,
      source: '{ field(name: "x") book(id: "b1") { title } node(id: "b1") { id ... on Book { title } } color long(limit: 21) }',
      contextValue,
    });
    expect(result).toEqual({ data: { field: 'field x', book: { title: 'DUNE' }, node: { id: 'b1', title: 'DUNE' }, color: 'RED', long: 42 } });
  });
});
