// The chart's compact profile (values `compact`), rendered with helm: off by default, leaving one
// Deployment per component; on, one Deployment per host running scripts/compact-host.js, each
// component keeping its Service and port on the host's pods, with the union of what its
// components need (environment, secrets, keys, NetworkPolicy rules, labels); and the groupings
// the chart refuses. Needs only the helm binary (.tools/bin/helm, `make deps`).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, execFileSync } from 'node:child_process';
import http from 'node:http';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { dump, load, loadAll } from 'js-yaml';
import { COMPONENT_MODULES, parseComponents } from '../../scripts/compact-host.js';
import { OPERATOR_TOKEN_VARIABLES } from '../../platform/config.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const chart = join(root, 'charts', 'fspiop-switch');
const helm = process.env.HELM ?? join(root, '.tools', 'bin', 'helm');
const smallScheme = join(chart, 'examples', 'values-small-scheme.yaml');
const eksValues = join(chart, 'examples', 'values-eks.yaml');
const skip = existsSync(helm) ? false : `helm not found at ${helm} (run make deps)`;
const minimal = ['--set', 'db.password=x', '--set', 'clientIdentity.tls.existingSecret=scheme-edge-tls'];
const values = load(readFileSync(join(chart, 'values.yaml'), 'utf8'));
const portOf = (name) => values.components[name].port;
const HOSTS = {
  edges: ['api-adapter', 'quoting'],
  'ledger-handlers': ['prepare', 'position', 'fulfil', 'timeout', 'bulk'],
  'callbacks-quotes': ['notification', 'quoting-handler'],
  'directory-admin': ['account-lookup', 'account-lookup-admin', 'oracle', 'admin-api', 'settlement-api', 'portal'],
};
const EDGES = ['api-adapter', 'quoting', 'account-lookup'];

