/**
 * The validation rules of incremental delivery, as graphql 17 applies them (its `specifiedRules`
 * include all four), written for graphql 16, which has none of them. Each reports exactly
 * graphql 17's message, at the same nodes:
 *
 *  - deferStreamOnRootFields: a mutation's or subscription's root fields are never deferred or
 *    streamed (a mutation's root fields run one after another, a subscription's event is one
 *    payload), so `@defer` on a fragment of the root selection set, or `@stream` on a root field,
 *    is refused.
 *  - deferStreamLabels: a `label` is a static string, unique among all `@defer`/`@stream` of the
 *    document (clients tell payloads apart by it).
 *  - streamOnListFields: only a list can be streamed.
 *  - deferStreamOnValidOperations: a subscription may not defer or stream anything, unless the
 *    directive can be switched off (`if:` a variable or `false`), or its selection skipped.
 *
 * graphqlCompat.ts gives graphql 17's own rules when graphql 17 is installed, these otherwise.
 * (`initialCount` below zero is refused by graphql 17 when the field executes, not here.)
 */
import { GraphQLError, Kind, isListType, isNonNullType } from 'graphql';
import type { ASTVisitor, DirectiveNode, FragmentSpreadNode, GraphQLObjectType, InlineFragmentNode, SelectionSetNode, ValidationContext } from 'graphql';

type Rule = (context: ValidationContext) => ASTVisitor;

const directiveNamed = (node: { readonly directives?: ReadonlyArray<DirectiveNode> | undefined }, name: string): DirectiveNode | undefined =>
  node.directives?.find((directive) => directive.name.value === name);

/** DeferStreamDirectiveOnRootFieldRule. */
export const deferStreamOnRootFields: Rule = (context) => {
  const checkedFragments = new Set<string>();
  return {
    OperationDefinition(node) {
      if (node.operation !== 'mutation' && node.operation !== 'subscription') return;
      const rootType = context.getSchema().getRootType(node.operation);
      if (!rootType) return;
      const visited = new Set<string>();
      const walk = new RootWalk(context, node.operation, rootType, checkedFragments, visited);
      if (walk.check(node.selectionSet)) for (const name of visited) checkedFragments.add(name);
    },
  };
};

/** The walk of one root selection set for deferStreamOnRootFields: whether it found nothing to refuse. */
class RootWalk {
  constructor(
    private readonly context: ValidationContext,
    private readonly operation: string,
    private readonly rootType: GraphQLObjectType,
    private readonly checkedFragments: Set<string>,
    private readonly visited: Set<string>,
  ) {}

  check(selectionSet: SelectionSetNode): boolean {
    let valid = true;
    for (const selection of selectionSet.selections) {
      if (selection.kind === Kind.FIELD) {
        const stream = directiveNamed(selection, 'stream');
        if (stream) valid = this.refuse('Stream', stream);
      } else if (selection.kind === Kind.FRAGMENT_SPREAD) {
        const name = selection.name.value;
        if (this.visited.has(name)) continue;
        this.visited.add(name);
        const fragment = this.context.getFragment(name);
        if (!fragment) continue;
        valid = this.checkDefer(selection) && valid;
        if (!this.checkedFragments.has(name)) valid = this.check(fragment.selectionSet) && valid;
      } else {
        valid = this.checkDefer(selection) && valid;
        valid = this.check(selection.selectionSet) && valid;
      }
    }
    return valid;
  }

  private checkDefer(fragment: FragmentSpreadNode | InlineFragmentNode): boolean {
    const defer = directiveNamed(fragment, 'defer');
    return defer === undefined || this.refuse('Defer', defer);
  }

  private refuse(what: 'Defer' | 'Stream', node: DirectiveNode): false {
    this.context.reportError(new GraphQLError(`${what} directive cannot be used on root ${this.operation} type "${this.rootType.name}".`, { nodes: node }));
    return false;
  }
}

