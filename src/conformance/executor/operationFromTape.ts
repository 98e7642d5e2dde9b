/**
 * Random operations that pass `validate()` against any schema, built from a tape of decisions: the
 * conformance kit's differential run draws tapes from a seeded generator (differential.ts), the
 * spec-tests from fast-check (spec-tests/support/arbitraryOperation.ts), which also shrinks them.
 *
 * The generator knows nothing about a particular fixture: it walks the schema's types. Every
 * operation is built from a tape of random numbers, one number per decision, and the number 0 —
 * which is also what an exhausted tape yields — always picks the simplest option (no alias, no
 * directive, the first candidate, a literal rather than a variable, one selection rather than
 * three). When fast-check shrinks a failing tape (fewer and smaller numbers) the operation shrinks
 * with it, so a counterexample comes back as a small document.
 *
 * Operations are valid by construction rather than filtered. How each validation rule is kept
 * (https://spec.graphql.org/October2021/#sec-Validation):
 * - Overlapping fields can be merged: within one operation a response name always stands for the
 *   same field name, the same printed arguments and the same return type. Two selections sharing a
 *   response name then merge however they meet (through fragments, on any parent type), because
 *   their sub-selections obey the same rule. A response name already taken by something else gets
 *   a fresh alias instead.
 * - Fragment spreads are possible: a type condition is only chosen among the composite types whose
 *   possible types overlap the parent's (or the parent itself).
 * - Fragments have no cycles and none is unused: a fragment is defined at its first spread, and a
 *   fragment body may only spread fragments completed before it. Fragments belong to the operation
 *   that created them, so the variables they use are always that operation's.
 * - Variables are defined, used, and used in allowed positions: a variable is declared at its first
 *   use with the location's type (or a stricter type, or a nullable type with a default where a
 *   default makes that legal), and only reused where that declaration is allowed again.
 * - Values are of the correct type: literals are built from the input type; custom scalars only get
 *   values their own `parseLiteral` / `parseValue` accepted when the schema was probed.
 *
 * Variable VALUES are deliberately not always valid: a few operations get one variable that is
 * missing, null where non-null is required, or of the wrong type, so that request errors are
 * compared too.
 */
import {
  GraphQLBoolean,
  GraphQLNonNull,
  getNamedType,
  getNullableType,
  isAbstractType,
  isCompositeType,
  isEnumType,
  isInputObjectType,
  isLeafType,
  isListType,
  isNonNullType,
  isTypeSubTypeOf,
  isUnionType,
  parseValue as parseValueLiteral,
} from 'graphql';
import type {
  GraphQLArgument,
  GraphQLCompositeType,
  GraphQLField,
  GraphQLInputObjectType,
  GraphQLInputType,
  GraphQLInterfaceType,
  GraphQLObjectType,
  GraphQLScalarType,
  GraphQLSchema,
} from 'graphql';

/** One request: the document text, the variables to send and, when the document needs it, the operation to run. */
export interface GeneratedOperation {
  document: string;
  variables: Record<string, unknown> | undefined;
  operationName?: string;
}

export interface ArbitraryOperationOptions {
  /** Deepest level of nested selection sets; the root selection set is level 1. Default 4. */
  maxDepth?: number;
  /** Most selections in one selection set. Default 3. */
  maxBreadth?: number;
  /** Fields after which every selection set gets a single leaf. Default 24 per operation. */
  maxFields?: number;
  /** Length of the random tape an operation is built from; a longer tape allows larger operations. Default 200. */
  maxChoices?: number;
  /**
   * Smallest and largest Int ever written. Default: the whole 32-bit range, with small numbers far
   * more likely than its two ends. Narrow it when a schema reads Ints as counts or loop bounds.
   */
  intRange?: readonly [min: number, max: number];
  /** Strings written where an ID is expected (IDs are also written as Ints). Default: a few common shapes of id. */
  ids?: readonly string[];
}

/**
 * The function that turns a tape of decisions (numbers in [0, CHOICE_RANGE)) into an operation that
 * passes `validate(schema, parse(document))`. The same tape always gives the same operation.
 */
export function operationGenerator(
  schema: GraphQLSchema,
  options: ArbitraryOperationOptions = {},
): OperationGenerator {
  const limits = resolveLimits(options);
  if (!schema.getQueryType()) {
    throw new TypeError('arbitraryOperation: the schema has no query type, so no operation can be generated.');
  }
  const catalog = new SchemaCatalog(schema);
  return { maxChoices: limits.maxChoices, build: (tape) => new DocumentBuilder(catalog, limits, new Choices(tape)).build() };
}

export interface OperationGenerator {
  /** How many numbers of a tape are read at most: longer tapes are cut short. */
  maxChoices: number;
  build(tape: readonly number[]): GeneratedOperation;
}

/** The operation as a reader wants to see it in a failure message. */
export function describeOperation(operation: GeneratedOperation): string {
  const lines: string[] = [];
  if (operation.operationName !== undefined) {
    lines.push(`operationName: ${operation.operationName}`);
  }
  lines.push(`variables: ${operation.variables === undefined ? 'undefined' : JSON.stringify(operation.variables)}`);
  lines.push(operation.document);
  return lines.join('\n');
}

interface Limits {
  maxDepth: number;
  maxBreadth: number;
  maxFields: number;
  maxChoices: number;
  intRange: readonly [min: number, max: number];
  ids: readonly string[];
}

const DEFAULT_IDS = ['1', '2', '1000', '1001', '2001', 'a1', 'a2', 'abc', ''];

