// The one place the switch reaches Mojaloop's ISO 20022 mapping library
// (@mojaloop/ml-schema-transformer-lib, docs/iso20022.md): loaded on first use, since it takes
// seconds to load and a scheme without ISO 20022 DFSPs never needs it, and configured once
// with a logger of ours. Its facades are `FSPIOP.<resource>.<operation>` (FSPIOP → ISO 20022)
// and `FSPIOPISO20022.<resource>.<operation>` (ISO 20022 → FSPIOP), each an async function of
// `{ body, headers?, params?, $context? }`.

let loading;

/**
 * The library's logger contract names eight levels; ours (pino) has six of them. The
 * library logs only what it cannot map, at debug and below, so those go to our debug.
 */
function libraryLogger(logger) {
  const debug = (...args) => logger.debug({ library: 'ml-schema-transformer-lib' }, args.map(String).join(' '));
  return {
    info: debug, verbose: debug, debug, silly: debug, trace: debug, audit: debug,
    warn: (...args) => logger.warn({ library: 'ml-schema-transformer-lib' }, args.map(String).join(' ')),
    error: (...args) => logger.error({ library: 'ml-schema-transformer-lib' }, args.map(String).join(' ')),
  };
}

/**
 * The library's facades, loaded and configured on the first call: `{ FSPIOP, FSPIOPISO20022 }`.
 * `logger` is the process's pino logger (only the first call's is used).
 */
export function loadTransformFacades(logger) {
  loading ??= import('@mojaloop/ml-schema-transformer-lib').then(({ TransformFacades }) => {
    const settings = logger ? { logger: libraryLogger(logger) } : {};
    TransformFacades.FSPIOP.configure(settings);
    TransformFacades.FSPIOPISO20022.configure(settings);
    return TransformFacades;
  }).catch((error) => {
    // A load that failed is tried again by the next call rather than remembered as failed.
    loading = undefined;
    throw error;
  });
  return loading;
}

/**
 * Starts loading the library without waiting for it, configured with the process's `logger`:
 * every process that converts (the FSPIOP edges, the notification handler, account lookup)
 * calls it as it starts, so that its first ISO 20022 message does not pay the library's seconds
 * of loading. A load that fails is logged here; each conversion then tries again, and fails
 * with its reason while the library cannot load.
 */
export function preloadTransformFacades(logger) {
  loadTransformFacades(logger).catch((error) => logger.error({ err: error }, 'the ISO 20022 mapping library cannot be loaded'));
}
