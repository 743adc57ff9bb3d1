// The public keys DFSPs sign their FSPIOP messages with (not a central-ledger route:
// Mojaloop keeps JWS keys outside the ledger, in its connection manager). A PUT names the
// whole set, one key or two during a rotation, so registering a new key beside the old and
// later dropping the old are both one idempotent call. The hub's own key is read-only here:
// it is published from the file the hub signs with (JWS_HUB_PUBLIC_KEY_PATH).
import { bodyRoute, jsonResponse } from '../../platform/http/server.js';
import { OPERATOR_SCOPE, admitAlso } from '../../platform/http/operator-auth.js';
import { FAILURE, failure, isFailure } from '../../platform/domain/failures.js';
import { describePublicKey } from '../../platform/fspiop/jws.js';
import { listJwsKeys, replaceJwsKeys } from '../repositories/jws-keys.js';
import { failureResponse, resolveParticipant } from './route-helpers.js';
import { validators } from './schemas.js';

const keyView = ({ keyId, publicKey, createdAt }) => ({ keyId, publicKey, ...(createdAt ? { createdDate: createdAt } : {}) });

/** The keys of a PUT body as `[{ keyId, publicKey }]`, or the failure naming the first unusable one. */
function describeKeys(pems) {
  const keys = [];
  for (const [index, pem] of pems.entries()) {
    const described = describePublicKey(pem);
    if (described.problem) return failure(FAILURE.validation, `keys/${index}: ${described.problem}`);
    if (!keys.some((key) => key.keyId === described.keyId)) keys.push(described);
  }
  return keys;
}

/** `hubPublicKey` is the hub's published PEM public key, or undefined when the hub does not sign. */
export function jwsKeyRoutes({ db, config, clock, hubPublicKey }) {
  async function putKeys(request, h, body) {
    const participant = await resolveParticipant(db, request);
    if (isFailure(participant)) return failureResponse(h, participant);
    if (participant.name === config.hubName) return failureResponse(h, failure(FAILURE.validation, 'the hub publishes its key from its signing key file'));
    const keys = describeKeys(body.keys);
    if (isFailure(keys)) return failureResponse(h, keys);
    await replaceJwsKeys(db, participant.id, keys, { createdBy: 'admin-api', now: clock() });
    return jsonResponse(h, (await listJwsKeys(db, participant.id)).map(keyView));
  }

  async function getKeys(request, h) {
    const participant = await resolveParticipant(db, request);
    if (isFailure(participant)) return failureResponse(h, participant);
    if (participant.name === config.hubName) {
      return jsonResponse(h, hubPublicKey ? [keyView(describePublicKey(hubPublicKey))] : []);
    }
    return jsonResponse(h, (await listJwsKeys(db, participant.id)).map(keyView));
  }

  return [
    bodyRoute('PUT', '/participants/{name}/jwsKeys', validators.jwsKeys, putKeys),
    // The edges verify DFSP signatures with these keys, holding only the DFSP directory token.
    admitAlso({ method: 'GET', path: '/participants/{name}/jwsKeys', handler: getKeys }, [OPERATOR_SCOPE.dfspDirectoryRead]),
  ];
}
