/**
 * portableValidation: graphql-js's validation run in another thread (server/validationThread.ts),
 * and its errors carried back to the document the server parsed, exactly as `validate()` would
 * have reported them here.
 *
 * Why it can move: validation reads the schema's structure (types, fields, arguments, whether an
 * argument has a default), which its SDL carries whole, with one exception: the rule that literal
 * values are of the correct type (ValuesOfCorrectTypeRule) asks a custom scalar's own code
 * whether a literal is one of its values, and that code stays in this thread. So:
 *
 *  1. `portableSchema()` prints the schema, and refuses (null) a schema its SDL would not carry
 *     whole (an argument's default that cannot be printed: whether one exists changes which
 *     arguments are required).
 *  2. `validatePortable()`, in the other thread, validates against the schema rebuilt from the
 *     SDL with every rule, and says of each error where in validate()'s walk it was reported:
 *     the walk's event (each node's entry and exit, counted) and the rule's index in the list.
 *     It also says whether any literal stands where a custom scalar is expected.
 *  3. `replayValidation()`, here: with no such literal, the errors are the answer, each pointed
 *     at the nodes of this thread's document (found by kind and place). With one, this thread
 *     runs ValuesOfCorrectTypeRule itself, in its place among the rules, and puts back every
 *     other rule's errors at the events they were reported at, so the order and the error limit
 *     (maxErrors) are validate()'s own. That walk costs about a fifth of a whole validation.
 *
 * spec-tests/portable-validation.property.test.ts holds the three steps against validate() on
 * generated documents, errors and all.
 */
import {
  GraphQLError,
  ValuesOfCorrectTypeRule,
  buildSchema,
  getNamedType,
  isInputObjectType,
  isObjectType,
  isInterfaceType,
  isScalarType,
  printSchema,
  specifiedScalarTypes,
  validate as graphqlValidate,
  visit,
} from 'graphql';
import type { ASTNode, ASTVisitor, DocumentNode, GraphQLArgument, GraphQLInputField, GraphQLSchema, ValidationContext, ValidationRule } from 'graphql';
import { validate } from './tracingChannels.ts';

/** validate()'s own error limit, when not given. */
const DEFAULT_MAX_ERRORS = 100;

/** What another thread needs to validate as this schema does. */
export interface PortableSchema {
  readonly sdl: string;
  /** The scalars whose literals only this thread can judge (not graphql's own objects). */
  readonly customScalars: ReadonlyArray<string>;
}

/** A node an error names, by where it is in the text: [kind, start, end]. */
type NodePlace = readonly [kind: string, start: number, end: number];

/** One error as the other thread found it. */
export interface PortableError {
  readonly message: string;
  readonly nodes: ReadonlyArray<NodePlace>;
  readonly extensions?: Readonly<Record<string, unknown>>;
  /** The walk's event it was reported at (entries and exits counted from 1). */
  readonly event: number;
  /** The index of the rule that reported it. */
  readonly rule: number;
}

/**
 * Where graphql stopped validating because the document's fragments cost too much to follow
 * (graphql 16.15+: "Validation aborted.", an error of its own, reported at no node).
 */
export interface PortableAbort {
  readonly message: string;
  readonly event: number;
  readonly rule: number;
}

/**
 * What validatePortable found: the errors (and whether graphql stopped early), or what a rule
 * threw; null when an error names a node without a place.
 */
export type PortableValidation =
  | { readonly errors: ReadonlyArray<PortableError>; readonly customLiterals: boolean; readonly aborted?: PortableAbort }
  | { readonly threw: string }
  | null;

/** The schema as another thread can rebuild it, or null when its SDL would not carry what validation reads. */
export function portableSchema(schema: GraphQLSchema): PortableSchema | null {
  let sdl: string;
  let rebuilt: GraphQLSchema;
  try {
    sdl = printSchema(schema);
    rebuilt = buildSchema(sdl, { assumeValid: true, assumeValidSDL: true });
  } catch {
    return null;
  }
  if (!sameDefaults(schema, rebuilt)) return null;
  const customScalars = Object.values(schema.getTypeMap())
    .filter((type) => isScalarType(type) && !specifiedScalarTypes.includes(type))
    .map((type) => type.name);
  return { sdl, customScalars };
}

