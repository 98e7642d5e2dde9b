// The validation worker (validationWorker.ts) started from this package's TypeScript sources, as
// tests and the demo run it: a worker thread inherits neither vitest's nor tsx's loader, and
// tsx/esm registers itself only in the main thread under Node 20, so this registers tsx first.
// The built package starts dist/server/validationWorker.js directly.
import { register } from 'tsx/esm/api';

register();
await import('./validationWorker.ts');
