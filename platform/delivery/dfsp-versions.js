// Which FSPIOP version a DFSP takes, for the calls the hub makes in its own name
// (handlers/README.md, "Versions"). The producing handler names the version on the event when
// the call answers a message of its receiver (`callback.version`, from that message's
// Content-Type and Accept). Otherwise (an expiry, a payee told of an abort it did not ask
// about) the process calling DFSPs remembers the version each DFSP last sent each resource in,
// learnt from the forwards it delivers, held in memory only; a DFSP it has not heard from is
// spoken to in the scheme's default (FSPIOP_VERSION_DEFAULT). Nothing is written per request.
import { answerVersionOf, defaultVersionOf, SCHEME_VERSION_DEFAULT } from '../fspiop/versions.js';

/** DFSP and resource pairs remembered; past it the memory starts over (a scheme has far fewer). */
export const REMEMBERED_VERSIONS_MAX = 10_000;

/** PATCH /transfers/{ID} exists from 1.1 on: a receiver asking for 1.0 gets the PATCH in 1.1. */
function versionForMethod(version, method) {
  return method === 'PATCH' && version === '1.0' ? '1.1' : version;
}

/**
 * Creates the memory. `schemeDefault` is FSPIOP_VERSION_DEFAULT. `learn(event)` records the
 * version of a forward's sender; `versionFor(event)` is the version a hub call is sent in.
 */
export function createDfspVersions({ schemeDefault = SCHEME_VERSION_DEFAULT, entriesMax = REMEMBERED_VERSIONS_MAX } = {}) {
  const lastSent = new Map();
  const keyOf = (fsp, resource) => `${fsp}\u0000${resource}`;
  return {
    learn(event) {
      const { resource } = event.callback;
      const version = answerVersionOf(event.headers, resource);
      if (!version || typeof event.from !== 'string') return;
      const key = keyOf(event.from, resource);
      if (lastSent.get(key) === version) return;
      if (lastSent.size >= entriesMax) lastSent.clear();
      lastSent.set(key, version);
    },
    versionFor(event) {
      const { resource, method, version } = event.callback;
      const known = version ?? lastSent.get(keyOf(event.to, resource)) ?? defaultVersionOf(resource, schemeDefault);
      return versionForMethod(known, method);
    },
  };
}
