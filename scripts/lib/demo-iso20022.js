// The demo's ISO 20022 payments (issue 34, docs/iso20022.md): one DFSP registered as speaking
// ISO 20022 (`isobank`) is paid by an FSPIOP DFSP and pays one back, each payment discovery →
// quote → transfer. Each DFSP sends and receives in its own API type: the switch converts what
// crosses types and signs what it converted (FSPIOP-Switch-Signer). Every step prints what the
// sender sent and what each side received (the ISO 20022 message, acmt.024, pacs.081, pacs.082,
// pacs.008, pacs.002, or FSPIOP and its version) and who signed what arrived; then the states
// and the positions of both DFSPs before and after.
import { ensureDfsp } from './onboarding.js';
import { CALLBACK_WAIT_MS, discover, requestQuote, transfer } from './demo-dfsp-calls.js';
import { changeOf, positionChanges, positionsOf, units } from './demo-positions.js';
import { API_TYPE, requestApiType } from '../../platform/iso20022/media-types.js';
import { ISO_MESSAGES } from '../../platform/iso20022/document.js';
import { isoOperationOf } from '../../test/support/iso-codec.js';

/** The DFSP that speaks ISO 20022, in USD beside the demo's FSPIOP DFSPs. */
export const ISO_DFSP = Object.freeze({
  name: 'isobank', currencies: ['USD'], apiType: API_TYPE.iso20022, netDebitCap: '10000', fundsIn: '5000', msisdn: '27710000006', customer: 'Zanele Iso',
});

/** Every FSPIOP message goes in 2.0 here: its CorrelationId takes the ULIDs ISO 20022 requires (1.x takes UUIDs only). */
const VERSION = '2.0';

/**
 * Onboards the ISO 20022 DFSP as any DFSP (its simulator at `endpointBaseOf(name)`, its JWS key
 * `jwsPublicKeyOf(name)`), then registers its API type through the admin API
 * (`PUT /participants/{name}` `{ apiType }`, the same again on a second run) and reads it back.
 */
export async function onboardIso20022(request, { endpointBaseOf, jwsPublicKeyOf, log = console.log }) {
  const { name, currencies: [currency], netDebitCap, fundsIn } = ISO_DFSP;
  await ensureDfsp(request, { name, currency, netDebitCap, fundsIn, endpointBase: endpointBaseOf(name), jwsPublicKey: jwsPublicKeyOf(name) });
  const changed = await request('PUT', `/participants/${name}`, { apiType: ISO_DFSP.apiType });
  if (changed.status !== 200) throw new Error(`PUT /participants/${name} { apiType: ${ISO_DFSP.apiType} } answered ${changed.status}: ${changed.text}`);
  const shown = await request('GET', `/participants/${name}`);
  if (shown.body?.apiType !== ISO_DFSP.apiType) throw new Error(`GET /participants/${name} shows apiType ${shown.body?.apiType}, not ${ISO_DFSP.apiType}`);
  log(`${name}: participant, net debit cap ${netDebitCap}, funds in ${fundsIn}, callbacks → ${endpointBaseOf(name)}, API type ${shown.body.apiType} (PUT /participants/${name})`);
}

/**
 * What a message is on the wire, from its method, path and headers: the ISO 20022 message of
 * the operation (`pacs.008 POST /transfers`), `ISO 20022 GET …` for a GET asked in ISO 20022,
 * or `FSPIOP <version> <method> …`. Ids in the path are shown as the document's templates.
 */
export function messageOf(method, path, headers) {
  // A GET has the path of the PUT that answers it.
  const template = isoOperationOf(method === 'GET' ? 'PUT' : method, path)?.template ?? path.split('?')[0];
  if (requestApiType(headers) === API_TYPE.iso20022) {
    const message = ISO_MESSAGES[`${method} ${template}`]?.message ?? 'ISO 20022';
    return `${message} ${method} ${template}`;
  }
  const version = /version=(\d+(?:\.\d+)?)/.exec(headers['content-type'] ?? headers.accept ?? '')?.[1] ?? '?';
  return `FSPIOP ${version} ${method} ${template}`;
}

