// The delivery settings every process that calls DFSPs reads (platform/delivery/config.js), and
// the notification handler's own (handlers/notification/config.js): read from the environment
// loadConfig reads, once, frozen, and a bad value stops the process at start-up.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ConfigError, loadConfig } from '../../platform/config.js';
import { readDeliveryConfig } from '../../platform/delivery/config.js';
import { readNotificationConfig } from '../../handlers/notification/config.js';

test('the delivery defaults, with the deadline of one callback long enough for every attempt and backoff', () => {
  const delivery = readDeliveryConfig({});
  assert.equal(delivery.callbackTimeoutMs, 10_000);
  assert.equal(delivery.callbackRetries, 2);
  assert.equal(delivery.batchDeadlineMs, 10_000 * 3 + 200 * 3, 'three attempts and the 200 + 400 ms between them');
  assert.equal(readDeliveryConfig({ CALLBACK_TIMEOUT_MS: '1000', CALLBACK_RETRIES: '0' }).batchDeadlineMs, 1_000);
  assert.equal(readDeliveryConfig({ CALLBACK_BATCH_DEADLINE_MS: '7' }).batchDeadlineMs, 7);
  assert.deepEqual(delivery.tls, { certPath: undefined, keyPath: undefined, caPath: undefined, publicRoots: false });
});

test('each reader returns its own settings, frozen to the leaves, and loadConfig holds neither', () => {
  const env = { DB_PASSWORD: 'x', CALLBACK_ALLOWED_CIDRS: '127.0.0.0/8', NOTIFICATION_RETRY_AGE_MAX_MS: '5000' };
  const delivery = readDeliveryConfig(env);
  const notification = readNotificationConfig(env);
  assert.ok(Object.isFrozen(delivery) && Object.isFrozen(delivery.tls) && Object.isFrozen(delivery.allowedCidrs[0]));
  assert.ok(Object.isFrozen(notification));
  assert.deepEqual(Object.keys(notification).sort(), ['pipelineDepthMax', 'retryAgeMaxMs', 'retryBackoffMaxMs', 'retryBackoffMs']);
  assert.equal(notification.retryAgeMaxMs, 5_000);
  assert.equal(delivery.retryAgeMaxMs, undefined, 'the retry topic is the notification handler\'s alone');
  assert.equal(loadConfig(env).notification, undefined);
});

test('a bad value stops the process: ConfigError naming the variable', () => {
  assert.throws(() => readDeliveryConfig({ CALLBACK_IN_FLIGHT_MAX_PER_FSP: '0' }), (error) => error instanceof ConfigError && /CALLBACK_IN_FLIGHT_MAX_PER_FSP/.test(error.message));
  assert.throws(() => readDeliveryConfig({ CALLBACK_TLS_CERT_PATH: '/hub.crt' }), /CALLBACK_TLS_CERT_PATH and CALLBACK_TLS_KEY_PATH go together/);
  assert.throws(() => readNotificationConfig({ NOTIFICATION_PIPELINE_DEPTH_MAX: 'many' }), (error) => error instanceof ConfigError && /NOTIFICATION_PIPELINE_DEPTH_MAX/.test(error.message));
});
