/**
 * The IBM "GraphQL Cost Directives" as the schema states them: `@cost(weight:)` on fields,
 * arguments, input fields, objects, scalars and enums, and `@listSize(...)` on fields.
 *
 * They are read from the SDL's AST (`astNode` and `extensionASTNodes`) rather than from
 * coerced directive values, because graphql-js does not keep directive applications on built
 * types. A weight is a string holding a number (the IBM spec's form); an Int or Float literal
 * is accepted too. Each definition is read once and remembered.
 */
import { Kind, parse } from 'graphql';
import type { ConstDirectiveNode, ConstValueNode, DocumentNode } from 'graphql';

/** The definitions makeSchema adds when an SDL uses the directives without declaring them. */
export const COST_DIRECTIVES_SDL = /* GraphQL */ `
  "The cost of a field, argument, input field or type (IBM GraphQL Cost Directives)."
  directive @cost(weight: String!) on ARGUMENT_DEFINITION | ENUM | FIELD_DEFINITION | INPUT_FIELD_DEFINITION | OBJECT | SCALAR

  "How many items a list field returns (IBM GraphQL Cost Directives)."
  directive @listSize(
    assumedSize: Int
    slicingArguments: [String!]
    sizedFields: [String!]
    requireOneSlicingArgument: Boolean = true
  ) on FIELD_DEFINITION
`;

/** Adds the definitions of @cost and @listSize to an SDL document that uses them undeclared. */
export function withCostDirectiveDefinitions(document: DocumentNode): DocumentNode {
  const declared = new Set<string>();
  const used = new Set<string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) {
      node.forEach(visit);
      return;
    }
    if (node === null || typeof node !== 'object') return;
    const kind = (node as { kind?: string }).kind;
    if (kind === Kind.DIRECTIVE_DEFINITION) declared.add((node as { name: { value: string } }).name.value);
    if (kind === Kind.DIRECTIVE) used.add((node as { name: { value: string } }).name.value);
    for (const [key, value] of Object.entries(node)) {
      if (key !== 'loc' && typeof value === 'object') visit(value);
    }
  };
  visit(document.definitions);
  const missing = ['cost', 'listSize'].filter((name) => used.has(name) && !declared.has(name));
  if (missing.length === 0) return document;
  const definitions = parse(COST_DIRECTIVES_SDL).definitions.filter(
    (definition) => definition.kind === Kind.DIRECTIVE_DEFINITION && missing.includes(definition.name.value),
  );
  return { ...document, definitions: [...document.definitions, ...definitions] };
}

/** Anything of the schema that may carry directives in its SDL. */
interface Annotated {
  readonly astNode?: { readonly directives?: ReadonlyArray<ConstDirectiveNode> } | null | undefined;
  readonly extensionASTNodes?: ReadonlyArray<{ readonly directives?: ReadonlyArray<ConstDirectiveNode> }>;
}

export interface ListSize {
  readonly assumedSize: number | undefined;
  readonly slicingArguments: ReadonlyArray<string>;
  readonly sizedFields: ReadonlyArray<string>;
  readonly requireOneSlicingArgument: boolean;
}

const weights = new WeakMap<object, number | null>();
const listSizes = new WeakMap<object, ListSize | null>();

/** The `@cost` weight of a schema element, or undefined when it has none. */
export function costWeight(element: Annotated): number | undefined {
  let weight = weights.get(element);
  if (weight === undefined) {
    const directive = findDirective(element, 'cost');
    const value = directive?.arguments?.find((argument) => argument.name.value === 'weight')?.value;
    weight = value === undefined ? null : numberOf(value);
    weights.set(element, weight);
  }
  return weight ?? undefined;
}

/** The `@listSize` of a field definition, or undefined when it has none. */
export function listSize(element: Annotated): ListSize | undefined {
  let size = listSizes.get(element);
  if (size === undefined) {
    const directive = findDirective(element, 'listSize');
    if (directive === undefined) {
      size = null;
    } else {
      const argument = (name: string) => directive.arguments?.find((node) => node.name.value === name)?.value;
      const slicingArguments = stringsOf(argument('slicingArguments'));
      const require = argument('requireOneSlicingArgument');
      size = {
        assumedSize: numberOf(argument('assumedSize')) ?? undefined,
        slicingArguments,
        sizedFields: stringsOf(argument('sizedFields')),
        requireOneSlicingArgument: slicingArguments.length > 0 && (require?.kind !== Kind.BOOLEAN || require.value),
      };
    }
    listSizes.set(element, size);
  }
  return size ?? undefined;
}

function findDirective(element: Annotated, name: string): ConstDirectiveNode | undefined {
  const own = element.astNode?.directives?.find((directive) => directive.name.value === name);
  if (own !== undefined) return own;
  for (const extension of element.extensionASTNodes ?? []) {
    const found = extension.directives?.find((directive) => directive.name.value === name);
    if (found !== undefined) return found;
  }
  return undefined;
}

function numberOf(value: ConstValueNode | undefined): number | null {
  if (value === undefined) return null;
  if (value.kind === Kind.STRING || value.kind === Kind.INT || value.kind === Kind.FLOAT) {
    const number = Number(value.value);
    return Number.isFinite(number) ? number : null;
  }
  return null;
}

function stringsOf(value: ConstValueNode | undefined): string[] {
  if (value === undefined) return [];
  if (value.kind === Kind.STRING) return [value.value];
  if (value.kind === Kind.LIST) return value.values.flatMap((item) => (item.kind === Kind.STRING ? [item.value] : []));
  return [];
}
