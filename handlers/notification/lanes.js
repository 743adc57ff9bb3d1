// Ordering. Callbacks about the same business id to the same DFSP must reach that DFSP in
// the order they were consumed (a PUT before the PATCH that follows it); nothing else needs
// ordering, so everything else goes out concurrently.
//
// A lane is keyed by (id, to) rather than by id alone: a DFSP can only observe the order of
// the calls it receives, and keying by id alone would make a payee's PATCH wait behind a
// timed-out PUT to a dead payer. The topic is keyed by id, so one id's events come from one
// partition, in order. The consumer hands over later batches while earlier ones are still
// being delivered, so lanes outlive batches: the scheduler keeps each lane's tail.

/** The lane a notification event belongs to. */
export function laneKey(event) {
  return `${event.id}\u0000${event.to}`;
}

/**
 * A scheduler of lanes across batches: `run(item)` starts `work(item)` after every earlier
 * item of the same lane has ended, and resolves to `{ item, result }` or `{ item, error }`
 * (it never rejects). When an item throws, the items queued behind it in its lane are not
 * started (they must not overtake it); they resolve as `{ item, error }` too, so their batch
 * fails and is redelivered. A lane is forgotten once its last item has ended.
 */
export function createLaneScheduler(work, keyOf = laneKey) {
  const tails = new Map();
  return function run(item) {
    const key = keyOf(item);
    const previous = tails.get(key) ?? Promise.resolve({ ok: true });
    const current = previous.then(async (before) => {
      if (!before.ok) return { ok: false, outcome: { item, error: before.error } };
      try {
        return { ok: true, outcome: { item, result: await work(item) } };
      } catch (error) {
        return { ok: false, error, outcome: { item, error } };
      }
    });
    tails.set(key, current);
    current.then(() => { if (tails.get(key) === current) tails.delete(key); });
    return current.then((settled) => settled.outcome);
  };
}

/** Runs a batch through the scheduler; resolves once every item of the batch has ended. */
export function runInLanes(items, run) {
  return Promise.all(items.map((item) => run(item)));
}