/** The API type a received call came in (its Content-Type's, its Accept's for a GET). */
const apiTypeOf = (call) => requestApiType(call.headers);

/**
 * Who signed a call a DFSP received, as the DFSP checked it: the hub for a message it converted
 * (FSPIOP-Switch-Signer), its sender otherwise; null without a signature (a forwarded GET).
 */
export function signerOf(call) {
  if (!call.headers['fspiop-signature']) return null;
  const signer = call.headers['fspiop-switch-signer'];
  const who = signer ? `${signer}, which converted it` : call.headers['fspiop-source'];
  return call.signatureProblem ? `${who} (NOT verified: ${call.signatureProblem})` : who;
}

/** A received call in one phrase: its message type and its signer. */
function receivedAs(call) {
  const signer = signerOf(call);
  return `${messageOf(call.method, call.path, call.headers)}, ${signer ? `signed by ${signer}` : 'unsigned'}`;
}

/** The first call `dfsp` received since `sinceMs` with `method` on `path` whose FSPIOP body fits `matches`. */
const receivedCall = (dfsp, method, path, sinceMs, matches = () => true) => dfsp.waitFor(
  (seen) => seen.method === method && seen.path.split('?')[0] === path && seen.at >= sinceMs && matches(seen.body ?? {}), CALLBACK_WAIT_MS,
);

/** Step 1: GET /parties from the payer, as the payee received it, and the answer as the payer received it. */
async function discoverPayee(payer, payee, msisdn, log) {
  const sinceMs = Date.now();
  const found = await discover(payer, msisdn, { version: VERSION, sinceMs });
  const asked = await receivedCall(payee, 'GET', `/parties/MSISDN/${msisdn}`, sinceMs);
  if (found.error) throw new Error(`discovery: ${found.error.errorCode} ${found.error.errorDescription}`);
  log(`  1. discovery: ${payer.name} sent ${messageOf('GET', `/parties/MSISDN/${msisdn}`, found.sent.headers)}; ${payee.name} received ${receivedAs(asked)}`);
  log(`     ${payer.name} received ${receivedAs(found.answer)}: ${msisdn} is ${found.party.name} at ${found.party.partyIdInfo.fspId}`);
  return { received: [[payee, asked], [payer, found.answer]], payeeFsp: found.party.partyIdInfo.fspId };
}

/** Step 2: POST /quotes from the payer, as the payee received it, and the payee's terms as the payer received them. */
async function quotePayee(payer, payee, { payeeMsisdn, payerMsisdn, amount, currency, log }) {
  const sinceMs = Date.now();
  const quoted = await requestQuote(payer, { payeeFsp: payee.name, payeeMsisdn, payerMsisdn, amount, currency, version: VERSION });
  const asked = await receivedCall(payee, 'POST', '/quotes', sinceMs, (body) => body.quoteId === quoted.quoteId);
  if (quoted.errorInformation) throw new Error(`quote refused: ${quoted.errorInformation.errorCode} ${quoted.errorInformation.errorDescription}`);
  log(`  2. quote ${quoted.quoteId.slice(0, 10)}…: ${payer.name} sent ${messageOf('POST', '/quotes', quoted.sent.headers)}; ${payee.name} received ${receivedAs(asked)}`);
  log(`     ${payer.name} received ${receivedAs(quoted.answer)}: ${quoted.transferAmount.amount} ${quoted.transferAmount.currency}, condition ${quoted.condition.slice(0, 10)}… from ${payee.name}'s secret`);
  return { quoted, received: [[payee, asked], [payer, quoted.answer]] };
}

