// The chart against a real Kubernetes API server (kube-apiserver + etcd built from the Go
// module proxy by `test/cluster/k8s-apiserver.sh build`; no kubelet, so pods never run): CRDs of
// ServiceMonitor, PodMonitor, PrometheusRule, ScaledObject, TriggerAuthentication and TestRun
// applied first, then `helm install --no-hooks`, `upgrade`, `rollback`, and the hooks (setup
// Jobs, hook Secret, test Pod) validated with a server-side dry run. Helm would wait forever
// for hook Jobs that nothing runs, hence --no-hooks plus the dry run.
// Skips (with the reason) when the binaries are absent.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Agent, request } from 'undici';
import { load, loadAll } from 'js-yaml';
import { OPERATOR_TOKEN_VARIABLES } from '../../platform/config.js';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const chart = join(root, 'charts', 'fspiop-switch');
const eksValues = join(chart, 'examples', 'values-eks.yaml');
const tools = join(root, '.tools');
const helm = process.env.HELM ?? join(tools, 'bin', 'helm');
const crdDir = join(tools, 'crds');
const testRunCrd = join(root, '..', 'shared', 'crds', 'k6.io_testruns.yaml');
const script = join(root, 'test', 'cluster', 'k8s-apiserver.sh');
const NAMESPACE = 'payments';
const RELEASE = 'sw';

const missing = [join(tools, 'bin', 'kube-apiserver'), join(tools, 'bin', 'etcd'), helm, join(crdDir, 'keda.sh_scaledobjects.yaml')]
  .filter((path) => !existsSync(path));
const skip = missing.length > 0
  ? `no local Kubernetes API server: ${missing.join(', ')} missing (build with: test/cluster/k8s-apiserver.sh build)`
  : false;

let dir;
let kubeconfig;
let server;
let token;
const dispatcher = new Agent({ connect: { rejectUnauthorized: false } }); // the apiserver's self-signed cert

/** A permissive TestRun CRD (any spec), for when shared/crds is not beside the repository. */
const FALLBACK_TESTRUN_CRD = {
  apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition',
  metadata: { name: 'testruns.k6.io' },
  spec: {
    group: 'k6.io', scope: 'Namespaced',
    names: { kind: 'TestRun', listKind: 'TestRunList', plural: 'testruns', singular: 'testrun' },
    versions: [{
      name: 'v1alpha1', served: true, storage: true, subresources: { status: {} },
      schema: { openAPIV3Schema: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true } },
    }],
  },
};

