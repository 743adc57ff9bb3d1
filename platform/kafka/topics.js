// The switch's Kafka topics, defined once: the local topic-creation script, the services and
// the Helm topic Job all read this list. Partition counts are the local (one machine) defaults.

export const TOPIC = Object.freeze({
  transferPrepare: 'topic-transfer-prepare',
  transferFulfil: 'topic-transfer-fulfil',
  transferPositionBatch: 'topic-transfer-position-batch',
  notificationEvent: 'topic-notification-event',
  notificationRetry: 'topic-notification-retry',
  quotesPost: 'topic-quotes-post',
  quotesPut: 'topic-quotes-put',
  // Results of the individual transfers of a bulk, keyed by bulkTransferId (handlers/bulk/).
  bulkProcessing: 'topic-bulk-processing',
});

/** The handlers that consume topics, each with a dead-letter topic of its own. */
export const DEAD_LETTER_HANDLERS = Object.freeze(['prepare', 'position', 'fulfil', 'quoting-handler', 'notification', 'bulk']);

/** The base name of a handler's dead-letter topic (platform/kafka/dead-letters.js). */
export function deadLetterTopicBase(handler) {
  if (!DEAD_LETTER_HANDLERS.includes(handler)) throw new Error(`${handler} has no dead-letter topic`);
  return `topic-dead-letter-${handler}`;
}

const LOCAL_PARTITIONS = Object.freeze({
  [TOPIC.transferPrepare]: 4,
  [TOPIC.transferFulfil]: 4,
  [TOPIC.transferPositionBatch]: 4,
  [TOPIC.notificationEvent]: 4,
  [TOPIC.notificationRetry]: 4,
  [TOPIC.quotesPost]: 4,
  [TOPIC.quotesPut]: 4,
  [TOPIC.bulkProcessing]: 4,
  // Dead letters are rare and read by an operator, in order: one partition each.
  ...Object.fromEntries(DEAD_LETTER_HANDLERS.map((handler) => [deadLetterTopicBase(handler), 1])),
});

/** The name a topic has on the broker: a prefix lets test runs use topics of their own. */
export function topicName(prefix, baseName) {
  return `${prefix}${baseName}`;
}

/**
 * Every topic with the partitions it must have, under the given prefix; `partitions` maps
 * base names to counts that replace the local defaults (a cluster's, from TOPIC_PARTITIONS_JSON).
 */
export function topicDefinitions(prefix = '', partitions = {}) {
  return Object.entries(LOCAL_PARTITIONS).map(([baseName, localPartitions]) => ({
    name: topicName(prefix, baseName),
    partitions: partitions[baseName] ?? localPartitions,
  }));
}
