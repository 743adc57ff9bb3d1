// Runs the whole switch for a test: a fresh database and topic prefix, the admin API (in
// this process), and every other component as its own child process, exactly as `make up`
// starts them, so that a test can SIGKILL and restart any of them. With CLIENT_IDENTITY=
// certificate the FSPIOP edges serve HTTPS with mutual TLS from the test run's scheme CA
// (scheme-tls.js), the test DFSPs present the certificates of their names, and the hub presents
// its own on its calls to DFSP endpoints served over HTTPS.
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createAdminClient, deleteTopic } from '../../platform/kafka/admin.js';
import { topicDefinitions } from '../../platform/kafka/topics.js';
import { createTestTopics, operatorTokenEnv, testConfig, uniqueSuffix } from './environment.js';
import { startAdminApi } from './admin-api.js';
import { hubSigningEnv } from './jws-keys.js';
import { LOOPBACK_CALLBACK_ENV } from './callback-destinations.js';
import { fetch } from 'undici';
import { callbackTlsEnv, edgeTlsEnv, probeFetch } from './scheme-tls.js';
import { tlsDispatcher } from '../../scripts/lib/fspiop-headers.js';
import { freePort } from '../../scripts/lib/ports.js';
import { readCompactHosts } from '../../scripts/lib/services-conf.js';
import { FSPIOP_EDGES } from '../../scripts/lib/scheme-certs.js';

const ROOT = new URL('../..', import.meta.url).pathname;
const COMPACT_HOST = 'scripts/compact-host.js';

export const COMPONENTS = Object.freeze({
  'api-adapter': 'api-adapter/main.js',
  prepare: 'handlers/prepare/main.js',
  position: 'handlers/position/main.js',
  fulfil: 'handlers/fulfil/main.js',
  notification: 'handlers/notification/main.js',
  timeout: 'handlers/timeout/main.js',
  bulk: 'handlers/bulk/main.js',
  'account-lookup': 'account-lookup/main.js',
  'account-lookup-admin': 'account-lookup/admin-main.js',
  'quoting': 'quoting/main.js',
  'quoting-handler': 'quoting/handler/main.js',
  'settlement-api': 'ledger/settlement-api/main.js',
  portal: 'portal/main.js',
});

/** What a transfer needs: the transfers edge, its handlers and the callbacks. */
export const TRANSFER_COMPONENTS = Object.freeze(['api-adapter', 'prepare', 'position', 'fulfil', 'notification', 'timeout', 'bulk']);

/** CLIENT_IDENTITY of a test's switch unless the test sets its own: mutual TLS, as the local runtime runs. */
const DEFAULT_CLIENT_IDENTITY = 'certificate';

/**
 * The environment of mutual TLS, at the edges and on the hub's calls to DFSPs: the test run's
 * certificates with CLIENT_IDENTITY=certificate; otherwise none of the local runtime's
 * (scripts/env.sh) either.
 */
function clientIdentityEnv(mode) {
  if (mode === 'certificate') return { ...edgeTlsEnv(), ...callbackTlsEnv() };
  return {
    CLIENT_IDENTITY: mode, TLS_CERT_PATH: '', TLS_KEY_PATH: '', TLS_CLIENT_CA_PATH: '', CALLBACK_TLS_CERT_PATH: '', CALLBACK_TLS_KEY_PATH: '', CALLBACK_TLS_CA_PATH: '',
  };
}

/**
 * Waits for `url`/health to answer 200; fails with the end of `child.output` if the process exits
 * or never gets there. `tls` (`{ ca, … }`) trusts another CA than this test run's over HTTPS.
 */
