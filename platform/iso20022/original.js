// How a message that arrived in ISO 20022 keeps its original on its way through the switch.
// The edge converts an ISO 20022 request into the FSPIOP form the handlers decide on, and that
// form is the event's `body` (with no `rawBody`: the envelope holds `body` to be the parse of
// `rawBody`, platform/kafka/envelope.js). The bytes the DFSP sent and signed travel with the
// message's headers under one internal name, so that every path that already carries a DFSP's
// headers on to a forward (the transfer and quote records, a stored quote answer) carries the
// original with them. The name is the switch's own and is never sent to a DFSP
// (platform/delivery/callback-request.js strips it).

/** The internal header holding an ISO 20022 message's body text exactly as its sender sent it. */
export const ORIGINAL_BODY_HEADER = 'switch-internal-original-body';

/** The ISO 20022 body text a forwarded message arrived with, or undefined for an FSPIOP one. */
export function originalBodyOf(headers) {
  const value = headers?.[ORIGINAL_BODY_HEADER];
  return typeof value === 'string' ? value : undefined;
}
