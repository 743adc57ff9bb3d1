// The callback allow-list of the local runtime (scripts/env.sh): the DFSPs of every test, the
// demo and the simulators listen on loopback, which a switch refuses to call unless told.
import { createDestinationPolicy, parseCidrList } from '../../platform/delivery/callback-destinations.js';

export const LOOPBACK_CIDRS = '127.0.0.0/8,::1/128';

/** The environment a switch process under test needs to call DFSPs on loopback. */
export const LOOPBACK_CALLBACK_ENV = Object.freeze({ CALLBACK_ALLOWED_CIDRS: LOOPBACK_CIDRS });

/** The destination policy of a deliverer made in a test process, whose DFSPs listen on loopback. */
export function loopbackDestinations() {
  return createDestinationPolicy({ allowedCidrs: parseCidrList(LOOPBACK_CIDRS) });
}
