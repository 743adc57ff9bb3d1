// Settling on a schedule during a run, as a scheme's operator does several times a day: every
// `everySeconds` the open window is closed and every closed window settled to SETTLED
// through the settlement API (scripts/lib/settlement.js), so that positions return toward
// zero and the DFSPs' net debit caps need only cover one interval's payments, not the run's.
// A run with conversions settles each of its currencies: the first under its deferred net
// model with the window's close, each further one under its own model over the windows that
// still hold its content (a window is SETTLED once every currency in it is).
import { adminClient } from '../scripts/lib/onboarding.js';
import { closeAndSettle, deferredNetModel, settleCurrency } from '../scripts/lib/settlement.js';

/**
 * Starts the schedule; `stop()` ends it after the settlement in progress and settles once
 * more, so that everything committed during the run is settled. Returns what was settled.
 */
export function startSettlementSchedule({ settlementUrl, adminUrl, token, currencies, everySeconds, log }) {
  const request = adminClient(settlementUrl, { token });
  const admin = adminClient(adminUrl, { token });
  const record = { settlements: 0, windows: 0, failures: [] };
  let stopped = false;
  let timer;
  let running = Promise.resolve();
  const reason = 'settled on the run\'s schedule';
  const count = (settled) => {
    if (!settled) return;
    record.settlements += 1;
    record.windows += settled.windowIds.length;
    if (settled.state !== 'SETTLED') record.failures.push(`settlement ${settled.settlement.id} ended ${settled.state}`);
  };
  const settleOnce = async () => {
    try {
      const [first, ...others] = currencies;
      count(await closeAndSettle(request, { modelName: await deferredNetModel(admin, first), reason }));
      for (const currency of others) {
        const modelName = await deferredNetModel(admin, currency, { ownOnly: true });
        if (modelName) count(await settleCurrency(request, { modelName, currency, reason }));
      }
    } catch (error) {
      record.failures.push(error.message);
      log(`settlement on schedule failed: ${error.message}`);
    }
  };
  const loop = () => {
    timer = setTimeout(() => {
      running = settleOnce().then(() => { if (!stopped) loop(); });
    }, everySeconds * 1000);
  };
  loop();
  return {
    async stop() {
      stopped = true;
      clearTimeout(timer);
      await running;
      await settleOnce();
      return record;
    },
  };
}
