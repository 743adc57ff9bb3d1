// A switch of its own with the transfer components (test/support/switch.js) and test DFSPs
// (test/support/test-dfsp.js) onboarded with the hub's accounts, the scene most transfer tests
// start from.
import { setUpHub, onboardDfsp } from './admin-api.js';
import { TRANSFER_COMPONENTS, startSwitch, withDfsps } from './switch.js';
import { startTestDfsp } from './test-dfsp.js';

/**
 * Starts the switch (with `env`) and one test DFSP per `{ name, netDebitCap, fundsIn }` of
 * `dfsps`, each onboarded with its endpoints: `{ sw, dfsps, stop }`, `dfsps` in the order given.
 * A failure on the way stops whatever had started.
 */
export async function startTransferSwitch({ dfsps: specs, env = {} }) {
  const sw = await startSwitch({ components: TRANSFER_COMPONENTS, env });
  const { dfsps, stop } = await withDfsps(sw, async (started) => {
    await setUpHub(sw.admin.request);
    for (const { name, netDebitCap, fundsIn } of specs) {
      const dfsp = await startTestDfsp({ name, switchUrl: sw.apiUrl });
      started.push(dfsp);
      await onboardDfsp(sw.admin.request, { name, endpointBase: dfsp.url, netDebitCap, fundsIn });
    }
  });
  return { sw, dfsps, stop };
}