async function api(method, path, body) {
  const res = await request(`${server}${path}`, {
    method, dispatcher,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.body.text();
  return { status: res.statusCode, body: text ? JSON.parse(text) : undefined };
}

function runHelm(args) {
  return execFileSync(helm, [...args, '--kubeconfig', kubeconfig], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
}

/** The REST collection path of an object (namespaced unless it is cluster-scoped). */
function collectionPath({ apiVersion, kind }, namespace) {
  const plural = { NetworkPolicy: 'networkpolicies', PodDisruptionBudget: 'poddisruptionbudgets' }[kind] ?? `${kind.toLowerCase()}s`;
  const base = apiVersion.includes('/') ? `/apis/${apiVersion}` : `/api/${apiVersion}`;
  return namespace ? `${base}/namespaces/${namespace}/${plural}` : `${base}/${plural}`;
}

async function applyCrd(crd) {
  const created = await api('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd);
  assert.ok([201, 409].includes(created.status), `CRD ${crd.metadata.name}: ${created.status} ${JSON.stringify(created.body?.message)}`);
}

async function waitEstablished(name) {
  for (let i = 0; i < 120; i++) {
    const { body } = await api('GET', `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${name}`);
    if (body?.status?.conditions?.some((c) => c.type === 'Established' && c.status === 'True')) return;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`CRD ${name} not established`);
}

before(async () => {
  if (skip) return;
  dir = mkdtempSync(join(tmpdir(), 'chart-apiserver-'));
  execFileSync('bash', [script, 'start'], { env: { ...process.env, K8S_DIR: dir }, stdio: ['ignore', 'ignore', 'inherit'], timeout: 240_000 });
  kubeconfig = join(dir, 'kubeconfig');
  const config = load(readFileSync(kubeconfig, 'utf8'));
  server = config.clusters[0].cluster.server;
  token = config.users[0].user.token;

  const crds = readdirSync(crdDir).filter((f) => f.endsWith('.yaml')).map((f) => load(readFileSync(join(crdDir, f), 'utf8')));
  crds.push(existsSync(testRunCrd) ? load(readFileSync(testRunCrd, 'utf8')) : FALLBACK_TESTRUN_CRD);
  for (const crd of crds) await applyCrd(crd);
  for (const crd of crds) await waitEstablished(crd.metadata.name);
});

after(() => {
  if (dir) {
    execFileSync('bash', [script, 'stop', dir], { stdio: 'inherit' });
    rmSync(dir, { recursive: true, force: true });
  }
});

async function configValue(key) {
  const { body } = await api('GET', `/api/v1/namespaces/${NAMESPACE}/configmaps/${RELEASE}-fspiop-switch-config`);
  return body.data[key];
}

test('install (no hooks), upgrade and rollback against a real API server', { skip, timeout: 600_000 }, async () => {
  runHelm(['install', RELEASE, chart, '-n', NAMESPACE, '--create-namespace', '--no-hooks', '-f', eksValues]);
  const { body: deployments } = await api('GET', `/apis/apps/v1/namespaces/${NAMESPACE}/deployments`);
  assert.equal(deployments.items.length, 15, 'one Deployment per component, the bulk handler and the portal included');
  // The settlement API, as the server stored it: an operator API on 3007 with every token, fenced like the admin API.
  const settlement = deployments.items.find((d) => d.metadata.name === `${RELEASE}-fspiop-switch-settlement-api`);
  const [container] = settlement.spec.template.spec.containers;
  assert.deepEqual([settlement.spec.replicas, container.command, container.ports[0].containerPort], [1, ['node', 'ledger/settlement-api/main.js'], 3007]);
  const tokenEnv = container.env.filter((e) => e.name.startsWith('OPERATOR_TOKEN_')).map((e) => [e.name, e.valueFrom.secretKeyRef.name]);
  assert.deepEqual(tokenEnv, Object.values(OPERATOR_TOKEN_VARIABLES).map((key) => [key, 'fspiop-operator-tokens']));
  const service = await api('GET', `/api/v1/namespaces/${NAMESPACE}/services/${RELEASE}-fspiop-switch-settlement-api`);
  assert.deepEqual([service.status, service.body.spec.type, service.body.spec.ports[0].port], [200, 'ClusterIP', 3007]);
  const policy = await api('GET', `/apis/networking.k8s.io/v1/namespaces/${NAMESPACE}/networkpolicies/${RELEASE}-fspiop-switch-settlement-api-internal`);
  assert.equal(policy.status, 200);
  assert.equal(policy.body.spec.ingress[0].from[0].podSelector.matchLabels['fspiop-switch.io/operator-client'], 'true');
  const { body: scaled } = await api('GET', `/apis/keda.sh/v1alpha1/namespaces/${NAMESPACE}/scaledobjects`);
  assert.deepEqual(scaled.items.map((s) => s.metadata.name).sort(), [`${RELEASE}-fspiop-switch-position`, `${RELEASE}-fspiop-switch-prepare`]);
  const { body: rules } = await api('GET', `/apis/monitoring.coreos.com/v1/namespaces/${NAMESPACE}/prometheusrules`);
  assert.equal(rules.items.length, 1);
  assert.equal(await configValue('LOG_LEVEL'), 'info');

  runHelm(['upgrade', RELEASE, chart, '-n', NAMESPACE, '--no-hooks', '-f', eksValues, '--set', 'config.LOG_LEVEL=debug', '--set', 'components.quoting.enabled=false']);
  assert.equal(await configValue('LOG_LEVEL'), 'debug');
  const quoting = await api('GET', `/apis/apps/v1/namespaces/${NAMESPACE}/deployments/${RELEASE}-fspiop-switch-quoting`);
  assert.equal(quoting.status, 404, 'a disabled component is removed on upgrade');

  runHelm(['rollback', RELEASE, '1', '-n', NAMESPACE, '--no-hooks']);
  assert.equal(await configValue('LOG_LEVEL'), 'info');
  const restored = await api('GET', `/apis/apps/v1/namespaces/${NAMESPACE}/deployments/${RELEASE}-fspiop-switch-quoting`);
  assert.equal(restored.status, 200);
  const history = JSON.parse(runHelm(['history', RELEASE, '-n', NAMESPACE, '-o', 'json']));
  assert.deepEqual(history.map((r) => r.revision), [1, 2, 3]);
});

test('hooks (setup Jobs, hook Secret, helm test Pod) and the load test pass a server-side dry run', { skip, timeout: 300_000 }, async () => {
  await api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: NAMESPACE } });
  // A lab's install: the chart makes the scheme CA, the edges' certificate and the DFSPs' client certificates.
  const lab = ['--set', 'db.password=x', '--set', 'clientIdentity.tls.generate=true'];
  const loadTest = [...lab, '--set', 'loadTest.enabled=true'];
  for (const values of [['-f', eksValues], lab, loadTest]) {
    const objects = loadAll(execFileSync(helm, ['template', RELEASE, chart, '-n', NAMESPACE, ...values], { encoding: 'utf8' })).filter(Boolean);
    const hooks = objects.filter((o) => o.metadata.annotations?.['helm.sh/hook']);
    assert.ok(hooks.some((o) => o.kind === 'Job'), 'there are hook Jobs');
    // The load test's plain objects (simulators, their Service, the script, the DFSPs' JWS keys and client certificates) are checked too.
    const loadTestObjects = values === loadTest ? objects.filter((o) => o.metadata.labels?.['app.kubernetes.io/component'] === 'loadtest' && !hooks.includes(o)) : [];
    if (values === loadTest) assert.ok(hooks.some((o) => o.kind === 'TestRun') && loadTestObjects.length === 5, 'the load test renders');
    for (const hook of [...hooks, ...loadTestObjects]) {
      const { status, body } = await api('POST', `${collectionPath(hook, NAMESPACE)}?dryRun=All&fieldValidation=Strict`, hook);
      assert.equal(status, 201, `${hook.kind}/${hook.metadata.name}: ${body?.message}`);
    }
  }
});

test('the small scheme\'s compact hosts pass a server-side dry run, every object of the release', { skip, timeout: 120_000 }, async () => {
  // A namespace and release of its own: the first test's release holds the same names in NAMESPACE.
  const release = 'small';
  const namespace = 'small';
  await api('POST', '/api/v1/namespaces', { apiVersion: 'v1', kind: 'Namespace', metadata: { name: namespace } });
  const smallScheme = join(chart, 'examples', 'values-small-scheme.yaml');
  const values = ['-f', smallScheme, '--set', 'db.password=x', '--set', 'clientIdentity.tls.generate=true', '--set', 'metrics.podMonitor.enabled=true'];
  const objects = loadAll(execFileSync(helm, ['template', release, chart, '-n', namespace, ...values], { encoding: 'utf8' })).filter(Boolean);
  const hosts = objects.filter((o) => o.kind === 'Deployment').map((d) => d.metadata.name).sort();
  assert.deepEqual(hosts, ['callbacks-quotes', 'directory-admin', 'edges', 'ledger-handlers'].map((host) => `${release}-fspiop-switch-${host}`));
  for (const object of objects) {
    const { status, body } = await api('POST', `${collectionPath(object, namespace)}?dryRun=All&fieldValidation=Strict`, object);
    assert.equal(status, 201, `${object.kind}/${object.metadata.name}: ${body?.message}`);
  }
});

test('a lab\'s certificates are made at install and kept on upgrade and rollback; a new load-test DFSP gets one from the same CA', { skip, timeout: 600_000 }, async () => {
  const release = 'lab';
  const namespace = 'lab';
  const values = ['--set', 'db.password=x', '--set', 'clientIdentity.tls.generate=true', '--set', 'loadTest.enabled=true', '--set', 'loadTest.dfsps=2'];
  const secret = async (name) => (await api('GET', `/api/v1/namespaces/${namespace}/secrets/${release}-fspiop-switch-${name}`)).body.data;
  runHelm(['install', release, chart, '-n', namespace, '--create-namespace', '--no-hooks', ...values]);
  const installed = { ca: await secret('scheme-ca'), edge: await secret('edge-tls'), clients: await secret('loadtest-tls') };
  assert.deepEqual(Object.keys(installed.clients).sort(), ['ca.crt', 'perffsp1.crt', 'perffsp1.key', 'perffsp2.crt', 'perffsp2.key']);

  runHelm(['upgrade', release, chart, '-n', namespace, '--no-hooks', ...values, '--set', 'loadTest.dfsps=3']);
  assert.deepEqual(await secret('scheme-ca'), installed.ca, 'the CA is kept');
  assert.deepEqual(await secret('edge-tls'), installed.edge, 'the edges keep their certificate');
  const upgraded = await secret('loadtest-tls');
  for (const key of ['ca.crt', 'perffsp1.crt', 'perffsp1.key', 'perffsp2.crt', 'perffsp2.key']) assert.equal(upgraded[key], installed.clients[key], key);
  const ca = new X509Certificate(Buffer.from(installed.ca['ca.crt'], 'base64'));
  const added = new X509Certificate(Buffer.from(upgraded['perffsp3.crt'], 'base64'));
  assert.ok(added.checkIssued(ca) && added.verify(ca.publicKey), 'the new DFSP\'s certificate is from the same CA');
  assert.match(added.subject, /CN=perffsp3/);

  runHelm(['rollback', release, '1', '-n', namespace, '--no-hooks']);
  assert.deepEqual(await secret('scheme-ca'), installed.ca);
  assert.deepEqual(await secret('edge-tls'), installed.edge);
  runHelm(['uninstall', release, '-n', namespace]);
  assert.deepEqual(await secret('scheme-ca'), installed.ca, 'uninstalling leaves the CA that DFSPs\' certificates chain to');
});
