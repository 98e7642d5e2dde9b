/**
 * The document phase's memory: what a query text becomes once (parsed within the limits and
 * validated against the schema), and what a small request text becomes once (its members, and
 * the operation that passed every check for it: the known request).
 *
 * Both are bounded in bytes as well as entries, because a client chooses the texts, and nothing
 * refused is kept. A parsed document (its AST, validation and plans) keeps up to about
 * DOCUMENT_BYTES_PER_CHARACTER bytes per character of its text alive: the estimate is that of
 * the densest documents (short fields, each with a sub-selection); docs/security.md has how it
 * was found.
 */
import { GraphQLError, NoSchemaIntrospectionCustomRule } from 'graphql';
import { isTraced, validate, validateChannel } from '../language/tracingChannels.ts';
import type { DocumentNode, GraphQLSchema, ValidationRule } from 'graphql';
import type { Analysis } from '../analysis/analyze.ts';
import { parseMeasured } from '../analysis/limits.ts';
import type { Limits } from '../analysis/limits.ts';
import { ErrorCode, withCode } from '../errors/codes.ts';
import { LruCache } from '../jsutils/lruCache.ts';
import { portableSchema, replayValidation } from '../language/portableValidation.ts';
import type { PortableSchema, PortableValidation } from '../language/portableValidation.ts';
import type { CacheCounts } from '../observability/cacheCounts.ts';
import { SMALL_REQUEST } from './request.ts';
import type { KnownRequest, RequestParams } from './request.ts';
import { OFFLOAD_CHARACTERS, sharedValidationThread } from './validationThread.ts';
import type { ValidationThread } from './validationThread.ts';
import { validationRules } from './validationRules.ts';

/** The bytes of parsed documents kept, by default (`documentCacheBytes`). */
export const DEFAULT_DOCUMENT_CACHE_BYTES = 32 * 1024 * 1024;
/** What a parsed document keeps alive per character of its text, at most (see the module comment). */
const DOCUMENT_BYTES_PER_CHARACTER = 120;
/** The bytes of small request texts kept with their members (known requests). */
const KNOWN_REQUEST_CACHE_BYTES = 16 * 1024 * 1024;
/** Characters a request asks the server to read or prepare that count as one request more (see chargeFor). */
const CHARGE_UNIT = 10_000;
/**
 * Pairs the overlapping-fields rule compares (documentShape.ts) that count as one request more
 * when a new document is validated: about a millisecond of validation on this machine class,
 * where a request to a known document takes a few hundredths of one. The costliest document
 * within the default limits (1,953 pairs, some 10 ms to validate) counts as nine requests more.
 */
const MERGES_PER_REQUEST = 200;

/** What a query text becomes once: its document and validation errors, or its parse errors. */
export interface PreparedDocument {
  readonly document: DocumentNode | null;
  readonly errors: ReadonlyArray<GraphQLError>;
  /** Limit checks of operations without variables, whose outcome cannot change (by operation name). */
  readonly checked: Map<string | null, { analysis: Analysis | null; errors: GraphQLError[] }>;
  /** With `introspection: { roles }`: the errors of the no-introspection rule, found on first need. */
  introspectionErrors?: ReadonlyArray<GraphQLError>;
}

/** A new text parsed within the limits, not validated yet (Documents.keptOrParsed). */
export interface ParsedDocument {
  readonly parsed: true;
  readonly query: string;
  readonly document: DocumentNode;
  /** What validating it counts as for the rate limits, in requests beyond the request's own (0 for most documents). */
  readonly validationCharge: number;
}

export function isParsed(found: PreparedDocument | ParsedDocument): found is ParsedDocument {
  return 'parsed' in found;
}

export interface DocumentsOptions {
  schema: GraphQLSchema;
  limits: Limits;
  /** Refuse introspection in every document (`introspection: false`). */
  noIntrospection: boolean;
  /** No "Did you mean …?" in validation errors (production). */
  hideSuggestions: boolean;
  cacheCounts: CacheCounts;
  entries: number;
  maxBytes: number;
  /** Validate large new documents in a worker thread (validationThread.ts; default true). */
  validationThread?: boolean;
}

