// Which DFSPs may use account lookup: active participants of the switch, other than the hub.
// Every request asks about its FSPIOP-Source and often about a destination, so answers are
// kept for a short time; a DFSP deactivated through the admin API is refused within `ttlMs`.
import { createTtlCache } from '../platform/ttl-cache.js';

/**
 * `findParticipant(name)` resolves to `{ name, isActive }` or null (the participant
 * repository). `isActiveDfsp(name)` resolves to a boolean; concurrent questions about one
 * name share one database read.
 */
export function createParticipantDirectory({ findParticipant, hubName, ttlMs, now = Date.now }) {
  const cache = createTtlCache({ ttlMs, now });

  async function read(name) {
    const participant = await findParticipant(name);
    return Boolean(participant?.isActive) && participant.name !== hubName;
  }

  function isActiveDfsp(name) {
    if (typeof name !== 'string' || name === '') return Promise.resolve(false);
    return cache.get(name, read);
  }

  return { isActiveDfsp };
}
