// The demo's payment with currency conversion (FSPIOP v2.0, payer-side conversion as
// handlers/README.md "Currency conversion" describes it): a payer DFSP holding USD pays a
// customer of a DFSP holding EUR through an FXP holding both. Every step is printed as the
// plain payments' are: discovery (the payee's currencies), FXP discovery (GET /services/FXP),
// the fx quote, the quote in the target currency, the fx transfer reserved by the FXP, the
// dependent transfer committed by the payee, and the hub's PATCH COMMITTED to the FXP; then
// every position of the three DFSPs in both currencies, before and after.
import { randomUUID } from 'node:crypto';
import { ensureCurrencyPair, ensureDfsp, ensureHub } from './onboarding.js';
import { call, callbackTo, discover, requestQuote } from './demo-dfsp-calls.js';
import { dfspHeaders } from './fspiop-headers.js';
import { changeOf, positionChanges, positionsOf, units } from './demo-positions.js';

export const SOURCE_CURRENCY = 'USD';
export const TARGET_CURRENCY = 'EUR';

/**
 * The two DFSPs conversion adds to the demo: an FXP in USD and EUR that converts USD → EUR
 * at a fixed rate (its simulator's `fxRates`), and a payee DFSP in EUR whose customer
 * receives in EUR.
 */
export const CONVERSION_DFSPS = Object.freeze([
  { name: 'fxpbank', currencies: [SOURCE_CURRENCY, TARGET_CURRENCY], pairs: [[SOURCE_CURRENCY, TARGET_CURRENCY]], fxRates: { [`${SOURCE_CURRENCY}/${TARGET_CURRENCY}`]: '0.9' }, netDebitCap: '10000', fundsIn: '10000' },
  { name: 'eurobank', currencies: [TARGET_CURRENCY], netDebitCap: '10000', fundsIn: '5000', msisdn: '27710000005', customer: 'Lena Euro' },
]);

const v2 = (resource, source, destination) => dfspHeaders(resource, source, destination, { version: '2.0' });

/**
 * Onboards a DFSP in each of its `currencies` (an account set per currency, the first with its
 * endpoints and JWS key) and registers the `pairs` it converts. Safe to run again.
 */
export async function ensureDfspInCurrencies(request, { currencies, pairs = [], ...dfsp }) {
  const [first, ...more] = currencies;
  await ensureDfsp(request, { ...dfsp, currency: first });
  for (const currency of more) await ensureDfsp(request, { ...dfsp, currency, endpointBase: undefined, jwsPublicKey: undefined });
  for (const pair of pairs) await ensureCurrencyPair(request, dfsp.name, pair);
}

/** The hub in the target currency too, then the FXP and the payee DFSP (`endpointBaseOf(name)`, `jwsPublicKeyOf(name)`). */
export async function onboardConversion(request, { endpointBaseOf, jwsPublicKeyOf, log = console.log }) {
  await ensureHub(request, TARGET_CURRENCY);
  log(`hub: HUB_RECONCILIATION and HUB_MULTILATERAL_SETTLEMENT accounts in ${TARGET_CURRENCY}, a settlement model`);
  for (const dfsp of CONVERSION_DFSPS) {
    await ensureDfspInCurrencies(request, { ...dfsp, endpointBase: endpointBaseOf(dfsp.name), jwsPublicKey: jwsPublicKeyOf(dfsp.name) });
    const pairs = (dfsp.pairs ?? []).map(([source, target]) => `${source}→${target}`);
    const each = dfsp.currencies.length > 1 ? ' in each' : '';
    log(`${dfsp.name}: participant in ${dfsp.currencies.join(' and ')}, net debit cap ${dfsp.netDebitCap} and funds in ${dfsp.fundsIn}${each}, callbacks → ${endpointBaseOf(dfsp.name)}${pairs.length ? `, converts ${pairs.join(', ')} (currencyPairs)` : ''}`);
  }
}

