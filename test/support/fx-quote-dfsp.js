// DFSPs for fx quote tests, served over real HTTP: an FXP that answers POST /fxQuotes by
// PUTting its terms to the switch's quoting edge (the same conversion always gets the same
// answer bytes, as an FXP that keeps its quotes sends them), or rejects, or stays silent; and
// any DFSP recording what it receives. Every message speaks FSPIOP v2.0, the only version
// /fxQuotes exists in. Signatures are placeholders, to prove they pass byte for byte.
import { randomUUID } from 'node:crypto';
import { startRecordingServer } from './recording-server.js';
import { unsignedFetch } from './jws-keys.js';

const media = (version) => `application/vnd.interoperability.fxQuotes+json;version=${version}`;

/** A DFSP's /fxQuotes headers (v2.0), with a placeholder signature; `extra` adds headers, or removes one given as undefined. */
export function fxQuoteHeaders(source, destination, { accept = true, ...extra } = {}) {
  const headers = {
    'content-type': media('2.0'), ...(accept ? { accept: media('2') } : {}), date: new Date().toUTCString(), 'fspiop-source': source,
    ...(destination ? { 'fspiop-destination': destination } : {}), 'fspiop-signature': `{"signature":"${source}-signed","protectedHeader":"x"}`, ...extra,
  };
  for (const [name, value] of Object.entries(headers)) if (value === undefined) delete headers[name];
  return headers;
}

/** An FxQuotesPostRequest: `initiator` asks `fxp` to convert `amount` of `source` into `target`. */
export function fxQuoteRequestBody({ conversionRequestId = randomUUID(), initiator = 'payerfsp', fxp = 'fxp', amount = '100', source = 'USD', target = 'EUR' } = {}) {
  return {
    conversionRequestId,
    conversionTerms: {
      conversionId: randomUUID(), determiningTransferId: randomUUID(), initiatingFsp: initiator, counterPartyFsp: fxp, amountType: 'SEND',
      sourceAmount: { amount, currency: source }, targetAmount: { currency: target }, expiration: new Date(Date.now() + 60_000).toISOString(),
    },
  };
}

function answerFor(fxp, request) {
  const path = `/fxQuotes/${request.conversionRequestId}`;
  if (fxp.behaviourFor(request.conversionRequestId) === 'reject') {
    return { path: `${path}/error`, rawBody: JSON.stringify({ errorInformation: { errorCode: '5100', errorDescription: 'No rate for this conversion' } }) };
  }
  const { conversionTerms: terms } = request;
  const conversionTerms = { ...terms, targetAmount: { amount: '92.5', currency: terms.targetAmount.currency }, charges: [{ chargeType: 'conversion fee', sourceAmount: { amount: '1', currency: terms.sourceAmount.currency } }] };
  // Indented text: only a byte-for-byte forward arrives looking like this.
  return { path, rawBody: JSON.stringify({ condition: 'f5sqb7tBTWPd5Y8BDFdMm9BJR_MNI4isf8p8n4D5pHA', conversionTerms }, null, 2) };
}

async function answer(fxp, call) {
  const request = call.body;
  if (fxp.behaviourFor(request.conversionRequestId) === 'silent') return;
  if (!fxp.answers.has(request.conversionRequestId)) fxp.answers.set(request.conversionRequestId, answerFor(fxp, request));
  const { path, rawBody } = fxp.answers.get(request.conversionRequestId);
  const headers = fxQuoteHeaders(fxp.name, call.headers['fspiop-source'], { accept: false });
  const response = await unsignedFetch(`${fxp.quotingUrl}${path}`, { method: 'PUT', headers, body: rawBody }).catch((error) => ({ status: error.message }));
  fxp.sent.push({ path, rawBody, headers, status: response.status });
}

const BEHAVIOURS = new Set(['answer', 'reject', 'silent']);

/**
 * A DFSP that, as an FXP, answers POST /fxQuotes; `fxp.setBehaviour(conversionRequestId,
 * behaviour)` chooses 'answer' (the default), 'reject' or 'silent' per conversion.
 */
export async function startFxQuoteDfsp({ name, quotingUrl }) {
  const behaviours = new Map();
  const dfsp = {
    name,
    quotingUrl,
    sent: [],
    answers: new Map(),
    setBehaviour(id, behaviour) {
      if (!BEHAVIOURS.has(behaviour)) throw new Error(`unknown fx quote behaviour ${behaviour}`);
      behaviours.set(id, behaviour);
    },
    behaviourFor: (id) => behaviours.get(id) ?? 'answer',
  };
  const server = await startRecordingServer({
    name,
    onCall: (call) => { if (call.method === 'POST' && call.path === '/fxQuotes') answer(dfsp, call); },
  });
  return Object.assign(dfsp, server, { callsTo: (method, path) => server.received.filter((call) => call.method === method && call.path === path) });
}