export async function waitHealthy(url, child, timeoutMs = 30000, tls = undefined) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`${url}: process exited with ${child.exitCode}:\n${child.output.slice(-2000)}`);
    try {
      const response = tls ? await fetch(`${url}/health`, { dispatcher: tlsDispatcher(tls) }) : await probeFetch(`${url}/health`);
      if (response.status === 200) return;
    } catch { /* not listening yet */ }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} did not become healthy:\n${child.output.slice(-2000)}`);
}

/**
 * Starts a switch of `components`, each as its own process (`replicas` of each), or with
 * `profile: 'compact'` (the default when SWITCH_PROFILE=compact, so that a whole test tier can
 * run in that profile) as the compact profile runs them: the hosts of services-compact.conf,
 * each one process with those of its members asked for. Tests name components either way:
 * `start`, `kill` and `processes` then act on the component's host (a kill takes its
 * co-members down too, as it would in production), `replicas` of a member or of the host's
 * name count host replicas, and `hostProcesses()` lists each process once.
 */
export async function startSwitch({
  replicas = {}, env: extraEnv = {}, components = Object.keys(COMPONENTS), nodeArgs = [], profile = process.env.SWITCH_PROFILE || 'separate',
} = {}) {
  if (!['separate', 'compact'].includes(profile)) throw new Error(`profile must be separate or compact, got ${profile}`);
  const config = testConfig();
  const prefix = await createTestTopics(() => createAdminClient(config.kafka));
  const admin = await startAdminApi({ topicPrefix: prefix });
  // The built-in oracle is served by account-lookup-admin on a port of its own: chosen free here
  // too, so that no test's switch depends on which ports a running `make up` holds.
  const oraclePort = extraEnv.ORACLE_PORT ?? String(await freePort());
  const oracleEnv = { ORACLE_PORT: oraclePort, ORACLE_BUILTIN_URL: `http://127.0.0.1:${oraclePort}` };
  const baseEnv = {
    ...process.env, ...operatorTokenEnv(), DB_PASSWORD: config.db.password, DB_NAME: admin.databaseName, KAFKA_TOPIC_PREFIX: prefix,
    KAFKA_GROUP_PREFIX: `test-${uniqueSuffix()}`, ADMIN_API_URL: admin.baseUrl, LOG_LEVEL: 'warn', TIMEOUT_INTERVAL_MS: '200',
    // The hub signs its callbacks with this run's key, which the test DFSPs verify them with.
    // The test DFSPs listen on loopback, where a switch calls only when told (`env` may override).
    ...hubSigningEnv(), ...LOOPBACK_CALLBACK_ENV, ...oracleEnv, ...clientIdentityEnv(extraEnv.CLIENT_IDENTITY ?? DEFAULT_CLIENT_IDENTITY), ...extraEnv,
  };
  const processes = new Map(); // `${name}-${index}` → the child process, by process name and (compact) by each member's name
  const ports = new Map(); // `${component}-${index}` → the HTTP port that replica listens on
  const secure = Boolean(baseEnv.TLS_CERT_PATH);
  const harness = { admin, prefix, processes, ports, apiUrl: undefined, oracleUrl: baseEnv.ORACLE_BUILTIN_URL, secure, profile };
  // The portal forwards to the operator APIs of this switch: the admin API in this process, the
  // others where they were started (or a closed port, which the portal answers as unreachable).
  const portalUpstreamEnv = (portOf) => ({
    PORTAL_ADMIN_API_URL: admin.baseUrl,
    PORTAL_SETTLEMENT_API_URL: `http://127.0.0.1:${portOf('settlement-api') ?? 9}`,
    PORTAL_ALS_ADMIN_API_URL: `http://127.0.0.1:${portOf('account-lookup-admin') ?? 9}`,
  });
  const urlAt = (name, port) => `${secure && FSPIOP_EDGES.includes(name) ? 'https' : 'http'}://127.0.0.1:${port}`;
  const alive = (child) => child !== undefined && child.exitCode === null && child.signalCode === null;

  // In the compact profile a host runs those of its members asked for so far.
  const hostMembers = profile === 'compact' ? readCompactHosts() : new Map();
  const asked = new Set(components);
  const processOf = (name) => [...hostMembers].find(([, members]) => members.includes(name))?.[0] ?? name;
  const membersOf = (processName) => (hostMembers.has(processName) ? hostMembers.get(processName).filter((member) => asked.has(member)) : [processName]);

  harness.start = async (name, index = 0) => {
    const processName = processOf(name);
    asked.add(name);
    // A member added to a running host joins it as a redeployment would: the host restarts.
    if (processName !== name && alive(processes.get(`${processName}-${index}`))) await harness.kill(processName, index, 'SIGTERM');
    // A port found free can still be taken by another test's process before this one binds it;
    // then the component exits with EADDRINUSE, and it is started again on another port.
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await startOnFreePort(processName, index, attempt);
      } catch (error) {
        if (attempt === 3 || !/EADDRINUSE/.test(error.message)) throw error;
      }
    }
  };

  // A process restarted after a kill gets the ports it had, as under the local runtime's
  // supervisor, so that DFSPs and tests keep their URLs; a first start takes free ones.
  const startOnFreePort = async (name, index, attempt) => {
    const members = membersOf(name);
    const memberPorts = [];
    for (const member of members) {
      const known = attempt === 1 ? ports.get(`${member}-${index}`) : undefined;
      memberPorts.push(known ?? await freePort());
    }
    const args = hostMembers.has(name)
      ? [COMPACT_HOST, members.map((member, at) => `${member}=${memberPorts[at]}`).join(',')]
      : [COMPONENTS[name]];
    const portOf = (member) => memberPorts[members.indexOf(member)] ?? ports.get(`${member}-0`);
    const child = spawn(process.execPath, [...nodeArgs, ...args], {
      cwd: ROOT,
      env: { ...baseEnv, ...(members.includes('portal') ? portalUpstreamEnv(portOf) : {}), PORT: String(memberPorts[0]), SERVICE_NAME: name, REPLICA_INDEX: String(index) },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    child.output = '';
    child.stdout.on('data', (chunk) => { child.output += chunk; });
    child.stderr.on('data', (chunk) => { child.output += chunk; });
    for (const key of new Set([name, ...members])) processes.set(`${key}-${index}`, child);
    members.forEach((member, at) => ports.set(`${member}-${index}`, memberPorts[at]));
    for (const [at, member] of members.entries()) await waitHealthy(urlAt(member, memberPorts[at]), child);
    if (members.includes('api-adapter') && index === 0) harness.apiUrl = urlAt('api-adapter', memberPorts[members.indexOf('api-adapter')]);
    return child;
  };

  /** Each process once, as `[name-index, child]`: a compact host under its host's name. */
  harness.hostProcesses = () => [...processes].filter(([key]) => {
    const name = key.slice(0, key.lastIndexOf('-'));
    return processOf(name) === name;
  });

  /** The base URL of a component's replica, as it listens for this test (https: for an edge with mutual TLS). */
  harness.urlOf = (name, index = 0) => urlAt(name, ports.get(`${name}-${index}`));

  harness.kill = async (name, index = 0, signal = 'SIGKILL') => {
    const child = processes.get(`${name}-${index}`);
    if (alive(child)) {
      child.kill(signal);
      await once(child, 'exit');
    }
  };

  harness.stop = async () => {
    const running = [...new Set(processes.values())].filter(alive);
    for (const child of running) child.kill('SIGTERM');
    const forced = setTimeout(() => running.forEach((child) => child.kill('SIGKILL')), 5000);
    await Promise.all(running.map((child) => (alive(child) ? once(child, 'exit') : null)));
    clearTimeout(forced);
    await admin.stop();
    const client = createAdminClient(config.kafka);
    try {
      await Promise.all(topicDefinitions(prefix).map(({ name }) => deleteTopic(client, name)));
    } finally {
      client.disconnect();
    }
  };

  try {
    const processNames = [...new Set(components.map(processOf))];
    for (const name of processNames) {
      const count = Math.max(replicas[name] ?? 1, ...membersOf(name).map((member) => replicas[member] ?? 1));
      for (let index = 0; index < count; index += 1) await harness.start(name, index);
    }
  } catch (error) {
    // Whatever did start must not outlive a failed start (it would keep the test alive).
    await harness.stop();
    throw error;
  }
  return harness;
}

/**
 * A started switch `sw` with DFSPs around it: `setUp(dfsps)` starts each DFSP (pushing it onto
 * `dfsps`, so that it is closed whatever happens next) and onboards it. Resolves to
 * `{ dfsps, stop() }`, stop closing the DFSPs, then the switch; a failure during setUp stops
 * whatever had started and is thrown again.
 */
export async function withDfsps(sw, setUp) {
  const dfsps = [];
  const stop = async () => {
    await Promise.all(dfsps.map((dfsp) => dfsp.close()));
    await sw.stop();
  };
  try {
    await setUp(dfsps);
  } catch (error) {
    await stop();
    throw error;
  }
  return { dfsps, stop };
}
