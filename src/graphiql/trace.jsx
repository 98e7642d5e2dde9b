/**
 * The "Trace" plugin of the GraphiQL page: asks the server to trace each operation
 * (`extensions: { trace: true }`) and draws the last response's `extensions.trace` as a
 * waterfall, so that one can see which resolvers waited on which batches, and for how long.
 *
 * The fetcher is wrapped rather than GraphiQL's response editor read back: the wrapper sees
 * the parsed result before GraphiQL formats it, and does not depend on GraphiQL's internals.
 * The trace format is the server's (version 1): resolvers and batches on one ns time axis,
 * linked by index (`resolver.batches`, `batch.waiters`).
 *
 * A query that defers or streams comes back in payloads (the multipart fetcher's async
 * iterable): they pass through as they arrive, and the trace is the last payload's (the server
 * puts it there, once every part is done). Its `payloads` are drawn as vertical lines on the
 * waterfall, one per payload at the time it was made, and each resolver row says in which payload
 * its value went (`resolver.payload`).
 */
import { useLayoutEffect, useMemo, useRef, useState, useSyncExternalStore } from 'react';
import { PlanTree } from './planTree.jsx';
import { batchesText, duration, keyCount, pathLabel } from './words.ts';

const STORAGE_KEY = 'graphql-glassbox:trace';
/** Rows drawn at most: a large list query can make thousands of resolver calls. */
const MAX_ROWS = 1500;
/** Characters a row's label shows before the label column is measured (useLabelChars). */
const LABEL_CHARS = 20;

// The plugin's state lives outside React: the fetcher that fills it is not a component.
let state = { enabled: readEnabled(), last: undefined };
const listeners = new Set();

function update(changes) {
  state = { ...state, ...changes };
  for (const listener of listeners) listener();
}

function subscribe(listener) {
  listeners.add(listener);
  return () => listeners.delete(listener);
}

function readEnabled() {
  try {
    return localStorage.getItem(STORAGE_KEY) === 'on';
  } catch {
    return false;
  }
}

function setEnabled(enabled) {
  try {
    localStorage.setItem(STORAGE_KEY, enabled ? 'on' : 'off');
  } catch {
    // Storage refused (a private window): the choice lasts as long as the page.
  }
  update({ enabled });
}

/** The fetcher, asking for a trace while tracing is on and keeping the one that comes back. */
export function withTrace(fetcher) {
  return async (params, options) => {
    // GraphiQL's own schema fetch is not what anyone wants to trace; a subscription's stream
    // has no single trace to draw (and a traced subscriber would not share its execution).
    if (!state.enabled || params.operationName === 'IntrospectionQuery' || isSubscription(params, options)) return fetcher(params, options);
    const result = await fetcher({ ...params, extensions: { ...params.extensions, trace: true } }, options);
    if (result !== null && typeof result === 'object' && Symbol.asyncIterator in result) return watchPayloads(result);
    if (result !== null && typeof result === 'object') {
      const refusal = Array.isArray(result.errors) ? result.errors.find((error) => error?.extensions?.code === 'TRACE_NOT_ALLOWED') : undefined;
      update({ last: { trace: result.extensions?.trace ?? null, cost: result.extensions?.cost ?? null, refusal: refusal?.message ?? null } });
    }
    return result;
  };
}

/** The payloads of an incremental delivery, passed on as they come; the trace is read off the one that carries it (the last). */
async function* watchPayloads(payloads) {
  update({ last: { trace: null, refusal: null, waiting: true } });
  let found = false;
  try {
    for await (const value of payloads) {
      // The toolkit gives a payload, or several read from one chunk as an array.
      for (const payload of Array.isArray(value) ? value : [value]) {
        const trace = payload?.extensions?.trace;
        if (trace !== undefined) {
          found = true;
          // The last payload's cost report is the whole one (its `actual` counts every part).
          update({ last: { trace, cost: payload.extensions.cost ?? null, refusal: null } });
        }
      }
      yield value;
    }
  } finally {
    if (!found) update({ last: { trace: null, refusal: null } });
  }
}