/** Each schema as the validation thread rebuilds it, printed once however many servers use it (null: not portable). */
const portableSchemas = new WeakMap<GraphQLSchema, PortableSchema | null>();

/** A schema its SDL does not carry whole is validated in place (portableValidation.ts). */
function portableSchemaOf(schema: GraphQLSchema): PortableSchema | null {
  let portable = portableSchemas.get(schema);
  if (portable === undefined) {
    portable = portableSchema(schema);
    portableSchemas.set(schema, portable);
  }
  return portable;
}

export class Documents {
  private readonly prepared: LruCache<string, PreparedDocument>;
  // A known request keeps its ready operation, and so its document and plans, alive after the
  // document cache has let them go: it is sized as the document it holds.
  private readonly knownRequests: LruCache<string, KnownRequest>;
  private readonly rules: ReadonlyArray<ValidationRule>;
  /**
   * Where large new documents are validated (shared with other servers of the schema); null when
   * they are validated in place; undefined until the first one comes (finding it prints the
   * schema, milliseconds that a server which never sees a large document does not spend).
   */
  private thread: ValidationThread | null | undefined = undefined;
  private releaseThread: () => Promise<void> = () => Promise.resolve();

  constructor(private readonly options: DocumentsOptions) {
    this.prepared = new LruCache(options.entries, {
      maxBytes: options.maxBytes,
      sizeOf: (query) => query.length * DOCUMENT_BYTES_PER_CHARACTER + 1024,
    });
    this.knownRequests = new LruCache(options.entries, {
      maxBytes: KNOWN_REQUEST_CACHE_BYTES,
      sizeOf: (text) => text.length * DOCUMENT_BYTES_PER_CHARACTER + 512,
    });
    this.rules = validationRules(options.noIntrospection);
  }

  /** The validation thread, found on first need; null when documents are validated in place. */
  private validationThread(): ValidationThread | null {
    if (this.thread !== undefined) return this.thread;
    const { options } = this;
    const schema = options.validationThread === false ? null : portableSchemaOf(options.schema);
    const used = schema === null ? null : sharedValidationThread({ schema, noIntrospection: options.noIntrospection, hideSuggestions: options.hideSuggestions });
    if (used !== null) this.releaseThread = used.release;
    this.thread = used?.thread ?? null;
    return this.thread;
  }

  /** The document of a query text: parsed within the limits and validated (here), once per text kept. */
  prepare(query: string): PreparedDocument {
    const found = this.keptOrParsed(query);
    return isParsed(found) ? this.validateNew(found) : found;
  }

  /** The document of a text kept prepared (a cache hit, counted), or undefined. */
  kept(query: string): PreparedDocument | undefined {
    const prepared = this.prepared.get(query);
    if (prepared !== undefined) this.options.cacheCounts.documentHits++;
    return prepared;
  }

  /**
   * A text kept prepared (a hit); else the text parsed within the limits (a miss, counted):
   * refused, as a PreparedDocument with its errors, or a ParsedDocument for validateNew(), with
   * what its validation will count as for the rate limits, for the caller to charge first.
   */
  keptOrParsed(query: string): PreparedDocument | ParsedDocument {
    const kept = this.kept(query);
    if (kept !== undefined) return kept;
    this.options.cacheCounts.documentMisses++;
    const parsed = parseMeasured(query, this.options.limits);
    if ('errors' in parsed) return { document: null, errors: parsed.errors, checked: new Map() };
    return { parsed: true, query, document: parsed.document, validationCharge: Math.floor(parsed.fieldMerges / MERGES_PER_REQUEST) };
  }

  /**
   * A parsed text validated, kept unless refused: here, or, when `client` is given and the text
   * is large, in the worker thread (validationThread.ts), in `client`'s turn there: then the
   * answer is a promise of the step that finishes it here (pointing the worker's errors at this
   * document), for the caller to run in the client's turn.
   */
  validateNew(parsed: ParsedDocument): PreparedDocument;
  validateNew(parsed: ParsedDocument, client: () => string): PreparedDocument | Promise<() => PreparedDocument>;
  validateNew({ query, document }: ParsedDocument, client?: () => string): PreparedDocument | Promise<() => PreparedDocument> {
    // A subscriber to graphql:validate sees validation where it runs: here.
    const thread = client === undefined || query.length < OFFLOAD_CHARACTERS || isTraced(validateChannel) ? null : this.validationThread();
    if (thread === null || !thread.available) return this.validatedNew(query, document, undefined);
    // By the finishing step another request may have kept the same text (looked up uncounted: its miss is counted).
    return thread.validate(client!(), query).then((found) => () => this.prepared.get(query) ?? this.validatedNew(query, document, found));
  }

