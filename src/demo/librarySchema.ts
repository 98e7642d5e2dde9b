/**
 * The built-in demo service: a small library (authors, books, reviews) that shows every part
 * of the engine: an interface and a union, an enum with internal values, a custom scalar
 * (`Date`), an input object, a paginated list with cost directives, mutations, per-request
 * BatchLoaders in front of the data store, authorization (three roles: an admin includes an
 * editor, who includes a reader; fields only admins see; a mutation for editors and one that
 * also needs multi-factor sign-in), a subscription fed by the mutation through the event bus,
 * and the webhooks the same events go to, registered by admins through mutations.
 */
import { GraphQLError, GraphQLScalarType, Kind } from 'graphql';
import { BatchLoader } from '../batching/batchLoader.ts';
import { makeSchema } from '../schema/makeSchema.ts';
import { createPubSub } from '../events/pubsub.ts';
import type { PubSub } from '../events/pubsub.ts';
import { createEventBus } from '../events/eventBus.ts';
import { WebhookError } from '../webhooks/webhooks.ts';
import type { EndpointView, Webhooks } from '../webhooks/webhooks.ts';
import type { Delivery } from '../webhooks/store.ts';
import { ANONYMOUS } from '../security/identity.ts';
import type { Identity } from '../security/identity.ts';
import { ErrorCode } from '../errors/codes.ts';

export const demoTypeDefs = /* GraphQL */ `
  "Something with a stable identifier."
  interface Node { id: ID! }

  "A calendar day, written YYYY-MM-DD."
  scalar Date

  enum Genre { FICTION SCIENCE HISTORY }

  "How a list of books is ordered."
  enum BookSort { TITLE PUBLISHED }

  type Author implements Node {
    id: ID!
    name: String!
    born: Date
    books: [Book!]!
    "How to reach the author: for admins only."
    email: String @auth(roles: ["admin"])
  }

  type Book implements Node {
    id: ID!
    title: String!
    genre: Genre!
    published: Date
    author: Author!
    reviews: [Review!]!
    averageStars: Float
  }

  type Review implements Node {
    id: ID!
    bookId: ID!
    stars: Int!
    text: String
    book: Book!
  }

  "Books, a page at a time, Relay-style: each edge's cursor marks where the next page starts."
  type BookConnection {
    edges: [BookEdge!]!
    pageInfo: PageInfo!
    totalCount: Int!
  }

  type BookEdge {
    cursor: String!
    node: Book!
  }

  type PageInfo {
    hasNextPage: Boolean!
    hasPreviousPage: Boolean!
    startCursor: String
    endCursor: String
  }

  "One page of books, and how many there are in all."
  type BookPage {
    items: [Book!]!
    total: Int!
  }

  union SearchResult = Author | Book

  "Who is calling, as the server authenticated them."
  type Viewer {
    id: ID!
    "apiKey, jwt, oauth2 or anonymous."
    kind: String!
    roles: [String!]!
    scopes: [String!]!
    mfa: Boolean!
  }

  "Counts over the whole store: for admins only."
  type LibraryStats @auth(roles: ["admin"]) {
    authors: Int!
    books: Int!
    reviews: Int!
    "Batched reads of the store since the server started."
    dataRoundTrips: Int!
  }

  input ReviewInput {
    bookId: ID!
    stars: Int!
    text: String
  }

  "A registered webhook endpoint: for admins only."
  type WebhookEndpoint @auth(roles: ["admin"]) {
    id: ID!
    url: String!
    "The event types it gets."
    events: [String!]!
    description: String
    createdAt: String!
    "Why deliveries to it stopped (410 Gone, or failed deliveries in a row); null while enabled."
    disabledReason: String
    consecutiveFailures: Int!
    "The signing secret: in the answer to registerWebhook and rotateWebhookSecret only, null anywhere else."
    secret: String
    "Its most recent deliveries, newest first."
    deliveries(limit: Int = 20): [WebhookDelivery!]! @listSize(slicingArguments: ["limit"])
  }

  type WebhookDelivery @auth(roles: ["admin"]) {
    id: ID!
    "The event's id: the webhook-id header of every attempt."
    eventId: ID!
    "pending, delivered or failed."
    status: String!
    "When the next attempt is due, while pending."
    nextAttemptAt: String
    attempts: [WebhookAttempt!]!
  }

  type WebhookAttempt @auth(roles: ["admin"]) {
    at: String!
    durationMs: Int!
    "The receiver's status; null when it did not answer."
    status: Int
    error: String
    "At most 1 KB of the receiver's answer."
    responseBody: String!
  }

  type Query {
    authors: [Author!]!
    books(genre: Genre, sort: BookSort, limit: Int = 10, offset: Int = 0): BookPage! @listSize(slicingArguments: ["limit"], sizedFields: ["items"])
    "Books a page at a time by cursor (first at most 100)."
    booksConnection(genre: Genre, first: Int = 10, after: String): BookConnection! @listSize(slicingArguments: ["first"], sizedFields: ["edges"])
    author(id: ID!): Author
    book(id: ID!): Book
    review(id: ID!): Review
    node(id: ID!): Node
    search(text: String!): [SearchResult!]! @listSize(assumedSize: 20)
    me: Viewer!
    stats: LibraryStats!
    webhookEndpoints: [WebhookEndpoint!]! @auth(roles: ["admin"])
  }

  type Subscription {
    "Each review added from now on, to the book given (to any book when bookId is left out)."
    reviewAdded(bookId: ID): Review!
  }

  type Mutation {
    addReview(review: ReviewInput!): Review! @auth(roles: ["editor"])
    "Deleting is for admins who signed in with a second factor."
    deleteReview(id: ID!): Boolean! @auth(roles: ["admin"], mfa: true)
    "Changes a review's stars or text; null when there is no such review."
    updateReview(id: ID!, stars: Int, text: String): Review @auth(roles: ["editor"])
    "Registers a callback URL for these event types (review.created, review.deleted); the result holds its signing secret, shown this once."
    registerWebhook(url: String!, events: [String!]!, description: String): WebhookEndpoint! @auth(roles: ["admin"])
    removeWebhook(id: ID!): Boolean! @auth(roles: ["admin"])
    "A new signing secret; the old one keeps signing for a day."
    rotateWebhookSecret(id: ID!): WebhookEndpoint! @auth(roles: ["admin"])
    "Enables an endpoint deliveries to which had stopped."
    enableWebhook(id: ID!): WebhookEndpoint! @auth(roles: ["admin"])
    "Sends a kept event again (to one endpoint, or to every endpoint that wants its type); how many deliveries were made."
    redeliverWebhookEvent(eventId: ID!, endpointId: ID): Int! @auth(roles: ["admin"])
  }
`;

