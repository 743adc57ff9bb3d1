// The delivery pieces a process that calls DFSPs puts together from its settings
// (config.js): the endpoint cache in front of the admin API and the deliverer, with the
// destination policy and the hub's TLS. The notification handler and account-lookup build
// them here, so that both call DFSPs in the same way.
import { createDestinationPolicy } from './callback-destinations.js';
import { readCallbackTls } from './callback-tls.js';
import { createDeliverer } from './deliver.js';
import { createEndpointCache } from './endpoints.js';
import { createDfspVersions } from './dfsp-versions.js';

/**
 * `settings` from readDeliveryConfig; `adminApiUrl` and `adminApiToken` (the DFSP directory's
 * read token) are where the endpoints are read; `allowLinkLocal` is CALLBACK_URL_ALLOW_LINK_LOCAL
 * (config.callbackUrlsAllowLinkLocal). The hub's client certificate and CAs are read here, at
 * start-up, so a missing file stops the process before its first callback. Returns
 * `{ endpoints, deliverer, tls, versions }` (`versions`: the version each DFSP takes,
 * dfsp-versions.js); `deliverer.close()` closes its connections.
 */
export function createCallbackDelivery({ settings, adminApiUrl, adminApiToken, allowLinkLocal, logger }) {
  const tls = readCallbackTls(settings.tls);
  const endpoints = createEndpointCache({
    adminApiUrl, adminApiToken, ttlMs: settings.endpointCacheTtlMs,
    failureTtlMs: settings.endpointFailureTtlMs, entriesMax: settings.endpointCacheEntriesMax,
  });
  const deliverer = createDeliverer({
    timeoutMs: settings.callbackTimeoutMs,
    maxInFlightPerFsp: settings.callbackInFlightMaxPerFsp,
    queueMaxPerFsp: settings.callbackQueueMaxPerFsp,
    retries: settings.callbackRetries,
    retryBackoffMs: settings.callbackRetryBackoffMs,
    breakerFailures: settings.breakerFailures,
    breakerOpenMs: settings.breakerOpenMs,
    logger: logger.child({ component: 'callback-delivery' }),
    destinationPolicy: createDestinationPolicy({ allowedCidrs: settings.allowedCidrs }),
    originPoolsMax: settings.originPoolsMax,
    tls,
    allowLinkLocal,
  });
  return { endpoints, deliverer, tls, versions: createDfspVersions({ schemeDefault: settings.versionDefault }) };
}
