// The conformance kit's adapter for graphql-glassbox's own executor: execute, subscribe and
// experimentalExecuteIncrementally already take graphql-js's arguments.
//   npx graphql-glassbox conformance executor examples/conformance/glassbox.mjs
export { execute, subscribe, experimentalExecuteIncrementally } from 'graphql-glassbox';
