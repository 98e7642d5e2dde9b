/**
 * The graphql-transport-ws target of the conformance kit (`graphql-glassbox conformance ws <url>`):
 * the protocol of graphql-ws's PROTOCOL.md, rule by rule, against any server. Each check opens
 * its own socket, sends exactly the messages its rule is about and reads the answer or the close
 * code; none depends on another's socket, so any selection of them runs alone.
 */
import type { Check } from '../check.ts';
import { connectionChecks } from './connectionChecks.ts';
import { messageChecks } from './messageChecks.ts';
import { operationChecks } from './operationChecks.ts';
import type { WsTargetOptions } from './outcomes.ts';
import { subscriptionChecks } from './subscriptionChecks.ts';

export type { WsTargetOptions } from './outcomes.ts';

/** Every WebSocket check, in the order of the protocol document. */
export function wsChecks(): Array<Check<WsTargetOptions>> {
  return [...connectionChecks, ...messageChecks, ...operationChecks, ...subscriptionChecks];
}
