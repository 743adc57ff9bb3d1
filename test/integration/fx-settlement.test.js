// Settlement of conversion payments (handlers/README.md, "Currency conversion"): each one
// records two transfers in the settlement window, payer → FXP in USD (the conversion) and
// FXP → payee in EUR (the payment), so a settlement over the window nets each currency on its
// own, the FXP with a net in both. Every expected net is computed here from the payments this
// file made, as scaled BigInt. Windows are global to the switch: the tests run in order.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { formatAmount, parseAmount } from '../../ledger/domain/money.js';
import { accountsOf, balancesOf, operatorClient } from '../support/settlement-api.js';
import { TRANSFER_COMPONENTS } from '../support/switch.js';
import { FXP, PAYEE, PAYER, conversionPayment, startFxScene } from '../support/fx-switch.js';

const DEFAULT_MODEL = 'DEFERREDNETDEFAULT';
const SETTLEMENT_STEPS = ['PS_TRANSFERS_RECORDED', 'PS_TRANSFERS_RESERVED', 'PS_TRANSFERS_COMMITTED', 'SETTLED'];
const ACCOUNTS = [[PAYER, 'USD'], [FXP, 'USD'], [FXP, 'EUR'], [PAYEE, 'EUR']];

let scene;
let settlementApi;
let adminApi;

before(async () => {
  // One deferred net model with no currency of its own settles USD and EUR together.
  scene = await startFxScene({ components: [...TRANSFER_COMPONENTS, 'settlement-api'], defaultNetModel: true });
  settlementApi = operatorClient(scene.sw.urlOf('settlement-api'));
  adminApi = operatorClient(scene.sw.admin.baseUrl);
});

after(() => scene?.stop());

const positionAccountId = (name, currency) => scene.accounts.get(`${name} ${currency}`).positionAccountId;

/** Conversion payments of `[sourceAmount, targetAmount]`, each committed, and one the payee rejects. */
async function conversionPayments(amounts) {
  const paid = await Promise.all(amounts.map(async ([sourceAmount, targetAmount]) => {
    const flow = conversionPayment(scene.payee, { sourceAmount, targetAmount });
    const told = await scene.payThroughFxp(flow);
    assert.equal(told.body.transferState, 'COMMITTED', JSON.stringify(told.body));
    return flow;
  }));
  const rejected = await scene.payThroughFxp(conversionPayment(scene.payee, { payeeBehaviour: 'reject', sourceAmount: '10', targetAmount: '9' }));
  assert.equal(rejected.body.errorInformation.errorCode, '5104', 'a payment that never committed is in no window');
  return paid;
}

/** Nets per position account as central-settlement signs them (paid minus received): the conversion in USD, the payment in EUR. */
function expectedNets(flows) {
  const nets = new Map(ACCOUNTS.map(([name, currency]) => [positionAccountId(name, currency), 0n]));
  const add = (name, currency, amount) => nets.set(positionAccountId(name, currency), nets.get(positionAccountId(name, currency)) + amount);
  for (const { conversion, payment } of flows) {
    const source = parseAmount(conversion.sourceAmount.amount);
    const target = parseAmount(payment.amount.amount);
    add(PAYER, 'USD', source);
    add(FXP, 'USD', -source);
    add(FXP, 'EUR', target);
    add(PAYEE, 'EUR', -target);
  }
  return nets;
}

async function closeOpenWindow() {
  const open = await settlementApi('GET', '/v2/settlementWindows?state=OPEN');
  assert.equal(open.status, 200, open.text);
  const id = open.body[0].settlementWindowId;
  const closed = await settlementApi('POST', `/v2/settlementWindows/${id}`, { state: 'CLOSED', reason: 'end of the conversion test\'s day' });
  assert.equal(closed.status, 200, closed.text);
  return id;
}

async function balances() {
  const all = new Map();
  for (const [name, currency] of ACCOUNTS) all.set(`${name} ${currency}`, await balancesOf(adminApi, name, currency));
  return all;
}

async function moveAllAccounts(settlement, state) {
  const answer = await settlementApi('PUT', `/v2/settlements/${settlement.id}`, {
    participants: settlement.participants.map((participant) => ({
      id: participant.id, accounts: participant.accounts.map((account) => ({ id: account.id, state, reason: `to ${state}` })),
    })),
  });
  assert.equal(answer.status, 200, answer.text);
  assert.equal(answer.body.state, state, answer.text);
  for (const [accountId, account] of accountsOf(answer.body)) assert.equal(account.errorInformation, undefined, `account ${accountId}: ${JSON.stringify(account.errorInformation)}`);
  return answer.body;
}

/**
 * Takes `settlement` through every step to SETTLED: each of its accounts' position falls by
 * its net, back to zero (no other payment moved them), and its settlement account rises by it.
 */