function runHelm(args) {
  return execFileSync(helm, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

function render(args = []) {
  return loadAll(runHelm(['template', 'sw', chart, '--namespace', 'payments', ...args])).filter(Boolean);
}

/** Renders with `overrides` as a values file: helm's --set cannot replace one item of a list. */
function renderWith(overrides, args = []) {
  const dir = mkdtempSync(join(tmpdir(), 'chart-compact-'));
  try {
    writeFileSync(join(dir, 'values.yaml'), dump(overrides));
    return render([...minimal, ...args, '-f', join(dir, 'values.yaml')]);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The stderr of a render helm refuses. */
function refusal(overrides) {
  try {
    renderWith(overrides);
  } catch (error) {
    return error.stderr;
  }
  assert.fail(`rendered: ${JSON.stringify(overrides)}`);
}

const ofKind = (objects, kind) => objects.filter((o) => o.kind === kind);
const named = (objects, kind, name) => objects.find((o) => o.kind === kind && o.metadata.name === name);
const component = (o) => o.metadata.labels['app.kubernetes.io/component'];
const envOf = (container) => Object.fromEntries((container.env ?? []).map((e) => [e.name, e.value ?? e.valueFrom]));
const hostsOf = (objects) => Object.fromEntries(ofKind(objects, 'Deployment').map((d) => [component(d), d]));
const hostsWith = (changes) => Object.entries(HOSTS).map(([name, components]) => ({ name, components, ...changes[name] }));

test('compact off (the default): one Deployment per component, the same objects whatever the hosts say', { skip }, () => {
  const standard = render(minimal);
  assert.deepEqual(ofKind(standard, 'Deployment').map(component).sort(), Object.keys(values.components).sort());
  for (const d of ofKind(standard, 'Deployment')) {
    const [container] = d.spec.template.spec.containers;
    assert.deepEqual(container.command, ['node', values.components[component(d)].entry]);
    assert.equal(d.metadata.labels['fspiop-switch.io/compact-host'], undefined);
  }
  const ignored = renderWith({ compact: { enabled: false, hosts: [{ name: 'everything', components: Object.keys(COMPONENT_MODULES) }] } });
  const identity = (objects) => objects.map((o) => `${o.kind}/${o.metadata.name}`).sort();
  assert.deepEqual(identity(ignored), identity(standard));
  // The generated secrets differ per render; every other object is the same, field for field.
  const plain = (objects) => objects.filter((o) => o.kind !== 'Secret' && !(o.kind === 'Pod' && o.metadata.annotations?.['helm.sh/hook'] === 'test'));
  assert.deepEqual(plain(ignored), plain(standard));
});

test('the small scheme: one Deployment per host running compact-host.js with each component on its own port', { skip }, () => {
  const objects = render([...minimal, '-f', smallScheme]);
  const hosts = hostsOf(objects);
  assert.deepEqual(Object.keys(hosts).sort(), Object.keys(HOSTS).sort());
  const started = [];
  for (const [host, members] of Object.entries(HOSTS)) {
    const d = hosts[host];
    assert.equal(d.metadata.name, `sw-fspiop-switch-${host}`);
    assert.equal(d.spec.replicas, 1);
    const [container] = d.spec.template.spec.containers;
    assert.deepEqual(container.command.slice(0, 2), ['node', 'scripts/compact-host.js']);
    // The host's own parser reads the argument: the built-in oracle is not a component of its
    // own there, account-lookup-admin serves it on ORACLE_PORT.
    const parsed = parseComponents(container.command.slice(2));
    assert.deepEqual(parsed, members.filter((m) => m !== 'oracle').map((name) => ({ name, port: portOf(name) })));
    started.push(...parsed.map(({ name }) => name));
    assert.deepEqual(container.ports.map((p) => p.containerPort), members.map(portOf));
    assert.ok(container.ports.every((p) => p.name.length <= 15), 'port names are IANA service names');
    const env = envOf(container);
    assert.equal(env.SERVICE_NAME, host);
    assert.equal('PORT' in env, false, 'each component gets its own PORT from the host, not one for all');
    assert.equal(env.ORACLE_PORT, members.includes('oracle') ? String(portOf('oracle')) : undefined);
    // Readiness asks every component's /health; liveness the first one's.
    const urls = container.readinessProbe.exec.command.slice(3);
    assert.deepEqual(urls, members.map((m) => `${EDGES.includes(m) ? 'https' : 'http'}://127.0.0.1:${portOf(m)}/health`));
    assert.equal(container.readinessProbe.exec.command[1], '-e');
    assert.equal(container.readinessProbe.timeoutSeconds, 5);
    assert.deepEqual(container.livenessProbe.httpGet, { path: '/health', port: container.ports[0].name, scheme: EDGES.includes(members[0]) ? 'HTTPS' : 'HTTP' });
    assert.ok(container.resources.requests.cpu && container.resources.limits.memory);
  }
  assert.deepEqual(hosts['ledger-handlers'].spec.template.spec.containers[0].resources, { requests: { cpu: '400m', memory: '384Mi' }, limits: { memory: '768Mi' } });
  // Every component compact-host.js knows runs in exactly one host.
  assert.deepEqual(started.sort(), Object.keys(COMPONENT_MODULES).sort());
  assert.deepEqual(ofKind(objects, 'PodDisruptionBudget').map(component).sort(), Object.keys(HOSTS).sort());
  assert.deepEqual(ofKind(objects, 'HorizontalPodAutoscaler'), []);
});

test('the readiness probe\'s script answers 0 only when every /health it is given answers 200', { skip }, async () => {
  const [container] = hostsOf(render([...minimal, '-f', smallScheme])).edges.spec.template.spec.containers;
  const script = container.readinessProbe.exec.command[2];
  const servers = await Promise.all([200, 503].map((status) => new Promise((resolve) => {
    const server = http.createServer((req, res) => { res.statusCode = req.url === '/health' ? status : 404; res.end(); });
    server.listen(0, '127.0.0.1', () => resolve(server));
  })));
  const url = (server) => `http://127.0.0.1:${server.address().port}/health`;
  // Run as the kubelet runs it, a process of its own; the servers answer from this one meanwhile.
  const probe = (...urls) => new Promise((resolve) => {
    execFile(process.execPath, ['-e', script, ...urls], (error) => resolve(error ? error.code : 0));
  });
  try {
    assert.equal(await probe(url(servers[0]), url(servers[0])), 0);
    assert.equal(await probe(url(servers[0]), url(servers[1])), 1, 'one component not ready: the pod is not');
    assert.equal(await probe(url(servers[0]), 'http://127.0.0.1:1/health'), 1, 'one component not listening: the pod is not');
  } finally {
    for (const server of servers) server.close();
  }
});

test('the small scheme: each component keeps its Service and port, now on its host\'s pods', { skip }, () => {
  const standard = render(minimal);
  const compact = render([...minimal, '-f', smallScheme]);
  const hosts = hostsOf(compact);
  const hostOf = (name) => Object.keys(HOSTS).find((host) => HOSTS[host].includes(name));
  assert.equal(ofKind(compact, 'Service').length, ofKind(standard, 'Service').length);
  for (const alone of ofKind(standard, 'Service')) {
    const service = named(compact, 'Service', alone.metadata.name);
    const name = component(alone);
    assert.deepEqual([service.spec.type, service.spec.ports[0].name, service.spec.ports[0].port], [alone.spec.type, alone.spec.ports[0].name, alone.spec.ports[0].port]);
    const host = hosts[hostOf(name)];
    assert.deepEqual(service.spec.selector, host.spec.selector.matchLabels, `${name} selects its host's pods`);
    assert.deepEqual(host.spec.template.metadata.labels, { ...host.spec.selector.matchLabels, ...pick(host.spec.template.metadata.labels, 'fspiop-switch.io/operator-client') });
    assert.ok(host.spec.template.spec.containers[0].ports.some((p) => p.containerPort === service.spec.ports[0].targetPort), `${name}'s target port is served by the host`);
    // Prometheus' annotations name one port per object: a host's pod has several, so the Service carries its component's.
    assert.equal(service.metadata.annotations['prometheus.io/port'], String(portOf(name)));
  }
  // The helm test still asks every component's Service.
  const testPod = ofKind(compact, 'Pod').find((p) => p.metadata.annotations['helm.sh/hook'] === 'test');
  assert.equal(envOf(testPod.spec.containers[0]).HEALTH_URLS.split(' ').length, Object.keys(values.components).length);
});

function pick(object, key) {
  return key in object ? { [key]: object[key] } : {};
}

test('a host gets what each of its components needs: secrets, operator tokens, JWS keys, mutual TLS', { skip }, () => {
  const hosts = hostsOf(render([...minimal, '-f', smallScheme, '--set', 'callbackTls.secret=hub-callback-tls']));
  const containerOf = (host) => hosts[host].spec.template.spec.containers[0];
  const tokens = (host) => Object.values(OPERATOR_TOKEN_VARIABLES).filter((key) => key in envOf(containerOf(host)));
  const volumes = (host) => Object.fromEntries((hosts[host].spec.template.spec.volumes ?? []).map((v) => [v.name, v]));
  // The operator APIs check every token; the edges and the notification handler send the DFSP directory one.
  assert.deepEqual(tokens('directory-admin'), Object.values(OPERATOR_TOKEN_VARIABLES));
  assert.deepEqual(tokens('edges'), ['OPERATOR_TOKEN_DFSP_DIRECTORY_READ']);
  assert.deepEqual(tokens('callbacks-quotes'), ['OPERATOR_TOKEN_DFSP_DIRECTORY_READ']);
  assert.deepEqual(tokens('ledger-handlers'), []);
  assert.equal('DB_PASSWORD' in envOf(containerOf('edges')), false, 'neither edge has a database');
  for (const host of ['ledger-handlers', 'callbacks-quotes', 'directory-admin']) assert.ok('DB_PASSWORD' in envOf(containerOf(host)), host);
  const labelled = Object.keys(hosts).filter((host) => hosts[host].spec.template.metadata.labels['fspiop-switch.io/operator-client'] === 'true');
  assert.deepEqual(labelled.sort(), ['callbacks-quotes', 'directory-admin', 'edges']);
  // account-lookup signs as the hub and the admin API publishes its public key: both, in one volume.
  const directory = envOf(containerOf('directory-admin'));
  assert.equal(directory.JWS_HUB_SIGNING_KEY_PATH, '/etc/fspiop-switch/jws-hub/hub-private.pem');
  assert.equal(directory.JWS_HUB_PUBLIC_KEY_PATH, '/etc/fspiop-switch/jws-hub/hub-public.pem');
  assert.deepEqual(volumes('directory-admin')['jws-hub'].secret.items.map((i) => i.path), ['hub-private.pem', 'hub-public.pem']);
  assert.deepEqual(volumes('callbacks-quotes')['jws-hub'].secret.items.map((i) => i.path), ['hub-private.pem']);
  assert.equal(volumes('edges')['jws-hub'], undefined);
  // The FSPIOP edges serve HTTPS from the edge certificate; the hub's callback certificate goes where the hub signs.
  for (const host of ['edges', 'directory-admin']) {
    assert.equal(envOf(containerOf(host)).CLIENT_IDENTITY, 'certificate');
    assert.equal(volumes(host)['edge-tls'].secret.secretName, 'scheme-edge-tls');
  }
  for (const host of ['ledger-handlers', 'callbacks-quotes']) assert.equal(envOf(containerOf(host)).CLIENT_IDENTITY, undefined, host);
  for (const host of ['callbacks-quotes', 'directory-admin']) assert.equal(volumes(host)['callback-tls'].secret.secretName, 'hub-callback-tls');
  assert.equal(volumes('edges')['callback-tls'], undefined);
  const mounted = (host) => containerOf(host).volumeMounts.map((m) => m.name).sort();
  assert.deepEqual(mounted('directory-admin'), Object.keys(volumes('directory-admin')).sort());
});

test('a host\'s NetworkPolicy: operator clients alone on its internal APIs\' ports, the edge fence on its edges\', the rest open', { skip }, () => {
  const policies = (objects) => Object.fromEntries(ofKind(objects, 'NetworkPolicy').map((p) => [p.metadata.name, p.spec]));
  const plain = policies(render([...minimal, '-f', smallScheme]));
  assert.deepEqual(Object.keys(plain), ['sw-fspiop-switch-directory-admin']);
  const [operators, open] = plain['sw-fspiop-switch-directory-admin'].ingress;
  assert.deepEqual(operators.from[0].podSelector.matchLabels['fspiop-switch.io/operator-client'], 'true');
  assert.deepEqual(operators.ports.map((p) => p.port).sort(), ['account-lookup-admin', 'oracle', 'admin-api', 'settlement-api', 'portal'].map(portOf).sort());
  assert.deepEqual(open, { ports: [{ port: portOf('account-lookup') }] });

  const ingress = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': 'ingress-nginx' } } };
  const fenced = policies(renderWith({ networkPolicy: { edgeFrom: [ingress] } }, ['-f', smallScheme]));
  assert.deepEqual(Object.keys(fenced).sort(), ['sw-fspiop-switch-directory-admin', 'sw-fspiop-switch-edges']);
  assert.deepEqual(fenced['sw-fspiop-switch-edges'].ingress, [{
    from: [{ podSelector: { matchLabels: { 'app.kubernetes.io/instance': 'sw' } } }, ingress],
    ports: [{ port: portOf('api-adapter') }, { port: portOf('quoting') }],
  }]);
  const directory = fenced['sw-fspiop-switch-directory-admin'].ingress;
  assert.equal(directory.length, 2, 'operator clients on the internal ports, the fence on account-lookup\'s, nothing open');
  assert.deepEqual(directory[1].ports, [{ port: portOf('account-lookup') }]);
});

test('a host scales as one: HPA or KEDA on every topic of its components, capped at their fewest partitions', { skip }, () => {
  const autoscaled = renderWith({ compact: { enabled: true, hosts: hostsWith({ 'ledger-handlers': { autoscaling: { enabled: true, minReplicas: 2, maxReplicas: 20 } } }) } });
  const [hpa] = ofKind(autoscaled, 'HorizontalPodAutoscaler');
  assert.equal(hpa.spec.scaleTargetRef.name, 'sw-fspiop-switch-ledger-handlers');
  assert.equal(hpa.spec.maxReplicas, values.kafka.topics.partitions['topic-bulk-processing'], 'the bulk topic has the fewest partitions');
  assert.equal(hostsOf(autoscaled)['ledger-handlers'].spec.replicas, undefined, 'the HPA owns the count');

  const keda = renderWith({ compact: { enabled: true, hosts: hostsWith({ 'callbacks-quotes': { keda: { enabled: true } } }) } }, ['-f', eksValues]);
  const scaled = named(keda, 'ScaledObject', 'sw-fspiop-switch-callbacks-quotes');
  assert.deepEqual(scaled.spec.triggers.map((t) => [t.metadata.consumerGroup, t.metadata.topic]), [
    ['fspiop-notification', 'topic-notification-event'], ['fspiop-quoting-handler', 'topic-quotes-post'], ['fspiop-quoting-handler', 'topic-quotes-put'],
  ]);
  const auth = named(keda, 'TriggerAuthentication', 'sw-fspiop-switch-callbacks-quotes');
  assert.deepEqual(auth.spec.env.map((e) => e.containerName), ['callbacks-quotes', 'callbacks-quotes']);
  assert.equal(named(keda, 'ScaledObject', 'sw-fspiop-switch-position'), undefined, 'a grouped component has no scaler of its own');
});

test('a PodMonitor scrapes every component of a host by its port\'s name', { skip }, () => {
  const [monitor] = ofKind(render([...minimal, '-f', smallScheme, '--set', 'metrics.podMonitor.enabled=true']), 'PodMonitor');
  const ports = monitor.spec.podMetricsEndpoints.map((e) => e.port);
  for (const name of Object.keys(values.components)) assert.ok(ports.includes(`${EDGES.includes(name) ? 'https' : 'http'}-${portOf(name)}`), name);
});

test('the oracle left out of every host keeps its own Deployment, and account-lookup-admin serves none', { skip }, () => {
  const objects = renderWith({ compact: { enabled: true, hosts: hostsWith({ 'directory-admin': { components: ['account-lookup', 'account-lookup-admin', 'admin-api', 'settlement-api', 'portal'] } }) } });
  const deployments = hostsOf(objects);
  assert.deepEqual(deployments.oracle.spec.template.spec.containers[0].command, ['node', values.components.oracle.entry]);
  assert.equal(envOf(deployments['directory-admin'].spec.template.spec.containers[0]).ORACLE_PORT, 'off');
  assert.deepEqual(named(objects, 'Service', 'sw-fspiop-switch-oracle').spec.selector['app.kubernetes.io/component'], 'oracle');
});

test('groupings the switch could not run are refused', { skip }, () => {
  const on = (hosts, more = {}) => ({ compact: { enabled: true, hosts }, ...more });
  assert.match(refusal(on(hostsWith({ edges: { components: ['api-adapter', 'quoting', 'ledger'] } }))), /compact\/hosts\/0\/components\/2.*must be one of/s);
  assert.match(refusal(on(hostsWith({ edges: { components: ['api-adapter', 'quoting', 'position'] } }))), /position is in two hosts, edges and ledger-handlers/);
  assert.match(refusal(on(hostsWith({ edges: { components: ['api-adapter'] } }))), /quoting is enabled but in no host/);
  assert.match(refusal(on(hostsWith({ 'directory-admin': { components: ['account-lookup', 'oracle', 'admin-api', 'settlement-api', 'account-lookup-admin', 'portal'] }, edges: { components: ['api-adapter', 'quoting', 'oracle'] } }))), /compact\/hosts\/0/);
  assert.match(refusal(on([...hostsWith({}), { name: 'edges', components: ['api-adapter'] }])), /two hosts are called edges|api-adapter is in two hosts/);
  assert.match(refusal(on(hostsWith({ edges: { name: 'position' } }))), /compact\/hosts\/0\/name/);
  assert.match(refusal(on(hostsWith({ edges: { components: [] } }))), /compact\/hosts\/0\/components/);
  assert.match(refusal(on(hostsWith({}), { components: { prepare: { env: { LOG_LEVEL: 'debug' } }, position: { env: { LOG_LEVEL: 'warn' } } } })), /LOG_LEVEL is set to "warn" for position but to "debug" for another component of host ledger-handlers/);
  // A component turned off needs no host, and one listed is skipped.
  const withoutQuoting = renderWith(on(hostsWith({}), { components: { quoting: { enabled: false } } }));
  assert.deepEqual(parseComponents(hostsOf(withoutQuoting).edges.spec.template.spec.containers[0].command.slice(2)), [{ name: 'api-adapter', port: 3000 }]);
});
