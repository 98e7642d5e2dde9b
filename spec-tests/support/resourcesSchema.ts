/**
 * A small schema of our own for the resource routes the demo does not have: a DELETE and a
 * POST whose mutations return a Boolean (204), a PUT whose body is one input object, a GET whose
 * resolver fails with the code the path names (or with a plain Error), one that takes as long
 * as asked (TIMEOUT), and one that echoes its query parameters (numbers, booleans, lists).
 */
import { GraphQLError } from 'graphql';
import type { GraphQLSchema } from 'graphql';
import { makeSchema } from '../../src/index.ts';
import { delayUnlessAborted } from './httpServer.ts';

const TYPE_DEFS = /* GraphQL */ `
  type Thing {
    id: ID!
    name: String!
  }

  input ThingInput {
    name: String!
  }

  type Query {
    things: [Thing!]!
    thing(id: ID!): Thing
    "Fails with a GraphQLError of this code, or with a plain Error for the code plain."
    failure(code: String!): Thing
    "Answers after ms milliseconds (or when the operation is abandoned)."
    slow(ms: Int!): Thing
    "Its arguments as JSON, as the resolver got them."
    echo(n: Int, flag: Boolean, tags: [String!], x: Float): String
  }

  type Mutation {
    addThing(thing: ThingInput!): Thing!
    replaceThing(id: ID!, thing: ThingInput!): Thing
    renameThing(id: ID!, name: String!): Thing
    removeThing(id: ID!): Boolean!
    "True when the thing exists, null otherwise."
    touchThing(id: ID!): Boolean
  }
`;

export interface ThingRow {
  id: string;
  name: string;
}

export interface ThingStore {
  things: Map<string, ThingRow>;
  next: number;
  /** Ids removeThing and touchThing were called with, in order. */
  calls: string[];
}

export function createThingStore(): ThingStore {
  return {
    things: new Map([
      ['t1', { id: 't1', name: 'one' }],
      ['t2', { id: 't2', name: 'two' }],
    ]),
    next: 3,
    calls: [],
  };
}

/** The error `failure(code: "plain")` throws: a fault a client must never read in production. */
export const PLAIN_ERROR_MESSAGE = 'db password leaked';

export function thingsSchema(store: ThingStore): GraphQLSchema {
  return makeSchema({
    typeDefs: TYPE_DEFS,
    resolvers: {
      Query: {
        things: () => [...store.things.values()],
        thing: (_: unknown, { id }: { id: string }) => store.things.get(id) ?? null,
        failure: (_: unknown, { code }: { code: string }) => {
          if (code === 'plain') throw new Error(PLAIN_ERROR_MESSAGE);
          throw new GraphQLError(`failed with ${code}`, { extensions: { code } });
        },
        slow: (_: unknown, { ms }: { ms: number }, context: { signal: AbortSignal }) => delayUnlessAborted(ms, context.signal, { id: 'slow', name: `after ${ms} ms` }),
        echo: (_: unknown, args: Record<string, unknown>) => JSON.stringify(args),
      },
      Mutation: {
        addThing: (_: unknown, { thing }: { thing: { name: string } }) => {
          const row = { id: `t${store.next++}`, name: thing.name };
          store.things.set(row.id, row);
          return row;
        },
        replaceThing: (_: unknown, { id, thing }: { id: string; thing: { name: string } }) => {
          if (!store.things.has(id)) return null;
          const row = { id, name: thing.name };
          store.things.set(id, row);
          return row;
        },
        renameThing: (_: unknown, { id, name }: { id: string; name: string }) => {
          const row = store.things.get(id);
          if (row === undefined) return null;
          row.name = name;
          return row;
        },
        removeThing: (_: unknown, { id }: { id: string }) => {
          store.calls.push(`remove ${id}`);
          if (!store.things.delete(id)) throw new GraphQLError(`No thing has id "${id}".`, { extensions: { code: 'NOT_FOUND' } });
          return true;
        },
        touchThing: (_: unknown, { id }: { id: string }) => {
          store.calls.push(`touch ${id}`);
          return store.things.has(id) ? true : null;
        },
      },
    },
  });
}

/** The routes over it (v1). */
export const THINGS_ROUTES: Record<string, string> = {
  'GET /things': 'query { things { id name } }',
  'GET /things/{id}': 'query ($id: ID!) { thing(id: $id) { id name } }',
  'POST /things': 'mutation ($thing: ThingInput!) { addThing(thing: $thing) { id name } }',
  'PUT /things/{id}': 'mutation ($id: ID!, $thing: ThingInput!) { replaceThing(id: $id, thing: $thing) { id name } }',
  'PATCH /things/{id}': 'mutation ($id: ID!, $name: String!) { renameThing(id: $id, name: $name) { id name } }',
  'DELETE /things/{id}': 'mutation ($id: ID!) { removeThing(id: $id) }',
  'POST /things/{id}/touches': 'mutation ($id: ID!) { touchThing(id: $id) }',
  'GET /failures/{code}': 'query ($code: String!) { failure(code: $code) { id } }',
  'GET /delays/{ms}': 'query ($ms: Int!) { slow(ms: $ms) { id name } }',
  'GET /echoes': 'query ($n: Int, $flag: Boolean, $tags: [String!], $x: Float) { echo(n: $n, flag: $flag, tags: $tags, x: $x) }',
};
