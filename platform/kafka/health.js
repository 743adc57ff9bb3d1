// The Kafka check behind /health. librdkafka reconnects by itself and a producer's
// "connected" flag stays true while every broker is down, so the check asks the cluster for
// the metadata of the topic this edge produces to: it answers only when a broker is
// reachable and the topic exists, which is what a produce needs.
import Kafka from 'node-rdkafka';
import { librdkafkaSecurity } from './security.js';

const CONNECT_TIMEOUT_MS = 30_000;

export function createKafkaProbe({ kafka, topic, timeoutMs = 2_000 }) {
  const client = new Kafka.Producer({ 'bootstrap.servers': kafka.brokers, 'client.id': `${kafka.clientId}-health`, ...librdkafkaSecurity(kafka.security) });
  return {
    connect() {
      return new Promise((resolve, reject) => {
        client.connect({ timeout: CONNECT_TIMEOUT_MS }, (error) => (error ? reject(error) : resolve()));
      });
    },
    /** 'OK' when the topic's metadata came back with partitions, 'DOWN' otherwise. */
    check() {
      return new Promise((resolve) => {
        if (!client.isConnected()) { resolve('DOWN'); return; }
        client.getMetadata({ topic, timeout: timeoutMs }, (error, metadata) => {
          const found = !error && metadata.topics.some((entry) => entry.name === topic && entry.partitions.length > 0);
          resolve(found ? 'OK' : 'DOWN');
        });
      });
    },
    disconnect() {
      return new Promise((resolve) => {
        if (!client.isConnected()) { resolve(); return; }
        client.disconnect(() => resolve());
      });
    },
  };
}
