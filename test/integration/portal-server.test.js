// The portal process's HTTP side against the real admin API (over a fresh test database): the
// bundle and its caching, the headers that keep the page from being framed or sniffed, and the
// forwarder, which passes the operator's token and nothing else of the browser's, keeps the
// API's answer as it is (401, 403 and all), and answers an API that cannot be reached with an
// FSPIOP error rather than a hang.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { waitHealthy } from '../support/switch.js';
import { setUpHub, startAdminApi } from '../support/admin-api.js';
import { operatorTokens } from '../support/environment.js';
import { freePort } from '../../scripts/lib/ports.js';

let admin;
let portal;
let base;
const tokens = operatorTokens();

before(async () => {
  admin = await startAdminApi();
  await setUpHub(admin.request);
  const [port, closedPort] = [await freePort(), await freePort()];
  // Its own process, as it runs, so that its logs can be read for tokens.
  portal = spawn(process.execPath, ['portal/main.js'], {
    cwd: new URL('../..', import.meta.url).pathname,
    env: {
      ...process.env, PORT: String(port), LOG_LEVEL: 'debug', PORTAL_ADMIN_API_URL: admin.baseUrl,
      PORTAL_SETTLEMENT_API_URL: `http://127.0.0.1:${closedPort}`, PORTAL_ALS_ADMIN_API_URL: `http://127.0.0.1:${closedPort}`,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  portal.output = '';
  portal.stdout.on('data', (chunk) => { portal.output += chunk; });
  portal.stderr.on('data', (chunk) => { portal.output += chunk; });
  base = `http://127.0.0.1:${port}`;
  await waitHealthy(base, portal);
});

after(async () => {
  if (portal && portal.exitCode === null) {
    portal.kill('SIGTERM');
    await once(portal, 'exit');
  }
  await admin?.stop();
});

const bearer = (name) => ({ authorization: `Bearer ${tokens[name]}` });

test('the page and its bundle are served with a strict content security policy, the bundle cached by its hash', async () => {
  const page = await fetch(`${base}/`);
  assert.equal(page.status, 200);
  assert.match(page.headers.get('content-type'), /text\/html/);
  assert.match(page.headers.get('content-security-policy'), /default-src 'self'; script-src 'self'/);
  assert.match(page.headers.get('content-security-policy'), /frame-ancestors 'none'/);
  assert.equal(page.headers.get('x-frame-options'), 'DENY');
  assert.equal(page.headers.get('referrer-policy'), 'no-referrer');
  assert.equal(page.headers.get('cache-control'), 'no-cache');
  const html = await page.text();
  const script = /src="(\/assets\/portal-[A-Z0-9]+\.js)"/.exec(html)?.[1];
  assert.ok(script, html);
  assert.ok(!/https?:\/\//.test(html), 'the page loads nothing from elsewhere');
  const bundle = await fetch(`${base}${script}`);
  assert.equal(bundle.status, 200);
  assert.match(bundle.headers.get('cache-control'), /immutable/);
  const again = await fetch(`${base}${script}`, { headers: { 'if-none-match': bundle.headers.get('etag') } });
  assert.equal(again.status, 304);
  const missing = await fetch(`${base}/assets/nothing.js`);
  assert.equal(missing.status, 404);
});

test("the forwarder passes the operator's token and the API's answer as it is", async () => {
  const who = await fetch(`${base}/api/admin/operatorToken`, { headers: bearer('readOnly') });
  assert.equal(who.status, 200, await who.clone().text());
  assert.equal((await who.json()).subject, 'operator:read-only');
  const anonymous = await fetch(`${base}/api/admin/participants`);
  assert.equal(anonymous.status, 401);
  assert.match(anonymous.headers.get('www-authenticate'), /Bearer/);
  const readOnlyWrite = await fetch(`${base}/api/admin/participants`, {
    method: 'POST', headers: { ...bearer('readOnly'), 'content-type': 'application/json' }, body: JSON.stringify({ name: 'portalfsp', currency: 'USD' }),
  });
  assert.equal(readOnlyWrite.status, 403);
  const created = await fetch(`${base}/api/admin/participants`, {
    method: 'POST', headers: { ...bearer('readWrite'), 'content-type': 'application/json', cookie: 'session=x' }, body: JSON.stringify({ name: 'portalfsp', currency: 'USD' }),
  });
  assert.equal(created.status, 201, await created.clone().text());
  const listed = await fetch(`${base}/api/admin/participants`, { headers: bearer('readOnly') });
  assert.ok((await listed.json()).some((participant) => participant.name === 'portalfsp'));
  const audit = await (await fetch(`${base}/api/admin/audit?target=/participants&limit=5`, { headers: bearer('readOnly') })).json();
  assert.equal(audit[0].actor, 'operator:read-write', 'the API audits the operator, not the portal');
  assert.ok(!portal.output.includes(tokens.readWrite) && !portal.output.includes(tokens.readOnly), 'no token is logged');
});

test('an API that cannot be reached, or is not one the portal knows, is a clear FSPIOP error', async () => {
  const unreachable = await fetch(`${base}/api/settlement/v2/settlementWindows?state=OPEN`, { headers: bearer('readOnly') });
  assert.equal(unreachable.status, 503);
  const body = await unreachable.json();
  assert.equal(body.errorInformation.errorCode, '2003');
  assert.match(body.errorInformation.errorDescription, /settlement API cannot be reached/);
  const unknown = await fetch(`${base}/api/ledger/participants`, { headers: bearer('readOnly') });
  assert.equal(unknown.status, 404);
  assert.equal((await unknown.json()).errorInformation.errorCode, '3002');
  const health = await fetch(`${base}/health`);
  assert.equal(health.status, 200);
  assert.match(portal.output, /an operator API did not answer the portal/, 'the failure is logged, without the token');
});
