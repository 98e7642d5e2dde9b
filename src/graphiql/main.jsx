/**
 * The GraphiQL page's entry point (bundled by scripts/build-graphiql.ts, served by
 * src/transports/http/graphiql.ts): mounts GraphiQL against the endpoint that served the page.
 *
 * Everything the server wants to say arrives in a JSON data block (#graphiql-config), not an
 * inline script, so that the page's Content-Security-Policy can refuse every inline script.
 */
import { createRoot } from 'react-dom/client';
import { GraphiQL } from 'graphiql';
import { createGraphiQLFetcher } from '@graphiql/toolkit';
import 'graphiql/style.css';
import './graphiql.css';
import { isSubscription, tracePlugin, withTrace } from './trace.jsx';

const config = readConfig();
// GraphiQL's dialogs inject one <style> element (react-remove-scroll), which takes its nonce
// from this global: with it, the page's style-src needs no 'unsafe-inline'.
globalThis.__webpack_nonce__ = config.styleNonce;
// The page is served at the endpoint itself: its own address, without query or fragment, is
// the endpoint's, also behind a proxy that mounts the server under another path.
const endpoint = new URL(location.pathname, location.href);
const socket = new URL(endpoint);
socket.protocol = endpoint.protocol === 'https:' ? 'wss:' : 'ws:';

const fetcherOptions = {
  url: endpoint.href,
  // The headers editor's values travel as connection params, where the server reads credentials.
  ...(config.webSocket === true ? { subscriptionUrl: socket.href } : {}),
};
// One JSON result per query, which the Trace panel reads...
const plainFetcher = createGraphiQLFetcher({ ...fetcherOptions, enableIncrementalDelivery: false });
// ...except for a query that defers or streams: sent with Accept: application/json,
// multipart/mixed, its parts merged into the result pane as they arrive.
const incrementalFetcher = createGraphiQLFetcher({ ...fetcherOptions, enableIncrementalDelivery: true });
const toolkitFetcher = (params, options) => (/@(defer|stream)\b/.test(params.query ?? '') ? incrementalFetcher : plainFetcher)(params, options);

// Without the server's WebSocket transport a subscription gets a plain answer, not the
// fetcher's advice about its own configuration.
const fetcher = withTrace(
  config.webSocket === true
    ? toolkitFetcher
    : (params, options) =>
        isSubscription(params, options)
          ? Promise.resolve({ errors: [{ message: 'Subscriptions need the server\'s WebSocket transport, which is off here.' }] })
          : toolkitFetcher(params, options),
);

createRoot(document.getElementById('graphiql')).render(
  <GraphiQL fetcher={fetcher} plugins={[tracePlugin]} {...(typeof config.defaultQuery === 'string' ? { defaultQuery: config.defaultQuery } : {})} />,
);

function readConfig() {
  const element = document.getElementById('graphiql-config');
  try {
    return JSON.parse(element?.textContent ?? '{}') ?? {};
  } catch {
    return {};
  }
}
