// The conformance kit's adapter for graphql-jit: graphql-js's execute signature over graphql-jit's
// compileQuery. A document graphql-jit cannot compile answers with the errors compileQuery gives.
//   npx graphql-glassbox conformance executor examples/conformance/graphql-jit.mjs
import { compileQuery, isCompiledQuery } from 'graphql-jit';

export function execute({ schema, document, rootValue, contextValue, variableValues, operationName }) {
  const compiled = compileQuery(schema, document, operationName ?? undefined);
  if (!isCompiledQuery(compiled)) return compiled;
  return compiled.query(rootValue, contextValue, variableValues ?? {});
}
