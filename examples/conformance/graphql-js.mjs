// The conformance kit's adapter for graphql-js itself: its execute, subscribe and (graphql 17)
// experimentalExecuteIncrementally, exported as they are.
//   npx graphql-glassbox conformance executor examples/conformance/graphql-js.mjs
import * as graphql from 'graphql';

export const execute = graphql.execute;
export const subscribe = graphql.subscribe;
export const experimentalExecuteIncrementally = graphql.experimentalExecuteIncrementally;
