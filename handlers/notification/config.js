// The settings only the notification handler reads: how many batches it delivers at once, and
// how its retry topic backs off and gives up. What it shares with every sender of callbacks is
// read by platform/delivery/config.js, from the same environment, after loadConfig.
import { deepFreeze, readInteger } from '../../platform/config.js';

export function readNotificationConfig(env = process.env) {
  return deepFreeze({
    pipelineDepthMax: readInteger(env, 'NOTIFICATION_PIPELINE_DEPTH_MAX', 64, { min: 1, max: 10_000 }), // batches delivered at once
    retryBackoffMs: readInteger(env, 'NOTIFICATION_RETRY_BACKOFF_MS', 5_000, { min: 1 }), // first wait on the retry topic; doubles per attempt
    retryBackoffMaxMs: readInteger(env, 'NOTIFICATION_RETRY_BACKOFF_MAX_MS', 300_000, { min: 1 }),
    retryAgeMaxMs: readInteger(env, 'NOTIFICATION_RETRY_AGE_MAX_MS', 86_400_000, { min: 1 }), // then a callback is given up
  });
}
