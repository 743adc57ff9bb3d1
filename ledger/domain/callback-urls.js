// Which callback endpoints a DFSP may register. The rules for a URL are the shared kernel's
// (platform/domain/callback-urls.js), which the deliverer applies again to every URL it is about
// to call; what the ledger adds is which endpoint types are URLs at all.
import { callbackUrlProblem } from '../../platform/domain/callback-urls.js';
import { URL_ENDPOINT_TYPES } from './participants.js';

// Only the URL types are checked here: an e-mail address or a Kafka topic name is never a
// request the switch makes, and the admin API's schema checks those values for what they are.
const URL_TYPES = new Set(URL_ENDPOINT_TYPES);

/**
 * Why a callback endpoint may not be registered, or undefined when it may.
 * `allowLinkLocal` is CALLBACK_URL_ALLOW_LINK_LOCAL (a lab only).
 */
export function callbackEndpointProblem({ type, value }, { allowLinkLocal = false } = {}) {
  if (!URL_TYPES.has(type)) return undefined;
  const problem = callbackUrlProblem(value, { allowLinkLocal });
  return problem && `${type} ${problem.reason}`;
}
