/**
 * The package's commands, by name: `graphql-glassbox <command> [arguments]` (main.ts runs them).
 *
 *   schema-check   a schema against the one published before it (schemaCheck.ts)
 *   conformance    the conformance kit against an executor, an HTTP or a WebSocket server (conformance.ts)
 *
 * Each command answers what it prints and its exit code (CommandOutcome) and never exits, so
 * that tests and other programs can run one without a process.
 */
import { CONFORMANCE_USAGE, conformance } from './conformance.ts';
import { SCHEMA_CHECK_USAGE, schemaCheck } from './schemaCheck.ts';
import type { CommandOutcome } from './schemaCheck.ts';

const COMMANDS: Record<string, (args: ReadonlyArray<string>) => Promise<CommandOutcome>> = {
  'schema-check': schemaCheck,
  conformance,
};

export const USAGE = `Usage: graphql-glassbox <command> [arguments]

Commands:
  schema-check   compare a schema with the one published before it; exits 1 on breaking changes
  conformance    check an executor, an HTTP or a WebSocket server; exits 1 on a MUST failure

Run graphql-glassbox <command> --help for a command's arguments.

${SCHEMA_CHECK_USAGE}

${CONFORMANCE_USAGE}`;

/** Runs the command named first in `args`. */
export async function runCommand(args: ReadonlyArray<string>): Promise<CommandOutcome> {
  const [name, ...rest] = args;
  if (name === undefined || name === '--help' || name === '-h' || name === 'help') return { code: name === undefined ? 2 : 0, stdout: USAGE, stderr: '' };
  const command = COMMANDS[name];
  if (command === undefined) return { code: 2, stdout: '', stderr: `Unknown command ${name}.\n\n${USAGE}` };
  return command(rest);
}
