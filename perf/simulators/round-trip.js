// The payer's half of one FSPIOP exchange: send a request to the switch as the payer DFSP
// (signed, fspiop.js) and wait for the switch's callback under its correlation key
// (correlator.js), resending a request whose fate is unknown. Shared by the plain payment
// (bridge.js) and the conversion payment (conversion.js).
import { sendAs } from './fspiop.js';

// Answers after which the switch may still hold the request: 503 (2003, "could not be
// stored; retry") comes when Kafka did not acknowledge in time, yet librdkafka may deliver the
// record later (before the edge waited as long as the producer may deliver); 0 is a
// connection lost before any answer. A payer must not take either as a
// refusal: it resends the same request (same id and body, which the switch recognises as a
// duplicate) until it is accepted or the callback arrives.
const UNKNOWN_FATE = new Set([0, 503]);
export const RESEND_INTERVAL_MS = 1_000;
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends `request` to the switch and waits for the callback under `key`. An answer of unknown
 * fate is followed by the same request again (UNKNOWN_FATE): the switch takes a request it
 * already holds as a duplicate (a lookup asked again, a quote or transfer resent). Any other
 * answer but 202 settles the wait as a failure at once. With `countResent` (transfers and fx
 * transfers) the copies the switch may have stored beyond the first are counted as resent.
 */
export async function roundTrip(context, key, request, { countResent = false, waitMs = context.config.callbackTimeoutMs } = {}) {
  let settled = false;
  let reached = 0;
  const waiting = context.correlator.wait(key, waitMs).finally(() => { settled = true; });
  for (;;) {
    const sent = await sendAs(context.config, request.headers['fspiop-source'], request.url, request.method, request.headers, request.body);
    if (mayHaveBeenStored(sent)) reached += 1;
    // The copy that the socket reset cut off may have been stored as well.
    if (sent.resentOnReset) reached += 1;
    if (sent.status === 202) break;
    if (!UNKNOWN_FATE.has(sent.status)) {
      context.correlator.settle(key, { error: `switch answered ${sent.status}`, body: sent.text });
      break;
    }
    await sleep(RESEND_INTERVAL_MS);
    if (settled) break;
  }
  // Every copy beyond the first that the switch may have stored is a duplicate record. Only
  // those of transfers and fx transfers are counted: the gate sets them against the prepare
  // topic, which both travel.
  if (countResent) context.counters.resent += Math.max(0, reached - 1);
  return waiting;
}

/**
 * Whether the switch may have produced the request: it was accepted, or the connection was
 * lost after the request went out. A refused connection, or a 503 ("not stored"), was not.
 */
function mayHaveBeenStored(sent) {
  return sent.status === 202 || (sent.status === 0 && !/ECONNREFUSED/.test(sent.text));
}