const INT_MIN = -2147483648;
const INT_MAX = 2147483647;

function resolveLimits(options: ArbitraryOperationOptions): Limits {
  const sizes = {
    maxDepth: options.maxDepth ?? 4,
    maxBreadth: options.maxBreadth ?? 3,
    maxFields: options.maxFields ?? 24,
    maxChoices: options.maxChoices ?? 200,
  };
  for (const [name, value] of Object.entries(sizes)) {
    if (!Number.isInteger(value) || value < 1) {
      throw new TypeError(`arbitraryOperation: option "${name}" must be a positive integer, got ${String(value)}.`);
    }
  }
  const intRange = options.intRange ?? [INT_MIN, INT_MAX];
  const [min, max] = intRange;
  if (!Number.isInteger(min) || !Number.isInteger(max) || min > max || min < INT_MIN || max > INT_MAX) {
    throw new TypeError(
      `arbitraryOperation: option "intRange" must be [min, max], two 32-bit integers with min <= max, got ${JSON.stringify(intRange)}.`,
    );
  }
  const ids = options.ids ?? DEFAULT_IDS;
  if (ids.length === 0 || ids.some((id) => typeof id !== 'string')) {
    throw new TypeError(`arbitraryOperation: option "ids" must be a non-empty array of strings, got ${JSON.stringify(ids)}.`);
  }
  return { ...sizes, intRange, ids };
}

// ---------------------------------------------------------------------------------------------
// The tape of decisions
// ---------------------------------------------------------------------------------------------

/** Decisions are numbers below this; a tape's numbers are drawn uniformly from [0, CHOICE_RANGE). */
export const CHOICE_RANGE = 0x10000;

/** Reads decisions off the tape; 0, and the end of the tape, always mean the simplest option. */
class Choices {
  readonly #tape: readonly number[];
  #position = 0;

  constructor(tape: readonly number[]) {
    this.#tape = tape;
  }

  /** An index in [0, count). */
  index(count: number): number {
    if (count <= 1) {
      return 0;
    }
    return this.#next() % count;
  }

  /** True with probability `p`. */
  chance(p: number): boolean {
    return this.#next() >= (1 - p) * CHOICE_RANGE;
  }

  pick<T>(items: readonly T[]): T {
    const item = items[this.index(items.length)];
    if (item === undefined) {
      throw new Error('Invariant: pick() needs at least one item.');
    }
    return item;
  }

  /** One of the options, drawn in proportion to its weight; options of weight 0 are never drawn. */
  weighted<T>(options: ReadonlyArray<readonly [weight: number, option: T]>): T {
    const total = options.reduce((sum, [weight]) => sum + weight, 0);
    let ticket = this.index(total);
    for (const [weight, option] of options) {
      if (ticket < weight) {
        return option;
      }
      ticket -= weight;
    }
    throw new Error('Invariant: weighted() needs an option of positive weight.');
  }

  #next(): number {
    const number = this.#tape[this.#position] ?? 0;
    this.#position += 1;
    return number;
  }
}

// ---------------------------------------------------------------------------------------------
// What the schema offers
// ---------------------------------------------------------------------------------------------

/** Values tried against every custom scalar: those it accepts are the only ones ever sent to it. */
const SCALAR_CANDIDATES: readonly unknown[] = [
  'abc',
  '',
  '2024-02-29',
  '2024-02-29T12:34:56Z',
  '2024-02-29T12:34:56.789Z',
  '12:34:56',
  'someone@example.com',
  'https://example.com/path',
  '550e8400-e29b-41d4-a716-446655440000',
  '#ff8800',
  'USD',
  '978-0-306-40615-7',
  '9780306406157',
  '1999-12-31',
  '42',
  0,
  1,
  42,
  -7,
  1.5,
  1700000000000,
  true,
  false,
  {},
  { a: 1, b: 'two' },
  [1, 2],
];

interface ScalarSamples {
  /** GraphQL literals the scalar's `parseLiteral` accepts. */
  literals: string[];
  /** JSON values the scalar's `parseValue` accepts. */
  values: unknown[];
  /** JSON values the scalar's `parseValue` rejects: they make invalid variable values. */
  rejected: unknown[];
}

type SelectableParent = GraphQLObjectType | GraphQLInterfaceType;
type Field = GraphQLField<unknown, unknown>;

/** The schema, indexed for the questions the builder keeps asking. */
class SchemaCatalog {
  readonly schema: GraphQLSchema;
  readonly #compositeTypes: GraphQLCompositeType[];
  readonly #possibleTypes = new Map<string, ReadonlySet<string>>();
  readonly #typeConditions = new Map<string, GraphQLCompositeType[]>();
  readonly #fields = new Map<string, Field[]>();
  readonly #producible = new Map<string, boolean>();
  readonly #scalarSamples = new Map<string, ScalarSamples>();