/** DeferStreamDirectiveLabelRule. */
export const deferStreamLabels: Rule = (context) => {
  const known = new Map<string, DirectiveNode>();
  return {
    Directive(node) {
      if (node.name.value !== 'defer' && node.name.value !== 'stream') return;
      const label = node.arguments?.find((argument) => argument.name.value === 'label')?.value;
      if (!label || label.kind === Kind.NULL) return;
      if (label.kind !== Kind.STRING) {
        context.reportError(new GraphQLError(`Argument "@${node.name.value}(label:)" must be a static string.`, { nodes: node }));
        return;
      }
      const first = known.get(label.value);
      if (first !== undefined) {
        context.reportError(
          new GraphQLError('Value for arguments "defer(label:)" and "stream(label:)" must be unique across all Defer/Stream directive usages.', {
            nodes: [first, node],
          }),
        );
      } else {
        known.set(label.value, node);
      }
    },
  };
};

/** StreamDirectiveOnListFieldRule. */
export const streamOnListFields: Rule = (context) => ({
  Directive(node) {
    const field = context.getFieldDef();
    const parentType = context.getParentType();
    if (!field || !parentType || node.name.value !== 'stream') return;
    const type = field.type;
    if (isListType(type) || (isNonNullType(type) && isListType(type.ofType))) return;
    context.reportError(new GraphQLError(`Directive "@stream" cannot be used on non-list field "${parentType.name}.${field.name}".`, { nodes: node }));
  },
});

/** DeferStreamDirectiveOnValidOperationsRule. */
export const deferStreamOnValidOperations: Rule = (context) => {
  const checkedFragments = new Set<string>();
  return {
    OperationDefinition(operation) {
      if (operation.operation !== 'subscription') return;
      const visited = new Set<string>();
      if (checkSubscription(context, checkedFragments, operation.selectionSet, [], visited)) {
        for (const name of visited) checkedFragments.add(name);
      }
    },
  };
};

/** The walk of deferStreamOnValidOperations: whether it found nothing to refuse. */
function checkSubscription(
  context: ValidationContext,
  checkedFragments: Set<string>,
  selectionSet: SelectionSetNode,
  spreads: FragmentSpreadNode[],
  visited: Set<string>,
): boolean {
  let valid = true;
  for (const selection of selectionSet.selections) {
    if (maySkip(selection)) continue;
    for (const directive of selection.directives ?? []) {
      const name = directive.name.value;
      if ((name !== 'defer' && name !== 'stream') || canBeOff(directive)) continue;
      valid = false;
      const what = name === 'defer' ? 'Defer' : 'Stream';
      context.reportError(
        new GraphQLError(`${what} directive not supported on subscription operations. Disable \`@${name}\` by setting the \`if\` argument to \`false\`.`, {
          nodes: [directive, ...[...spreads].reverse()],
        }),
      );
    }
    if (selection.kind === Kind.FRAGMENT_SPREAD) {
      const name = selection.name.value;
      if (visited.has(name) || checkedFragments.has(name)) continue;
      visited.add(name);
      const fragment = context.getFragment(name);
      if (!fragment) continue;
      spreads.push(selection);
      valid = checkSubscription(context, checkedFragments, fragment.selectionSet, spreads, visited) && valid;
      spreads.pop();
    } else if (selection.selectionSet) {
      valid = checkSubscription(context, checkedFragments, selection.selectionSet, spreads, visited) && valid;
    }
  }
  return valid;
}

/** Whether `@skip`/`@include` on a selection may leave it out (a variable, or a literal that does). */
function maySkip(selection: { readonly directives?: ReadonlyArray<DirectiveNode> | undefined }): boolean {
  const skip = directiveNamed(selection, 'skip');
  if (skip) {
    const value = skip.arguments?.find((argument) => argument.name.value === 'if')?.value;
    if (!value || value.kind !== Kind.BOOLEAN || value.value) return true;
  }
  const include = directiveNamed(selection, 'include');
  if (include) {
    const value = include.arguments?.find((argument) => argument.name.value === 'if')?.value;
    if (value && (value.kind !== Kind.BOOLEAN || !value.value)) return true;
  }
  return false;
}

/** Whether a `@defer`/`@stream` may be off: its `if` is a variable, or `false`. */
function canBeOff(directive: DirectiveNode): boolean {
  const value = directive.arguments?.find((argument) => argument.name.value === 'if')?.value;
  if (!value) return false;
  if (value.kind === Kind.BOOLEAN) return !value.value;
  return value.kind === Kind.VARIABLE;
}

/** The four, in the order graphql 17's specifiedRules lists them. */
export const OWN_INCREMENTAL_RULES: ReadonlyArray<Rule> = [deferStreamOnRootFields, deferStreamOnValidOperations, deferStreamLabels, streamOnListFields];
