/**
 * The Trace panel's plan, drawn: the operation as a tree of its fields (planOf.ts joins the trace's
 * selection sets, calls and batches), each with how it was resolved, how many calls it made and,
 * under it, the batches its calls waited on with their level, keys and time; over it, what the
 * operation cost (the response's `extensions.cost`); under it, the batches level by level.
 *
 * Why a tree and not the trace's JSON: a learner reads the operation they wrote, in the README's
 * words (resolver, plain read, batch, level, cost), not the executor's member names.
 */
import { useMemo } from 'react';
import { planOf } from './planOf.ts';
import { batchesText, duration } from './words.ts';

/** `authorById, 1 batch · 2 keys, 5.2 µs`. */
function loadText(load) {
  return `${load.loader}, ${batchesText(load.batches, load.keys)}, ${duration(load.ns)}`;
}

/** The operation and what it cost: `query Books · cost 8 (estimated 8, limit 1000)`. */
function headline(plan, cost) {
  const name = `${plan?.operation ?? 'operation'} ${plan?.name ?? '(anonymous)'}`;
  if (cost === null || typeof cost !== 'object' || typeof cost.requested !== 'number') return name;
  const actual = typeof cost.actual === 'number' ? `cost ${cost.actual} as run, estimated ${cost.requested}` : `cost estimated ${cost.requested}`;
  return `${name} · ${actual}${typeof cost.limit === 'number' ? `, limit ${cost.limit}` : ''}`;
}

export function PlanTree({ trace, cost }) {
  const { root, levels } = useMemo(() => planOf(trace), [trace]);
  return (
    <div className="engine-trace-plan">
      <p className="engine-trace-plan-headline">{headline(trace.plan, cost)}</p>
      {root.map((set) => (
        <SetNode key={set.type} set={set} heading={set.type} />
      ))}
      <div className="engine-trace-heading">Batches by level</div>
      {levels.length === 0 ? (
        <p className="engine-trace-note">None: no resolver call waited on a loader.</p>
      ) : (
        <ul className="engine-trace-levels">
          {levels.map(({ level, loads }) => (
            <li key={level}>
              level {level}: {loads.map(loadText).join('; ')}
            </li>
          ))}
        </ul>
      )}
      <p className="engine-trace-note">
        resolver: its resolver was called (the rows above) · plain read: the value was read off the parent object, no call · default resolver:
        read off the parent object, then completed. A level&apos;s batches go out once the level above has answered.
      </p>
    </div>
  );
}

/** One selection set: its type (`on Author` for each type of an interface or union), then its fields. */
function SetNode({ set, heading }) {
  return (
    <div className="engine-trace-set">
      <span className="engine-trace-set-type">{heading}</span>
      <ul className="engine-trace-tree">
        {set.fields.map((field) => (
          <FieldNode key={field.name} field={field} />
        ))}
      </ul>
    </div>
  );
}

function FieldNode({ field }) {
  const details = [field.how];
  if (field.calls > 0) details.push(`${field.calls} ${field.calls === 1 ? 'call' : 'calls'}`);
  if (field.merged) details.push('merged from several selections');
  return (
    <li>
      <span className="engine-trace-plan-field" title={field.path} data-how={field.how}>
        <b>{field.name}</b>
        {field.type === null ? '' : `: ${field.type}`} · {details.join(' · ')}
      </span>
      {field.loads.map((load) => (
        <div key={load.loader} className="engine-trace-plan-batch">
          level {field.level}: {loadText(load)}
        </div>
      ))}
      {field.children.map((set) => (
        <SetNode key={set.type} set={set} heading={field.children.length > 1 ? `on ${set.type}` : set.type} />
      ))}
    </li>
  );
}
