// Kafka settings from the environment: managed-cluster security and partition overrides.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../platform/config.js';
import { librdkafkaSecurity } from '../../platform/kafka/security.js';
import { topicDefinitions } from '../../platform/kafka/topics.js';

const load = (env) => loadConfig(env, { usesDatabase: false });

test('plaintext adds no client settings; SASL/SCRAM over TLS adds librdkafka\'s', () => {
  assert.deepEqual(librdkafkaSecurity(load({}).kafka.security), {});
  const msk = load({ KAFKA_SECURITY_PROTOCOL: 'sasl_ssl', KAFKA_SASL_USERNAME: 'switch', KAFKA_SASL_PASSWORD: 's3cret', KAFKA_SSL_CA_LOCATION: '/ca.pem' });
  assert.deepEqual(librdkafkaSecurity(msk.kafka.security), {
    'security.protocol': 'sasl_ssl', 'sasl.mechanisms': 'SCRAM-SHA-512', 'sasl.username': 'switch', 'sasl.password': 's3cret', 'ssl.ca.location': '/ca.pem',
  });
});

test('a SASL protocol without its password, or an unknown protocol, stops at start-up', () => {
  assert.throws(() => load({ KAFKA_SECURITY_PROTOCOL: 'sasl_ssl', KAFKA_SASL_USERNAME: 'switch' }), /KAFKA_SASL_PASSWORD is required/);
  assert.throws(() => load({ KAFKA_SECURITY_PROTOCOL: 'tls' }), ConfigError);
});

test('TOPIC_PARTITIONS_JSON overrides partition counts, and refuses unknown topics or bad counts', () => {
  const { kafka } = load({ TOPIC_PARTITIONS_JSON: '{"topic-transfer-position-batch": 8}' });
  const definitions = topicDefinitions('', kafka.topicPartitions);
  assert.equal(definitions.find((topic) => topic.name === 'topic-transfer-position-batch').partitions, 8);
  assert.equal(definitions.find((topic) => topic.name === 'topic-transfer-prepare').partitions, 4);
  assert.throws(() => load({ TOPIC_PARTITIONS_JSON: '{"topic-nope": 2}' }), /unknown topic/);
  assert.throws(() => load({ TOPIC_PARTITIONS_JSON: '{"topic-transfer-prepare": 0}' }), /positive/);
  assert.throws(() => load({ TOPIC_PARTITIONS_JSON: '{' }), /not JSON/);
});
