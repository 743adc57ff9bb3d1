import pino from 'pino';

/** One structured logger per process; children carry the component name. */
export function createLogger({ serviceName, logLevel, replicaIndex }) {
  return pino({
    level: logLevel,
    base: { service: serviceName, replica: replicaIndex },
    timestamp: pino.stdTimeFunctions.isoTime,
  });
}