  constructor(schema: GraphQLSchema) {
    this.schema = schema;
    this.#compositeTypes = Object.values(schema.getTypeMap()).filter(
      (type): type is GraphQLCompositeType => isCompositeType(type) && !type.name.startsWith('__'),
    );
  }

  /** Whether a fragment on `a` may be spread where `b` is expected (their possible types overlap). */
  overlaps(a: GraphQLCompositeType, b: GraphQLCompositeType): boolean {
    if (a === b) {
      return true;
    }
    const possibleB = this.#possibleTypeNames(b);
    return [...this.#possibleTypeNames(a)].some((name) => possibleB.has(name));
  }

  /** Every type condition a fragment spread inside a selection set on `parent` may carry; `parent` comes first. */
  typeConditions(parent: GraphQLCompositeType): readonly GraphQLCompositeType[] {
    let conditions = this.#typeConditions.get(parent.name);
    if (!conditions) {
      conditions = [parent, ...this.#compositeTypes.filter((type) => type !== parent && this.overlaps(type, parent))];
      this.#typeConditions.set(parent.name, conditions);
    }
    return conditions;
  }

  /** The fields of `parent` whose required arguments can be written; leaves first, so the simplest choice is a leaf. */
  selectableFields(parent: SelectableParent): readonly Field[] {
    let fields = this.#fields.get(parent.name);
    if (!fields) {
      const usable = Object.values(parent.getFields()).filter((field) =>
        field.args.every((arg) => !isRequiredArgument(arg) || this.canProduce(arg.type)),
      );
      fields = [...usable.filter(isLeafField), ...usable.filter((field) => !isLeafField(field))];
      this.#fields.set(parent.name, fields);
    }
    return fields;
  }

  /** Whether some value of `type` can be written, as a literal and as a variable value. */
  canProduce(type: GraphQLInputType): boolean {
    if (isNonNullType(type)) {
      return this.canProduce(type.ofType);
    }
    if (isListType(type)) {
      return true; // an empty list always fits
    }
    if (isEnumType(type)) {
      return type.getValues().length > 0;
    }
    if (isInputObjectType(type)) {
      const known = this.#producible.get(type.name);
      if (known !== undefined) {
        return known;
      }
      // Only a schema with a cycle of non-null input fields (which graphql-js rejects) comes back here.
      this.#producible.set(type.name, false);
      const fields = Object.values(type.getFields());
      const producible = type.isOneOf
        ? fields.some((field) => this.canProduce(field.type))
        : fields.every((field) => !isRequiredInputField(field) || this.canProduce(field.type));
      this.#producible.set(type.name, producible);
      return producible;
    }
    if (BUILT_IN_SCALARS.has(type.name)) {
      return true;
    }
    const samples = this.scalarSamples(type);
    return samples.literals.length > 0 && samples.values.length > 0;
  }

  scalarSamples(scalar: GraphQLScalarType): ScalarSamples {
    let samples = this.#scalarSamples.get(scalar.name);
    if (!samples) {
      samples = probeScalar(scalar);
      this.#scalarSamples.set(scalar.name, samples);
    }
    return samples;
  }

  #possibleTypeNames(type: GraphQLCompositeType): ReadonlySet<string> {
    let names = this.#possibleTypes.get(type.name);
    if (!names) {
      names = new Set(isAbstractType(type) ? this.schema.getPossibleTypes(type).map((member) => member.name) : [type.name]);
      this.#possibleTypes.set(type.name, names);
    }
    return names;
  }
}

const BUILT_IN_SCALARS = new Set(['Int', 'Float', 'String', 'Boolean', 'ID']);

function probeScalar(scalar: GraphQLScalarType): ScalarSamples {
  const samples: ScalarSamples = { literals: [], values: [], rejected: [] };
  for (const candidate of SCALAR_CANDIDATES) {
    const literal = jsonToLiteral(candidate);
    if (accepts(() => scalar.parseLiteral(parseValueLiteral(literal), undefined))) {
      samples.literals.push(literal);
    }
    (accepts(() => scalar.parseValue(candidate)) ? samples.values : samples.rejected).push(candidate);
  }
  return samples;
}

/** Whether a scalar parser accepted its input: graphql-js treats both a throw and `undefined` as a rejection. */
function accepts(parse: () => unknown): boolean {
  try {
    return parse() !== undefined;
  } catch {
    return false;
  }
}