/** Steps 2 and 3: the FXPs the hub names for the pair, then the first one's fx quote. */
async function quoteConversion(payer, { determiningTransferId, sourceAmount, log }) {
  const sinceMs = Date.now();
  const servicesPath = `/services/FXP/${SOURCE_CURRENCY}/${TARGET_CURRENCY}`;
  await call(payer, `${payer.urls.parties}${servicesPath}`, 'GET', v2('services', payer.name));
  const { providers = [] } = (await callbackTo(payer, 'PUT', servicesPath, sinceMs)).body;
  if (providers.length === 0) throw new Error(`the hub names no FXP for ${SOURCE_CURRENCY}→${TARGET_CURRENCY}`);
  const [fxp] = providers;
  log(`  2. FXP discovery: GET ${servicesPath}: the hub names ${providers.join(', ')}; ${fxp} is asked`);
  const conversionRequestId = randomUUID();
  const conversionId = randomUUID();
  await call(payer, `${payer.urls.quotes}/fxQuotes`, 'POST', v2('fxQuotes', payer.name, fxp), {
    conversionRequestId,
    conversionTerms: {
      conversionId, determiningTransferId, initiatingFsp: payer.name, counterPartyFsp: fxp, amountType: 'SEND',
      sourceAmount: { amount: sourceAmount, currency: SOURCE_CURRENCY }, targetAmount: { currency: TARGET_CURRENCY },
      expiration: new Date(Date.now() + 60000).toISOString(),
    },
  });
  const answer = (await callbackTo(payer, 'PUT', `/fxQuotes/${conversionRequestId}`, sinceMs)).body;
  if (answer.errorInformation) throw new Error(`fx quote refused: ${answer.errorInformation.errorCode} ${answer.errorInformation.errorDescription}`);
  const { targetAmount } = answer.conversionTerms;
  log(`  3. fx quote ${conversionRequestId.slice(0, 8)}…: POST /fxQuotes to ${fxp}: ${sourceAmount} ${SOURCE_CURRENCY} → ${targetAmount.amount} ${targetAmount.currency}, condition ${answer.condition.slice(0, 10)}… from the FXP's secret`);
  return { fxp, conversionId, condition: answer.condition, terms: answer.conversionTerms };
}

/** Step 5: POST /fxTransfers under the quoted terms; the FXP's answer reaches the payer. */
async function convert(payer, { fxp, conversionId, condition, terms }, log) {
  const sinceMs = Date.now();
  await call(payer, `${payer.urls.transfers}/fxTransfers`, 'POST', v2('fxTransfers', payer.name, fxp), {
    commitRequestId: conversionId, determiningTransferId: terms.determiningTransferId, initiatingFsp: payer.name, counterPartyFsp: fxp,
    sourceAmount: terms.sourceAmount, targetAmount: terms.targetAmount, condition, expiration: new Date(Date.now() + 30000).toISOString(),
  });
  const answer = await callbackTo(payer, 'PUT', `/fxTransfers/${conversionId}`, sinceMs);
  const told = answer.body.errorInformation ? `${answer.body.errorInformation.errorCode} "${answer.body.errorInformation.errorDescription}"` : answer.body.conversionState;
  log(`  5. fx transfer ${conversionId.slice(0, 8)}…: POST /fxTransfers ${terms.sourceAmount.amount} ${SOURCE_CURRENCY} → ${terms.targetAmount.amount} ${TARGET_CURRENCY}: ${fxp} answered ${told}, from ${answer.headers['fspiop-source']}`);
  if (answer.body.conversionState !== 'RESERVED') throw new Error(`the conversion was not reserved: ${told}`);
}

/** Steps 6 and 7: the dependent transfer in the target currency, its outcome, and the hub's PATCH to the FXP. */
async function transferConverted(payer, { transferId, payeeFsp, quoted, fxpSimulator, conversionId, log }) {
  const sinceMs = Date.now();
  await call(payer, `${payer.urls.transfers}/transfers`, 'POST', dfspHeaders('transfers', payer.name, payeeFsp), {
    transferId, payerFsp: payer.name, payeeFsp, amount: quoted.transferAmount,
    ilpPacket: quoted.ilpPacket, condition: quoted.condition, expiration: new Date(Date.now() + 30000).toISOString(),
  });
  const outcome = (await callbackTo(payer, 'PUT', `/transfers/${transferId}`, sinceMs)).body;
  const told = outcome.errorInformation ? `${outcome.errorInformation.errorCode} "${outcome.errorInformation.errorDescription}"` : outcome.transferState;
  log(`  6. transfer ${transferId.slice(0, 8)}… (the conversion's determining transfer): POST /transfers ${quoted.transferAmount.amount} ${quoted.transferAmount.currency}: payer told ${told}, from ${payeeFsp}`);
  const patch = fxpSimulator ? (await callbackTo(fxpSimulator, 'PATCH', `/fxTransfers/${conversionId}`, sinceMs)).body : undefined;
  if (patch) log(`  7. ${fxpSimulator.name} told by the hub: PATCH /fxTransfers/${conversionId.slice(0, 8)}… ${patch.conversionState}`);
  return { transferState: outcome.transferState ?? 'ABORTED', conversionState: patch?.conversionState };
}