interface AuthorRow { id: string; name: string; born: string | null; email: string }
interface BookRow { id: string; title: string; genre: 'f' | 's' | 'h'; published: string | null; authorId: string }
interface ReviewRow { id: string; bookId: string; stars: number; text: string | null }

/** The event addReview publishes: to webhooks, and to the reviewAdded subscription as its topic. */
export const REVIEW_CREATED = 'review.created';
/** The event deleteReview publishes. */
export const REVIEW_DELETED = 'review.deleted';
/** The event types the demo declares. */
export const DEMO_EVENT_TYPES = [REVIEW_CREATED, REVIEW_DELETED];

/**
 * The data store: each server start (and each test) gets its own, with the pub/sub its events
 * go through (in memory unless one is given: main.ts gives a Redis one when REDIS_URL is set)
 * and the webhooks they are delivered to (none unless given), behind one event bus.
 */
export function createDemoData(events: PubSub = createPubSub(), webhooks: Webhooks | null = null) {
  const authors: AuthorRow[] = [
    { id: 'a1', name: 'Ursula K. Le Guin', born: '1929-10-21', email: 'ursula@example.org' },
    { id: 'a2', name: 'Carl Sagan', born: '1934-11-09', email: 'carl@example.org' },
    { id: 'a3', name: 'Mary Beard', born: '1955-01-01', email: 'mary@example.org' },
  ];
  const books: BookRow[] = [
    { id: 'b1', title: 'The Dispossessed', genre: 'f', published: '1974-05-01', authorId: 'a1' },
    { id: 'b2', title: 'The Left Hand of Darkness', genre: 'f', published: '1969-03-01', authorId: 'a1' },
    { id: 'b3', title: 'Cosmos', genre: 's', published: '1980-09-01', authorId: 'a2' },
    { id: 'b4', title: 'Pale Blue Dot', genre: 's', published: '1994-09-01', authorId: 'a2' },
    { id: 'b5', title: 'SPQR', genre: 'h', published: '2015-10-20', authorId: 'a3' },
  ];
  const reviews: ReviewRow[] = [{ id: 'r1', bookId: 'b3', stars: 5, text: 'Wonder, explained.' }];
  const bus = createEventBus(webhooks === null ? { pubsub: events } : { pubsub: events, webhooks });
  return { authors, books, reviews, nextReviewId: 2, roundTrips: 0, events, bus, webhooks };
}

