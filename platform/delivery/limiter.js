// Bounded concurrency per key (per DFSP), with a bounded queue behind it. Each DFSP gets its
// own slots, so a DFSP whose calls hang fills only its own slots and queue; calls to every
// other DFSP start at once.

/** The queue of one key is full; the caller decides what that means for its task. */
export class QueueFullError extends Error {
  constructor(key, queueMax) {
    super(`more than ${queueMax} calls are waiting for ${key}`);
    this.name = 'QueueFullError';
    this.code = 'QUEUE_FULL';
  }
}

/**
 * `run(key, task)` starts `task()` when fewer than `maxInFlight` tasks of that key are
 * running, queues it (first in, first out) when not, and rejects with QueueFullError when
 * `queueMax` tasks are already waiting. Resolves or rejects as the task does.
 */
export function createKeyedLimiter({ maxInFlight, queueMax }) {
  const states = new Map();

  function release(key, state) {
    state.active -= 1;
    const next = state.queue.shift();
    if (next) next();
    else if (state.active === 0) states.delete(key);
  }

  function run(key, task) {
    let state = states.get(key);
    if (!state) {
      state = { active: 0, queue: [] };
      states.set(key, state);
    }
    const start = () => {
      state.active += 1;
      return Promise.resolve().then(task).finally(() => release(key, state));
    };
    if (state.active < maxInFlight) return start();
    if (state.queue.length >= queueMax) return Promise.reject(new QueueFullError(key, queueMax));
    return new Promise((resolve, reject) => {
      state.queue.push(() => start().then(resolve, reject));
    });
  }

  return {
    run,
    /** How many tasks of `key` are running and waiting (for tests and diagnostics). */
    load: (key) => ({ active: states.get(key)?.active ?? 0, queued: states.get(key)?.queue.length ?? 0 }),
  };
}
