// When the switch's edge accepted a DFSP's request. The edge stamps the event's `at` from the
// moment the HTTP request arrived (platform/fspiop/edge.js edgeEvent); no DFSP can set it, so
// the switch may judge a request's timeliness by it rather than by when a handler got round
// to the event.

/**
 * The event's `at` as a Date, or `now` for an event without one, or with one later than `now`
 * (the edge's host clock ahead of the handler's). Expiry is judged at this instant: a request
 * that was in time when the DFSP sent it is not refused because it waited in Kafka, behind a
 * slow batch or a restarting handler.
 */
export function receivedAtOf(event, now) {
  return Number.isSafeInteger(event.at) && event.at <= now.getTime() ? new Date(event.at) : now;
}