/** Whether every argument and input field has a default in the rebuilt schema exactly where it has one in the original. */
function sameDefaults(original: GraphQLSchema, rebuilt: GraphQLSchema): boolean {
  // graphql 17 keeps a default as `default` (from SDL) or `defaultValue` (as 16 does).
  const has = (value: GraphQLArgument | GraphQLInputField) => value.defaultValue !== undefined || (value as { default?: unknown }).default !== undefined;
  const defaults = (values: ReadonlyArray<GraphQLArgument | GraphQLInputField>) => values.map((value) => `${value.name}:${has(value)}`).join();
  const shape = (schema: GraphQLSchema) => {
    const parts: string[] = schema.getDirectives().map((directive) => `@${directive.name}(${defaults(directive.args)})`);
    for (const type of Object.values(schema.getTypeMap())) {
      if (isObjectType(type) || isInterfaceType(type)) {
        for (const field of Object.values(type.getFields())) parts.push(`${type.name}.${field.name}(${defaults(field.args)})`);
      } else if (isInputObjectType(type)) parts.push(`${type.name}{${defaults(Object.values(type.getFields()))}}`);
    }
    return parts.sort().join('\n');
  };
  return shape(original) === shape(rebuilt);
}

/** The schema another thread validates against. */
export function buildPortableSchema(portable: PortableSchema): GraphQLSchema {
  return buildSchema(portable.sdl, { assumeValid: true, assumeValidSDL: true });
}

/** Runs `visit`'s callbacks of one rule with `mark()` called first (so the reporter knows which rule reports). */
function marked(visitor: ASTVisitor, mark: () => void): ASTVisitor {
  type Callback = (this: unknown, ...args: unknown[]) => unknown;
  const wrap = (callback: Callback | undefined) =>
    callback === undefined
      ? undefined
      : function (this: unknown, ...args: unknown[]) {
          mark();
          return callback.apply(this, args);
        };
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(visitor) as Array<[string, Callback | { enter?: Callback; leave?: Callback }]>) {
    out[key] = typeof value === 'function' ? wrap(value) : { enter: wrap(value.enter), leave: wrap(value.leave) };
  }
  return out as ASTVisitor;
}

const LITERALS = new Set(['IntValue', 'FloatValue', 'StringValue', 'BooleanValue', 'NullValue', 'EnumValue', 'ListValue', 'ObjectValue']);

/**
 * Step 2, in the other thread: every rule's errors, each with its event and rule; and whether a
 * literal stands where one of `customScalars` is expected.
 */
export function validatePortable(
  schema: GraphQLSchema,
  document: DocumentNode,
  rules: ReadonlyArray<ValidationRule>,
  options: { hideSuggestions?: boolean; customScalars: ReadonlyArray<string> },
): PortableValidation {
  const custom = new Set(options.customScalars);
  let event = 0;
  let rule = -1;
  let customLiterals = false;
  const tags: Array<readonly [number, number]> = [];
  // First in the list: it counts an event before any rule sees it, and tags each report.
  const walk: ValidationRule = (context: ValidationContext) => {
    const report = context.reportError.bind(context);
    context.reportError = (error: GraphQLError) => {
      tags.push([event, rule]);
      report(error);
    };
    return {
      enter(node: ASTNode) {
        event++;
        if (!customLiterals && LITERALS.has(node.kind)) {
          // A list where a single value is expected has no input type of its own under
          // graphql 17: the rule judges it by the position's (the parent's) type.
          const types = [context.getInputType(), context.getParentInputType()];
          if (types.some((type) => type != null && custom.has(getNamedType(type).name))) customLiterals = true;
        }
      },
      leave() {
        event++;
      },
    };
  };
  const tagged = rules.map((each, index): ValidationRule => (context) => marked(each(context), () => (rule = index)));
  let errors: ReadonlyArray<GraphQLError>;
  try {
    errors = (graphqlValidate as (...args: unknown[]) => ReadonlyArray<GraphQLError>)(schema, document, [walk, ...tagged], {
      maxErrors: Number.MAX_SAFE_INTEGER,
      hideSuggestions: options.hideSuggestions ?? false,
    });
  } catch (error) {
    return { threw: error instanceof Error ? error.message : String(error) };
  }
  const portable: PortableError[] = [];
  for (const [index, error] of errors.entries()) {
    const nodes: NodePlace[] = [];
    for (const node of error.nodes ?? []) {
      if (node.loc === undefined) return null;
      nodes.push([node.kind, node.loc.start, node.loc.end]);
    }
    // Reported at no event: graphql's own abort, always last.
    if (index === tags.length) return { errors: portable, customLiterals, aborted: { message: error.message, event, rule } };
    const [at, by] = tags[index];
    const extensions = Object.keys(error.extensions).length > 0 ? { ...error.extensions } : undefined;
    portable.push({ message: error.message, nodes, ...(extensions === undefined ? {} : { extensions }), event: at, rule: by });
  }
  return { errors: portable, customLiterals };
}