/** Whether the operation GraphiQL is about to run is a subscription (read from the document GraphiQL parsed). */
export function isSubscription(params, options) {
  const operations = (options?.documentAST?.definitions ?? []).filter((definition) => definition.kind === 'OperationDefinition');
  const chosen = operations.length === 1 ? operations[0] : operations.find((operation) => operation.name?.value === params.operationName);
  return chosen?.operation === 'subscription';
}

function TraceIcon() {
  return (
    <svg viewBox="0 0 24 24" fill="none" stroke="currentColor" strokeWidth="1.5" strokeLinecap="round" aria-hidden="true">
      <path d="M3 5h8M6 10h10M9 15h6M13 20h8" />
    </svg>
  );
}

function TracePanel() {
  const { enabled, last } = useSyncExternalStore(subscribe, () => state);
  let body;
  if (last === undefined) {
    body = <p className="engine-trace-note">{enabled ? 'Run an operation to see where its time went.' : 'Turn tracing on, then run an operation.'}</p>;
  } else if (last.refusal !== null) {
    body = <p className="engine-trace-note">The server refused to trace: {last.refusal}</p>;
  } else if (last.waiting === true) {
    body = <p className="engine-trace-note">The payloads are coming: the trace arrives with the last.</p>;
  } else if (last.trace === null) {
    body = <p className="engine-trace-note">The last response had no <code>extensions.trace</code>: this server does not trace operations.</p>;
  } else if (typeof last.trace !== 'object' || last.trace.version !== 1) {
    body = <p className="engine-trace-note">The last response's trace is in a format this page does not know (version {String(last.trace?.version)}).</p>;
  } else {
    body = <TraceView trace={last.trace} cost={last.cost ?? null} />;
  }
  return (
    <div className="engine-trace">
      <div className="graphiql-doc-explorer-title">Trace</div>
      <label className="engine-trace-toggle">
        <input type="checkbox" checked={enabled} onChange={(event) => setEnabled(event.target.checked)} /> Trace each request
      </label>
      {body}
    </div>
  );
}

function TraceView({ trace, cost }) {
  const rows = useMemo(() => rowsOf(trace), [trace]);
  const [labelChars, labelColumn] = useLabelChars();
  // The row under the pointer, and the rows linked to it (a batch's waiters, a resolver's batches).
  const [focus, setFocus] = useState(null);
  const span = rows.reduce((end, row) => Math.max(end, row.start + row.duration), Math.max(1, Number(trace.durationNs) || 0));
  const shown = rows.length > MAX_ROWS ? rows.slice(0, MAX_ROWS) : rows;
  const related = focus === null ? null : new Set([focus.key, ...focus.links]);
  const resolverCount = rows.filter((row) => row.kind === 'resolver').length;
  const payloads = Array.isArray(trace.payloads) ? trace.payloads : [];
  // One vertical line per payload of an incremental delivery, over every row, where it was made.
  const boundaries = payloads.map((payload, index) => (
    <span
      key={`p${index}`}
      className="engine-trace-payload"
      title={payloadTitle(payload, index)}
      style={{ position: 'absolute', top: 0, bottom: 0, left: `${((Number(payload.atNs) || 0) / span) * 100}%`, borderLeft: '1px dashed currentColor', opacity: 0.5, pointerEvents: 'none' }}
    />
  ));
  return (
    <>
      <p className="engine-trace-summary">
        {duration(Number(trace.durationNs) || 0)} · {counted(resolverCount, 'resolver call', 'resolver calls')} · {counted(rows.length - resolverCount, 'batch', 'batches')}
        {payloads.length > 0 && ` · ${payloads.length} payloads (dashed lines)`}
      </p>
      <div className="engine-trace-waterfall" onMouseLeave={() => setFocus(null)}>
        <div className="engine-trace-row engine-trace-axis">
          <span className="engine-trace-label" ref={labelColumn} />
          <span className="engine-trace-track">
            {[0, 0.5, 1].map((at) => (
              <span key={at} className={`engine-trace-tick${at === 0 ? ' is-start' : at === 1 ? ' is-end' : ''}`} style={{ left: `${at * 100}%` }}>
                {duration(at * span)}
              </span>
            ))}
            {boundaries}
          </span>
        </div>
        {shown.map((row) => (
          <div
            key={row.key}
            className={`engine-trace-row engine-trace-${row.kind}${related === null ? '' : related.has(row.key) ? ' is-related' : ' is-dimmed'}`}
            title={row.title}
            data-kind={row.kind}
            onMouseEnter={() => setFocus(row)}
          >
            <RowLabel row={row} chars={labelChars} />
            <span className="engine-trace-track">
              {boundaries}
              <span className="engine-trace-bar" style={{ left: `${(row.start / span) * 100}%`, width: `${barWidth(row, span)}%` }} />
              {row.kind === 'batch' && <BatchCount row={row} span={span} />}
            </span>
          </div>
        ))}
      </div>
      {rows.length > MAX_ROWS && <p className="engine-trace-note">The first {MAX_ROWS} of {rows.length} rows, by start time.</p>}
      {payloads.length > 0 && (
        <>
          <div className="engine-trace-heading">Payloads</div>
          <pre className="engine-trace-payloads" style={{ whiteSpace: 'pre-wrap' }}>{payloads.map((payload, index) => payloadTitle(payload, index)).join('\n')}</pre>
          {Array.isArray(trace.parts) && trace.parts.length > 0 && (
            <pre className="engine-trace-parts" style={{ whiteSpace: 'pre-wrap' }}>
              {trace.parts
                .map((part) => `part ${part.id}: ${part.kind}${part.label === null ? '' : ` "${part.label}"`} at ${part.path || '(root)'}, announced in ${part.announcedIn}, completed in ${part.completedIn ?? '-'}${part.failed ? ' (failed)' : ''}`)
                .join('\n')}
            </pre>
          )}
        </>
      )}
      {trace.plan !== undefined && (
        <>
          <div className="engine-trace-heading">Plan</div>
          <PlanTree trace={trace} cost={cost} />
        </>
      )}
    </>
  );
}

