// A small factory for node-rdkafka's AdminClient, plus promise wrappers for the two calls
// tests and the topic script need. Auto-create is off on our brokers, so topics are always
// made explicitly, with their partition counts.
import Kafka from 'node-rdkafka';
import { librdkafkaSecurity } from './security.js';

const ADMIN_TIMEOUT_MS = 30_000;

/** node-rdkafka's AdminClient (callback API), connected to the configured brokers. */
export function createAdminClient(kafkaConfig) {
  return Kafka.AdminClient.create({
    'bootstrap.servers': kafkaConfig.brokers,
    ...librdkafkaSecurity(kafkaConfig.security),
    'client.id': `${kafkaConfig.clientId}-admin`,
  });
}

/** Creates a topic; replication 1 suits the one-broker local cluster. */
export function createTopic(admin, { topic, partitions, replicationFactor = 1, config }) {
  return new Promise((resolve, reject) => {
    const definition = { topic, num_partitions: partitions, replication_factor: replicationFactor };
    if (config) definition.config = config;
    admin.createTopic(definition, ADMIN_TIMEOUT_MS, (error) => (error ? reject(error) : resolve()));
  });
}

/** Deletes a topic; a topic that is already gone counts as deleted. */
export function deleteTopic(admin, topic) {
  return new Promise((resolve, reject) => {
    admin.deleteTopic(topic, ADMIN_TIMEOUT_MS, (error) => {
      if (error && error.code !== Kafka.CODES.ERRORS.ERR_UNKNOWN_TOPIC_OR_PART) reject(error);
      else resolve();
    });
  });
}