export type DemoData = ReturnType<typeof createDemoData>;

/** Per-request loaders over the store: one round trip per loader and level. */
function createLoaders(data: DemoData) {
  const roundTrip = <T>(rows: T): T => {
    data.roundTrips++;
    return rows;
  };
  return {
    authorById: new BatchLoader(
      async (ids: ReadonlyArray<string>) => roundTrip(new Map(data.authors.filter((a) => ids.includes(a.id)).map((a) => [a.id, a]))),
      { name: 'authorById' },
    ),
    booksByAuthor: new BatchLoader(
      async (ids: ReadonlyArray<string>) => roundTrip(ids.map((id) => data.books.filter((book) => book.authorId === id))),
      { name: 'booksByAuthor' },
    ),
    reviewsByBook: new BatchLoader(
      async (ids: ReadonlyArray<string>) => roundTrip(ids.map((id) => data.reviews.filter((review) => review.bookId === id))),
      { name: 'reviewsByBook' },
    ),
  };
}

export interface DemoContext {
  data: DemoData;
  loaders: ReturnType<typeof createLoaders>;
  identity: Identity;
}

/** The context factory: the caller, and a fresh set of loaders for every request over the shared store. */
export function createDemoContext(data: DemoData, identity: Identity = ANONYMOUS): DemoContext {
  return { data, loaders: createLoaders(data), identity };
}

/** The demo's roles: each includes the ones it lists. */
export const DEMO_ROLES = { admin: ['editor'], editor: ['reader'], reader: [] };

const DAY = /^\d{4}-\d{2}-\d{2}$/;

/** The library's Date: a calendar day as YYYY-MM-DD text (a Date object is written as one too). */
export const DateScalar = new GraphQLScalarType({
  name: 'Date',
  serialize: (value) => {
    if (typeof value === 'string' && DAY.test(value)) return value;
    if (value instanceof Date) return value.toISOString().slice(0, 10);
    throw new GraphQLError(`Date cannot represent ${JSON.stringify(value)}.`);
  },
  parseValue: (value) => {
    if (typeof value === 'string' && DAY.test(value)) return value;
    throw new GraphQLError(`Date must be a string like "2024-01-31", got ${JSON.stringify(value)}.`);
  },
  parseLiteral: (node) => {
    if (node.kind === Kind.STRING && DAY.test(node.value)) return node.value;
    throw new GraphQLError('Date must be a string like "2024-01-31".', { nodes: node });
  },
});

/** Runs an operation of the webhooks API; its refusals become GraphQL errors with their code. */
async function webhooksOf<T>(data: DemoData, operation: (webhooks: Webhooks) => Promise<T>): Promise<T> {
  if (data.webhooks === null) throw new GraphQLError('Webhooks are not enabled on this server.', { extensions: { code: ErrorCode.WebhooksDisabled } });
  try {
    return await operation(data.webhooks);
  } catch (error) {
    if (error instanceof WebhookError) throw new GraphQLError(error.message, { extensions: { code: error.code } });
    throw error;
  }
}

/** Which of the library's types a row is, by the fields only it has. */
export const typeOf = (row: object) => ('title' in row ? 'Book' : 'stars' in row ? 'Review' : 'Author');

/** What the library's object resolvers ask of a request's loaders, whatever store is behind them. */
export interface LibraryLoaders {
  readonly authorById: { load(id: string): Promise<unknown> };
  readonly booksByAuthor: { load(id: string): Promise<unknown> };
  readonly reviewsByBook: { load(id: string): Promise<ReadonlyArray<{ readonly stars: number }> | null> };
}

/**
 * The relations of Author and Book, each through the request's loaders: the same resolvers
 * serve the demo's arrays and examples/postgres's SQL, only the loaders' batch functions differ.
 */
export const libraryRelations = {
  Author: {
    books: (author: { id: string }, _: unknown, { loaders }: { loaders: LibraryLoaders }) => loaders.booksByAuthor.load(author.id),
  },
  Book: {
    author: (book: { authorId: string }, _: unknown, { loaders }: { loaders: LibraryLoaders }) => loaders.authorById.load(book.authorId),
    reviews: (book: { id: string }, _: unknown, { loaders }: { loaders: LibraryLoaders }) => loaders.reviewsByBook.load(book.id),
    // The same loader and key as `reviews`: a book asking for both still makes one load.
    averageStars: async (book: { id: string }, _: unknown, { loaders }: { loaders: LibraryLoaders }) => {
      const reviews = (await loaders.reviewsByBook.load(book.id)) ?? [];
      return reviews.length === 0 ? null : reviews.reduce((sum, review) => sum + review.stars, 0) / reviews.length;
    },
  },
};

