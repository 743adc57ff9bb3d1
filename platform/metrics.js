import client from 'prom-client';

/**
 * A Prometheus registry per process with the default Node metrics and an HTTP request
 * histogram labelled by route template (bounded), method and status.
 */
export function createMetrics({ serviceName }) {
  const registry = new client.Registry();
  registry.setDefaultLabels({ service: serviceName });
  client.collectDefaultMetrics({ register: registry });
  const httpRequestDuration = new client.Histogram({
    name: 'http_request_duration_seconds',
    help: 'Time to answer an HTTP request, by route template, method and status code.',
    labelNames: ['route', 'method', 'status'],
    buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  });
  return { registry, client, httpRequestDuration };
}

/**
 * The registry's metric named `spec.name`, made on first use: several parts of one process
 * (two consumers, two edges' routes) may ask for the same one, and prom-client refuses a second.
 */
export function metricOnce(metrics, Type, spec) {
  return metrics.registry.getSingleMetric(spec.name) ?? new Type({ ...spec, registers: [metrics.registry] });
}

/**
 * Kafka consumer lag of one handler's consumer, per topic, read at scrape time (see
 * lagByTopic in kafka/consumer.js). Summed over replicas in PromQL it is the handler's
 * backlog; the chart's lag alert and KEDA's scaler look at the same quantity.
 */
export function registerConsumerLag(metrics, { handler, consumer }) {
  return new metrics.client.Gauge({
    name: 'kafka_consumer_lag_messages',
    help: 'Messages on the partitions this consumer owns that it has not consumed yet, by handler and topic.',
    labelNames: ['handler', 'topic'],
    registers: [metrics.registry],
    collect() {
      this.reset();
      for (const [topic, lag] of consumer.lagByTopic()) this.set({ handler, topic }, lag);
    },
  });
}
