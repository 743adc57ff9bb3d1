// librdkafka's connection settings for the configured security (config.kafka.security):
// nothing for plaintext; TLS and SASL for a managed cluster such as MSK.

export function librdkafkaSecurity(security) {
  if (!security || security.protocol === 'plaintext') return {};
  const settings = { 'security.protocol': security.protocol };
  if (security.saslMechanism) settings['sasl.mechanisms'] = security.saslMechanism;
  if (security.saslUsername) settings['sasl.username'] = security.saslUsername;
  if (security.saslPassword) settings['sasl.password'] = security.saslPassword;
  if (security.sslCaLocation) settings['ssl.ca.location'] = security.sslCaLocation;
  return settings;
}
