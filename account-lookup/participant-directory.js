// Which DFSPs may use account lookup: active participants of the switch, other than the hub.
// Every request asks about its FSPIOP-Source and often about a destination, so answers are
// kept for a short time; a DFSP deactivated through the admin API is refused within `ttlMs`.

// The names come from request headers, so the cache is bounded: past this many entries it
// starts again empty rather than grow with every name a client invents.
const CACHE_ENTRIES_MAX = 10_000;

/**
 * `findParticipant(name)` resolves to `{ name, isActive }` or null (the participant
 * repository). `isActiveDfsp(name)` resolves to a boolean; concurrent questions about one
 * name share one database read.
 */
export function createParticipantDirectory({ findParticipant, hubName, ttlMs, now = Date.now }) {
  const entries = new Map();

  async function read(name) {
    const participant = await findParticipant(name);
    return Boolean(participant?.isActive) && participant.name !== hubName;
  }

  function isActiveDfsp(name) {
    if (typeof name !== 'string' || name === '') return Promise.resolve(false);
    if (ttlMs === 0) return read(name);
    const cached = entries.get(name);
    if (cached && cached.expiresAt > now()) return cached.answer;
    if (entries.size >= CACHE_ENTRIES_MAX) entries.clear();
    const answer = read(name);
    entries.set(name, { answer, expiresAt: now() + ttlMs });
    // A failed read is not an answer: forget it, so the next request asks again.
    answer.catch(() => entries.delete(name));
    return answer;
  }

  return { isActiveDfsp };
}
