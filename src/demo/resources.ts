/**
 * The demo's resource routes (`/api/v1/...`): each a GraphQL operation over the demo schema,
 * served by the resource surface (transports/rest/) through the same pipeline as /graphql.
 */
import type { ResourceVersionOptions } from '../transports/rest/resourceRoutes.ts';

const BOOK = 'id title genre published';
const REVIEW = 'id bookId stars text';

export const DEMO_RESOURCES: ResourceVersionOptions = {
  version: 'v1',
  routes: {
    'GET /authors': 'query { authors { id name born } }',
    'GET /authors/{id}': 'query ($id: ID!) { author(id: $id) { id name born } }',
    'GET /authors/{id}/books': `query ($id: ID!) { author(id: $id) { books { ${BOOK} } } }`,
    'GET /books': `query ($genre: Genre, $sort: BookSort, $limit: Int = 10, $offset: Int = 0) { books(genre: $genre, sort: $sort, limit: $limit, offset: $offset) { total items { ${BOOK} } } }`,
    'GET /books/{id}': `query ($id: ID!) { book(id: $id) { ${BOOK} author { id name } averageStars } }`,
    'GET /books/{id}/reviews': `query ($id: ID!) { book(id: $id) { reviews { ${REVIEW} } } }`,
    'POST /books/{id}/reviews': `mutation ($id: ID!, $stars: Int!, $text: String) { addReview(review: { bookId: $id, stars: $stars, text: $text }) { ${REVIEW} } }`,
    'GET /reviews/{id}': `query ($id: ID!) { review(id: $id) { ${REVIEW} } }`,
    'PATCH /reviews/{id}': `mutation ($id: ID!, $stars: Int, $text: String) { updateReview(id: $id, stars: $stars, text: $text) { ${REVIEW} } }`,
    'DELETE /reviews/{id}': 'mutation ($id: ID!) { deleteReview(id: $id) }',
  },
};

/**
 * Version 2: the same resources, with books paged by cursor (a Relay connection: `limit` and
 * `cursor` are its `first` and `after`). v1 keeps answering as it did.
 */
export const DEMO_RESOURCES_V2: ResourceVersionOptions = {
  version: 'v2',
  routes: {
    ...DEMO_RESOURCES.routes,
    'GET /books': `query ($genre: Genre, $limit: Int = 10, $cursor: String) { booksConnection(genre: $genre, first: $limit, after: $cursor) { totalCount edges { cursor node { ${BOOK} } } pageInfo { hasNextPage endCursor } } }`,
  },
};
