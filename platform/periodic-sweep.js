// A periodic sweep for work found in the database rather than delivered by Kafka (expired
// transfers, transfers to settle gross): one sweep at a time, every `intervalMs`, and at once
// again while a sweep finds a full batch. A failed sweep is logged and retried next interval.

/** Sweeps every `intervalMs`, at once again while a sweep finds a full batch. */
export function startSweeping({ name, sweepOnce, settings, logger }) {
  let stopped = false;
  let healthy = true;
  let timer;
  let running = Promise.resolve();
  const loop = async () => {
    if (stopped) return;
    let claimed = 0;
    try {
      claimed = await sweepOnce();
      healthy = true;
    } catch (error) {
      healthy = false;
      logger.error({ err: error, sweep: name }, 'sweep failed; retrying next interval');
    }
    if (!stopped) timer = setTimeout(() => { running = loop(); }, claimed >= settings.batchSizeMax ? 0 : settings.intervalMs);
  };
  running = loop();
  return {
    healthy: () => healthy,
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
    },
  };
}
