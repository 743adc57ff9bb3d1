// The simulated DFSPs registered as ISO 20022 DFSPs (perf/provision.js --iso20022-share), both
// roles, as a DFSP on Mojaloop's SDKs in ISO 20022 mode behaves: on the five resources ISO
// 20022 carries (parties, quotes, transfers, fxQuotes, fxTransfers) what it sends is ISO 20022
// (iso20022.js writes the FSPIOP body the simulators decide on as the ISO 20022 message), and
// what it receives in ISO 20022 it reads back into FSPIOP. The switch converts between the two
// for a pair of DFSPs of different types (docs/iso20022.md), so every payment here is one of
// the type pairs ISO 20022 → ISO 20022, ISO 20022 → FSPIOP or FSPIOP → ISO 20022; FSPIOP →
// FSPIOP payments stay on bridge.js's path, which does no conversion work at all.
// ISO 20022 identifiers are ULIDs: a payment with an ISO 20022 DFSP on either side has ULID
// quote and transfer ids, owned by the run (correlator.js ownedUlid) so the gate finds them.
import { answerAs } from './fspiop.js';
import { roundTrip } from './round-trip.js';
import { fulfilmentFor } from './payee-ilp.js';
import { partyBody, quoteAnswer, secretOf } from './payee.js';
import { awaitTransfer, failedOutcome, phaseTimer, quoteRequest, transferRequest } from './bridge.js';
import { fspiopToIso, isIsoMessage, isoHeaders, isoResourceOf, isoToFspiop } from './iso20022.js';
import { ownedUlid } from './correlator.js';
import { dfspHeaders } from '../../scripts/lib/fspiop-headers.js';
import { API_TYPE } from '../../platform/iso20022/media-types.js';

// Every payment with an ISO 20022 DFSP speaks FSPIOP 2.0 on its FSPIOP side: ISO 20022 is
// FSPIOP 2.0's, and a 2.0 party answer names the currencies its DFSP holds.
const VERSION = '2.0';

/** The API DFSP `name` is registered with. */
export const apiTypeOf = (config, name) => (config.isoDfsps.has(name) ? API_TYPE.iso20022 : API_TYPE.fspiop);

/** Whether a payment between `payer` and `payee` has an ISO 20022 DFSP on either side. */
export const involvesIso = (config, payer, payee) => config.isoDfsps.has(payer) || config.isoDfsps.has(payee);

/** The key payments are counted by: the payer's API type, an arrow, the payee's. */
export const typePairOf = (config, payer, payee) => `${apiTypeOf(config, payer)}→${apiTypeOf(config, payee)}`;

/**
 * A request as DFSP `sender` sends it: `{ url, method, headers, body }` (body as text). An ISO
 * 20022 DFSP writes a call on an ISO 20022 resource as ISO 20022 (a GET with its media types),
 * `context` the mapping's `$context`; anything else goes as the FSPIOP body.
 */
export async function wireRequest(config, sender, { url, method, headers, body, context }) {
  const path = new URL(url).pathname;
  const resource = config.isoDfsps.has(sender) ? isoResourceOf(path) : null;
  if (!resource) return { url, method, headers, body: body === undefined ? undefined : JSON.stringify(body) };
  if (body === undefined) return { url, method, headers: isoHeaders(headers, resource), body: undefined };
  const iso = await fspiopToIso({ method, path, headers, body, context });
  return { url, method, headers: isoHeaders(headers, resource), body: JSON.stringify(iso) };
}

const convertedFromIso = (headers) => (headers['fspiop-switch-original-content-type'] ?? '').includes('.iso20022.');

/** A DFSP's answer (PUT), written in its type and sent again while the switch has not taken it. */
async function answerIn(config, sender, request) {
  const wire = await wireRequest(config, sender, request);
  return answerAs(config, sender, wire.url, wire.method, wire.headers, wire.body);
}

async function isoDiscovery(context, { payer, payee, msisdn }) {
  const { config } = context;
  if (config.mode !== 'full') return { body: { party: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: msisdn, fspId: payee } } } };
  const request = await wireRequest(config, payer, { url: `${config.alsUrl}/parties/MSISDN/${msisdn}`, method: 'GET', headers: dfspHeaders('parties', payer, undefined, { version: VERSION }) });
  return roundTrip(context, `parties:${payer}:MSISDN/${msisdn}`, request);
}

/** The quote with ULID ids; the outcome's `isoBody` is the ISO 20022 answer an ISO 20022 payer received, which its transfer needs. */
async function isoQuote(context, params) {
  const { config, worker } = context;
  const body = quoteRequest(context, { ...params, quoteId: ownedUlid(worker, config.runTag), transactionId: ownedUlid(worker, config.runTag) });
  if (config.mode === 'transfer') return { body: { quoteId: body.quoteId, transactionId: body.transactionId, ...quoteAnswer(config, params.payee, body) } };
  const request = await wireRequest(config, params.payer, {
    url: `${config.quotingUrl}/quotes`, method: 'POST', headers: dfspHeaders('quotes', params.payer, params.payee, { version: VERSION }), body,
  });
  const outcome = await roundTrip(context, `quotes:${params.payer}:${body.quoteId}`, request);
  if (outcome.body && !outcome.error) outcome.body = { ...outcome.body, quoteId: body.quoteId, transactionId: body.transactionId };
  return outcome;
}

/**
 * What the ISO 20022 POST /transfers takes from the quote's answer when there was none in ISO
 * 20022 (mode transfer, where the bridge makes the quote itself): the charge bearer and the
 * two parties, as the payer's own answer would name them.
 */