function jsonToLiteral(value: unknown): string {
  if (Array.isArray(value)) {
    return `[${value.map(jsonToLiteral).join(', ')}]`;
  }
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([key, item]) => `${key}: ${jsonToLiteral(item)}`).join(', ')}}`;
  }
  return JSON.stringify(value);
}

function isRequiredArgument(arg: GraphQLArgument): boolean {
  return isNonNullType(arg.type) && arg.defaultValue === undefined;
}

function isRequiredInputField(field: { type: GraphQLInputType; defaultValue?: unknown }): boolean {
  return isNonNullType(field.type) && field.defaultValue === undefined;
}

function isLeafField(field: Field): boolean {
  return isLeafType(getNamedType(field.type));
}

// ---------------------------------------------------------------------------------------------
// Building a document
// ---------------------------------------------------------------------------------------------

interface Printed {
  text: string;
  /** How many levels of selection sets the text spans; a selection set of leaves has height 1. */
  height: number;
}

interface FragmentDefinition {
  name: string;
  typeCondition: GraphQLCompositeType;
  height: number;
}

interface VariableDefinition {
  name: string;
  type: GraphQLInputType;
  /** The default value as written in the document, if the definition has one. */
  defaultLiteral: string | undefined;
}

/** What a response name stands for inside one operation (see "Overlapping fields" at the top). */
interface FieldSignature {
  fieldName: string;
  typeText: string;
  argumentsText: string;
  /** The arguments sorted by name: two selections with the same key have the same printed arguments. */
  argumentsKey: string;
  /** Names, types and default presence of the field's arguments: where the same argument text is valid again. */
  argumentsShape: string;
}

interface OperationState {
  readonly variables: VariableDefinition[];
  readonly responseNames: Map<string, FieldSignature>;
  readonly fragments: FragmentDefinition[];
  fieldsLeft: number;
}

/** Where an input value is written. */
interface ValueSite {
  /** The operation that declares variables used here; undefined where only constants are allowed (default values). */
  operation: OperationState | undefined;
  /** Whether this very position may hold a variable (not the single item written where a list is expected). */
  variableHere: boolean;
  /** Whether the position has a default value of its own (an argument or input field declared with one). */
  hasDefault: boolean;
  /** Whether the position is a field of a OneOf input object, where a variable must be non-null. */
  inOneOf: boolean;
  /** Whether a null literal may stand here if the type is nullable (not in a OneOf field, nor as the one item of a non-null list). */
  mayBeNull: boolean;
  depth: number;
  /** The start of the name of a variable declared here. */
  nameHint: string;
}

const TYPENAME_SIGNATURE: FieldSignature = {
  fieldName: '__typename',
  typeText: 'String!',
  argumentsText: '',
  argumentsKey: '',
  argumentsShape: '',
};

/** At most this many fragments nest inside one another without a field in between. */
const MAX_FRAGMENT_NESTING = 2;

const ALIASES = ['a', 'b', 'c', 'item', 'other'];

type Absent = { present: false };
type Present = { present: true; value: unknown };
const ABSENT: Absent = { present: false };
const present = (value: unknown): Present => ({ present: true, value });

class DocumentBuilder {
  readonly #catalog: SchemaCatalog;
  readonly #limits: Limits;
  readonly #choices: Choices;
  readonly #fragmentTexts: string[] = [];
  #fragmentCount = 0;

  constructor(catalog: SchemaCatalog, limits: Limits, choices: Choices) {
    this.#catalog = catalog;
    this.#limits = limits;
    this.#choices = choices;
  }

  build(): GeneratedOperation {
    const shape = this.#choices.weighted([
      [6, 'anonymous'],
      [2, 'named'],
      [2, 'two named'],
    ] as const);
    if (shape === 'anonymous') {
      const operation = this.#operation(undefined);
      return { document: this.#document([operation.text]), variables: operation.variables };
    }
    if (shape === 'named') {
      const operation = this.#operation('Only');
      const generated: GeneratedOperation = { document: this.#document([operation.text]), variables: operation.variables };
      if (this.#choices.chance(0.5)) {
        generated.operationName = 'Only';
      }
      return generated;
    }
    const first = this.#operation('First');
    const second = this.#operation('Second');
    const chosen = this.#choices.pick([first, second]);
    return {
      document: this.#document([first.text, second.text]),
      variables: chosen.variables,
      operationName: chosen === first ? 'First' : 'Second',
    };
  }

  #document(operations: string[]): string {
    return [...operations, ...this.#fragmentTexts].join('\n\n');
  }

  #operation(name: string | undefined): { text: string; variables: Record<string, unknown> | undefined } {
    const schema = this.#catalog.schema;
    const mutationType = schema.getMutationType();
    const isMutation = mutationType !== null && mutationType !== undefined && this.#choices.chance(0.25);
    const root = isMutation ? mutationType : schema.getQueryType();
    if (!root) {
      throw new Error('Invariant: the query type was checked when the arbitrary was created.');
    }
    const operation: OperationState = {
      variables: [],
      responseNames: new Map(),
      fragments: [],
      fieldsLeft: this.#limits.maxFields,
    };
    const body = this.#selectionSet(operation, root, 1, 0, '');
    const definitions = operation.variables.map(
      (variable) =>
        `$${variable.name}: ${String(variable.type)}` +
        (variable.defaultLiteral === undefined ? '' : ` = ${variable.defaultLiteral}`),
    );
    let header = isMutation ? 'mutation' : 'query';
    if (name !== undefined) {
      header += ` ${name}`;
    }
    if (definitions.length > 0) {
      header += `(${definitions.join(', ')})`;
    }
    const shorthand = !isMutation && name === undefined && definitions.length === 0 && !this.#choices.chance(0.3);
    const text = shorthand ? body.text : `${header} ${body.text}`;
    return { text, variables: this.#variableValues(operation) };
  }

  /** A non-empty selection set on `parent` whose fields sit at `depth`. */
  #selectionSet(operation: OperationState, parent: GraphQLCompositeType, depth: number, nesting: number, indent: string): Printed {
    const count = operation.fieldsLeft > 0 ? 1 + this.#choices.index(this.#limits.maxBreadth) : 1;
    const lines: string[] = [];
    let height = 1;
    for (let i = 0; i < count; i += 1) {
      const selection = this.#selection(operation, parent, depth, nesting, `${indent}  `);
      lines.push(selection.text);
      height = Math.max(height, selection.height);
    }
    return { text: `{\n${lines.join('\n')}\n${indent}}`, height };
  }

  #selection(operation: OperationState, parent: GraphQLCompositeType, depth: number, nesting: number, indent: string): Printed {
    const mayNest = nesting < MAX_FRAGMENT_NESTING && operation.fieldsLeft > 0;
    const kind = this.#choices.weighted([
      [12, 'field'],
      [2, 'typename'],
      [mayNest ? 3 : 0, 'inline fragment'],
      [mayNest ? 3 : 0, 'fragment spread'],
    ] as const);
    if (kind === 'inline fragment') {
      return this.#inlineFragment(operation, parent, depth, nesting, indent);
    }
    if (kind === 'fragment spread') {
      return this.#fragmentSpread(operation, parent, depth, nesting, indent);
    }
    if (kind === 'field' && !isUnionType(parent)) {
      return this.#field(operation, parent, depth, indent);
    }
    const responseName = this.#responseName(operation, parent, TYPENAME_SIGNATURE);
    return { text: `${indent}${aliasPrefix(responseName, '__typename')}__typename${this.#directives(operation)}`, height: 1 };
  }

  #field(operation: OperationState, parent: SelectableParent, depth: number, indent: string): Printed {
    const mayDescend = depth < this.#limits.maxDepth && operation.fieldsLeft > 0;
    const fields = this.#catalog.selectableFields(parent).filter((field) => mayDescend || isLeafField(field));
    const repeats = this.#choices.chance(0.15) ? this.#repeatableSelections(operation, parent, mayDescend) : [];
    let responseName: string;
    let field: Field | undefined;
    let argumentsText: string;
    if (repeats.length > 0) {
      // Select again something this operation already selected: same response name, same
      // arguments, so graphql-js and our executor both have to merge the two into one entry.
      const [name, signature] = this.#choices.pick(repeats);
      responseName = name;
      field = signature.fieldName === '__typename' ? undefined : parent.getFields()[signature.fieldName];
      argumentsText = signature.argumentsText;
    } else {
      field = fields.length > 0 ? this.#choices.pick(fields) : undefined;
      if (field) {
        const args = this.#arguments(operation, field);
        responseName = this.#responseName(operation, parent, {
          fieldName: field.name,
          typeText: String(field.type),
          argumentsText: args.text,
          argumentsKey: args.key,
          argumentsShape: argumentsShape(field),
        });
        argumentsText = args.text;
      } else {
        responseName = this.#responseName(operation, parent, TYPENAME_SIGNATURE);
        argumentsText = '';
      }
    }
    operation.fieldsLeft -= 1;
    const fieldName = field?.name ?? '__typename';
    const head = `${indent}${aliasPrefix(responseName, fieldName)}${fieldName}${argumentsText}${this.#directives(operation)}`;
    const named = field ? getNamedType(field.type) : undefined;
    if (!named || !isCompositeType(named)) {
      return { text: head, height: 1 };
    }
    const subSelection = this.#selectionSet(operation, named, depth + 1, 0, indent);
    return { text: `${head} ${subSelection.text}`, height: subSelection.height + 1 };
  }

  /** Response names this operation already uses that `parent` can select again with the very same meaning. */
  #repeatableSelections(operation: OperationState, parent: SelectableParent, mayDescend: boolean): Array<[string, FieldSignature]> {
    return [...operation.responseNames].filter(([, signature]) => {
      if (signature.fieldName === '__typename') {
        return true;
      }
      const field = parent.getFields()[signature.fieldName];
      return (
        field !== undefined &&
        String(field.type) === signature.typeText &&
        argumentsShape(field) === signature.argumentsShape &&
        (mayDescend || isLeafField(field))
      );
    });
  }

  /** The response name for a new selection: the field's own name or an alias, never one that would conflict. */
  #responseName(operation: OperationState, parent: GraphQLCompositeType, signature: FieldSignature): string {
    let name = signature.fieldName;
    if (this.#choices.chance(0.25)) {
      const fieldNames = isUnionType(parent) ? [] : Object.keys(parent.getFields());
      name = this.#choices.pick([...ALIASES, ...fieldNames]);
    }
    for (let suffix = 2; !sameSignature(operation.responseNames.get(name), signature); suffix += 1) {
      name = `${signature.fieldName.replace(/^__/, '')}${suffix}`;
    }
    operation.responseNames.set(name, signature);
    return name;
  }

  #arguments(operation: OperationState, field: Field): { text: string; key: string } {
    const written: Array<[string, string]> = [];
    for (const arg of field.args) {
      if (!isRequiredArgument(arg) && !(this.#catalog.canProduce(arg.type) && this.#choices.chance(0.5))) {
        continue;
      }
      const value = this.#literal(arg.type, {
        operation,
        variableHere: true,
        hasDefault: arg.defaultValue !== undefined,
        inOneOf: false,
        mayBeNull: true,
        depth: 0,
        nameHint: arg.name,
      });
      written.push([arg.name, value]);
    }
    if (written.length === 0) {
      return { text: '', key: '' };
    }
    if (this.#choices.chance(0.2)) {
      written.reverse();
    }
    const print = (pairs: Array<[string, string]>) => pairs.map(([name, value]) => `${name}: ${value}`).join(', ');
    const sorted = [...written].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return { text: `(${print(written)})`, key: print(sorted) };
  }

  #directives(operation: OperationState): string {
    if (!this.#choices.chance(0.2)) {
      return '';
    }
    const which = this.#choices.weighted([
      [2, ['skip']],
      [2, ['include']],
      [1, ['skip', 'include']],
    ] as const);
    return which.map((name) => ` @${name}(if: ${this.#condition(operation)})`).join('');
  }

  #condition(operation: OperationState): string {
    if (!this.#choices.chance(0.5)) {
      return this.#choices.pick(['false', 'true']);
    }
    return this.#variable(operation, new GraphQLNonNull(GraphQLBoolean), {
      operation,
      variableHere: true,
      hasDefault: false,
      inOneOf: false,
      mayBeNull: true,
      depth: 0,
      nameHint: 'flag',
    });
  }

  #inlineFragment(operation: OperationState, parent: GraphQLCompositeType, depth: number, nesting: number, indent: string): Printed {
    const condition = this.#choices.chance(0.7) ? this.#choices.pick(this.#catalog.typeConditions(parent)) : undefined;
    const head = `${indent}...${condition ? ` on ${condition.name}` : ''}${this.#directives(operation)}`;
    const body = this.#selectionSet(operation, condition ?? parent, depth, nesting + 1, indent);
    return { text: `${head} ${body.text}`, height: body.height };
  }

  #fragmentSpread(operation: OperationState, parent: GraphQLCompositeType, depth: number, nesting: number, indent: string): Printed {
    const reusable = operation.fragments.filter(
      (fragment) =>
        this.#catalog.overlaps(fragment.typeCondition, parent) && depth + fragment.height - 1 <= this.#limits.maxDepth,
    );
    let fragment: FragmentDefinition;
    if (reusable.length > 0 && this.#choices.chance(0.5)) {
      fragment = this.#choices.pick(reusable);
    } else {
      // The body is built before the fragment joins `operation.fragments`, so it cannot spread itself.
      const typeCondition = this.#choices.pick(this.#catalog.typeConditions(parent));
      this.#fragmentCount += 1;
      const name = `${typeCondition.name}Fragment${this.#fragmentCount}`;
      const body = this.#selectionSet(operation, typeCondition, depth, nesting + 1, '');
      this.#fragmentTexts.push(`fragment ${name} on ${typeCondition.name} ${body.text}`);
      fragment = { name, typeCondition, height: body.height };
      operation.fragments.push(fragment);
    }
    return { text: `${indent}...${fragment.name}${this.#directives(operation)}`, height: fragment.height };
  }

  // -------------------------------------------------------------------------------------------
  // Input values: literals and variables
  // -------------------------------------------------------------------------------------------

  /** A literal of `type` (which may be or contain variables of `site.operation`). */
  #literal(type: GraphQLInputType, site: ValueSite): string {
    if (site.operation && site.variableHere && this.#choices.chance(site.depth === 0 ? 0.3 : 0.1)) {
      return this.#variable(site.operation, type, site);
    }
    if (!isNonNullType(type) && site.mayBeNull && this.#choices.chance(0.1)) {
      return 'null';
    }
    const nullable = getNullableType(type);
    if (isListType(nullable)) {
      const itemType: GraphQLInputType = nullable.ofType;
      const producible = this.#catalog.canProduce(itemType);
      if (producible && site.depth < 3 && this.#choices.chance(0.2)) {
        // Input coercion accepts one item where a list is expected. Validation reads that item as
        // the list itself, though: a variable in its place would be checked against the list
        // type, and if the item is a list literal, a variable among its items against the outer
        // item type. So no variable goes there, and none inside a list literal written there.
        return this.#literal(itemType, {
          ...site,
          operation: isListType(getNullableType(itemType)) ? undefined : site.operation,
          variableHere: false,
          hasDefault: false,
          mayBeNull: site.mayBeNull && !isNonNullType(type),
          depth: site.depth + 1,
        });
      }
      const length = producible && site.depth < 2 ? this.#choices.index(4) : 0;
      const items: string[] = [];
      for (let i = 0; i < length; i += 1) {
        const itemSite = { ...site, variableHere: true, hasDefault: false, inOneOf: false, mayBeNull: true, depth: site.depth + 1 };
        items.push(this.#literal(itemType, itemSite));
      }
      return `[${items.join(', ')}]`;
    }
    if (isInputObjectType(nullable)) {
      return this.#objectLiteral(nullable, site);
    }
    if (isEnumType(nullable)) {
      return this.#choices.pick(nullable.getValues()).name;
    }
    switch (nullable.name) {
      case 'Int':
        return String(this.#int());
      case 'Float':
        return this.#choices.pick(['1.5', '0', '-0.25', '2', '1e3', '3.25']);
      case 'String':
        return JSON.stringify(this.#string());
      case 'Boolean':
        return this.#choices.pick(['true', 'false']);
      case 'ID':
        return this.#choices.chance(0.3) ? String(this.#int()) : JSON.stringify(this.#id());
      default:
        return this.#choices.pick(this.#catalog.scalarSamples(nullable).literals);
    }
  }

  #objectLiteral(type: GraphQLInputObjectType, site: ValueSite): string {
    const fields = Object.values(type.getFields());
    const fieldSite = (field: { name: string; defaultValue?: unknown }): ValueSite => ({
      operation: site.operation,
      variableHere: true,
      hasDefault: field.defaultValue !== undefined,
      inOneOf: type.isOneOf,
      mayBeNull: !type.isOneOf,
      depth: site.depth + 1,
      nameHint: field.name,
    });
    if (type.isOneOf) {
      const field = this.#choices.pick(fields.filter((candidate) => this.#catalog.canProduce(candidate.type)));
      return `{${field.name}: ${this.#literal(field.type, fieldSite(field))}}`;
    }
    const written: string[] = [];
    for (const field of fields) {
      const include =
        isRequiredInputField(field) ||
        (site.depth < 3 && this.#catalog.canProduce(field.type) && this.#choices.chance(0.3));
      if (include) {
        written.push(`${field.name}: ${this.#literal(field.type, fieldSite(field))}`);
      }
    }
    if (this.#choices.chance(0.2)) {
      written.reverse();
    }
    return `{${written.join(', ')}}`;
  }

  /** A variable of `operation` allowed where a value of type `location` goes: reused or declared now. */
  #variable(operation: OperationState, location: GraphQLInputType, site: ValueSite): string {
    const reusable = operation.variables.filter((variable) => this.#allowedAt(variable, location, site));
    if (reusable.length > 0 && this.#choices.chance(0.4)) {
      return `$${this.#choices.pick(reusable).name}`;
    }
    const taken = new Set(operation.variables.map((variable) => variable.name));
    let name = site.nameHint;
    for (let suffix = 2; taken.has(name); suffix += 1) {
      name = `${site.nameHint}${suffix}`;
    }
    operation.variables.push({ name, ...this.#declaration(location, site) });
    return `$${name}`;
  }

  /**
   * The type (and default) of a new variable for `location`: its exact type, or any of the other
   * declarations VariablesInAllowedPosition accepts — a non-null variable in a nullable position,
   * a nullable variable with a non-null default (or in a position with a default of its own) in a
   * non-null position. The latter two let a request send an explicit null where null is not allowed.
   */
  #declaration(location: GraphQLInputType, site: ValueSite): Omit<VariableDefinition, 'name'> {
    const constant: ValueSite = {
      operation: undefined,
      variableHere: false,
      hasDefault: false,
      inOneOf: false,
      mayBeNull: true,
      depth: 1,
      nameHint: '',
    };
    if (site.inOneOf) {
      return { type: isNonNullType(location) ? location : new GraphQLNonNull(location), defaultLiteral: undefined };
    }
    if (isNonNullType(location)) {
      const form = this.#choices.weighted([
        [6, 'exact'],
        [2, 'nullable with default'],
        [site.hasDefault ? 2 : 0, 'nullable'],
      ] as const);
      if (form === 'exact') {
        return { type: location, defaultLiteral: undefined };
      }
      return {
        type: location.ofType,
        defaultLiteral: form === 'nullable' ? undefined : this.#literal(location, constant),
      };
    }
    const form = this.#choices.weighted([
      [6, 'exact'],
      [2, 'non-null'],
      [2, 'with default'],
    ] as const);
    if (form === 'non-null') {
      return { type: new GraphQLNonNull(location), defaultLiteral: undefined };
    }
    return { type: location, defaultLiteral: form === 'exact' ? undefined : this.#literal(location, constant) };
  }

  /** VariablesInAllowedPosition, for a variable already declared. */
  #allowedAt(variable: VariableDefinition, location: GraphQLInputType, site: ValueSite): boolean {
    const schema = this.#catalog.schema;
    if (site.inOneOf && !isNonNullType(variable.type)) {
      return false;
    }
    if (isNonNullType(location) && !isNonNullType(variable.type)) {
      const hasNonNullDefault = variable.defaultLiteral !== undefined && variable.defaultLiteral !== 'null';
      return (hasNonNullDefault || site.hasDefault) && isTypeSubTypeOf(schema, variable.type, location.ofType);
    }
    return isTypeSubTypeOf(schema, variable.type, location);
  }

  /** The variables object: valid values, nulls and omissions, and now and then one invalid value. */
  #variableValues(operation: OperationState): Record<string, unknown> | undefined {
    const values: Record<string, unknown> = {};
    const invalid = operation.variables.length > 0 && this.#choices.chance(0.1) ? this.#choices.pick(operation.variables) : undefined;
    for (const variable of operation.variables) {
      const value = (variable === invalid ? this.#invalidValue(variable) : undefined) ?? this.#validValue(variable);
      if (value.present) {
        values[variable.name] = value.value;
      }
    }
    if (this.#choices.chance(0.05)) {
      // Variables the operation does not define are ignored, not an error.
      values.notDefinedByTheOperation = 1;
    }
    if (Object.keys(values).length === 0 && this.#choices.chance(0.5)) {
      return undefined;
    }
    return values;
  }

  #validValue(variable: VariableDefinition): Absent | Present {
    if (isNonNullType(variable.type)) {
      return present(this.#json(variable.type, 0, true));
    }
    const form = this.#choices.weighted([
      [7, 'value'],
      [2, 'absent'],
      [1, 'null'],
    ] as const);
    if (form === 'absent') {
      return ABSENT;
    }
    return present(form === 'null' ? null : this.#json(variable.type, 0, true));
  }

  /** A value for `variable` that coerceVariableValues must reject, or undefined if none can be made. */
  #invalidValue(variable: VariableDefinition): Absent | Present | undefined {
    const options: Array<Absent | Present> = [];
    if (isNonNullType(variable.type)) {
      options.push(present(null));
      if (variable.defaultLiteral === undefined) {
        options.push(ABSENT);
      }
    }
    const wrong = this.#wrongValue(variable.type, 0);
    if (wrong) {
      options.push(wrong);
    }
    return options.length > 0 ? this.#choices.pick(options) : undefined;
  }

  /** A JSON value of `type`; null only where the type and `mayBeNull` both allow it. */
  #json(type: GraphQLInputType, depth: number, mayBeNull: boolean): unknown {
    if (!isNonNullType(type) && mayBeNull && this.#choices.chance(0.1)) {
      return null;
    }
    const nullable = getNullableType(type);
    if (isListType(nullable)) {
      const itemType: GraphQLInputType = nullable.ofType;
      const producible = this.#catalog.canProduce(itemType);
      if (producible && depth < 3 && this.#choices.chance(0.2)) {
        return this.#json(itemType, depth + 1, mayBeNull && !isNonNullType(type));
      }
      const length = producible && depth < 2 ? this.#choices.index(4) : 0;
      return Array.from({ length }, () => this.#json(itemType, depth + 1, true));
    }
    if (isInputObjectType(nullable)) {
      return this.#jsonObject(nullable, depth);
    }
    if (isEnumType(nullable)) {
      return this.#choices.pick(nullable.getValues()).name;
    }
    switch (nullable.name) {
      case 'Int':
        return this.#int();
      case 'Float':
        return this.#choices.pick([1.5, 0, -0.25, 2, 1000, 3.25]);
      case 'String':
        return this.#string();
      case 'Boolean':
        return this.#choices.pick([true, false]);
      case 'ID':
        return this.#choices.chance(0.3) ? this.#int() : this.#id();
      default:
        return this.#choices.pick(this.#catalog.scalarSamples(nullable).values);
    }
  }

  #jsonObject(type: GraphQLInputObjectType, depth: number): Record<string, unknown> {
    const fields = Object.values(type.getFields());
    if (type.isOneOf) {
      const field = this.#choices.pick(fields.filter((candidate) => this.#catalog.canProduce(candidate.type)));
      return { [field.name]: this.#json(field.type, depth + 1, false) };
    }
    const object: Record<string, unknown> = {};
    for (const field of fields) {
      const include =
        isRequiredInputField(field) ||
        (depth < 3 && this.#catalog.canProduce(field.type) && this.#choices.chance(0.3));
      if (include) {
        object[field.name] = this.#json(field.type, depth + 1, true);
      }
    }
    return object;
  }

  /** A JSON value input coercion must reject for `type`, or undefined if none is known. */
  #wrongValue(type: GraphQLInputType, depth: number): Present | undefined {
    const options: Present[] = [];
    if (isNonNullType(type)) {
      if (depth > 0) {
        options.push(present(null));
      }
      const inner = this.#wrongValue(type.ofType, depth);
      if (inner) {
        options.push(inner);
      }
    } else if (isListType(type)) {
      const item = this.#wrongValue(type.ofType, depth + 1);
      if (item) {
        options.push(present([item.value]), item);
      }
    } else if (isInputObjectType(type)) {
      options.push(...this.#wrongObjects(type, depth));
    } else if (isEnumType(type)) {
      const names = new Set(type.getValues().map((value) => value.name));
      options.push(present(names.has('NOT_A_MEMBER') ? 'NOT_A_MEMBER_EITHER' : 'NOT_A_MEMBER'), present(1));
    } else {
      options.push(...wrongScalarValues(type, this.#catalog));
    }
    return options.length > 0 ? this.#choices.pick(options) : undefined;
  }

  #wrongObjects(type: GraphQLInputObjectType, depth: number): Present[] {
    const wrong: Present[] = [present('not an object')];
    const fields = Object.values(type.getFields());
    if (type.isOneOf) {
      const [first, second] = fields;
      wrong.push(present({}));
      if (first && second && this.#catalog.canProduce(first.type) && this.#catalog.canProduce(second.type)) {
        const both = { [first.name]: this.#json(first.type, depth + 1, false), [second.name]: this.#json(second.type, depth + 1, false) };
      wrong.push(present(both));
      }
      return wrong;
    }
    if (!this.#catalog.canProduce(type)) {
      return wrong;
    }
    const valid = this.#jsonObject(type, depth);
    const fieldNames = new Set(fields.map((field) => field.name));
    wrong.push(present({ ...valid, [fieldNames.has('notAField') ? 'notAFieldEither' : 'notAField']: 1 }));
    const required = fields.filter(isRequiredInputField);
    if (required.length > 0) {
      const { [this.#choices.pick(required).name]: _missing, ...rest } = valid;
      wrong.push(present(rest));
    }
    if (depth < 2 && fields.length > 0) {
      const field = this.#choices.pick(fields);
      const value = this.#wrongValue(field.type, depth + 1);
      if (value) {
        wrong.push(present({ ...valid, [field.name]: value.value }));
      }
    }
    return wrong;
  }

  #int(): number {
    const [min, max] = this.#limits.intRange;
    if (this.#choices.chance(0.1)) {
      return this.#choices.pick([max, min]);
    }
    return Math.min(max, Math.max(min, this.#choices.index(13) - 2));
  }

  #string(): string {
    const alphabet = ['a', 'b', 'z', 'A', ' ', '-', '0', 'é', '\n', '"', '\\', '😀'];
    const length = this.#choices.index(6);
    return Array.from({ length }, () => this.#choices.pick(alphabet)).join('');
  }

  #id(): string {
    return this.#choices.pick(this.#limits.ids);
  }
}

/** Values the built-in scalars reject as variable values, and the values a custom scalar's `parseValue` rejected. */
function wrongScalarValues(scalar: GraphQLScalarType, catalog: SchemaCatalog): Present[] {
  switch (scalar.name) {
    case 'Int':
      return [present(1.5), present('1'), present(2147483648), present(true)];
    case 'Float':
      return [present('1.5'), present(true), present([])];
    case 'String':
      return [present(1), present(true), present({})];
    case 'Boolean':
      return [present('true'), present(0)];
    case 'ID':
      return [present(true), present(1.5), present({})];
    default:
      return catalog.scalarSamples(scalar).rejected.map(present);
  }
}

function argumentsShape(field: Field): string {
  return field.args.map((arg) => `${arg.name}:${String(arg.type)}${arg.defaultValue === undefined ? '' : '='}`).join(',');
}

function aliasPrefix(responseName: string, fieldName: string): string {
  return responseName === fieldName ? '' : `${responseName}: `;
}

function sameSignature(existing: FieldSignature | undefined, wanted: FieldSignature): boolean {
  return (
    existing === undefined ||
    (existing.fieldName === wanted.fieldName &&
      existing.typeText === wanted.typeText &&
      existing.argumentsKey === wanted.argumentsKey)
  );
}