  /** A parsed text validated (here, or from what the worker found), kept unless refused. */
  private validatedNew(query: string, document: DocumentNode, found: PortableValidation | undefined): PreparedDocument {
    const counts = this.options.cacheCounts;
    const errors = this.validated(document, found).map((error) => withCode(error, ErrorCode.ValidationFailed));
    const prepared: PreparedDocument = { document: errors.length > 0 ? null : document, errors, checked: new Map() };
    // Nothing refused is kept: a client would choose what fills the cache.
    if (prepared.document !== null) {
      this.prepared.set(query, prepared);
      counts.documentCacheBytes = this.prepared.bytes;
    }
    return prepared;
  }

  /** The no-introspection rule's errors for a document (none when it does not introspect). */
  introspectionErrors(prepared: PreparedDocument): ReadonlyArray<GraphQLError> {
    prepared.introspectionErrors ??= validate(this.options.schema, prepared.document as DocumentNode, [NoSchemaIntrospectionCustomRule]).map((error) =>
      withCode(error, ErrorCode.ValidationFailed),
    );
    return prepared.introspectionErrors;
  }

  /**
   * The requests a request counts as for the rate limits: one, and one more for every
   * CHARGE_UNIT characters of work it brings: a new document of CHARGE_UNIT characters or more
   * (parsed and validated for it), and what the request holds beside its document (`size`, the
   * characters the transport received for it, when known: variables, extensions, a message's
   * envelope), read and held for it whether its document is new or not. A large request costs
   * the server more, so it costs the client more.
   */
  chargeFor(query: string | null, size: number | undefined): number {
    const documentLength = query === null ? 0 : query.length;
    const beside = size === undefined ? 0 : Math.max(size - documentLength, 0);
    const newDocument = documentLength < CHARGE_UNIT || this.prepared.get(query as string) !== undefined ? 0 : documentLength;
    const work = beside + newDocument;
    return work < CHARGE_UNIT ? 1 : 1 + Math.floor(work / CHARGE_UNIT);
  }

  /** Lets the validation worker go (stopped once no other server of the schema uses it); documents are validated in place after. */
  close(): Promise<void> {
    this.thread = null;
    return this.releaseThread();
  }

  /** The request text seen before, if it was remembered. */
  known(text: string): KnownRequest | undefined {
    return text.length <= SMALL_REQUEST ? this.knownRequests.get(text) : undefined;
  }

  /** Remembers a small request text's members (texts longer than SMALL_REQUEST are not kept). */
  remember(text: string, params: RequestParams): KnownRequest | undefined {
    if (text.length > SMALL_REQUEST) return undefined;
    const known: KnownRequest = { params, ready: null };
    this.knownRequests.set(text, known);
    return known;
  }

  /**
   * graphql-js's validation. A rule can throw rather than report (graphql 16's single-root-field
   * rule does, for a subscription whose root field's @skip reads a variable): what it throws is
   * the document's validation error, a 400 like any other, never a fault of the server.
   */
  private validated(document: DocumentNode, found: PortableValidation | undefined): ReadonlyArray<GraphQLError> {
    const { schema, hideSuggestions } = this.options;
    try {
      // What the worker found, replayed as validate() reports it; validate() itself when it found nothing usable.
      if (found != null) {
        this.options.cacheCounts.validatedInWorker++;
        return replayValidation(schema, document, this.rules, found, { hideSuggestions });
      }
      this.options.cacheCounts.validatedHere++;
      return validate(schema, document, this.rules, { hideSuggestions });
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      return [new GraphQLError(`The document could not be validated: ${message}`)];
    }
  }
}