export const demoSchema = makeSchema({
  typeDefs: demoTypeDefs,
  roles: DEMO_ROLES,
  // @defer and @stream: a page asks for a book's reviews later, a long list item by item.
  incremental: true,
  resolvers: {
    Date: DateScalar,
    Genre: { FICTION: 'f', SCIENCE: 's', HISTORY: 'h' },
    Node: { __resolveType: typeOf },
    SearchResult: { __resolveType: async (row: object) => typeOf(row) },
    Query: {
      authors: (_: unknown, __: unknown, { data }: DemoContext) => data.authors,
      books: (_: unknown, args: { genre?: string | null; sort?: string | null; limit: number; offset: number }, { data }: DemoContext) => {
        if (args.limit < 0 || args.limit > 100) {
          throw new GraphQLError(`limit must be between 0 and 100, got ${args.limit}.`, { extensions: { code: ErrorCode.BadUserInput } });
        }
        if (args.offset < 0) throw new GraphQLError(`offset must be 0 or more, got ${args.offset}.`, { extensions: { code: ErrorCode.BadUserInput } });
        const matching = data.books.filter((book) => args.genre == null || book.genre === args.genre);
        if (args.sort === 'TITLE') matching.sort((a, b) => a.title.localeCompare(b.title));
        if (args.sort === 'PUBLISHED') matching.sort((a, b) => (a.published ?? '').localeCompare(b.published ?? ''));
        return { items: matching.slice(args.offset, args.offset + args.limit), total: matching.length };
      },
      booksConnection: (_: unknown, args: { genre?: string | null; first: number; after?: string | null }, { data }: DemoContext) => {
        if (args.first < 0 || args.first > 100) {
          throw new GraphQLError(`first must be between 0 and 100, got ${args.first}.`, { extensions: { code: ErrorCode.BadUserInput } });
        }
        const matching = data.books.filter((book) => args.genre == null || book.genre === args.genre);
        // A cursor is the position after which the page starts, opaque to clients (base64url).
        let start = 0;
        if (args.after != null) {
          const position = Number(Buffer.from(args.after, 'base64url').toString('utf8').replace(/^after:/, ''));
          if (!Number.isInteger(position) || position < 0) throw new GraphQLError(`"${args.after}" is not a cursor of this list.`, { extensions: { code: ErrorCode.BadUserInput } });
          start = position + 1;
        }
        const cursor = (index: number) => Buffer.from(`after:${index}`).toString('base64url');
        const page = matching.slice(start, start + args.first);
        const edges = page.map((book, index) => ({ cursor: cursor(start + index), node: book }));
        return {
          edges,
          totalCount: matching.length,
          pageInfo: {
            hasNextPage: start + page.length < matching.length,
            hasPreviousPage: start > 0,
            startCursor: edges[0]?.cursor ?? null,
            endCursor: edges[edges.length - 1]?.cursor ?? null,
          },
        };
      },
      author: (_: unknown, { id }: { id: string }, { data }: DemoContext) => data.authors.find((author) => author.id === id) ?? null,
      book: (_: unknown, { id }: { id: string }, { data }: DemoContext) => data.books.find((book) => book.id === id) ?? null,
      review: (_: unknown, { id }: { id: string }, { data }: DemoContext) => data.reviews.find((review) => review.id === id) ?? null,
      node: (_: unknown, { id }: { id: string }, { data }: DemoContext) =>
        [...data.authors, ...data.books, ...data.reviews].find((row) => row.id === id) ?? null,
      search: async (_: unknown, { text }: { text: string }, { data }: DemoContext) => {
        const needle = text.toLowerCase();
        return [
          ...data.authors.filter((author) => author.name.toLowerCase().includes(needle)),
          ...data.books.filter((book) => book.title.toLowerCase().includes(needle)),
        ];
      },
      me: (_: unknown, __: unknown, { identity }: DemoContext) => identity,
      webhookEndpoints: (_: unknown, __: unknown, { data }: DemoContext) => webhooksOf(data, (webhooks) => webhooks.list()),
      stats: (_: unknown, __: unknown, { data }: DemoContext) => ({
        authors: data.authors.length,
        books: data.books.length,
        reviews: data.reviews.length,
        dataRoundTrips: data.roundTrips,
      }),
    },
    ...libraryRelations,
    Review: {
      book: (review: ReviewRow, _: unknown, { data }: DemoContext) => data.books.find((book) => book.id === review.bookId),
    },
    Subscription: {
      reviewAdded: {
        subscribe: (_: unknown, { bookId }: { bookId?: string | null }, { data }: DemoContext) =>
          data.events.subscribe<ReviewRow>(REVIEW_CREATED, bookId == null ? {} : { filter: (review) => review.bookId === bookId }),
        resolve: (review: ReviewRow) => review,
      },
    },
    Mutation: {
      addReview: async (_: unknown, { review }: { review: { bookId: string; stars: number; text?: string | null } }, { data, loaders }: DemoContext) => {
        if (!data.books.some((book) => book.id === review.bookId)) {
          throw new GraphQLError(`No book has id "${review.bookId}".`, { extensions: { code: ErrorCode.NotFound } });
        }
        if (review.stars < 1 || review.stars > 5) {
          throw new GraphQLError(`stars must be between 1 and 5, got ${review.stars}.`, { extensions: { code: ErrorCode.BadUserInput } });
        }
        const row = { id: `r${data.nextReviewId++}`, bookId: review.bookId, stars: review.stars, text: review.text ?? null };
        // The event first: once it is in the webhooks' outbox, the review is added (a write
        // the outbox refuses adds nothing). Subscribers hear of it too.
        await data.bus.publish(REVIEW_CREATED, row);
        data.reviews.push(row);
        loaders.reviewsByBook.clear(review.bookId);
        return row;
      },
      deleteReview: async (_: unknown, { id }: { id: string }, { data, loaders }: DemoContext) => {
        const index = data.reviews.findIndex((review) => review.id === id);
        if (index === -1) throw new GraphQLError(`No review has id "${id}".`, { extensions: { code: ErrorCode.NotFound } });
        const [removed] = data.reviews.splice(index, 1);
        loaders.reviewsByBook.clear((removed as ReviewRow).bookId);
        await data.bus.publish(REVIEW_DELETED, removed);
        return true;
      },
      updateReview: (_: unknown, args: { id: string; stars?: number | null; text?: string | null }, { data, loaders }: DemoContext) => {
        const review = data.reviews.find((each) => each.id === args.id);
        if (review === undefined) return null;
        if (args.stars != null && (args.stars < 1 || args.stars > 5)) {
          throw new GraphQLError(`stars must be between 1 and 5, got ${args.stars}.`, { extensions: { code: ErrorCode.BadUserInput } });
        }
        if (args.stars != null) review.stars = args.stars;
        if (args.text !== undefined) review.text = args.text;
        loaders.reviewsByBook.clear(review.bookId);
        return review;
      },
      registerWebhook: async (_: unknown, input: { url: string; events: string[]; description?: string | null }, { data }: DemoContext) => {
        const { endpoint, secret } = await webhooksOf(data, (webhooks) => webhooks.register(input));
        return { ...endpoint, secret };
      },
      removeWebhook: (_: unknown, { id }: { id: string }, { data }: DemoContext) => webhooksOf(data, (webhooks) => webhooks.remove(id)),
      rotateWebhookSecret: async (_: unknown, { id }: { id: string }, { data }: DemoContext) => {
        const { endpoint, secret } = await webhooksOf(data, (webhooks) => webhooks.rotateSecret(id));
        return { ...endpoint, secret };
      },
      enableWebhook: (_: unknown, { id }: { id: string }, { data }: DemoContext) => webhooksOf(data, (webhooks) => webhooks.enable(id)),
      redeliverWebhookEvent: (_: unknown, { eventId, endpointId }: { eventId: string; endpointId?: string | null }, { data }: DemoContext) =>
        webhooksOf(data, (webhooks) => webhooks.redeliver(eventId, endpointId ?? undefined)),
    },
    WebhookEndpoint: {
      disabledReason: (endpoint: EndpointView) => endpoint.disabled?.reason ?? null,
      secret: (endpoint: EndpointView & { secret?: string }) => endpoint.secret ?? null,
      deliveries: (endpoint: EndpointView, { limit }: { limit: number }, { data }: DemoContext) =>
        webhooksOf(data, (webhooks) => webhooks.deliveries(endpoint.id, Math.min(Math.max(limit, 0), 100))),
    },
    WebhookDelivery: {
      nextAttemptAt: (delivery: Delivery) => (delivery.nextAttemptAt === null ? null : new Date(delivery.nextAttemptAt).toISOString()),
    },
  },
});
