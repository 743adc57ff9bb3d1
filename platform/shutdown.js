// How every process stops: on SIGTERM or SIGINT (once, whichever comes first), log it, run
// the process's own `close()` (stop taking work, finish what is in flight, release
// connections, in the order the process needs), then exit 0.
export function exitOnSignal(logger, close) {
  let closing = null;
  const shutdown = (signal) => {
    closing ??= (async () => {
      logger.info({ signal }, 'shutting down');
      await close();
      process.exit(0);
    })();
  };
  process.once('SIGTERM', () => shutdown('SIGTERM'));
  process.once('SIGINT', () => shutdown('SIGINT'));
}
