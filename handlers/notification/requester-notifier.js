// The notification handler's side of a forward that did not reach its DFSP: the requester's
// error (platform/delivery/requester-errors.js says which, and why the forward is not retried)
// goes to the main topic as a notification event of the hub's own, so it is delivered, signed
// and retried as any hub callback.
import { encodeEvent } from '../../platform/kafka/envelope.js';
import { requesterErrorEvent } from '../../platform/delivery/requester-errors.js';

/**
 * `tell(outcomes)` produces the requester's error for every `{ item: event, result }` whose
 * forward was not delivered, and resolves once the broker has them (acks=all), so that the
 * batch they came from may then be committed.
 */
export function createRequesterNotifier({ producer, topic, hubName, metrics }) {
  return async function tell(outcomes) {
    const records = [];
    for (const { item: event, result } of outcomes) {
      const error = requesterErrorEvent(event, result, hubName);
      if (!error) continue;
      records.push({ topic, key: event.id, value: encodeEvent(error) });
      metrics.requesterErrors.inc({ code: error.body.errorInformation.errorCode });
    }
    if (records.length > 0) await producer.produce(records);
  };
}
