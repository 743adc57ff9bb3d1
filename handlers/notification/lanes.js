// Ordering within a batch. Callbacks about the same business id to the same DFSP must reach
// that DFSP in the order they were consumed (a PUT before the PATCH that follows it); nothing
// else needs ordering, so everything else goes out concurrently.
//
// A lane is keyed by (id, to) rather than by id alone: a DFSP can only observe the order of
// the calls it receives, and keying by id alone would make a payee's PATCH wait behind a
// timed-out PUT to a dead payer. The topic is keyed by id, so one id's events come from one
// partition, in order, and the batch holds them in that order.

/** The lane a notification event belongs to. */
export function laneKey(event) {
  return `${event.id}\u0000${event.to}`;
}

/** Splits events into lanes, keeping each lane in batch order; lanes in order of first appearance. */
export function splitIntoLanes(events, keyOf = laneKey) {
  const lanes = new Map();
  for (const event of events) {
    const key = keyOf(event);
    const lane = lanes.get(key);
    if (lane) lane.push(event);
    else lanes.set(key, [event]);
  }
  return [...lanes.values()];
}

/**
 * Runs `work(item)` over every lane: the items of one lane one after another, the lanes all
 * at once. When `work` throws, the rest of that lane is left undone, since those items must
 * not overtake one that did not go out. Resolves, never rejects, to one entry per item that
 * ran, `{ item, result }` or `{ item, error }`, once every lane has ended.
 */
export async function runLanes(lanes, work) {
  const perLane = await Promise.all(lanes.map(async (lane) => {
    const outcomes = [];
    for (const item of lane) {
      try {
        const result = await work(item);
        outcomes.push({ item, result });
      } catch (error) {
        outcomes.push({ item, error });
        break;
      }
    }
    return outcomes;
  }));
  return perLane.flat();
}
