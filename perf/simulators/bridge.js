// The payer bridge k6 calls synchronously: it sends the FSPIOP request to the switch as the
// payer DFSP and answers k6 when the switch's callback arrives (200 with the callback body),
// with the payee's or switch's error (502), or after a timeout (504). k6 calls the bridge of
// the process on whose port the payer's endpoints are registered (main.js), so the callbacks
// it waits for arrive in this process. Requests with a body go
// signed with the payer's key (fspiop.js), so k6, which only calls the bridge, needs no key.
import { randomBytes } from 'node:crypto';
import { reply, sendAs } from './fspiop.js';
import { ownedId } from './correlator.js';
import { quoteAnswer } from './payee.js';
import { dfspHeaders } from '../../scripts/lib/fspiop-headers.js';

function finish(response, outcome, started) {
  const elapsed = Date.now() - started;
  const { phase, phasesMs } = outcome;
  if (outcome.timeout) return reply(response, 504, { error: 'timeout', elapsed, phase, phasesMs });
  if (outcome.error) return reply(response, 502, { error: outcome.error, body: outcome.body, elapsed, phase, phasesMs });
  return reply(response, 200, { ...outcome.body, elapsed, phasesMs });
}

// Answers after which the switch may still hold the request: 503 (2003, "could not be
// stored; retry") comes when Kafka did not acknowledge in time, yet librdkafka may deliver the
// record later (before the edge waited as long as the producer may deliver); 0 is a
// connection lost before any answer. A payer must not take either as a
// refusal: it resends the same request (same id and body, which the switch recognises as a
// duplicate) until it is accepted or the callback arrives.
const UNKNOWN_FATE = new Set([0, 503]);
const RESEND_INTERVAL_MS = 1_000;
// A payer that heard nothing asks GET /transfers/{ID}, waits this long for the answer, and
// asks again (GET_ATTEMPTS in all) while the answer is not final.
const GET_ANSWER_WAIT_MS = 10_000;
const GET_ATTEMPTS = 3;
// The switch tells a payer how its transfer ended by its expiry at the latest (3303 from the
// timeout handler, which sweeps every second): a transfer's callback is awaited that long.
const EXPIRY_CALLBACK_GRACE_MS = 10_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Sends `request` to the switch and waits for the callback under `key`. With `resend`, an
 * answer of unknown fate is followed by the same request again (UNKNOWN_FATE); otherwise
 * any answer but 202 settles the wait as a failure at once.
 */
async function roundTrip(context, key, request, { resend = false, waitMs = context.config.callbackTimeoutMs } = {}) {
  let settled = false;
  let reached = 0;
  const waiting = context.correlator.wait(key, waitMs).finally(() => { settled = true; });
  for (;;) {
    const sent = await sendAs(context.config, request.headers['fspiop-source'], request.url, request.method, request.headers, request.body);
    if (mayHaveBeenStored(sent)) reached += 1;
    // The copy that the socket reset cut off may have been stored as well.
    if (sent.resentOnReset) reached += 1;
    if (sent.status === 202) break;
    if (!resend || !UNKNOWN_FATE.has(sent.status)) {
      context.correlator.settle(key, { error: `switch answered ${sent.status}`, body: sent.text });
      break;
    }
    await sleep(RESEND_INTERVAL_MS);
    if (settled) break;
  }
  // Every copy beyond the first that the switch may have stored is a duplicate record. Only
  // the transfer's are counted: the gate sets them against the prepare topic.
  if (resend) context.counters.resent += Math.max(0, reached - 1);
  return waiting;
}

/**
 * Whether the switch may have produced the request: it was accepted, or the connection was
 * lost after the request went out. A refused connection, or a 503 ("not stored"), was not.
 */
function mayHaveBeenStored(sent) {
  return sent.status === 202 || (sent.status === 0 && !/ECONNREFUSED/.test(sent.text));
}

/**
 * A payer that was not told how its transfer ended asks for it (GET /transfers/{ID}) as an
 * FSPIOP payer does: the switch answers with the state it holds, so a transfer that was
 * committed after all is known as such. An answer that is not final yet is asked again.
 */
async function askTransferState(context, payer, payee, transferId) {
  const key = `transfers:${payer}:${transferId}`;
  for (let attempt = 1; attempt <= GET_ATTEMPTS; attempt += 1) {
    const waiting = context.correlator.wait(key, GET_ANSWER_WAIT_MS);
    context.counters.asked += 1;
    const sent = await sendAs(context.config, payer, `${context.config.transfersUrl}/transfers/${transferId}`, 'GET', dfspHeaders('transfers', payer, payee), undefined);
    if (sent.status !== 202) context.correlator.settle(key, { timeout: true });
    const outcome = await waiting;
    if (!outcome.timeout && !NOT_FINAL.has(outcome.error)) return outcome;
    await sleep(RESEND_INTERVAL_MS);
  }
  return { timeout: true };
}

const NOT_FINAL = new Set(['RECEIVED', 'RESERVED']);

function quoteRequest(context, { payer, payee, msisdn, amount, currency }) {
  const quoteId = ownedId(context.worker, context.config.runTag, randomBytes(12));
  const transactionId = ownedId(context.worker, context.config.runTag, randomBytes(12));
  return {
    quoteId, transactionId,
    payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: msisdn, fspId: payee } },
    payer: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '10000000000', fspId: payer }, name: 'Perf Payer' },
    amountType: 'SEND', amount: { amount, currency },
    transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'CONSUMER' },
    expiration: new Date(Date.now() + context.config.expirationMs).toISOString(),
  };
}

