/**
 * The limits a request must satisfy before anything runs (spec section 8): document length and
 * tokens (checked while parsing, so an oversized document never becomes an AST), then depth,
 * cost, nodes, aliases, directives, parts delivered later (`@defer`/`@stream`) and slicing
 * arguments (checked on the analysis), and the
 * number of operations in a batched request.
 *
 * Each limit can be set, or switched off with `false`. Each exceeded limit is reported as a
 * GraphQL error whose `extensions` carry a stable `code`, the `measured` value and the `limit`.
 * Nothing here knows about HTTP: the server calls these, and so can any other transport.
 */
import { GraphQLError, Lexer, Source, TokenKind } from 'graphql';
import { parse } from '../language/tracingChannels.ts';
import type { DocumentNode } from 'graphql';
import { ErrorCode } from '../errors/codes.ts';
import { DocumentTooDeepError, analyzeOperation } from './analyze.ts';
import type { Analysis, AnalyzeArgs } from './analyze.ts';
import { measureDocumentShape } from './documentShape.ts';

export interface Limits {
  /** Longest chain of nested fields. */
  depth: number | false;
  /** IBM field cost (see analyze.ts). */
  cost: number | false;
  /** GitHub's node count. */
  nodes: number | false;
  aliases: number | false;
  directives: number | false;
  /**
   * `@defer`s and `@stream`s in one operation (fragments written out, those whose `if` is false
   * left out): each is a part of the response delivered later, held open until it is.
   */
  incremental: number | false;
  /** Lexical tokens of the document; parsing stops past it. */
  tokens: number | false;
  /** Characters of the document. */
  documentLength: number | false;
  /** Operations in one batched request. */
  batchedOperations: number | false;
  /** Selections listed in one selection set (documentShape.ts: checked before validation). */
  breadth: number | false;
  /** Directives on one field or fragment (checked before validation). */
  directivesPerNode: number | false;
  /**
   * Pairs of fields that share a response name within a selection set, summed over the document:
   * the work of the rule that checks they can be merged (checked before validation).
   */
  fieldMerges: number | false;
}

/**
 * The defaults, and why they differ from the peers' (README, "Limits"):
 *  - depth 15: graphql-armor uses 6, which Relay-style connections (edges/node adds two levels
 *    per hop) outgrow in legitimate queries.
 *  - cost 1000: Shopify's maximum for one query, with the same weights (objects 1, leaves 0,
 *    lists multiplied by their size). graphql-armor's 5000 uses different weights.
 *  - nodes 500,000: GitHub's limit.
 *  - aliases 30 and directives 50: graphql-armor uses 15 and 50. Aliases are how clients
 *    fetch one field with several arguments, so we allow twice as many.
 *  - tokens 5000 and 100,000 characters: graphql-armor uses 1000 tokens, which long generated
 *    queries exceed. The standard introspection query is 163 tokens.
 *  - 10 operations per batched request: what Apollo Server recommends when batching is on.
 *  - 32 deferred fragments and streams per operation: a page defers a handful of slow parts;
 *    every one is a pending entry the server keeps, and the client's cache merges, until it is
 *    delivered. The cost of what they select is counted as if written inline.
 *  - breadth 250, 10 directives per node, 2,000 field merges: the shape limits that keep
 *    graphql-js's validation of any document within the token limit to a few milliseconds
 *    (docs/security.md states the bound and how it was measured). Legitimate documents repeat a
 *    response name a handful of times, not hundreds.
 */
export const DEFAULT_LIMITS: Readonly<Limits> = Object.freeze({
  depth: 15,
  cost: 1000,
  nodes: 500_000,
  aliases: 30,
  directives: 50,
  incremental: 32,
  tokens: 5000,
  documentLength: 100_000,
  batchedOperations: 10,
  breadth: 250,
  directivesPerNode: 10,
  fieldMerges: 2000,
});

function limitError(code: ErrorCode, message: string, measured: number, limit: number): GraphQLError {
  return new GraphQLError(message, { extensions: { code, measured, limit } });
}

function resolveLimits(limits: Partial<Limits> | undefined): Limits {
  return { ...DEFAULT_LIMITS, ...limits };
}

/**
 * Parses a document within the length and token limits. A document over the token limit is
 * never turned into an AST; its tokens are counted by the lexer alone, to report how many.
 * A syntax error comes back with the code GRAPHQL_PARSE_FAILED.
 */
export function parseWithLimits(source: string, limits?: Partial<Limits>): { document: DocumentNode } | { errors: GraphQLError[] } {
  const parsed = parseMeasured(source, limits);
  return 'errors' in parsed ? parsed : { document: parsed.document };
}

/**
 * parseWithLimits, and the work validating the document will take, measured on the way: the
 * pairs the overlapping-fields rule will compare (`fieldMerges`; documentShape.ts), its costliest
 * part, which the server charges to the rate limits before it validates.
 */
export function parseMeasured(source: string, limits?: Partial<Limits>): { document: DocumentNode; fieldMerges: number } | { errors: GraphQLError[] } {
  const resolved = resolveLimits(limits);
  const { documentLength, tokens } = resolved;
  if (documentLength !== false && source.length > documentLength) {
    return {
      errors: [
        limitError(
          ErrorCode.DocumentTooLarge,
          `The document is ${source.length} characters long; the limit is ${documentLength}.`,
          source.length,
          documentLength,
        ),
      ],
    };
  }
  let document: DocumentNode;
  try {
    document = parse(source, tokens === false ? {} : { maxTokens: tokens });
  } catch (error) {
    return { errors: [parseFailure(error, source, tokens)] };
  }
  const shape = measureDocumentShape(document, resolved);
  return shape.errors.length > 0 ? { errors: shape.errors } : { document, fieldMerges: shape.fieldMerges };
}

