/**
 * The schema and data every benchmark scenario runs against.
 *
 * The schema is built with graphql-js `buildSchema` and the resolvers are attached to its
 * fields by hand, so the bench depends on nothing in `src/` except the `execute` it measures.
 * One schema object is handed to all three engines, so they resolve the same fields with the
 * same functions.
 */
import { buildSchema, isObjectType } from 'graphql';
import type { GraphQLFieldResolver, GraphQLSchema } from 'graphql';

export const typeDefs = /* GraphQL */ `
  type Query {
    hello: String!
    authors: [Author!]!
  }

  type Author {
    id: ID!
    name: String!
    books: [Book!]!
  }

  type Book {
    id: ID!
    title: String!
    pages: Int!
    genre: Genre!
    rating: Float
    tags: [String!]!
    author: Author!
  }

  enum Genre {
    FANTASY
    HISTORY
    MYSTERY
    POETRY
    SCIENCE
  }
`;

export interface AuthorRecord {
  id: string;
  name: string;
}

export interface BookRecord {
  id: string;
  authorId: string;
  title: string;
  pages: number;
  genre: string;
  rating: number | null;
  tags: string[];
}

/** The in-memory "database" the resolvers read, passed to them as the context value. */
export interface Db {
  authors: AuthorRecord[];
  authorsById: Map<string, AuthorRecord>;
  booksByAuthorId: Map<string, BookRecord[]>;
}

export interface BenchContext {
  db: Db;
}

const GENRES = ['FANTASY', 'HISTORY', 'MYSTERY', 'POETRY', 'SCIENCE'];
const TAGS = ['classic', 'award', 'series', 'translated', 'illustrated', 'debut', 'bestseller'];

/**
 * Builds the data deterministically from indices (no randomness), so every run and every
 * engine sees the same result. Each book has 3 to 7 tags and every seventh has no rating,
 * which keeps the lists uneven and puts some nulls in the output.
 */
export function createDb({ authorCount = 100, booksPerAuthor = 10 } = {}): Db {
  const authors: AuthorRecord[] = [];
  const booksByAuthorId = new Map<string, BookRecord[]>();
  for (let a = 0; a < authorCount; a++) {
    const author = { id: `author-${a}`, name: `Author ${a}` };
    authors.push(author);
    const books: BookRecord[] = [];
    for (let b = 0; b < booksPerAuthor; b++) {
      const n = a * booksPerAuthor + b;
      books.push({
        id: `book-${n}`,
        authorId: author.id,
        title: `Book ${n}`,
        pages: 100 + ((n * 37) % 400),
        genre: GENRES[n % GENRES.length],
        rating: n % 7 === 0 ? null : ((n * 13) % 50) / 10,
        tags: Array.from({ length: 3 + (n % 5) }, (_, t) => TAGS[(n + t) % TAGS.length]),
      });
    }
    booksByAuthorId.set(author.id, books);
  }
  return { authors, authorsById: new Map(authors.map((author) => [author.id, author])), booksByAuthorId };
}

/** Type name → field name → resolver; `never` lets each resolver name its own parent type. */
type Resolvers = Record<string, Record<string, GraphQLFieldResolver<never, BenchContext>>>;

/**
 * The three resolvers that do work; every other field is read off the parent object by the
 * engine's default resolver, which is where most of a real result's values come from.
 */
const hello = () => 'world';

const syncResolvers: Resolvers = {
  Query: {
    hello,
    authors: (_root: unknown, _args: unknown, { db }: BenchContext) => db.authors,
  },
  Author: {
    books: (author: AuthorRecord, _args: unknown, { db }: BenchContext) => db.booksByAuthorId.get(author.id),
  },
  Book: {
    author: (book: BookRecord, _args: unknown, { db }: BenchContext) => db.authorsById.get(book.authorId),
  },
};

/**
 * The same resolvers, each returning a Promise, as a resolver backed by a database or another
 * service would. `hello` stays synchronous: only the nested scenario is meant to be async.
 */
const asyncResolvers: Resolvers = {
  Query: {
    hello,
    authors: async (_root: unknown, _args: unknown, { db }: BenchContext) => db.authors,
  },
  Author: {
    books: async (author: AuthorRecord, _args: unknown, { db }: BenchContext) => db.booksByAuthorId.get(author.id),
  },
  Book: {
    author: async (book: BookRecord, _args: unknown, { db }: BenchContext) => db.authorsById.get(book.authorId),
  },
};

/** A fresh schema whose resolvers are synchronous or all return Promises. */
export function createBenchSchema(mode: 'sync' | 'async'): GraphQLSchema {
  const schema = buildSchema(typeDefs);
  const resolvers = mode === 'sync' ? syncResolvers : asyncResolvers;
  for (const [typeName, fieldResolvers] of Object.entries(resolvers)) {
    const type = schema.getType(typeName);
    if (!isObjectType(type)) {
      throw new TypeError(`Resolvers name type "${typeName}", which is not an object type in the bench schema.`);
    }
    const fields = type.getFields();
    for (const [fieldName, resolve] of Object.entries(fieldResolvers)) {
      const field = fields[fieldName];
      if (field === undefined) {
        throw new TypeError(`Resolvers name field "${typeName}.${fieldName}", which the bench schema does not define.`);
      }
      // SDL is not checked by TypeScript, so the parent type each resolver declares is a
      // promise made by the data above rather than something the compiler can verify.
      field.resolve = resolve as GraphQLFieldResolver<unknown, unknown>;
    }
  }
  return schema;
}

/** The nested-lists query of the executor and HTTP benchmarks: every book field, and its author. */
export const NESTED_QUERY = /* GraphQL */ `
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
