/**
 * The demo library's schema served from PostgreSQL: its SDL, its resolvers, and the loaders a
 * request's context holds.
 *
 * The SDL is not copied: it is the demo's own (src/demo/librarySchema.ts), cut down to the
 * library itself (authors, books, reviews, and the queries that read them), so the two cannot
 * drift apart and a renamed type fails here at start-up. The Date scalar, the type resolution
 * and the relations of Author and Book (`libraryRelations`) are the demo's too: the same
 * resolvers over other loaders, whose batch functions are SQL here and array scans there. What the example leaves out
 * (subscriptions, mutations, webhooks, search) is about events, not about a database.
 *
 * Every relation goes through a loader made for the request, so a nested query sends one
 * statement per loader and level however many rows each level has. The loader class is a
 * parameter only so the benchmark can put DataLoader, or no batching at all, in front of the
 * same SQL; the example itself always uses our BatchLoader.
 */
import { GraphQLError, Kind, parse, print } from 'graphql';
import type { DefinitionNode, ObjectTypeDefinitionNode } from 'graphql';
import { BatchLoader, makeSchema } from '../../src/index.ts';
import { DEMO_ROLES, DateScalar, demoTypeDefs, libraryRelations, typeOf } from '../../src/demo/librarySchema.ts';
import type { AuthorRow, BookPageArgs, BookRow, ReviewRow, Store } from './database.ts';

/** The demo's types the example serves, and the Query fields that read them. */
const TYPES = ['Node', 'Date', 'Genre', 'BookSort', 'Author', 'Book', 'Review', 'BookPage'];
const QUERY_FIELDS = ['authors', 'books', 'author', 'book', 'review', 'node'];

/** The demo's SDL, cut down to TYPES and QUERY_FIELDS, descriptions and directives kept. */
function librarySdl(): string {
  const definitions = parse(demoTypeDefs).definitions;
  const named = (name: string) => {
    const found = definitions.find((definition) => 'name' in definition && definition.name?.value === name);
    if (found === undefined) throw new Error(`The demo schema has no type ${name}; the PostgreSQL example serves it, so update both together.`);
    return found;
  };
  const query = named('Query') as ObjectTypeDefinitionNode;
  const fields = (query.fields ?? []).filter((field) => QUERY_FIELDS.includes(field.name.value));
  if (fields.length !== QUERY_FIELDS.length) {
    const missing = QUERY_FIELDS.filter((name) => !fields.some((field) => field.name.value === name));
    throw new Error(`The demo schema's Query has no ${missing.join(', ')}; the PostgreSQL example serves them, so update both together.`);
  }
  const kept: DefinitionNode[] = [...TYPES.map(named), { ...query, fields }];
  return print({ kind: Kind.DOCUMENT, definitions: kept });
}

export const librarySchemaSdl = librarySdl();

/** What a loader must offer: DataLoader's constructor and `load`, which our BatchLoader shares. */
export interface Loader<K, V> {
  load(key: K): Promise<V | null>;
}
export type LoaderClass = new <K, V>(batch: (keys: readonly K[]) => Promise<V[]>, options: { name: string }) => Loader<K, V>;

function createLoaders(store: Store, Loader: LoaderClass) {
  return {
    authorById: new Loader<string, AuthorRow | null>(store.authorsById, { name: 'authorById' }),
    bookById: new Loader<string, BookRow | null>(store.booksById, { name: 'bookById' }),
    reviewById: new Loader<string, ReviewRow | null>(store.reviewsById, { name: 'reviewById' }),
    booksByAuthor: new Loader<string, BookRow[]>(store.booksByAuthor, { name: 'booksByAuthor' }),
    reviewsByBook: new Loader<string, ReviewRow[]>(store.reviewsByBook, { name: 'reviewsByBook' }),
  };
}

export type Loaders = ReturnType<typeof createLoaders>;

export interface LibraryContext {
  store: Store;
  loaders: Loaders;
}

/** A request's context: fresh loaders (their caches last one request) over the store's statements. */
export function createLibraryContext(store: Store, Loader: LoaderClass = BatchLoader): LibraryContext {
  return { store, loaders: createLoaders(store, Loader) };
}

const badInput = (message: string) => new GraphQLError(message, { extensions: { code: 'BAD_USER_INPUT' } });

type Parent = unknown;

export const librarySchema = makeSchema({
  typeDefs: librarySchemaSdl,
  roles: DEMO_ROLES,
  resolvers: {
    Date: DateScalar,
    Genre: { FICTION: 'f', SCIENCE: 's', HISTORY: 'h' },
    Node: { __resolveType: typeOf },
    Query: {
      authors: (_: Parent, __: unknown, { store }: LibraryContext) => store.allAuthors(),
      // The page's items and its total are one statement each, sent only when selected.
      books: (_: Parent, args: BookPageArgs) => {
        if (args.limit < 0 || args.limit > 100) throw badInput(`limit must be between 0 and 100, got ${args.limit}.`);
        if (args.offset < 0) throw badInput(`offset must be 0 or more, got ${args.offset}.`);
        return { genre: args.genre ?? null, sort: args.sort ?? null, limit: args.limit, offset: args.offset };
      },
      author: (_: Parent, { id }: { id: string }, { loaders }: LibraryContext) => loaders.authorById.load(id),
      book: (_: Parent, { id }: { id: string }, { loaders }: LibraryContext) => loaders.bookById.load(id),
      review: (_: Parent, { id }: { id: string }, { loaders }: LibraryContext) => loaders.reviewById.load(id),
      // An id may name any of the three kinds: one statement per loader, all at the same level.
      node: async (_: Parent, { id }: { id: string }, { loaders }: LibraryContext) => {
        const found = await Promise.all([loaders.authorById.load(id), loaders.bookById.load(id), loaders.reviewById.load(id)]);
        return found.find((row) => row !== null) ?? null;
      },
    },
    BookPage: {
      items: (page: BookPageArgs, _: unknown, { store }: LibraryContext) => store.bookPage(page),
      total: (page: BookPageArgs, _: unknown, { store }: LibraryContext) => store.bookCount(page),
    },
    ...libraryRelations,
    Review: {
      book: (review: ReviewRow, _: unknown, { loaders }: LibraryContext) => loaders.bookById.load(review.bookId),
    },
  },
});