async function discovery(context, params) {
  const { payer, type, id } = params;
  if (context.config.mode !== 'full') return { body: { party: { partyIdInfo: { partyIdType: type, partyIdentifier: id, fspId: params.payee } } } };
  return roundTrip(context, `parties:${payer}:${type}/${id}`, {
    url: `${context.config.alsUrl}/parties/${type}/${id}`, method: 'GET', headers: dfspHeaders('parties', payer), body: undefined,
  });
}

async function quote(context, params) {
  const body = quoteRequest(context, params);
  if (context.config.mode === 'transfer') {
    return { body: { quoteId: body.quoteId, transactionId: body.transactionId, ...quoteAnswer(context.config, params.payee, body) } };
  }
  const outcome = await roundTrip(context, `quotes:${params.payer}:${body.quoteId}`, {
    url: `${context.config.quotingUrl}/quotes`, method: 'POST', headers: dfspHeaders('quotes', params.payer, params.payee), body: JSON.stringify(body),
  });
  if (outcome.body && !outcome.error) outcome.body = { ...outcome.body, quoteId: body.quoteId, transactionId: body.transactionId };
  return outcome;
}

async function transfer(context, { payer, payee, transferId, amount, currency, ilpPacket, condition }) {
  const body = {
    transferId, payerFsp: payer, payeeFsp: payee, amount: { amount, currency }, ilpPacket, condition,
    expiration: new Date(Date.now() + context.config.expirationMs).toISOString(),
  };
  const outcome = await roundTrip(context, `transfers:${payer}:${transferId}`, {
    url: `${context.config.transfersUrl}/transfers`, method: 'POST', headers: dfspHeaders('transfers', payer, payee), body: JSON.stringify(body),
  }, { resend: true, waitMs: context.config.expirationMs + EXPIRY_CALLBACK_GRACE_MS });
  const final = outcome.timeout ? await askTransferState(context, payer, payee, transferId) : outcome;
  if (final.timeout || final.error) noteFailedTransfer(context, transferId, final);
  return final;
}

// The last transfers whose payer was told of no success, with what it was told: the gate
// compares them with the database when the two disagree (perf/run.js).
const FAILED_TRANSFERS_KEPT = 2_000;

function noteFailedTransfer(context, transferId, outcome) {
  const failed = context.counters.failedTransfers;
  if (failed.length >= FAILED_TRANSFERS_KEPT) failed.shift();
  failed.push({ transferId, at: new Date().toISOString(), outcome: outcome.timeout ? 'timeout' : String(outcome.error).slice(0, 200) });
}

const failedOutcome = (outcome) => Boolean(outcome.timeout || outcome.error);

/**
 * One whole payment, k6's single call per iteration: discovery of `msisdn`, a quote to the
 * DFSP found, and the transfer of the quoted amount, each phase's time in `phasesMs`. The
 * first phase that fails ends the payment and is named in `phase`. One call instead of three
 * saves k6 and the bridge two HTTP exchanges per iteration.
 */
async function payment(context, { payer, payee, msisdn, amount, currency }) {
  const phasesMs = {};
  const timed = async (phase, run) => {
    const started = Date.now();
    const outcome = await run();
    phasesMs[phase] = Date.now() - started;
    return outcome;
  };
  const found = await timed('discovery', () => discovery(context, { payer, payee, type: 'MSISDN', id: msisdn }));
  if (failedOutcome(found)) return { ...found, phase: 'discovery', phasesMs };
  const payeeFsp = found.body?.party?.partyIdInfo?.fspId;
  const quoted = await timed('quote', () => quote(context, { payer, payee: payeeFsp, msisdn, amount, currency }));
  if (failedOutcome(quoted)) return { ...quoted, phase: 'quote', phasesMs };
  const { transactionId, transferAmount, ilpPacket, condition } = quoted.body;
  const transferred = await timed('transfer', () => transfer(context, {
    payer, payee: payeeFsp, transferId: transactionId, amount: transferAmount.amount, currency: transferAmount.currency, ilpPacket, condition,
  }));
  if (failedOutcome(transferred)) return { ...transferred, phase: 'transfer', phasesMs };
  return { body: { transferId: transactionId, transferState: transferred.body.transferState }, phasesMs };
}

/** Routes k6's calls: POST /payments, and each phase alone: GET /parties/{type}/{id}?payer=&payee=, POST /quotes, POST /transfers. */
export async function handleBridge(context, request, response, text) {
  const started = Date.now();
  const url = new URL(request.url, 'http://bridge');
  const parts = url.pathname.split('/').filter(Boolean);
  try {
    if (request.method === 'GET' && parts[0] === 'parties') {
      const params = { payer: url.searchParams.get('payer'), payee: url.searchParams.get('payee'), type: parts[1], id: parts[2] };
      return finish(response, await discovery(context, params), started);
    }
    if (request.method === 'POST' && parts[0] === 'payments') return finish(response, await payment(context, JSON.parse(text)), started);
    if (request.method === 'POST' && parts[0] === 'quotes') return finish(response, await quote(context, JSON.parse(text)), started);
    if (request.method === 'POST' && parts[0] === 'transfers') return finish(response, await transfer(context, JSON.parse(text)), started);
    if (request.method === 'GET' && parts[0] === 'health') return reply(response, 200, { status: 'OK', waiting: context.correlator.size });
    return reply(response, 404, { error: 'no such bridge route' });
  } catch (error) {
    return reply(response, 503, { error: error.message });
  }
}