/**
 * Step 3, here: the errors validate(schema, document, rules, options) reports, from what the other
 * thread found for the same text. Throws what a rule threw there (as an Error with its message).
 */
export function replayValidation(
  schema: GraphQLSchema,
  document: DocumentNode,
  rules: ReadonlyArray<ValidationRule>,
  found: Exclude<PortableValidation, null>,
  options: { hideSuggestions?: boolean; maxErrors?: number } = {},
): ReadonlyArray<GraphQLError> {
  if ('threw' in found) throw new Error(found.threw);
  const maxErrors = options.maxErrors ?? DEFAULT_MAX_ERRORS;
  const own = found.customLiterals ? rules.indexOf(ValuesOfCorrectTypeRule) : -1;
  const nodeAt = nodesByPlace(document);
  const { aborted } = found;
  if (own < 0 && found.errors.length <= maxErrors) {
    const errors = found.errors.map((error) => restored(error, nodeAt));
    return aborted === undefined ? errors : [...errors, new GraphQLError(aborted.message)];
  }
  // This thread walks: its own rule in its place (if any), the others' errors put back, and
  // graphql's abort where it happened (validate() stops at the error limit first, if it comes first).
  let event = 0;
  const reported: GraphQLError[] = [];
  const counter: ValidationRule = (context) => {
    const report = context.reportError.bind(context);
    context.reportError = (error: GraphQLError) => {
      report(error);
      reported.push(error);
    };
    return {
      enter() {
        event++;
      },
      leave() {
        event++;
      },
    };
  };
  const stop = Symbol('aborted');
  const replay = (from: number, to: number): ValidationRule => {
    const queue: Array<PortableError | PortableAbort> = found.errors.filter((error) => error.rule >= from && error.rule < to && error.rule !== own);
    if (aborted !== undefined && aborted.rule >= from && aborted.rule < to) queue.push(aborted);
    let next = 0;
    return (context) => {
      const put = () => {
        for (; next < queue.length && queue[next].event === event; next++) {
          const entry = queue[next];
          if (entry === aborted) throw stop;
          context.reportError(restored(entry as PortableError, nodeAt));
        }
      };
      return { enter: put, leave: put };
    };
  };
  const list = own < 0 ? [counter, replay(0, rules.length)] : [counter, replay(0, own), rules[own], replay(own + 1, rules.length)];
  try {
    return validate(schema, document, list, { maxErrors, ...(options.hideSuggestions === undefined ? {} : { hideSuggestions: options.hideSuggestions }) });
  } catch (error) {
    if (error !== stop) throw error;
    return [...reported, new GraphQLError((aborted as PortableAbort).message)];
  }
}

/** A lookup of the document's nodes by their place, built once, on first need. */
function nodesByPlace(document: DocumentNode): (place: NodePlace) => ASTNode {
  let byPlace: Map<string, ASTNode> | undefined;
  return ([kind, start, end]) => {
    if (byPlace === undefined) {
      const map = new Map<string, ASTNode>();
      visit(document, {
        enter(node) {
          if (node.loc !== undefined) map.set(`${node.kind}:${node.loc.start}:${node.loc.end}`, node);
        },
      });
      byPlace = map;
    }
    const node = byPlace.get(`${kind}:${start}:${end}`);
    // The other thread parsed the same text: every place it names is a node here.
    if (node === undefined) throw new Error(`No ${kind} at ${start}..${end} in the document validated.`);
    return node;
  };
}

/** A found error as validate() reports it: the same message, its nodes those of this thread's document. */
function restored(error: PortableError, nodeAt: (place: NodePlace) => ASTNode): GraphQLError {
  const nodes = error.nodes.map(nodeAt);
  return new GraphQLError(error.message, { nodes: nodes.length > 0 ? nodes : undefined, ...(error.extensions === undefined ? {} : { extensions: error.extensions }) });
}
