// A discovery switch: account-lookup, its admin process (the ALS admin API and the built-in
// oracle) and the notification handler as child processes (real Kafka and MariaDB), with party
// DFSPs over real HTTP. The identity tests attack the one startDiscoverySwitch gives: the owner
// of a party (payeefsp), mallory, and a payer that asks.
import { setUpHub } from './admin-api.js';
import { startSwitch, withDfsps } from './switch.js';
import { onboardForDiscovery, startPartyDfsp } from './party-dfsp.js';

/**
 * Starts the switch with `env` and a party DFSP per `{ name, serverTls }` of `dfsps` (over HTTPS
 * when serverTls is given), each onboarded for discovery: `{ sw, alsUrl, dfsps, stop() }`, `dfsps`
 * in the order given. A failure on the way stops whatever had started.
 */
export async function startPartyScene({ env = {}, dfsps: specs }) {
  const sw = await startSwitch({
    components: ['account-lookup-admin', 'account-lookup', 'notification'],
    env: { ORACLE_REGISTRY_TTL_MS: '0', PARTICIPANT_CACHE_TTL_MS: '0', ...env },
  });
  const alsUrl = sw.urlOf('account-lookup');
  const { dfsps, stop } = await withDfsps(sw, async (started) => {
    await setUpHub(sw.admin.request);
    started.push(...await Promise.all(specs.map(({ name, serverTls }) => startPartyDfsp({ name, switchUrl: alsUrl, serverTls }))));
    for (const dfsp of started) await onboardForDiscovery(sw.admin.request, dfsp);
  });
  return { sw, alsUrl, dfsps, stop };
}

/** The identity tests' scene with CLIENT_IDENTITY `clientIdentity`: `{ sw, alsUrl, victim, mallory, payer, stop() }`. */
export async function startDiscoverySwitch({ clientIdentity }) {
  const { dfsps: [victim, mallory, payer], ...scene } = await startPartyScene({
    env: { CLIENT_IDENTITY: clientIdentity, JWS_VERIFICATION: 'required' },
    dfsps: [{ name: 'payeefsp' }, { name: 'mallory' }, { name: 'payerfsp' }],
  });
  return { ...scene, victim, mallory, payer };
}