/**
 * The payer pays `sourceAmount` USD to the EUR customer `payeeMsisdn`, converted by the FXP
 * the hub names, each step printed with `log`. `simulators`: name → test DFSP simulator (the
 * payer's and the FXP's at least). Resolves to the final states and the positions of payer,
 * FXP and payee before and after (`positions`: rows of participant, currency, before, after,
 * change).
 */
export async function payWithConversion({ request, simulators, payerName, payerMsisdn, payeeMsisdn, sourceAmount, log = console.log }) {
  const payer = simulators.get(payerName);
  log(`\n${payerName} pays ${sourceAmount} ${SOURCE_CURRENCY} to MSISDN ${payeeMsisdn}, whose DFSP holds ${TARGET_CURRENCY} (currency conversion, FSPIOP v2.0)`);
  const found = await discover(payer, payeeMsisdn, { version: '2.0' });
  if (found.error) throw new Error(`discovery: ${found.error.errorCode} ${found.error.errorDescription}`);
  const payeeFsp = found.party.partyIdInfo.fspId;
  const currencies = found.party.supportedCurrencies ?? [];
  log(`  1. discovery: ${payeeMsisdn} is ${found.party.name} at ${payeeFsp}, receiving in ${currencies.join(', ') || 'an unstated currency'}`);
  if (!currencies.includes(TARGET_CURRENCY)) throw new Error(`${payeeFsp} does not receive in ${TARGET_CURRENCY}`);
  const transferId = randomUUID();
  const conversion = await quoteConversion(payer, { determiningTransferId: transferId, sourceAmount, log });
  const names = [payerName, conversion.fxp, payeeFsp];
  const before = await positionsOf(request, names);
  const { amount } = conversion.terms.targetAmount;
  const quoted = await requestQuote(payer, { payeeFsp, payeeMsisdn, payerMsisdn, amount, currency: TARGET_CURRENCY });
  log(`  4. quote ${quoted.quoteId.slice(0, 8)}…: ${quoted.transferAmount.amount} ${quoted.transferAmount.currency} to ${payeeFsp}, condition ${quoted.condition.slice(0, 10)}… from the payee's secret`);
  await convert(payer, conversion, log);
  const states = await transferConverted(payer, {
    transferId, payeeFsp, quoted, fxpSimulator: simulators.get(conversion.fxp), conversionId: conversion.conversionId, log,
  });
  const positions = positionChanges(before, await positionsOf(request, names));
  return {
    ...states, payerName, transferId, commitRequestId: conversion.conversionId, fxp: conversion.fxp, payeeFsp, positions,
    sourceAmount, targetAmount: amount,
  };
}

/**
 * What a committed conversion must have moved, checked on its positions: the payer up by the
 * source amount, the FXP down by it in the source currency and up by the target amount in the
 * target currency, the payee down by the target amount. Returns the summary line; throws
 * naming what moved otherwise.
 */
export function checkConversion({ transferState, conversionState, positions, fxp, payeeFsp, sourceAmount, targetAmount, payerName }) {
  const change = (participant, currency) => changeOf(positions, participant, currency);
  const expected = [
    [payerName, SOURCE_CURRENCY, sourceAmount], [fxp, SOURCE_CURRENCY, `-${sourceAmount}`],
    [fxp, TARGET_CURRENCY, targetAmount], [payeeFsp, TARGET_CURRENCY, `-${targetAmount}`],
  ];
  const wrong = expected.filter(([participant, currency, amount]) => units(change(participant, currency)) !== units(amount));
  if (transferState !== 'COMMITTED' || conversionState !== 'COMMITTED' || wrong.length > 0) {
    throw new Error(`the conversion payment ended ${transferState} / ${conversionState}; positions moved ${JSON.stringify(positions)}`);
  }
  return `${sourceAmount} ${SOURCE_CURRENCY} from ${payerName} became ${targetAmount} ${TARGET_CURRENCY} for ${payeeFsp} through ${fxp}, both COMMITTED; `
    + `positions moved ${expected.map(([participant, currency, amount]) => `${participant} ${currency} ${amount.startsWith('-') ? amount : `+${amount}`}`).join(', ')}`;
}
