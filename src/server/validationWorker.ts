/**
 * The worker thread of validationThread.ts: validates each text it is sent against the schema
 * rebuilt from its SDL, with the rules the event loop's thread would use, and answers what it
 * found (language/portableValidation.ts, step 2). It holds no state between texts.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { parse } from 'graphql';
import { buildPortableSchema, validatePortable } from '../language/portableValidation.ts';
import type { PortableValidation } from '../language/portableValidation.ts';
import { validationRules } from './validationRules.ts';
import type { ValidationAnswer, ValidationJob, ValidationWorkerData } from './validationThread.ts';

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
