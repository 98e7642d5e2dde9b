/**
 * Imports only point down (docs/architecture.md, "Layers"). `npm test` and `npm run
 * check:imports` run `depcruise src --config .dependency-cruiser.cjs`; any violation fails them.
 *
 *   demo cli conformance
 *   transports
 *   server
 *   security ratelimit observability events webhooks schema
 *   execution
 *   analysis batching
 *   language jsutils errors redis
 *
 * A folder may import its own layer's folders and the layers below it, never one above; and no
 * two folders may import each other, directly or through others.
 */
const LAYERS = [
  ['language', 'jsutils', 'errors', 'redis'],
  ['analysis', 'batching'],
  ['execution'],
  ['security', 'ratelimit', 'observability', 'events', 'webhooks', 'schema'],
  ['server'],
  ['transports'],
  ['demo', 'cli', 'conformance'],
];

/** A path pattern for these folders of src/. */
const under = (folders) => `^src/(${folders.join('|')})/`;

/** For each layer, the rule that forbids importing any layer above it. */
const layerRules = LAYERS.slice(0, -1).map((layer, index) => ({
  name: `layer-${layer.join('-')}`,
  comment: `${layer.join(', ')} may not import the layers above: ${LAYERS.slice(index + 1).flat().join(', ')}.`,
  severity: 'error',
  from: { path: under(layer) },
  to: { path: under(LAYERS.slice(index + 1).flat()) },
}));

module.exports = {
  forbidden: [
    {
      name: 'jsutils-imports-nothing',
      comment: 'src/jsutils is what everything shares: it imports nothing else of src.',
      severity: 'error',
      from: { path: '^src/jsutils/' },
      to: { path: '^src/', pathNot: '^src/jsutils/' },
    },
    {
      name: 'errors-imports-only-jsutils',
      comment: 'The error registry is at the bottom: every layer can name a code without importing the layer that raises it.',
      severity: 'error',
      from: { path: '^src/errors/' },
      to: { path: '^src/', pathNot: '^src/(errors|jsutils)/' },
    },
    {
      name: 'language-imports-only-jsutils-errors',
      comment: 'src/language wraps graphql-js for everything above it.',
      severity: 'error',
      from: { path: '^src/language/' },
      to: { path: '^src/', pathNot: '^src/(language|jsutils|errors)/' },
    },
    {
      name: 'redis-imports-nothing',
      comment: 'The optional Redis client loader serves every store; it knows none of them.',
      severity: 'error',
      from: { path: '^src/redis/' },
      to: { path: '^src/', pathNot: '^src/redis/' },
    },
    {
      name: 'engine-knows-no-service',
      comment: 'execution, analysis and batching know no transport, security, metrics, rate limit, event or webhook: they run anywhere.',
      severity: 'error',
      from: { path: '^src/(execution|analysis|batching)/' },
      to: { path: '^src/(security|server|transports|observability|ratelimit|events|webhooks|demo)/' },
    },
    {
      name: 'server-only-from-above',
      comment: 'The pipeline is imported only by the transports, the demo and the public API.',
      severity: 'error',
      from: { pathNot: '^src/(server|transports|demo)/|^src/index\\.ts$' },
      to: { path: '^src/server/' },
    },
    {
      name: 'transports-only-from-above',
      comment: 'The transports are imported only by the demo and the public API.',
      severity: 'error',
      from: { pathNot: '^src/(transports|demo)/|^src/index\\.ts$' },
      to: { path: '^src/transports/' },
    },
    ...layerRules,
    {
      name: 'no-folder-cycles',
      comment: 'Two folders that import each other are one layer in disguise.',
      severity: 'error',
      scope: 'folder',
      from: { path: '^src/' },
      to: { circular: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    includeOnly: '^src/',
    exclude: { path: '\\.test\\.ts$' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    reporterOptions: { text: { highlightFocused: false } },
  },
};