/**
 * How many characters the label column holds, measured (and again when the panel is resized), so
 * that a label is cut where this page chooses (at a dot, keeping the field) and not by the browser.
 */
function useLabelChars() {
  const [chars, setChars] = useState(LABEL_CHARS);
  const column = useRef(null);
  useLayoutEffect(() => {
    const element = column.current;
    if (element === null || typeof ResizeObserver !== 'function') return undefined;
    const measure = () => {
      const style = getComputedStyle(element);
      const context = document.createElement('canvas').getContext('2d');
      if (context === null) return;
      context.font = `${style.fontSize} ${style.fontFamily}`;
      const each = context.measureText('0').width;
      const room = element.clientWidth - (Number.parseFloat(style.paddingRight) || 0);
      if (each > 0) setChars(Math.max(8, Math.floor(room / each)));
    };
    const observer = new ResizeObserver(measure);
    observer.observe(element);
    return () => observer.disconnect();
  }, []);
  return [chars, column];
}

function barWidth(row, span) {
  return Math.max((row.duration / span) * 100, 0.4);
}

/** A batch's counts beside its bar, on the side with room: "1 batch · 2 keys" (one row is one batch). */
function BatchCount({ row, span }) {
  const left = (row.start / span) * 100;
  const place = left < 50 ? { left: `${left + barWidth(row, span)}%` } : { right: `${100 - left}%` };
  return (
    <span className="engine-trace-batch-count" style={place}>
      {row.count}
    </span>
  );
}

/**
 * A row's label: a resolver call's path with its field (the end) whole and its parent's path dimmed
 * and cut from the left at a dot when it does not fit, the whole path when hovered; a batch's loader.
 */
function RowLabel({ row, chars }) {
  if (row.kind === 'batch') return <span className="engine-trace-label">{row.label}</span>;
  const { parent, name } = pathLabel(row.label, chars);
  return (
    <span className="engine-trace-label" title={row.label}>
      <span className="engine-trace-label-parent">
        <bdi>{parent}</bdi>
      </span>
      <span className="engine-trace-label-name">{name}</span>
    </span>
  );
}

