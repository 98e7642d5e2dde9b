/**
 * The built-in demo data: a small library (authors, books, reviews) with sync and async
 * resolvers, an interface, a union, an enum with internal values and a mutation.
 */
import { makeSchema } from '../schema/makeSchema.ts';

export const demoTypeDefs = /* GraphQL */ `
  "Something with a stable identifier."
  interface Node { id: ID! }

  enum Genre { FICTION SCIENCE HISTORY }

  type Author implements Node {
    id: ID!
    name: String!
    books: [Book!]!
  }

  type Book implements Node {
    id: ID!
    title: String!
    genre: Genre!
    year: Int
    author: Author!
    reviews: [Review!]!
  }

  type Review implements Node {
    id: ID!
    stars: Int!
    text: String
  }

  union SearchResult = Author | Book

  type Query {
    authors: [Author!]!
    books(genre: Genre): [Book!]!
    node(id: ID!): Node
    search(text: String!): [SearchResult!]!
  }

  type Mutation {
    addReview(bookId: ID!, stars: Int!, text: String): Review!
  }
`;

interface AuthorRow { id: string; name: string }
interface BookRow { id: string; title: string; genre: 'f' | 's' | 'h'; year: number | null; authorId: string }
interface ReviewRow { id: string; bookId: string; stars: number; text: string | null }

/** Fresh demo data: each caller (each server start, each test) gets its own copy. */
export function createDemoData() {
  const authors: AuthorRow[] = [
    { id: 'a1', name: 'Ursula K. Le Guin' },
    { id: 'a2', name: 'Carl Sagan' },
    { id: 'a3', name: 'Mary Beard' },
  ];
  const books: BookRow[] = [
    { id: 'b1', title: 'The Dispossessed', genre: 'f', year: 1974, authorId: 'a1' },
    { id: 'b2', title: 'The Left Hand of Darkness', genre: 'f', year: 1969, authorId: 'a1' },
    { id: 'b3', title: 'Cosmos', genre: 's', year: 1980, authorId: 'a2' },
    { id: 'b4', title: 'SPQR', genre: 'h', year: 2015, authorId: 'a3' },
  ];
  const reviews: ReviewRow[] = [{ id: 'r1', bookId: 'b3', stars: 5, text: 'Wonder, explained.' }];
  return { authors, books, reviews };
}

export type DemoData = ReturnType<typeof createDemoData>;

export interface DemoContext { data: DemoData }

const typeOf = (row: object) => ('title' in row ? 'Book' : 'stars' in row ? 'Review' : 'Author');

export const demoSchema = makeSchema({
  typeDefs: demoTypeDefs,
  resolvers: {
    Genre: { FICTION: 'f', SCIENCE: 's', HISTORY: 'h' },
    Node: { __resolveType: typeOf },
    SearchResult: { __resolveType: async (row: object) => typeOf(row) },
    Query: {
      authors: (_: unknown, __: unknown, { data }: DemoContext) => data.authors,
      books: (_: unknown, { genre }: { genre?: string }, { data }: DemoContext) =>
        data.books.filter((book) => genre == null || book.genre === genre),
      node: (_: unknown, { id }: { id: string }, { data }: DemoContext) =>
        [...data.authors, ...data.books, ...data.reviews].find((row) => row.id === id) ?? null,
      search: async (_: unknown, { text }: { text: string }, { data }: DemoContext) => {
        const needle = text.toLowerCase();
        return [
          ...data.authors.filter((author) => author.name.toLowerCase().includes(needle)),
          ...data.books.filter((book) => book.title.toLowerCase().includes(needle)),
        ];
      },
    },
    Author: {
      books: (author: AuthorRow, _: unknown, { data }: DemoContext) => data.books.filter((book) => book.authorId === author.id),
    },
    Book: {
      author: async (book: BookRow, _: unknown, { data }: DemoContext) => data.authors.find((a) => a.id === book.authorId),
      reviews: (book: BookRow, _: unknown, { data }: DemoContext) => data.reviews.filter((r) => r.bookId === book.id),
    },
    Mutation: {
      addReview: (_: unknown, args: { bookId: string; stars: number; text?: string }, { data }: DemoContext) => {
        if (!data.books.some((book) => book.id === args.bookId)) throw new Error(`No book has id "${args.bookId}".`);
        if (args.stars < 1 || args.stars > 5) throw new Error(`stars must be between 1 and 5, got ${args.stars}.`);
        const review = { id: `r${data.reviews.length + 1}`, bookId: args.bookId, stars: args.stars, text: args.text ?? null };
        data.reviews.push(review);
        return review;
      },
    },
  },
});
