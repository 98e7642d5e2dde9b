/**
 * The scheduling rule at its edges: what counts as waiting on a load, and the safety net for a
 * wait the scheduler cannot see.
 */
import { describe, expect, it } from 'vitest';
import { parse } from 'graphql';
import { BatchLoader, execute, makeSchema } from '../src/index.ts';

const typeDefs = `
  type Item { id: ID! label: String }
  type Query { items: [Item!]! pair: [String] viewerName: String viewerGreeting: String }
`;

interface Context {
  calls: string[][];
  labels: BatchLoader<string, string>;
  viewer?: Promise<string | null>;
}

function createContext(): Context {
  const calls: string[][] = [];
  return {
    calls,
    labels: new BatchLoader(async (keys: ReadonlyArray<string>) => {
      calls.push([...keys]);
      return keys.map((key) => `label ${key}`);
    }),
  };
}

const nextImmediate = () => new Promise((resolve) => setImmediate(resolve));

describe('the batch scheduler', () => {
  it('counts a resolver awaiting Promise.all of loads as waiting, and still waits for a sibling on setImmediate', async () => {
    const schema = makeSchema({
      typeDefs,
      resolvers: {
        Query: {
          pair: (_: unknown, __: unknown, ctx: Context) => Promise.all([ctx.labels.load('a'), ctx.labels.load('b')]),
          viewerName: async (_: unknown, __: unknown, ctx: Context) => {
            await nextImmediate();
            return ctx.labels.load('c');
          },
        },
      },
    });
    const context = createContext();
    const result = await execute({ schema, document: parse('{ pair viewerName }'), contextValue: context });
    expect(result).toEqual({ data: { pair: ['label a', 'label b'], viewerName: 'label c' } });
    expect(context.calls).toEqual([['a', 'b', 'c']]);
  });

  it('counts resolvers awaiting one shared load promise as waiting on it', async () => {
    const schema = makeSchema({
      typeDefs,
      resolvers: {
        Query: {
          viewerName: (_: unknown, __: unknown, ctx: Context) => (ctx.viewer ??= ctx.labels.load('me')),
          viewerGreeting: async (_: unknown, __: unknown, ctx: Context) => {
            await nextImmediate();
            return `hello ${await (ctx.viewer ??= ctx.labels.load('me'))} and ${await ctx.labels.load('you')}`;
          },
        },
      },
    });
    const context = createContext();
    const result = await execute({ schema, document: parse('{ viewerName viewerGreeting }'), contextValue: context });
    expect(result).toEqual({ data: { viewerName: 'label me', viewerGreeting: 'hello label me and label you' } });
    expect(context.calls).toEqual([['me'], ['you']]);
  });

  it('sends the loads anyway when a resolver waits on one through a promise it cannot see, instead of hanging', async () => {
    const schema = makeSchema({
      typeDefs,
      resolvers: {
        Query: {
          items: () => [{ id: '1' }, { id: '2' }],
          // The viewer promise is made (and its load awaited) inside another resolver's async
          // function; the field below awaits that plain promise, not the load's.
          viewerName: (_: unknown, __: unknown, ctx: Context) =>
            (ctx.viewer ??= (async () => ((await ctx.labels.load('me')) ?? '').toUpperCase())()),
          viewerGreeting: async (_: unknown, __: unknown, ctx: Context) => {
            await nextImmediate();
            return `hello ${await ctx.viewer}`;
          },
        },
        Item: { label: (item: { id: string }, _: unknown, ctx: Context) => ctx.labels.load(item.id) },
      },
    });
    const context = createContext();
    const result = await execute({
      schema,
      document: parse('{ items { id label } viewerName viewerGreeting }'),
      contextValue: context,
    });
    expect(result).toEqual({
      data: {
        items: [
          { id: '1', label: 'label 1' },
          { id: '2', label: 'label 2' },
        ],
        viewerName: 'LABEL ME',
        viewerGreeting: 'hello LABEL ME',
      },
    });
    expect(context.calls).toEqual([['1', '2', 'me']]);
  });
});
