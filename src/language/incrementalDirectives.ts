/**
 * The directives of incremental delivery (the "Incremental Delivery" RFC of the GraphQL working
 * group, which graphql 17 implements), defined as graphql 17 defines them:
 *
 *   directive @defer(if: Boolean! = true, label: String) on FRAGMENT_SPREAD | INLINE_FRAGMENT
 *   directive @stream(initialCount: Int! = 0, if: Boolean! = true, label: String) on FIELD
 *
 * `@defer` asks for a fragment's fields in a later payload; `@stream` asks for a list's items
 * after its first `initialCount`, in later payloads. Both may be switched off with `if: false`,
 * and a `label` names the payloads for the client.
 *
 * graphql 16 has no such directives, so this module builds definitions identical to graphql 17's
 * (names, descriptions, locations, arguments in order, defaults). graphqlCompat.ts chooses
 * graphql 17's own objects when graphql 17 is installed, these otherwise.
 */
import { DirectiveLocation, GraphQLBoolean, GraphQLDirective, GraphQLInt, GraphQLNonNull, GraphQLString } from 'graphql';

/** `@defer`, as graphql 17 defines it. */
export function defineDeferDirective(): GraphQLDirective {
  return new GraphQLDirective({
    name: 'defer',
    description: 'Directs the executor to defer this fragment when the `if` argument is true or undefined.',
    locations: [DirectiveLocation.FRAGMENT_SPREAD, DirectiveLocation.INLINE_FRAGMENT],
    args: {
      if: { type: new GraphQLNonNull(GraphQLBoolean), description: 'Deferred when true or undefined.', defaultValue: true },
      label: { type: GraphQLString, description: 'Unique name' },
    },
  });
}

/** `@stream`, as graphql 17 defines it. */
export function defineStreamDirective(): GraphQLDirective {
  return new GraphQLDirective({
    name: 'stream',
    description: 'Directs the executor to stream plural fields when the `if` argument is true or undefined.',
    locations: [DirectiveLocation.FIELD],
    args: {
      initialCount: { type: new GraphQLNonNull(GraphQLInt), description: 'Number of items to return immediately', defaultValue: 0 },
      if: { type: new GraphQLNonNull(GraphQLBoolean), description: 'Stream when true or undefined.', defaultValue: true },
      label: { type: GraphQLString, description: 'Unique name' },
    },
  });
}