/** What a document that does not parse within the limits is refused with. */
function parseFailure(error: unknown, source: string, tokens: number | false): GraphQLError {
  // graphql-js parses recursively: a document nested thousands of levels deep exhausts the
  // stack before the token limit is reached. Such a document is refused, never a crash.
  if (error instanceof RangeError) {
    const counted = tokens === false ? 0 : countTokens(source, tokenCap(tokens));
    if (tokens !== false && counted > tokens) return tokenLimitError(counted, tokens);
    return new GraphQLError('The document is nested too deeply to parse.', { extensions: { code: ErrorCode.DocumentTooDeep } });
  }
  if (tokens !== false && error instanceof GraphQLError && error.message.includes('tokens. Parsing aborted.')) {
    // Count how many there are, to report it, but never lex past a bound.
    return tokenLimitError(countTokens(source, tokenCap(tokens)), tokens);
  }
  if (error instanceof GraphQLError) {
    return new GraphQLError(error.message, {
      source: error.source,
      positions: error.positions,
      extensions: { ...error.extensions, code: ErrorCode.ParseFailed },
    });
  }
  throw error;
}

/** How far tokens are counted to report how many there are. */
function tokenCap(tokens: number): number {
  return Math.max(tokens * 10, 100_000);
}

function tokenLimitError(counted: number, tokens: number): GraphQLError {
  const cap = tokenCap(tokens);
  const message = counted > cap ? `The document has more than ${cap} tokens; the limit is ${tokens}.` : `The document has ${counted} tokens; the limit is ${tokens}.`;
  return limitError(ErrorCode.TokenLimitExceeded, message, counted, tokens);
}

/** Tokens as the parser counts them, up to the first lexical error, stopping past `cap`. */
function countTokens(source: string, cap: number): number {
  const lexer = new Lexer(new Source(source));
  let count = 0;
  try {
    while (count <= cap && lexer.advance().kind !== TokenKind.EOF) count++;
  } catch {
    // A lexical error past the limit: what was counted so far is already over it.
  }
  return count;
}

export interface CheckLimitsArgs extends AnalyzeArgs {
  limits?: Partial<Limits>;
}

/**
 * Analyzes the operation and checks every analysis limit; `errors` is empty when the request
 * may run. A request error (no operation can be chosen) is returned as the only error.
 */
export function checkLimits(args: CheckLimitsArgs): { analysis: Analysis | null; errors: GraphQLError[] } {
  const limits = resolveLimits(args.limits);
  let analyzed;
  try {
    analyzed = analyzeOperation(args);
  } catch (error) {
    if (error instanceof DocumentTooDeepError && limits.depth !== false) {
      const message = `Query depth ${error.depth} exceeds the limit of ${limits.depth}.`;
      return { analysis: null, errors: [limitError(ErrorCode.DepthLimitExceeded, message, error.depth, limits.depth)] };
    }
    if (error instanceof GraphQLError) return { analysis: null, errors: [error] };
    throw error;
  }
  const { analysis, slicingViolations } = analyzed;
  const errors: GraphQLError[] = [];
  if (limits.depth !== false && analysis.depth > limits.depth) {
    errors.push(limitError(ErrorCode.DepthLimitExceeded, `Query depth ${analysis.depth} exceeds the limit of ${limits.depth}.`, analysis.depth, limits.depth));
  }
  if (limits.cost !== false && analysis.cost > limits.cost) {
    errors.push(limitError(ErrorCode.CostLimitExceeded, `Query cost ${analysis.cost} exceeds the limit of ${limits.cost}.`, analysis.cost, limits.cost));
  }
  if (limits.nodes !== false && analysis.nodes > limits.nodes) {
    errors.push(
      limitError(ErrorCode.NodeLimitExceeded, `Query node count ${analysis.nodes} exceeds the limit of ${limits.nodes}.`, analysis.nodes, limits.nodes),
    );
  }
  if (limits.aliases !== false && analysis.aliases > limits.aliases) {
    errors.push(
      limitError(ErrorCode.AliasLimitExceeded, `Query uses ${analysis.aliases} aliases; the limit is ${limits.aliases}.`, analysis.aliases, limits.aliases),
    );
  }
  if (limits.directives !== false && analysis.directives > limits.directives) {
    errors.push(
      limitError(
        ErrorCode.DirectiveLimitExceeded,
        `Query uses ${analysis.directives} directives; the limit is ${limits.directives}.`,
        analysis.directives,
        limits.directives,
      ),
    );
  }
  if (limits.incremental !== false && analysis.incremental > limits.incremental) {
    errors.push(
      limitError(
        ErrorCode.IncrementalLimitExceeded,
        `The operation defers or streams ${analysis.incremental} parts; the limit is ${limits.incremental}.`,
        analysis.incremental,
        limits.incremental,
      ),
    );
  }
  for (const message of slicingViolations) {
    errors.push(new GraphQLError(message, { extensions: { code: ErrorCode.SlicingArgumentRequired } }));
  }
  return { analysis, errors };
}

/** A batched request may hold at most `batchedOperations` operations. */
export function checkBatchSize(operations: number, limits?: Partial<Limits>): GraphQLError | null {
  const { batchedOperations } = resolveLimits(limits);
  if (batchedOperations === false || operations <= batchedOperations) return null;
  return limitError(
    ErrorCode.BatchLimitExceeded,
    `The request holds ${operations} operations; the limit is ${batchedOperations}.`,
    operations,
    batchedOperations,
  );
}
