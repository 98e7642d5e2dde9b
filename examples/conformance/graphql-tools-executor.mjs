// The conformance kit's adapter for @graphql-tools/executor (the executor of GraphQL Yoga and
// Envelop): its execute takes graphql-js's arguments already.
//   npx graphql-glassbox conformance executor examples/conformance/graphql-tools-executor.mjs
export { execute, subscribe } from '@graphql-tools/executor';
