/**
 * The public API. Everything a user or a test imports comes from here, and nothing else lives here.
 */
export { makeSchema } from './schema/makeSchema.ts';
export type {
  MakeSchemaConfig,
  Resolvers,
  TypeResolvers,
  FieldResolverConfig,
  ScalarFunctions,
  EnumInternalValues,
} from './schema/makeSchema.ts';
export { execute, defaultTypeResolver } from './execution/execute.ts';
export type { PromiseOrValue, ExecuteArgs } from './execution/execute.ts';
export { BatchLoader } from './batching/batchLoader.ts';
export type { BatchFunction, BatchLoaderOptions, BatchResult } from './batching/batchLoader.ts';
export { analyze, DEFAULT_LIST_SIZE } from './analysis/analyze.ts';
export type { Analysis, AnalyzeArgs } from './analysis/analyze.ts';
export { checkLimits, checkBatchSize, parseWithLimits, DEFAULT_LIMITS } from './analysis/limits.ts';
export type { Limits, LimitCode, CheckLimitsArgs } from './analysis/limits.ts';
export { COST_DIRECTIVES_SDL } from './analysis/costDirectives.ts';
export { createServer } from './http/server.ts';
export type { ServerOptions, GraphQLServer } from './http/server.ts';
export { createHandler } from './http/handler.ts';
export type { HandlerOptions, PlainRequest, HandlerResponse, LogEntry, MaybePromise, OperationScope } from './http/handler.ts';
