/**
 * `npm run docs:errors`: writes docs/errors.md from the error registry (src/errors/codes.ts).
 * spec-tests/errors-registry.test.ts compares the file with `errorsDoc()` and fails when they
 * differ, so the page cannot drift from the codes the server sends.
 */
import { writeFileSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ERROR_CHANNELS, ERROR_CODES, WEBSOCKET_CLOSE_CODES } from '../src/errors/codes.ts';
import type { ErrorChannel } from '../src/errors/codes.ts';

export const ERRORS_DOC_PATH = fileURLToPath(new URL('../docs/errors.md', import.meta.url));

/** A table cell: pipes would end it early. */
function cell(text: string): string {
  return text.replaceAll('|', '\\|');
}

/** The page, as the registry gives it. */
export function errorsDoc(): string {
  const channels = Object.entries(ERROR_CHANNELS) as Array<[ErrorChannel, (typeof ERROR_CHANNELS)[ErrorChannel]]>;
  const lines = [
    '# Error codes',
    '',
    '<!-- Generated from src/errors/codes.ts by `npm run docs:errors`; edit the registry, not this page. -->',
    '',
    'Every code a client (or the application, from a library API) can receive. Call sites name',
    'them through `ErrorCode` (`ErrorCode.BadRequest === "BAD_REQUEST"`); `ERROR_CODES` holds what',
    'this page says of each. A code links to the section that explains it.',
    '',
    'The status is that of an answer the code decides: an `{ "error" }` body, a request error under',
    '`application/graphql-response+json`, an execution error answered by a resource route. A dash:',
    'the code never decides a status. Where a code appears:',
    '',
    ...channels.map(([, channel]) => `- **${channel.label}**: ${channel.description}`),
    '',
    '| code | HTTP status | where | meaning |',
    '|---|--:|---|---|',
    ...Object.values(ERROR_CODES).map((info) => {
      const where = info.channels.map((channel) => ERROR_CHANNELS[channel].label).join(', ');
      return `| [\`${info.code}\`](${info.docs}) | ${info.status ?? '—'} | ${cell(where)} | ${cell(info.meaning)} |`;
    }),
    '',
    '## WebSocket close codes',
    '',
    'A graphql-transport-ws connection ends with one of these codes (`WebSocketCloseCode`) and a',
    'reason of at most 123 bytes. 1001 (the server is shutting down) and 1009 (a message larger',
    'than `maxPayloadBytes`) are the WebSocket protocol\'s own. See',
    '[the WebSocket transport](api.md#over-a-websocket-graphql-transport-ws).',
    '',
    '| close code | reason | when |',
    '|--:|---|---|',
    ...WEBSOCKET_CLOSE_CODES.map((close) => `| ${close.code} | ${cell(close.reason)} | ${cell(close.meaning)} |`),
    '',
  ];
  return lines.join('\n');
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href) {
  writeFileSync(ERRORS_DOC_PATH, errorsDoc());
  console.log(`Wrote ${ERRORS_DOC_PATH}.`);
}