/** Step 3: POST /transfers from the payer, as the payee received it, and the outcome as the payer received it. */
async function transferToPayee(payer, payee, quoted, log) {
  const sinceMs = Date.now();
  const result = await transfer(payer, payee, quoted, { version: VERSION });
  const asked = await receivedCall(payee, 'POST', '/transfers', sinceMs, (body) => body.transferId === result.transferId);
  const { body } = result.outcome;
  const told = body.errorInformation ? `ABORTED ${body.errorInformation.errorCode} "${body.errorInformation.errorDescription}"` : `${body.transferState} (fulfilment ${body.fulfilment?.slice(0, 10)}…)`;
  log(`  3. transfer ${result.transferId.slice(0, 10)}…: ${payer.name} sent ${messageOf('POST', '/transfers', result.sent.headers)}; ${payee.name} received ${receivedAs(asked)}`);
  log(`     ${payer.name} received ${receivedAs(result.outcome)}: ${told}`);
  return { transferId: result.transferId, transferState: body.transferState ?? 'ABORTED', received: [[payee, asked], [payer, result.outcome]] };
}

/**
 * One payment of `amount` `currency` from `payerName` to the customer `payeeMsisdn` of
 * `payeeName`, discovery → quote → transfer, each step printed with `log`. `simulators`: name →
 * test DFSP simulator. Resolves to the ids, the final state, whether every call each side
 * received came in its own API type (`mismatches`: the calls that did not, whose signature did
 * not verify, or whose ISO 20022 body the document refuses) and both DFSPs' positions before
 * and after.
 */
export async function payAcrossApiTypes({ request, simulators, payerName, payerMsisdn, payeeName, payeeMsisdn, amount, currency, log = console.log }) {
  const payer = simulators.get(payerName);
  const payee = simulators.get(payeeName);
  log(`\n${payerName} (${payer.apiType}) pays ${amount} ${currency} to MSISDN ${payeeMsisdn} at ${payeeName} (${payee.apiType})`);
  const found = await discoverPayee(payer, payee, payeeMsisdn, log);
  if (found.payeeFsp !== payee.name) throw new Error(`discovery named ${found.payeeFsp}, not ${payee.name}`);
  const before = await positionsOf(request, [payer.name, payee.name]);
  const quote = await quotePayee(payer, payee, { payeeMsisdn, payerMsisdn, amount, currency, log });
  const done = await transferToPayee(payer, payee, quote.quoted, log);
  const positions = positionChanges(before, await positionsOf(request, [payer.name, payee.name]));
  const received = [...found.received, ...quote.received, ...done.received];
  // An ISO 20022 DFSP also checks what it receives against the ISO 20022 document (isoProblem).
  const mismatches = received.filter(([dfsp, call]) => apiTypeOf(call) !== dfsp.apiType || call.signatureProblem || call.isoProblem)
    .map(([dfsp, call]) => `${dfsp.name} (${dfsp.apiType}) received ${receivedAs(call)}${call.isoProblem ? ` that the ISO 20022 document refuses: ${call.isoProblem}` : ''}`);
  return {
    payerName, payeeName, amount, currency, quoteId: quote.quoted.quoteId, transferId: done.transferId, transferState: done.transferState, positions, mismatches,
  };
}

/**
 * What a committed payment must have done, checked: every call in its receiver's own API type
 * and verified, the payer's position up by the amount and the payee's down by it. Returns the
 * summary line; throws naming what went otherwise.
 */
export function checkIso20022Payment({ payerName, payeeName, amount, currency, transferState, positions, mismatches }) {
  const moved = [[payerName, amount], [payeeName, `-${amount}`]];
  const wrong = moved.filter(([participant, change]) => units(changeOf(positions, participant, currency)) !== units(change));
  if (transferState !== 'COMMITTED' || wrong.length > 0 || mismatches.length > 0) {
    throw new Error(`the payment from ${payerName} to ${payeeName} ended ${transferState}; positions moved ${JSON.stringify(positions)}${mismatches.length ? `; ${mismatches.join('; ')}` : ''}`);
  }
  return `${amount} ${currency} from ${payerName} to ${payeeName} COMMITTED, every message in its receiver's API type and verified; `
    + `positions moved ${payerName} +${amount}, ${payeeName} -${amount}`;
}