async function settleAll(settlement, nets) {
  const settled = (name, currency) => nets.has(positionAccountId(name, currency));
  const before = await balances();
  let moved = settlement;
  for (const state of SETTLEMENT_STEPS) moved = await moveAllAccounts(moved, state);
  const after = await balances();
  for (const [name, currency] of ACCOUNTS.filter(([name, currency]) => settled(name, currency))) {
    const net = nets.get(positionAccountId(name, currency));
    const [was, is] = [before.get(`${name} ${currency}`), after.get(`${name} ${currency}`)];
    assert.equal(is.POSITION, was.POSITION - net, `${name}'s ${currency} position falls by its net`);
    assert.equal(is.POSITION, 0n, `${name}'s ${currency} position is back where it started`);
    assert.equal(is.SETTLEMENT, was.SETTLEMENT + net, `${name}'s ${currency} settlement account moves by its net`);
  }
  for (const [name, currency] of ACCOUNTS.filter(([name, currency]) => !settled(name, currency))) {
    assert.deepEqual(after.get(`${name} ${currency}`), before.get(`${name} ${currency}`), `${name}'s ${currency} accounts are another settlement's`);
  }
}

function assertNets(settlement, expected) {
  const accounts = accountsOf(settlement);
  assert.deepEqual([...accounts.keys()].sort((a, b) => a - b), [...expected.keys()].sort((a, b) => a - b), 'one account per participant and currency');
  for (const [name, currency] of ACCOUNTS.filter(([name, currency]) => expected.has(positionAccountId(name, currency)))) {
    const account = accounts.get(positionAccountId(name, currency));
    assert.deepEqual([account.currency, account.amountText], [currency, formatAmount(expected.get(positionAccountId(name, currency)))], `${name}'s net in ${currency}`);
  }
  for (const currency of new Set([...accounts.values()].map((account) => account.currency))) {
    const total = [...accounts.values()].filter((account) => account.currency === currency).reduce((sum, account) => sum + account.net, 0n);
    assert.equal(total, 0n, `the ${currency} nets sum to zero`);
  }
  return accounts;
}

const createSettlement = (settlementModel, windowId) => settlementApi('POST', '/v2/settlements', {
  settlementModel, reason: 'conversion payments', settlementWindows: [{ id: windowId }],
});

test('a settlement over conversion payments nets each currency on its own, the FXP in both, and settling resets every position', async () => {
  const flows = await conversionPayments([['100', '90'], ['25.5', '23.25'], ['7.01', '6.3']]);
  const windowId = await closeOpenWindow();
  const window = (await settlementApi('GET', `/v2/settlementWindows/${windowId}`)).body;
  assert.deepEqual(window.content.map((content) => content.currencyId).sort(), ['EUR', 'USD'], 'both legs are in the window, each in its currency');
  const recorded = await scene.sw.admin.db('settlement_window_transfer').where({ settlement_window_id: windowId }).select('transfer_id', 'currency');
  assert.deepEqual(
    recorded.map((row) => `${row.transfer_id} ${row.currency}`).sort(),
    flows.flatMap((flow) => [`${flow.commitRequestId} USD`, `${flow.transferId} EUR`]).sort(),
    'every committed conversion in USD and its payment in EUR, once each',
  );

  const created = await createSettlement(DEFAULT_MODEL, windowId);
  assert.equal(created.status, 200, created.text);
  const expected = expectedNets(flows);
  const accounts = assertNets(created.body, expected);
  const fxpParticipant = accounts.get(positionAccountId(FXP, 'USD')).participantId;
  assert.equal(accounts.get(positionAccountId(FXP, 'EUR')).participantId, fxpParticipant, 'the FXP settles both its accounts under one participant');
  assert.ok(accounts.get(positionAccountId(FXP, 'USD')).net < 0n && accounts.get(positionAccountId(FXP, 'EUR')).net > 0n, 'the FXP received USD and paid EUR');
  await settleAll(created.body, expected);
  assert.equal((await settlementApi('GET', `/v2/settlementWindows/${windowId}`)).body.state, 'SETTLED');
});

test('with a deferred net model per currency, the two legs of conversion payments settle apart: USD between payer and FXP, EUR between FXP and payee', async () => {
  for (const currency of ['USD', 'EUR']) {
    const model = await scene.sw.admin.request('POST', '/settlementModels', {
      name: `DEFERREDNET${currency}`, settlementGranularity: 'NET', settlementInterchange: 'MULTILATERAL', settlementDelay: 'DEFERRED', currency,
      requireLiquidityCheck: true, ledgerAccountType: 'POSITION', settlementAccountType: 'SETTLEMENT', autoPositionReset: true,
    });
    assert.equal(model.status, 201, model.text);
  }
  const flows = await conversionPayments([['40', '36.8'], ['12.34', '11.11']]);
  const windowId = await closeOpenWindow();
  const expected = expectedNets(flows);
  const ofCurrency = (currency) => new Map([...expected].filter(([accountId]) => ACCOUNTS.some(([name, of]) => of === currency && positionAccountId(name, of) === accountId)));
  assert.equal((await createSettlement(DEFAULT_MODEL, windowId)).status, 400, 'the window\'s currencies closed under their own models');
  for (const currency of ['USD', 'EUR']) {
    const created = await createSettlement(`DEFERREDNET${currency}`, windowId);
    assert.equal(created.status, 200, created.text);
    assertNets(created.body, ofCurrency(currency));
    await settleAll(created.body, ofCurrency(currency));
  }
  assert.equal((await settlementApi('GET', `/v2/settlementWindows/${windowId}`)).body.state, 'SETTLED', 'both currencies settled, the window with them');
});
