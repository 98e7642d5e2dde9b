/**
 * Subscriptions, for a module that exports `subscribe`: a few operations over a small schema of
 * the kit's own (a ticking source, a field that fails on one event, a source that cannot start, a
 * variable of the wrong type) run through it and through the installed graphql-js's `subscribe`,
 * and the events (or the single result, when no stream starts) must be the same. Without the
 * export, each check is skipped, saying so.
 */
import { buildSchema, parse, subscribe as referenceSubscribe } from 'graphql';
import type { ExecutionArgs, GraphQLField, GraphQLSchema } from 'graphql';
import type { Check, CheckOutcome } from '../check.ts';
import type { ExecutorTarget } from './target.ts';

const SPEC = 'https://spec.graphql.org/September2025/';

/** The schema: Subscription.tick emits `count` events, failing at `failAt`; Subscription.broken cannot start. */
function subscriptionSchema(): GraphQLSchema {
  const schema = buildSchema('type Query { ok: Boolean } type Subscription { tick(count: Int!, failAt: Int): Int broken: Int }');
  const fields = schema.getSubscriptionType()?.getFields() as Record<string, GraphQLField<unknown, unknown>>;
  const tick = fields['tick'] as GraphQLField<unknown, unknown>;
  tick.subscribe = async function* (_root, args: Record<string, unknown>) {
    for (let index = 0; index < (args['count'] as number); index++) yield { tick: index };
  };
  tick.resolve = (payload, args: Record<string, unknown>) => {
    const { tick: value } = payload as { tick: number };
    if (value === args['failAt']) throw new Error(`tick ${value} fails`);
    return value;
  };
  (fields['broken'] as GraphQLField<unknown, unknown>).subscribe = () => {
    throw new Error('the source cannot start');
  };
  return schema;
}

interface SubscriptionCase {
  id: string;
  title: string;
  anchor: string;
  query: string;
  variables?: Record<string, unknown>;
}

const CASES: SubscriptionCase[] = [
  { id: 'events-in-order', title: 'Each event of the source stream is executed and delivered, in order, then the stream ends', anchor: '#sec-MapSourceToResponseEvent', query: 'subscription { tick(count: 3) }' },
  { id: 'field-error-in-an-event', title: 'A field error in one event is that event’s error; the stream goes on', anchor: '#sec-ExecuteSubscriptionEvent', query: 'subscription { tick(count: 3, failAt: 1) }' },
  { id: 'source-cannot-start', title: 'A source stream that cannot be created answers one result with the error, and no stream', anchor: '#sec-CreateSourceEventStream', query: 'subscription { broken }' },
  { id: 'invalid-variable', title: 'A variable of the wrong type answers a request error, and no stream', anchor: '#sec-Coercing-Variable-Values', query: 'subscription ($count: Int!) { tick(count: $count) }', variables: { count: 'three' } },
];

/** Everything a subscribe call answered, as JSON: the events of a stream, or the one result. */
async function delivered(subscribe: (args: ExecutionArgs) => unknown, schema: GraphQLSchema, testCase: SubscriptionCase): Promise<unknown> {
  const answer = (await subscribe({ schema, document: parse(testCase.query), variableValues: testCase.variables })) as object;
  if (answer === null || typeof answer !== 'object' || !(Symbol.asyncIterator in answer)) return { result: JSON.parse(JSON.stringify(answer) ?? 'null') };
  const events: unknown[] = [];
  for await (const event of answer as AsyncIterable<unknown>) {
    events.push(JSON.parse(JSON.stringify(event)));
    if (events.length > 10) break;
  }
  return { events };
}

async function runSubscription(target: ExecutorTarget, testCase: SubscriptionCase): Promise<CheckOutcome> {
  const sent = { query: testCase.query, variables: testCase.variables };
  if (target.subscribe === undefined) return { status: 'skip', evidence: { why: 'The module exports no subscribe.', sent } };
  const schema = subscriptionSchema();
  const expected = await delivered(referenceSubscribe as (args: ExecutionArgs) => unknown, schema, testCase);
  const received = await delivered(target.subscribe, schema, testCase);
  if (JSON.stringify(received) === JSON.stringify(expected)) return { status: 'pass' };
  return { status: 'fail', evidence: { why: 'what subscribe delivered differs from graphql-js’s', sent, expected, received } };
}

export function subscriptionChecks(): Array<Check<ExecutorTarget>> {
  return CASES.map((testCase) => ({
    id: `executor.subscription.${testCase.id}`,
    title: testCase.title,
    rule: `${SPEC}${testCase.anchor}`,
    requirement: 'MUST',
    run: (target) => runSubscription(target, testCase),
  }));
}
