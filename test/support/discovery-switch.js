// The discovery switch the identity tests attack: account-lookup, its admin process (the ALS
// admin API and the built-in oracle) and the notification handler as child processes (real
// Kafka and MariaDB), with three party DFSPs over real HTTP: the owner of a party (payeefsp),
// mallory, and a payer that asks.
import { setUpHub } from './admin-api.js';
import { startSwitch } from './switch.js';
import { onboardForDiscovery, startPartyDfsp } from './party-dfsp.js';

/** Starts it with CLIENT_IDENTITY `clientIdentity`; resolves to `{ sw, alsUrl, victim, mallory, payer, stop() }`. */
export async function startDiscoverySwitch({ clientIdentity }) {
  const sw = await startSwitch({
    components: ['account-lookup-admin', 'account-lookup', 'notification'],
    env: { ORACLE_REGISTRY_TTL_MS: '0', PARTICIPANT_CACHE_TTL_MS: '0', CLIENT_IDENTITY: clientIdentity, JWS_VERIFICATION: 'required' },
  });
  const alsUrl = sw.urlOf('account-lookup');
  const dfsps = [];
  const stop = async () => {
    await Promise.all(dfsps.map((dfsp) => dfsp.close()));
    await sw.stop();
  };
  try {
    await setUpHub(sw.admin.request);
    dfsps.push(...await Promise.all(['payeefsp', 'mallory', 'payerfsp'].map((name) => startPartyDfsp({ name, switchUrl: alsUrl }))));
    for (const dfsp of dfsps) await onboardForDiscovery(sw.admin.request, dfsp);
  } catch (error) {
    await stop();
    throw error;
  }
  const [victim, mallory, payer] = dfsps;
  return { sw, alsUrl, victim, mallory, payer, stop };
}
