// What every relayed resource of the quoting context (/quotes, /fxQuotes, /bulkQuotes) shares:
// a batch of events decided in order against the stored records, and how a redelivered Kafka
// record is told from a DFSP's resend.

/**
 * Runs `deciders[event.action](event, stored, context)` over `events` in order. `records`:
 * id → stored record; `idOf(record)` names a record's id. Later events of the batch see what
 * earlier ones decided: a record inserted by this batch is inserted once with its latest
 * content, a stored one updated once with every change. Returns records to insert,
 * `{ id, changes }` to apply to stored ones, outcomes, and events with an unknown action.
 */
export function decideBatch({ events, records, deciders, context, idOf }) {
  const rows = new Map([...records].map(([id, record]) => [id, { record, isNew: false, changes: null }]));
  const outcomes = [];
  const unknown = [];
  for (const event of events) {
    const decide = deciders[event.action];
    if (!decide) { unknown.push(event); continue; }
    const step = decide(event, rows.get(event.id)?.record, context);
    outcomes.push(...step.outcomes);
    if (step.insert) rows.set(event.id, { record: step.insert, isNew: true, changes: {} });
    if (step.update) {
      const row = rows.get(event.id);
      Object.assign(row, { record: { ...row.record, ...step.update }, changes: { ...row.changes, ...step.update } });
    }
  }
  const changed = [...rows.values()].filter((row) => row.changes !== null);
  return {
    inserts: changed.filter((row) => row.isNew).map((row) => row.record),
    updates: changed.filter((row) => !row.isNew).map((row) => ({ id: idOf(row.record), changes: row.changes })),
    outcomes,
    unknown,
  };
}

// A redelivered Kafka record is the very record the edge produced, so it carries the same
// acceptance time; a DFSP's resend is a new record accepted later.
export const isRedelivery = (event, at) => typeof event.at === 'number' && event.at === at;

/** A DFSP's message as kept when messages are persisted: its headers and body text, byte for byte. */
export const keptMessage = (event) => ({ headers: event.headers ?? {}, rawBody: event.rawBody ?? JSON.stringify(event.body) });

/** An answer as kept when answers are persisted: the DFSP's message, with its condition and error code. */
export function answerRecord(event) {
  return {
    ...keptMessage(event),
    condition: event.body?.condition ?? null,
    errorCode: event.body?.errorInformation?.errorCode ?? null,
  };
}