function contextWithoutQuote(payer, payee) {
  const party = (fspId) => ({ Id: { OrgId: { Othr: { Id: fspId } } } });
  return { isoPostQuoteResponse: { CdtTrfTxInf: { ChrgBr: 'SHAR', Dbtr: party(payer), Cdtr: party(payee) } } };
}

async function isoTransfer(context, { payer, payee, quoted }) {
  const { transactionId, transferAmount, ilpPacket, condition } = quoted.body;
  const body = transferRequest(context, { payer, payee, transferId: transactionId, amount: transferAmount.amount, currency: transferAmount.currency, ilpPacket, condition });
  const request = await wireRequest(context.config, payer, {
    url: `${context.config.transfersUrl}/transfers`, method: 'POST', headers: dfspHeaders('transfers', payer, payee, { version: VERSION }), body,
    context: quoted.isoBody ? { isoPostQuoteResponse: quoted.isoBody } : contextWithoutQuote(payer, payee),
  });
  return awaitTransfer(context, payer, payee, transactionId, request);
}

/**
 * One whole payment with an ISO 20022 DFSP on either side (bridge.js payment's counterpart):
 * discovery, quote and transfer, each sent in the payer's type, with ULID ids. Completed ones
 * are counted by type pair (`counters.isoPayments`).
 */
export async function isoPayment(context, { payer, payee, msisdn, amount, currency }) {
  const { phasesMs, timed } = phaseTimer();
  const found = await timed('discovery', () => isoDiscovery(context, { payer, payee, msisdn }));
  if (failedOutcome(found)) return { ...found, phase: 'discovery', phasesMs };
  const payeeFsp = found.body?.party?.partyIdInfo?.fspId;
  const quoted = await timed('quote', () => isoQuote(context, { payer, payee: payeeFsp, msisdn, amount, currency, version: VERSION }));
  if (failedOutcome(quoted)) return { ...quoted, phase: 'quote', phasesMs };
  const transferred = await timed('transfer', () => isoTransfer(context, { payer, payee: payeeFsp, quoted }));
  if (failedOutcome(transferred)) return { ...transferred, phase: 'transfer', phasesMs };
  const typePair = typePairOf(context.config, payer, payeeFsp);
  context.counters.isoPayments[typePair] = (context.counters.isoPayments[typePair] ?? 0) + 1;
  return { body: { transferId: quoted.body.transactionId, transferState: transferred.body.transferState, typePair }, phasesMs };
}

/**
 * Reads a call in ISO 20022 into FSPIOP: `{ body, isoBody }` (both undefined for a call
 * without a body). A call that is not ISO 20022 (an FSPIOP message, converted by the switch
 * from an ISO 20022 one) is parsed as it is.
 */
export async function readCall(method, parts, headers, text) {
  if (!text) return { body: undefined, isoBody: undefined };
  if (!isIsoMessage(headers) || !isoResourceOf(parts[0])) return { body: JSON.parse(text), isoBody: undefined };
  const isoBody = JSON.parse(text);
  return { body: await isoToFspiop({ method, path: `/${parts.join('/')}`, headers, body: isoBody }), isoBody };
}

/**
 * The payee side of an ISO 20022 DFSP `name` (payee.js answerAsPayee's counterpart): GET
 * /parties, POST /quotes and POST /transfers answered at once, in ISO 20022, from the request
 * read into FSPIOP (`body`) and, for the quote, the ISO 20022 request itself (`isoBody`), which
 * the mapping of the answer needs. Returns undefined for anything else.
 */
export function answerAsIsoPayee(config, name, method, parts, { body, isoBody }, requestHeaders) {
  const payer = requestHeaders['fspiop-source'];
  const answerHeaders = (resource) => dfspHeaders(resource, name, payer, { accept: false, version: VERSION });
  if (method === 'GET' && parts[0] === 'parties') {
    const [type, id] = parts.slice(1);
    return answerIn(config, name, {
      url: `${config.alsUrl}/parties/${type}/${id}`, method: 'PUT', headers: answerHeaders('parties'), body: partyBody(name, type, id, config.dfspCurrencies[name]),
    });
  }
  if (method === 'POST' && parts[0] === 'quotes') {
    return answerIn(config, name, {
      url: `${config.quotingUrl}/quotes/${body.quoteId}`, method: 'PUT', headers: answerHeaders('quotes'), body: quoteAnswer(config, name, body),
      context: isoBody ? { isoPostQuote: isoBody } : undefined,
    });
  }
  if (method === 'POST' && parts[0] === 'transfers') {
    const answer = { fulfilment: fulfilmentFor(secretOf(config, name), body.ilpPacket), completedTimestamp: new Date().toISOString(), transferState: 'COMMITTED' };
    return answerIn(config, name, { url: `${config.transfersUrl}/transfers/${body.transferId}`, method: 'PUT', headers: answerHeaders('transfers'), body: answer });
  }
  return undefined;
}

/**
 * Whether a call to DFSP `name` is the ISO 20022 side's: an ISO 20022 message, one the switch
 * converted from ISO 20022 for an FSPIOP DFSP, or any call on an ISO 20022 resource to an ISO
 * 20022 DFSP. The switch converts into the FSPIOP version the receiver spoke last, 1.1 for a
 * DFSP that pays in 1.1, yet the ids of a message from an ISO 20022 DFSP are ULIDs, which FSPIOP
 * takes from 2.0 on: an FSPIOP DFSP answers such a message in 2.0 (answerAsIsoPayee), as a 1.1
 * answer naming a ULID is refused.
 */
export function isIsoCall(config, name, parts, headers) {
  return isIsoMessage(headers) || convertedFromIso(headers) || (config.isoDfsps.has(name) && isoResourceOf(parts[0] ?? '') !== null);
}
