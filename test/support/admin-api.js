// Starts the real admin API (in this process, on a free port) over a fresh test database.
import pino from 'pino';
import { createAdminServer } from '../../ledger/admin-api/server.js';
import { ensureHubParticipant } from '../../ledger/repositories/participants.js';
import { createMetrics } from '../../platform/metrics.js';
import { createTestDatabase, testConfig } from './environment.js';

export async function startAdminApi() {
  const database = await createTestDatabase();
  const config = testConfig({ PORT: '0', DB_NAME: database.name, SERVICE_NAME: 'admin-api-test' });
  await ensureHubParticipant(database.db, { hubName: config.hubName, now: new Date() });
  const server = createAdminServer({ db: database.db, config, logger: pino({ level: 'silent' }), metrics: createMetrics(config) });
  await server.start();
  const baseUrl = `http://127.0.0.1:${server.info.port}`;
  return {
    baseUrl,
    db: database.db,
    request: (method, path, body) => adminRequest(baseUrl, method, path, body),
    async stop() {
      await server.stop();
      await database.drop();
    },
  };
}

/** One HTTP call; a string body is sent as is (to test malformed JSON). */
export async function adminRequest(baseUrl, method, path, body) {
  const response = await fetch(`${baseUrl}${path}`, {
    method,
    headers: body === undefined ? {} : { 'content-type': 'application/json' },
    body: body === undefined ? undefined : typeof body === 'string' ? body : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined, text };
}

/** Central-ledger's onboarding sequence for one DFSP, with its documented request bodies. */
export async function onboardDfsp(request, { name, currency = 'USD', netDebitCap = 10000, fundsIn = '5000', endpointBase }) {
  const ok = (result, status) => {
    if (result.status !== status) throw new Error(`${name}: expected ${status}, got ${result.status} ${result.text}`);
    return result;
  };
  ok(await request('POST', '/participants', { name, currency }), 201);
  ok(await request('POST', `/participants/${name}/initialPositionAndLimits`, {
    currency, limit: { type: 'NET_DEBIT_CAP', value: netDebitCap }, initialPosition: 0,
  }), 201);
  if (endpointBase) {
    for (const [type, path] of [['FSPIOP_CALLBACK_URL_TRANSFER_POST', '/transfers'], ['FSPIOP_CALLBACK_URL_TRANSFER_PUT', '/transfers/{{transferId}}'],
      ['FSPIOP_CALLBACK_URL_TRANSFER_ERROR', '/transfers/{{transferId}}/error']]) {
      ok(await request('POST', `/participants/${name}/endpoints`, { type, value: `${endpointBase}${path}` }), 201);
    }
  }
  const accounts = ok(await request('GET', `/participants/${name}/accounts`), 200).body;
  const settlement = accounts.find((account) => account.ledgerAccountType === 'SETTLEMENT' && account.currency === currency);
  ok(await request('POST', `/participants/${name}/accounts/${settlement.id}`, {
    transferId: crypto.randomUUID(), externalReference: 'onboarding', action: 'recordFundsIn', reason: 'initial deposit',
    amount: { amount: fundsIn, currency },
  }), 202);
  return { settlementAccountId: settlement.id, positionAccountId: accounts.find((account) => account.ledgerAccountType === 'POSITION').id };
}

/** Hub accounts and a default settlement model, as a scheme's first onboarding step. */
export async function setUpHub(request, currency = 'USD') {
  for (const type of ['HUB_MULTILATERAL_SETTLEMENT', 'HUB_RECONCILIATION']) {
    const result = await request('POST', '/participants/Hub/accounts', { type, currency });
    if (result.status !== 201) throw new Error(`hub account ${type}: ${result.status} ${result.text}`);
  }
  const model = await request('POST', '/settlementModels', {
    name: `DEFERREDNET${currency}`, settlementGranularity: 'NET', settlementInterchange: 'MULTILATERAL', settlementDelay: 'DEFERRED',
    currency, requireLiquidityCheck: true, ledgerAccountType: 'POSITION', settlementAccountType: 'SETTLEMENT', autoPositionReset: true,
  });
  if (model.status !== 201) throw new Error(`settlement model: ${model.status} ${model.text}`);
}