/** One row per resolver call and per batch, by start time; a batch before the resolvers that start with it. */
function rowsOf(trace) {
  const resolvers = Array.isArray(trace.resolvers) ? trace.resolvers : [];
  const batches = Array.isArray(trace.batches) ? trace.batches : [];
  const rows = [];
  resolvers.forEach((call, index) => {
    const waitedOn = (Array.isArray(call.batches) ? call.batches : []).filter((at) => batches[at] !== undefined);
    const start = Number(call.startNs) || 0;
    const took = Number(call.durationNs) || 0;
    rows.push({
      kind: 'resolver',
      key: `r${index}`,
      links: waitedOn.map((at) => `b${at}`),
      // Its label shows the path's end, and the whole path when hovered (the row's title says the rest).
      label: String(call.path ?? `${call.parentType}.${call.fieldName}`),
      start,
      duration: took,
      title: [
        String(call.path),
        `${call.parentType}.${call.fieldName}: ${call.returnType}`,
        `starts at ${duration(start)}, takes ${duration(took)}${call.promise ? ' (returned a promise)' : ''}`,
        waitedOn.length > 0 ? `waited on: ${waitedOn.map((at) => `${batches[at].loader}, batch #${at}`).join('; ')}` : '',
        call.payload === undefined ? '' : call.payload === null ? 'never delivered (its part failed or was cancelled)' : `delivered in payload ${call.payload}${call.parts?.length > 0 ? ` (part ${call.parts.join(', ')})` : ''}`,
      ]
        .filter(Boolean)
        .join('\n'),
    });
  });
  batches.forEach((batch, index) => {
    const keys = Array.isArray(batch.keys) ? batch.keys : [];
    const waiters = (Array.isArray(batch.waiters) ? batch.waiters : []).filter((at) => resolvers[at] !== undefined);
    const start = Number(batch.startNs) || 0;
    const took = Number(batch.durationNs) || 0;
    rows.push({
      kind: 'batch',
      key: `b${index}`,
      links: waiters.map((at) => `r${at}`),
      label: String(batch.loader),
      // One row is one batch: its key count is said as keys, never as a multiplier that reads as batches.
      count: batchesText(1, keyCount(batch)),
      start,
      duration: took,
      title: [
        `${batch.loader}, batch #${index}: ${batchesText(1, keyCount(batch))}`,
        `keys: ${truncate(JSON.stringify(keys), 200)}`,
        `starts at ${duration(start)}, takes ${duration(took)}`,
        waiters.length > 0 ? `calls that waited on it: ${truncate(waiters.map((at) => resolvers[at].path).join(', '), 300)}` : '',
      ]
        .filter(Boolean)
        .join('\n'),
    });
  });
  return rows.sort((a, b) => a.start - b.start || (a.kind === b.kind ? 0 : a.kind === 'batch' ? -1 : 1));
}

/** `payload 1 at 3.92 ms: delivered books.items.1; completed 2`. */
function payloadTitle(payload, index) {
  const what = [
    Array.isArray(payload.delivered) && payload.delivered.length > 0 ? `delivered ${payload.delivered.map((path) => path || '(root)').join(', ')}` : '',
    Array.isArray(payload.pending) && payload.pending.length > 0 ? `announced ${payload.pending.join(', ')}` : '',
    Array.isArray(payload.completed) && payload.completed.length > 0 ? `completed ${payload.completed.join(', ')}` : '',
  ].filter(Boolean);
  return `payload ${index} at ${duration(Number(payload.atNs) || 0)}${what.length > 0 ? `: ${what.join('; ')}` : ''}`;
}

/** `1 batch`, `3 batches`. */
function counted(count, one, many) {
  return `${count} ${count === 1 ? one : many}`;
}

function truncate(text, length) {
  return text.length <= length ? text : `${text.slice(0, length - 1)}…`;
}

/** The plugin object: one, so that GraphiQL can tell it is the visible one. */
export const tracePlugin = { title: 'Trace', icon: TraceIcon, content: TracePanel };
