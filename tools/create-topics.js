#!/usr/bin/env node
// Creates the switch's Kafka topics (auto-create is off on the broker) with the partition
// counts from platform/kafka/topics.js, under the prefix KAFKA_TOPIC_PREFIX.
//
// Idempotent: existing topics are left alone. A topic that exists with FEWER partitions than
// wanted is an error (exit 1): fewer partitions cap the number of consumers and change which
// partition a key lands on, so it must be fixed by hand, never silently accepted. More
// partitions than wanted are reported and accepted.
//
// Env: the Kafka settings of platform/config.js (KAFKA_BROKERS, KAFKA_TOPIC_PREFIX,
//      TOPIC_PARTITIONS_JSON to override partition counts, KAFKA_SECURITY_PROTOCOL and
//      KAFKA_SASL_* for a managed cluster), KAFKA_TOPIC_REPLICATION_FACTOR (default 1),
//      KAFKA_CONNECT_TIMEOUT_MS (default 30000).
import { existsSync } from 'node:fs';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { dirname, join } from 'node:path';
import Kafka from 'node-rdkafka';
import { loadConfig } from '../platform/config.js';
import { librdkafkaSecurity } from '../platform/kafka/security.js';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');
const topicsModule = join(repoRoot, 'platform', 'kafka', 'topics.js');

const { kafka } = loadConfig(process.env, { usesDatabase: false });
const brokers = kafka.brokers;
const prefix = kafka.topicPrefix;
const security = librdkafkaSecurity(kafka.security);
const replicationFactor = Number(process.env.KAFKA_TOPIC_REPLICATION_FACTOR || 1);
const connectTimeoutMs = Number(process.env.KAFKA_CONNECT_TIMEOUT_MS || 30000);
const requestTimeoutMs = 15000;

const say = (message) => console.log(`[create-topics] ${message}`);

/** Connects a producer only to read cluster metadata (node-rdkafka's AdminClient can't). */
async function connectMetadataClient() {
  const producer = new Kafka.Producer({
    'metadata.broker.list': brokers,
    ...security,
    'client.id': 'fspiop-create-topics',
    'socket.connection.setup.timeout.ms': connectTimeoutMs,
  });
  await new Promise((resolve, reject) => {
    producer.connect({ timeout: connectTimeoutMs }, (err) => (err ? reject(err) : resolve()));
  });
  return producer;
}

/** Map of topic name → partition count, for all topics on the broker. */
async function readPartitionCounts(producer) {
  const metadata = await new Promise((resolve, reject) => {
    producer.getMetadata({ allTopics: true, timeout: requestTimeoutMs }, (err, data) =>
      (err ? reject(err) : resolve(data)));
  });
  return new Map(metadata.topics.map((topic) => [topic.name, topic.partitions.length]));
}

function createTopic(admin, { name, partitions }) {
  return new Promise((resolve, reject) => {
    admin.createTopic(
      { topic: name, num_partitions: partitions, replication_factor: replicationFactor },
      requestTimeoutMs,
      (err) => {
        // Someone else created it between our metadata read and now: checked again below.
        if (err && err.code !== Kafka.CODES.ERRORS.ERR_TOPIC_ALREADY_EXISTS) reject(err);
        else resolve();
      },
    );
  });
}

/** Returns the problems found (topics missing or with too few partitions). */
function compare(wanted, existing) {
  const problems = [];
  for (const { name, partitions } of wanted) {
    const actual = existing.get(name);
    if (actual === undefined) problems.push({ name, wanted: partitions, actual: 0 });
    else if (actual < partitions) problems.push({ name, wanted: partitions, actual });
  }
  return problems;
}

async function main() {
  if (!existsSync(topicsModule)) {
    say(`WARNING: ${topicsModule} does not exist yet; no topics created`);
    return 0;
  }
  const { topicDefinitions } = await import(pathToFileURL(topicsModule).href);
  const wanted = topicDefinitions(prefix, kafka.topicPartitions);

  const producer = await connectMetadataClient();
  const admin = Kafka.AdminClient.create({
    'metadata.broker.list': brokers,
    ...security,
    'client.id': 'fspiop-create-topics-admin',
  });
  try {
    const existing = await readPartitionCounts(producer);
    const tooFew = compare(wanted, existing).filter((p) => p.actual > 0);
    for (const { name, wanted: want, actual } of tooFew) {
      console.error(`[create-topics] ERROR: topic ${name} has ${actual} partitions, ${want} wanted`);
    }
    if (tooFew.length > 0) {
      console.error('[create-topics] delete those topics (or the Kafka data dir) and run again');
      return 1;
    }
    for (const topic of wanted) {
      const actual = existing.get(topic.name);
      if (actual === undefined) {
        await createTopic(admin, topic);
        say(`created ${topic.name} (${topic.partitions} partitions)`);
      } else if (actual > topic.partitions) {
        say(`${topic.name} exists with ${actual} partitions (${topic.partitions} wanted): kept`);
      } else {
        say(`${topic.name} exists (${actual} partitions)`);
      }
    }
    return await verify(producer, wanted);
  } finally {
    admin.disconnect();
    await new Promise((resolve) => producer.disconnect(resolve));
  }
}

/** New topics take a moment to appear in metadata; wait for them, then check once more. */
async function verify(producer, wanted) {
  const deadline = Date.now() + requestTimeoutMs;
  let problems;
  do {
    problems = compare(wanted, await readPartitionCounts(producer));
    if (problems.length === 0) return 0;
    await new Promise((resolve) => setTimeout(resolve, 200));
  } while (Date.now() < deadline);
  for (const { name, wanted: want, actual } of problems) {
    console.error(`[create-topics] ERROR: topic ${name} has ${actual} partitions, ${want} wanted`);
  }
  return 1;
}

main().then(
  (code) => { process.exitCode = code; },
  (err) => {
    console.error(`[create-topics] ERROR: ${err.message ?? err} (brokers ${brokers})`);
    process.exitCode = 1;
  },
);
