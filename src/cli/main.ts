#!/usr/bin/env node
/**
 * The package's bin, `graphql-glassbox`: runs the command its arguments name (commands.ts) and
 * writes what it answers, exiting with its code.
 */
import { runCommand } from './commands.ts';

const { code, stdout, stderr } = await runCommand(process.argv.slice(2));
if (stdout !== '') process.stdout.write(`${stdout}\n`);
if (stderr !== '') process.stderr.write(`${stderr}\n`);
process.exitCode = code;
