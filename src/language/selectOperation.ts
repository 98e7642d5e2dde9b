/**
 * GetOperation (spec 6.1): the operation a request runs, by name, or the only one when no name
 * is given; plus the document's fragments by name. Used by planning and by analysis alike.
 */
import { GraphQLError, Kind } from 'graphql';
import type { DocumentNode, FragmentDefinitionNode, OperationDefinitionNode } from 'graphql';

export type Fragments = Readonly<Record<string, FragmentDefinitionNode>>;

export interface SelectedOperation {
  readonly operation: OperationDefinitionNode;
  readonly fragments: Fragments;
}

/** The operation and fragments, or the request error graphql-js gives when it cannot choose. */
export function selectOperation(document: DocumentNode, operationName: string | null | undefined): SelectedOperation | GraphQLError {
  let operation: OperationDefinitionNode | undefined;
  const fragments: Record<string, FragmentDefinitionNode> = Object.create(null);
  for (const definition of document.definitions) {
    if (definition.kind === Kind.OPERATION_DEFINITION) {
      if (operationName == null) {
        if (operation !== undefined) {
          return new GraphQLError('Must provide operation name if query contains multiple operations.');
        }
        operation = definition;
      } else if (definition.name?.value === operationName) {
        operation = definition;
      }
    } else if (definition.kind === Kind.FRAGMENT_DEFINITION) {
      fragments[definition.name.value] = definition;
    }
  }
  if (operation === undefined) {
    return new GraphQLError(operationName != null ? `Unknown operation named "${operationName}".` : 'Must provide an operation.');
  }
  return { operation, fragments };
}
