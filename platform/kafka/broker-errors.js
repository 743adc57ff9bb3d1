// When a Kafka client of this process last reported an error. librdkafka reports one each
// time a connection to a broker fails, from producers and consumers alike, so while brokers
// are out of reach the time keeps moving; a consumer's health (consumer.js, healthOf) does
// not count the time nobody could have rejoined a group or delivered a record. One clock for
// the process: a consumer stuck in librdkafka may itself stay silent while the producer
// beside it still reports the outage.
let lastErrorAtMs = 0;

export function noteBrokerError(nowMs = Date.now()) {
  lastErrorAtMs = Math.max(lastErrorAtMs, nowMs);
}

export function lastBrokerErrorAtMs() {
  return lastErrorAtMs;
}
