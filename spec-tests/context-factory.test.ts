/**
 * The `context` option is checked when a server is made (src/server/contextFactory.ts): a factory
 * written as Apollo Server's (`({ req }) => …`) or GraphQL Yoga's (`({ request, params }) => …`)
 * is refused at once, saying how to write it here; any other factory is taken as it is.
 */
import { describe, expect, it } from 'vitest';
import { createHandler, createServer, makeSchema } from '../src/index.ts';

const schema = makeSchema({ typeDefs: 'type Query { hello: String }', resolvers: { Query: { hello: () => 'world' } } });
const how = "here the first argument is the request itself (node's IncomingMessage under createServer) and the second a scope: context: (req, { identity, signal }) => ({ … }).";

describe('the context factory', () => {
  it.each<[string, unknown, string]>([
    ["Apollo's ({ req })", ({ req }: { req: unknown }) => ({ req }), 'req'],
    ["Apollo's async ({ req, res })", async ({ req, res }: { req: unknown; res: unknown }) => ({ req, res }), 'req'],
    ["Yoga's ({ request, params })", ({ request, params }: { request: unknown; params: unknown }) => ({ request, params }), 'params'],
    ['a function expression with { req }', function ({ req }: { req: unknown }) {
      return { req };
    }, 'req'],
  ])('refuses %s at start, naming what it destructures', (_title, context, name) => {
    const message = `context: this factory destructures { ${name} } from its first argument, as Apollo Server's and GraphQL Yoga's are called; ${how}`;
    expect(() => createHandler({ schema, context: context as never })).toThrow(new TypeError(message));
    expect(() => createServer({ schema, context: context as never })).toThrow(new TypeError(message));
  });

  it('refuses a context that is not a function', () => {
    expect(() => createHandler({ schema, context: { db: 1 } as never })).toThrow(new TypeError('context must be a function (request, { identity, signal }) => context, got an object.'));
  });

  it.each<[string, (request: unknown, scope: { identity: unknown }) => unknown]>([
    ['(req, { identity })', (req, { identity }) => ({ req, identity })],
    ['(_request, scope)', (_request, scope) => ({ scope })],
    ['a destructured second argument with req in it', (request, { identity: req }) => ({ request, req })],
  ])('takes %s', async (_title, context) => {
    const handle = createHandler({ schema, context, reportCost: false });
    const [body] = await handle({ method: 'POST', url: '/graphql', headers: { 'content-type': 'application/json' }, body: '{"query":"{ hello }"}', raw: null });
    expect(body).toBe('{"data":{"hello":"world"}}');
  });
});
