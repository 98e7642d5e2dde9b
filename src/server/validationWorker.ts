/**
 * The worker thread of validationThread.ts: validates each text it is sent against the schema
 * rebuilt from its SDL, with the rules the event loop's thread would use, and answers what it
 * found (language/portableValidation.ts, step 2). It holds no state between texts.
 */
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { parse } from 'graphql';
import { buildPortableSchema, validatePortable } from '../language/portableValidation.ts';
import type { PortableValidation } from '../language/portableValidation.ts';
import { validationRules } from './validationRules.ts';
import type { ValidationAnswer, ValidationJob, ValidationWorkerData } from './validationThread.ts';

/**
 * The nice value of this thread. Linux keeps one per thread (setpriority of "the calling process"
 * sets the calling thread's): with it the event loop's thread, which answers every request, gets
 * the CPU first when the two want it at once, and validation of new documents waits. Elsewhere a
 * process has one nice value, which this must not change.
 */
const NICE = 10;
if (process.platform === 'linux') {
  try {
    setPriority(NICE);
  } catch {
    // Not allowed here (a container's policy): the thread keeps the process's priority.
  }
}

const data = workerData as ValidationWorkerData;
const schema = buildPortableSchema(data.schema);
const rules = validationRules(data.noIntrospection);
const options = { hideSuggestions: data.hideSuggestions, customScalars: data.schema.customScalars };
const port = parentPort!;

port.on('message', ({ id, text }: ValidationJob) => {
  let found: PortableValidation;
  try {
    found = validatePortable(schema, parse(text), rules, options);
  } catch {
    // The event loop's thread parsed this text: whatever fails here is validated there instead.
    found = null;
  }
  port.postMessage({ id, found } satisfies ValidationAnswer);
});
