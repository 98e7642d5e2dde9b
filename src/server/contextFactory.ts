/**
 * The `context` option, checked when the pipeline is made. Apollo Server calls its context
 * factory with `{ req, res }` and GraphQL Yoga with `{ request, params }`; ours gets the request
 * itself and a scope: `(request, { identity, signal, connectionParams })`. A factory written as
 * Apollo's or Yoga's reads `undefined` for `req` or `params` and fails on the first request
 * with a TypeError far from its cause, so a factory whose first parameter destructures one of
 * those names is refused at start, saying how to write it here. (Read from the function's source
 * text: a factory written otherwise is never refused.)
 */
import { describe } from '../jsutils/describe.ts';

/** First parameter destructured into one of the names Apollo's and Yoga's factories receive. */
const FOREIGN_SHAPE = /^\s*(?:async\s*)?(?:function\b[^(]*)?\(\s*\{[^}]*?\b(req|res|params)\b/;

export function checkContextFactory(context: unknown): void {
  if (context === undefined) return;
  if (typeof context !== 'function') throw new TypeError(`context must be a function (request, { identity, signal }) => context, got ${describe(context)}.`);
  const name = FOREIGN_SHAPE.exec(Function.prototype.toString.call(context))?.[1];
  if (name === undefined) return;
  throw new TypeError(
    `context: this factory destructures { ${name} } from its first argument, as Apollo Server's and GraphQL Yoga's are called; here the first argument is the request itself (node's IncomingMessage under createServer) and the second a scope: context: (req, { identity, signal }) => ({ … }).`,
  );
}
