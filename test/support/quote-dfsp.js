// A DFSP that answers quotes, for tests, served over real HTTP. As a payee it answers
// POST /quotes by PUTting its quote to the switch's quoting edge: the ILP packet and the
// condition come from its secret (quoteIlp, as test-dfsp.js derives them), and the same
// quote id always gets the same answer bytes, as a payee that keeps its quotes would send.
// It can also reject (PUT …/error) or stay silent; it records every call it receives. It
// signs its answers with the test run's key of its name, or, for the tests that prove a
// signature passes byte for byte with verification off, sends a placeholder instead.
import { startRecordingServer } from './recording-server.js';
import { signedFetch } from './jws-keys.js';
import { randomUUID } from 'node:crypto';
import { quoteIlp } from './test-dfsp.js';
import { dfspHeaders } from '../../scripts/lib/fspiop-headers.js';

/** A DFSP's /quotes headers; `extra` adds headers, or removes one given as undefined. */
export function quoteHeaders(source, destination, { accept = true, ...extra } = {}) {
  const headers = { ...dfspHeaders('quotes', source, destination, { accept }), ...extra };
  for (const [name, value] of Object.entries(headers)) if (value === undefined) delete headers[name];
  return headers;
}

/** A QuotesPostRequest from `payer` to `payee` (its payee party names the payee's FSP). */
export function quoteRequestBody({ quoteId = randomUUID(), payer = 'payerfsp', payee = 'payeefsp', amount = '100', currency = 'USD' } = {}) {
  return {
    quoteId,
    transactionId: randomUUID(),
    payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '27713803912', fspId: payee } },
    payer: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '44123456789', fspId: payer }, name: 'Payer Person' },
    amountType: 'SEND',
    amount: { amount, currency },
    transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'CONSUMER' },
    note: 'quote test',
    expiration: new Date(Date.now() + 60_000).toISOString(),
  };
}

/** The payee's answer to a quote request, by behaviour; the same quote id always gets the same bytes. */
function answerFor(dfsp, request) {
  const path = `/quotes/${request.quoteId}`;
  if (dfsp.behaviourFor(request.quoteId) === 'reject') {
    return { path: `${path}/error`, rawBody: JSON.stringify({ errorInformation: { errorCode: '5101', errorDescription: 'Payee rejected quote' } }) };
  }
  const expiration = new Date(Date.now() + 60_000).toISOString();
  const { amount, currency } = request.amount;
  const ilp = quoteIlp({ secret: dfsp.secret, transferId: request.transactionId, amount, currency, payeeAddress: `g.${dfsp.name}.msisdn.27713803912`, expiration });
  // Indented text: only a byte-for-byte forward arrives looking like this.
  const body = { transferAmount: { amount, currency }, payeeReceiveAmount: { amount, currency }, expiration, ilpPacket: ilp.ilpPacket, condition: ilp.condition };
  return { path, rawBody: JSON.stringify(body, null, 2) };
}

async function answerQuote(dfsp, call) {
  if (dfsp.behaviourFor(call.body?.quoteId) === 'silent') return;
  const request = call.body;
  if (!dfsp.answers.has(request.quoteId)) dfsp.answers.set(request.quoteId, answerFor(dfsp, request));
  const { path, rawBody } = dfsp.answers.get(request.quoteId);
  const placeholder = dfsp.placeholderSignatures ? { 'fspiop-signature': `{"signature":"${dfsp.name}-signed","protectedHeader":"x"}` } : {};
  const headers = quoteHeaders(dfsp.name, call.headers['fspiop-source'], { accept: false, ...placeholder });
  try {
    const response = await signedFetch(`${dfsp.quotingUrl}${path}`, { method: 'PUT', headers, body: rawBody });
    dfsp.sent.push({ path, rawBody, headers, status: response.status, answer: await response.text() });
  } catch (error) {
    dfsp.sent.push({ path, rawBody, headers, error: error.message });
  }
}

const QUOTE_BEHAVIOURS = new Set(['answer', 'reject', 'silent']);

/**
 * `dfsp.setBehaviour(quoteId, behaviour)` chooses how it answers that quote: 'answer' (any
 * quote not set), 'reject' or 'silent'. Chosen per quote, so that tests sharing the DFSP do
 * not depend on the order they run in; an unknown behaviour throws at once.
 */
export async function startQuoteDfsp({ name, secret = `${name}-secret`, quotingUrl, placeholderSignatures = false }) {
  const behaviours = new Map();
  const dfsp = {
    name,
    placeholderSignatures,
    secret,
    quotingUrl,
    sent: [],
    answers: new Map(),
    setBehaviour(quoteId, behaviour) {
      if (!QUOTE_BEHAVIOURS.has(behaviour)) throw new Error(`unknown quote behaviour ${behaviour}; one of ${[...QUOTE_BEHAVIOURS].join(', ')}`);
      behaviours.set(quoteId, behaviour);
    },
    behaviourFor: (quoteId) => behaviours.get(quoteId) ?? 'answer',
  };
  const server = await startRecordingServer({
    name,
    onCall: (call) => {
      if (call.method === 'POST' && call.path === '/quotes') answerQuote(dfsp, call);
    },
  });
  Object.assign(dfsp, server);
  dfsp.callsTo = (method, path) => dfsp.received.filter((call) => call.method === method && call.path === path);
  return dfsp;
}
