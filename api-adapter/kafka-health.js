// Moved to platform/kafka/health.js; kept until every edge imports it from there.
export { createKafkaProbe } from '../platform/kafka/health.js';
