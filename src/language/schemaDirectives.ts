/**
 * Directives written in a schema's SDL, read back from the built schema, and the definitions of
 * the engine's own directives (`@cost`, `@listSize`, `@auth`) added to an SDL that uses them
 * without declaring them.
 *
 * graphql-js does not keep directive applications on built types, only their AST (`astNode`
 * and `extensionASTNodes`), so that is where they are read.
 */
import { Kind } from 'graphql';
import type { ConstDirectiveNode, DocumentNode } from 'graphql';
// graphql's parse, published on graphql:parse under graphql 16 as graphql 17's own parse publishes it.
import { parse } from './tracingChannels.ts';

/** Anything of the schema that may carry directives in its SDL. */
export interface Annotated {
  readonly astNode?: { readonly directives?: ReadonlyArray<ConstDirectiveNode> } | null | undefined;
  readonly extensionASTNodes?: ReadonlyArray<{ readonly directives?: ReadonlyArray<ConstDirectiveNode> }>;
}

/** The first application of the directive `name` on an element, in its definition or its extensions. */
export function findDirective(element: Annotated, name: string): ConstDirectiveNode | undefined {
  const own = element.astNode?.directives?.find((directive) => directive.name.value === name);
  if (own !== undefined) return own;
  for (const extension of element.extensionASTNodes ?? []) {
    const found = extension.directives?.find((directive) => directive.name.value === name);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** Adds to an SDL document the definitions, from `definitionsSdl`, of directives it uses but does not declare. */
export function withDirectiveDefinitions(document: DocumentNode, definitionsSdl: string): DocumentNode {
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
  const missing = parse(definitionsSdl).definitions.filter(
    (definition) => definition.kind === Kind.DIRECTIVE_DEFINITION && used.has(definition.name.value) && !declared.has(definition.name.value),
  );
  if (missing.length === 0) return document;
  return { ...document, definitions: [...document.definitions, ...missing] };
}
