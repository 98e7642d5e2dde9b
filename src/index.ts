/**
 * The public API. Everything a user or a test imports comes from here, and nothing else lives here.
 */
export { ErrorCode, ERROR_CODES, ErrorChannel, errorCodeInfo, WebSocketCloseCode } from './errors/codes.ts';
export type { ErrorCodeInfo } from './errors/codes.ts';
export { makeSchema } from './schema/makeSchema.ts';
export type {
  MakeSchemaConfig,
  Resolvers,
  TypeResolvers,
  FieldResolver,
  FieldResolverConfig,
  ScalarFunctions,
  EnumInternalValues,
} from './schema/makeSchema.ts';
export { compareSchemas, formatReport } from './schema/schemaEvolution.ts';
export type { EvolutionReport, SchemaChange } from './schema/schemaEvolution.ts';
export { execute, defaultTypeResolver } from './execution/execute.ts';
export type { PromiseOrValue, ExecuteArgs } from './execution/execute.ts';
export { experimentalExecuteIncrementally, legacyExecuteIncrementally } from './execution/incremental/executeIncrementally.ts';
export type { IncrementalExecuteArgs } from './execution/incremental/executeIncrementally.ts';
export type {
  ExperimentalIncrementalExecutionResults,
  InitialIncrementalExecutionResult,
  SubsequentIncrementalExecutionResult,
  IncrementalResult,
  IncrementalDeferResult,
  IncrementalStreamResult,
  PendingResult,
  CompletedResult,
} from './execution/incremental/publisher.ts';
export type {
  LegacyExperimentalIncrementalExecutionResults,
  LegacyInitialIncrementalExecutionResult,
  LegacySubsequentIncrementalExecutionResult,
  LegacyIncrementalResult,
  LegacyIncrementalDeferResult,
  LegacyIncrementalStreamResult,
} from './execution/incremental/legacyPublisher.ts';
export { INCREMENTAL_RULES as incrementalRules, DEFER_DIRECTIVE as GraphQLDeferDirective, STREAM_DIRECTIVE as GraphQLStreamDirective } from './language/graphqlCompat.ts';
export type { ExecutionTrace, ResolverTrace, BatchTrace, PlanTrace, SelectionSetTrace, PartTrace, PayloadTrace } from './execution/trace.ts';
export { explainOperation, formatExplanation } from './execution/explain.ts';
export type { Explanation, ExplainOptions, ExplainedField, ExplainedSelectionSet, BatchRound, FieldKind } from './execution/explain.ts';
export { subscribe, createSourceEventStream } from './execution/subscribe.ts';
export type { SubscribeArgs } from './execution/subscribe.ts';
/** The contexts published on graphql 17's tracing channels (docs/operations.md), by graphql 17's names. */
export type {
  ChannelContexts as GraphQLChannelContextByName,
  ParseContext as GraphQLParseContext,
  ValidateContext as GraphQLValidateContext,
  OperationContext as GraphQLExecuteContext,
  OperationContext as GraphQLSubscribeContext,
  ChosenOperationContext as GraphQLExecuteVariableCoercionContext,
  ChosenOperationContext as GraphQLExecuteRootSelectionSetContext,
  ResolveContext as GraphQLResolveContext,
} from './language/tracingChannels.ts';
export { BatchLoader } from './batching/batchLoader.ts';
export type { BatchFunction, BatchLoaderOptions, BatchResult } from './batching/batchLoader.ts';
export { analyze, DEFAULT_LIST_SIZE } from './analysis/analyze.ts';
export type { Analysis, AnalyzeArgs } from './analysis/analyze.ts';
export { checkLimits, checkBatchSize, parseWithLimits, DEFAULT_LIMITS } from './analysis/limits.ts';
export type { Limits, CheckLimitsArgs } from './analysis/limits.ts';
export { COST_DIRECTIVES_SDL } from './analysis/costDirectives.ts';
export { createServer } from './transports/http/server.ts';
export type { ServerOptions, GraphQLServer } from './transports/http/server.ts';
export type { ReadinessCheck } from './observability/health.ts';
export type { MetricsOptions } from './observability/endpoints.ts';
export type { LogLevel, LogDestination } from './observability/requestLog.ts';
export { createHandler } from './transports/http/handler.ts';
export type { Handler, HandlerOptions, PlainRequest, HandlerResponse } from './transports/http/handler.ts';
export { createPipeline } from './server/pipeline.ts';
export type {
  PipelineOptions,
  OperationPipeline,
  OperationRequest,
  OperationOutcome,
  OperationResult,
  OperationStream,
  OperationIncremental,
  InitialPayload,
  SubsequentPayload,
  NotAllowed,
  RateLimited,
  KnownRequest,
  OperationScope,
  RequestParams,
  LogEntry,
  MaybePromise,
} from './server/pipeline.ts';
export { apiKeyAuth, hashApiKey } from './security/apiKeyAuth.ts';
export type { ApiKeyAuthOptions, ApiKeyRecord } from './security/apiKeyAuth.ts';
export { jwtAuth } from './security/jwtAuth.ts';
export type { JwtAuthOptions } from './security/jwtAuth.ts';
export { oauth2IntrospectionAuth } from './security/oauth2IntrospectionAuth.ts';
export type { OAuth2IntrospectionOptions } from './security/oauth2IntrospectionAuth.ts';
export { createAuthentication } from './security/authenticate.ts';
export type { Authenticator, AuthRequest, AuthResult, AuthenticationOptions } from './security/authenticate.ts';
export type { Credential } from './security/credentials.ts';
export { AuthError } from './security/authError.ts';
export { ANONYMOUS, makeIdentity } from './security/identity.ts';
export type { Identity, IdentityKind } from './security/identity.ts';
export { AUTH_DIRECTIVE_SDL } from './security/rules.ts';
export type { AuthRule, Permissions, RoleDeclaration, AuthorizationConfig } from './security/rules.ts';
export { accessFor } from './security/access.ts';
export type { CorsOptions } from './security/cors.ts';
export type { CsrfPreventionOptions } from './security/csrf.ts';
export type { FieldAccess } from './execution/plan.ts';
export { createPubSub, SUBSCRIPTION_OVERFLOW, PUBSUB_CLOSED } from './events/pubsub.ts';
export type { PubSub, PubSubIterator, SubscribeOptions, PubSubOptions, MemoryPubSub } from './events/pubsub.ts';
export { createRedisPubSub } from './events/redisPubSub.ts';
export type { RedisPubSub, RedisPubSubOptions } from './events/redisPubSub.ts';
export type { WebSocketOptions, WebSocketTransport } from './transports/ws/server.ts';
export type { RateLimitOptions, BudgetOption, RatePolicy, RateStanding, RateRefusal, ClientInfo } from './ratelimit/rateLimiter.ts';
export type { RateLimitStore, BucketCharge, BudgetName } from './ratelimit/store.ts';
export type { IoredisClient } from './redis/ioredisClient.ts';
export type { PersistedQueriesOptions, TrustedDocumentsOptions } from './security/trustedDocuments.ts';
export { createEventBus } from './events/eventBus.ts';
export type { EventBus } from './events/eventBus.ts';
export { createWebhooks, WebhookError, DEFAULT_RETRY_SCHEDULE } from './webhooks/webhooks.ts';
export type { Webhooks, WebhooksOptions, EndpointView } from './webhooks/webhooks.ts';
export { FileStore } from './webhooks/fileStore.ts';
export type { FileStoreOptions } from './webhooks/fileStore.ts';
export { RedisWebhookStore } from './webhooks/redisStore.ts';
export type { RedisWebhookStoreOptions } from './webhooks/redisStore.ts';
export type { WebhookEvent, WebhookEndpoint, WebhookStore, Delivery, DeliveryAttempt, DeliveryStatus } from './webhooks/store.ts';
export { runConformance } from './conformance/runConformance.ts';
export type { ConformanceOptions, ExecutorConformanceOptions, CommonConformanceOptions } from './conformance/runConformance.ts';
export { formatTable, toJson, toJunit } from './conformance/report.ts';
export type { Check, CheckOutcome, CheckEvidence, CheckResult, CheckStatus, ConformanceReport, Requirement } from './conformance/check.ts';
