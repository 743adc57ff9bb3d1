// CPU per payment that ISO 20022 costs the switch (issue 34): the five DFSP messages of a
// payment (PUT /parties, POST /quotes, PUT /quotes, POST /transfers, PUT /transfers) through
// the edge that accepts them and the callback sender that forwards them, for each pair of the
// sender's and the receiver's API:
// - FSPIOP → FSPIOP: FSPIOP validation at the edge, the sender's bytes passed through (today);
// - ISO → ISO: ISO 20022 validation, conversion into FSPIOP and FSPIOP validation at the edge;
//   the sender's ISO 20022 bytes passed through at the callback sender;
// - FSPIOP → ISO: FSPIOP validation at the edge; conversion into ISO 20022 and the hub's
//   signature over the converted bytes at the callback sender;
// - ISO → FSPIOP: the ISO 20022 edge; the FSPIOP form written out and signed by the hub.
// The real code runs: the edge's route handler (platform/fspiop/edge.js's fspiopRoute, which
// chooses the FSPIOP validator or platform/iso20022/ingress.js by the request's media type)
// called as hapi calls it, and prepareCallback (platform/iso20022/egress.js) with a real hub
// signer, on the event the edge's accepted request makes. What is not here costs the same in
// every case (HTTP, the DFSP's JWS verified over the bytes received, Kafka, the handlers).
//
// Every message is handled one at a time, as the edge and the callback sender see them at a
// modest rate; each (case, message, stage) runs `--payments` times between two
// process.cpuUsage() readings (user + system, every thread: the garbage collector's included).
// The cases are interleaved within each round, after a warm-up of every case; the figures are
// medians of the rounds. Any refusal or failed conversion stops the run: it measures accepted
// messages only.
//   node perf/bench-iso20022.js [--payments 200] [--rounds 3] [--warmup 100] [--hub-key rsa|ec] [--cases fspiop-fspiop,iso-iso,fspiop-iso,iso-fspiop]
// To profile one case: node --cpu-prof --cpu-prof-dir=/tmp/prof perf/bench-iso20022.js --cases fspiop-iso,
// then node perf/profile-summary.js /tmp/prof/*.cpuprofile.
import { createHash, createPrivateKey } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import ilpPacket from 'ilp-packet';
import pino from 'pino';
import { pathSchemasOf } from '../account-lookup/edge-flow.js';
import { loadConfig } from '../platform/config.js';
import { callbackUrl } from '../platform/delivery/callback-request.js';
import { createDfspVersions } from '../platform/delivery/dfsp-versions.js';
import { createHubSigner } from '../platform/delivery/hub-signature.js';
import { fspiopRoute } from '../platform/fspiop/edge.js';
import { PROOF } from '../platform/fspiop/sender.js';
import { interopContentType } from '../platform/fspiop/versions.js';
import { prepareCallback } from '../platform/iso20022/egress.js';
import { API_TYPE, isoContentType } from '../platform/iso20022/media-types.js';
import { loadTransformFacades } from '../platform/iso20022/transformer.js';
import { generateJwsKeyPair } from '../tools/lib/jws-key-files.js';

const HUB_NAME = 'Hub';
const PAYER_FSP = 'payerfsp';
const PAYEE_FSP = 'payeefsp';
// ULIDs: the ISO 20022 document requires them of TxId, and FSPIOP 2.0 takes them as CorrelationIds.
const QUOTE_ID = '01JHKZ3V8E6Q2W4R5T7Y9X1A3D';
const TRANSACTION_ID = '01JHKZ3V8E6Q2W4R5T7Y9X1A3E';
const TRANSFER_ID = '01JHKZ3V8E6Q2W4R5T7Y9X1A3C';
const MESSAGE_ID = '01JHKZ3V8E6Q2W4R5T7Y9X1A3B';
const PAYER_MSISDN = '44123456789';
const PAYEE_MSISDN = '27713803912';
const AMOUNT = '10.25';
const CURRENCY = 'USD';
const FULFILMENT = Buffer.alloc(32, 7);
const CONDITION = createHash('sha256').update(FULFILMENT).digest('base64url');
// A DFSP's FSPIOP-Signature of the usual size (an RS256 signature and its protected header):
// the edge checks no signature here, and the callback sender only carries it.
const DFSP_SIGNATURE = JSON.stringify({ signature: 'S'.repeat(342), protectedHeader: 'P'.repeat(230) });

/** The API pairs measured, sender's first, by the names --cases takes. */
export const CASES = Object.freeze({
  'fspiop-fspiop': { label: 'FSPIOP → FSPIOP', sender: API_TYPE.fspiop, receiver: API_TYPE.fspiop },
  'iso-iso': { label: 'ISO → ISO', sender: API_TYPE.iso20022, receiver: API_TYPE.iso20022 },
  'fspiop-iso': { label: 'FSPIOP → ISO', sender: API_TYPE.fspiop, receiver: API_TYPE.iso20022 },
  'iso-fspiop': { label: 'ISO → FSPIOP', sender: API_TYPE.iso20022, receiver: API_TYPE.fspiop },
});

const CALLBACK_TEMPLATES = {
  FSPIOP_CALLBACK_URL_PARTIES_PUT: 'http://dfsp.example/parties/{{partyIdType}}/{{partyIdentifier}}',
  FSPIOP_CALLBACK_URL_QUOTES: 'http://dfsp.example',
  FSPIOP_CALLBACK_URL_TRANSFER_POST: 'http://dfsp.example/transfers',
  FSPIOP_CALLBACK_URL_TRANSFER_PUT: 'http://dfsp.example/transfers/{{transferId}}',
};

const partyIdInfo = (fspId, partyIdentifier) => ({ partyIdType: 'MSISDN', partyIdentifier, fspId });

/** The transaction the payee's quote commits to, in the ILP packet as FSPIOP 2.0 writes it. */
function transaction() {
  return {
    transactionId: TRANSACTION_ID, quoteId: QUOTE_ID,
    payee: { partyIdInfo: partyIdInfo(PAYEE_FSP, PAYEE_MSISDN), name: 'Henrik Karlsson' },
    payer: { partyIdInfo: partyIdInfo(PAYER_FSP, PAYER_MSISDN), personalInfo: { complexName: { firstName: 'Ann', lastName: 'Payer' } } },
    amount: { amount: AMOUNT, currency: CURRENCY },
    transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'CONSUMER' },
  };
}

/** A real ILP v4 prepare whose data is the base64url text of the transaction's JSON. */
function ilpPrepare(expiration) {
  return ilpPacket.serializeIlpPrepare({
    amount: '1025', destination: `g.${PAYEE_FSP}.msisdn.${PAYEE_MSISDN}`, expiresAt: new Date(expiration),
    executionCondition: Buffer.from(CONDITION, 'base64url'), data: Buffer.from(Buffer.from(JSON.stringify(transaction())).toString('base64url')),
  }).toString('base64url');
}

const agent = (fsp) => ({ FinInstnId: { Othr: { Id: fsp } } });
const person = (msisdn) => ({ Id: { PrvtId: { Othr: { SchmeNm: { Prtry: 'MSISDN' }, Id: msisdn } } } });

/** The five bodies of one payment in FSPIOP 2.0, keyed by message. */
function fspiopBodies({ now, expiration, packet }) {
  const money = { currency: CURRENCY, amount: AMOUNT };
  return {
    partiesPut: { party: { partyIdInfo: partyIdInfo(PAYEE_FSP, PAYEE_MSISDN), name: 'Henrik Karlsson', personalInfo: { complexName: { firstName: 'Henrik', lastName: 'Karlsson' } } } },
    quotesPost: { quoteId: QUOTE_ID, ...transaction(), amountType: 'SEND' },
    quotesPut: { transferAmount: money, payeeReceiveAmount: money, expiration, ilpPacket: packet, condition: CONDITION },
    transfersPost: { transferId: TRANSFER_ID, payerFsp: PAYER_FSP, payeeFsp: PAYEE_FSP, amount: money, ilpPacket: packet, condition: CONDITION, expiration },
    transfersPut: { fulfilment: FULFILMENT.toString('base64url'), completedTimestamp: now, transferState: 'COMMITTED' },
  };
}

/** The same five messages in ISO 20022 (acmt.024, pacs.081, pacs.082, pacs.008, pacs.002), keyed by message. */
function isoBodies({ now, expiration, packet }) {
  const groupHeader = { MsgId: MESSAGE_ID, CreDtTm: now };
  const creditHeader = { ...groupHeader, NbOfTxs: '1', SttlmInf: { SttlmMtd: 'CLRG' }, PmtInstrXpryDtTm: expiration };
  const parties = { Dbtr: person(PAYER_MSISDN), DbtrAgt: agent(PAYER_FSP), Cdtr: person(PAYEE_MSISDN), CdtrAgt: agent(PAYEE_FSP) };
  const amount = { Ccy: CURRENCY, ActiveCurrencyAndAmount: AMOUNT };
  return {
    partiesPut: {
      Assgnmt: { MsgId: MESSAGE_ID, CreDtTm: now, Assgnr: { Agt: agent(PAYEE_FSP) }, Assgne: { Agt: agent(PAYER_FSP) } },
      Rpt: { Vrfctn: true, OrgnlId: `MSISDN/${PAYEE_MSISDN}`, UpdtdPtyAndAcctId: { Pty: { ...person(PAYEE_MSISDN), Nm: 'Henrik;;Karlsson;Henrik Karlsson' }, Agt: agent(PAYEE_FSP) } },
    },
    quotesPost: {
      GrpHdr: creditHeader,
      CdtTrfTxInf: { PmtId: { TxId: QUOTE_ID, EndToEndId: TRANSACTION_ID }, ...parties, IntrBkSttlmAmt: amount, Purp: { Prtry: 'TRANSFER' }, ChrgBr: 'CRED' },
    },
    quotesPut: {
      GrpHdr: creditHeader,
      CdtTrfTxInf: {
        PmtId: { TxId: QUOTE_ID }, ...parties, ChrgBr: 'CRED', IntrBkSttlmAmt: amount,
        InstdAmt: { Ccy: CURRENCY, ActiveOrHistoricCurrencyAndAmount: AMOUNT }, VrfctnOfTerms: { IlpV4PrepPacket: packet },
      },
    },
    transfersPost: {
      GrpHdr: creditHeader,
      CdtTrfTxInf: { PmtId: { TxId: TRANSFER_ID }, ChrgBr: 'SHAR', ...parties, IntrBkSttlmAmt: amount, VrfctnOfTerms: { IlpV4PrepPacket: packet } },
    },
    transfersPut: { GrpHdr: groupHeader, TxInfAndSts: { ExctnConf: FULFILMENT.toString('base64url'), PrcgDt: { DtTm: now }, TxSts: 'COMM' } },
  };
}

const CORRELATION_ID = Object.freeze({ ID: 'CorrelationId' });
const partyPath = '/parties/{Type}/{ID}';

/**
 * The five messages of one payment, each with its edge route (as the edges declare it), the
 * id its events carry, the request path, who sends it to whom, the callback that forwards it, and its body in FSPIOP
 * 2.0 (`fspiop`) and in ISO 20022 (`iso`). `nowMs` dates them; they expire an hour later.
 */
export function paymentMessages(nowMs = Date.now()) {
  const now = new Date(nowMs).toISOString();
  const expiration = new Date(nowMs + 3_600_000).toISOString();
  const packet = ilpPrepare(expiration);
  const fspiop = fspiopBodies({ now, expiration, packet });
  const iso = isoBodies({ now, expiration, packet });
  const message = (key, fields) => ({ key, fspiop: fspiop[key], iso: iso[key], ...fields });
  const toPayer = { from: PAYEE_FSP, to: PAYER_FSP };
  const toPayee = { from: PAYER_FSP, to: PAYEE_FSP };
  return [
    message('partiesPut', {
      name: 'PUT /parties', resource: 'parties', method: 'PUT', path: partyPath, pathSchemas: pathSchemasOf(partyPath),
      eventId: `MSISDN/${PAYEE_MSISDN}`, params: { Type: 'MSISDN', ID: PAYEE_MSISDN }, uri: `/parties/MSISDN/${PAYEE_MSISDN}`, ...toPayer,
      callback: { endpointType: 'FSPIOP_CALLBACK_URL_PARTIES_PUT', method: 'PUT', resource: 'parties', templateParams: { partyIdType: 'MSISDN', partyIdentifier: PAYEE_MSISDN } },
    }),
    message('quotesPost', {
      name: 'POST /quotes', resource: 'quotes', method: 'POST', path: '/quotes', pathSchemas: {}, requiredHeaders: ['fspiop-destination'],
      eventId: QUOTE_ID, params: {}, uri: '/quotes', ...toPayee,
      callback: { endpointType: 'FSPIOP_CALLBACK_URL_QUOTES', method: 'POST', resource: 'quotes', templateParams: {}, path: '/quotes' },
    }),
    message('quotesPut', {
      name: 'PUT /quotes', resource: 'quotes', method: 'PUT', path: '/quotes/{ID}', pathSchemas: CORRELATION_ID,
      eventId: QUOTE_ID, params: { ID: QUOTE_ID }, uri: `/quotes/${QUOTE_ID}`, ...toPayer,
      callback: { endpointType: 'FSPIOP_CALLBACK_URL_QUOTES', method: 'PUT', resource: 'quotes', templateParams: {}, path: `/quotes/${QUOTE_ID}` },
    }),
    message('transfersPost', {
      name: 'POST /transfers', resource: 'transfers', method: 'POST', path: '/transfers', pathSchemas: {},
      eventId: TRANSFER_ID, params: {}, uri: '/transfers', ...toPayee,
      callback: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_POST', method: 'POST', resource: 'transfers', templateParams: { transferId: TRANSFER_ID } },
    }),
    message('transfersPut', {
      name: 'PUT /transfers', resource: 'transfers', method: 'PUT', path: '/transfers/{ID}', pathSchemas: CORRELATION_ID,
      eventId: TRANSFER_ID, params: { ID: TRANSFER_ID }, uri: `/transfers/${TRANSFER_ID}`, ...toPayer,
      callback: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_PUT', method: 'PUT', resource: 'transfers', templateParams: { transferId: TRANSFER_ID } },
    }),
  ];
}

/** The headers a DFSP sends `message` with in `apiType`: its media types, date, parties, signature. */
export function requestHeaders(message, apiType, nowMs = Date.now()) {
  const mediaType = apiType === API_TYPE.iso20022 ? isoContentType(message.resource) : interopContentType(message.resource, '2.0');
  const headers = {
    'content-type': mediaType, date: new Date(nowMs).toUTCString(), 'fspiop-source': message.from, 'fspiop-destination': message.to,
    'fspiop-signature': DFSP_SIGNATURE, 'fspiop-uri': message.uri, 'fspiop-http-method': message.method,
  };
  // A request asks for its answer in its own API; a PUT answers and has no Accept.
  if (message.method === 'POST') headers.accept = apiType === API_TYPE.iso20022 ? mediaType : interopContentType(message.resource, '2');
  return headers;
}

/**
 * The edge route of `message` as the edge declares it, with a handler that hands back what the
 * edge accepted: `accept(request)` resolves to `{ accepted }` or `{ refused: { status, body } }`.
 */
export function edgeOf(message, limits) {
  const route = fspiopRoute({
    resource: message.resource, method: message.method, path: message.path, pathSchemas: message.pathSchemas,
    limits, requiredHeaders: message.requiredHeaders ?? [], handle: (accepted) => ({ accepted }),
  });
  // The toolkit's only use on this path: the answer to a refusal.
  const h = { response: (body) => ({ code: (status) => ({ refused: { status, body } }) }) };
  return (request) => route.options.handler(request, h);
}

/** The hapi request a DFSP's `message` in `apiType` arrives as (the edge's checks proved its sender). */
export function edgeRequest(message, apiType, nowMs = Date.now()) {
  const body = apiType === API_TYPE.iso20022 ? message.iso : message.fspiop;
  return {
    headers: requestHeaders(message, apiType, nowMs), params: { ...message.params }, payload: Buffer.from(JSON.stringify(body), 'utf8'),
    info: { received: nowMs }, app: { proof: PROOF.signature },
  };
}

/**
 * The notification event that forwards what the edge accepted, as the callback sender decodes
 * it: an FSPIOP message's text as rawBody (its body parsed when a conversion reads it), an ISO
 * 20022 one's FSPIOP form as body with its original text in the headers.
 */
export function forwardEventOf(message, accepted) {
  const event = { id: message.eventId, type: 'notification', action: 'forward', from: message.from, to: message.to, headers: accepted.headers, callback: message.callback };
  if (accepted.rawBody !== undefined) event.rawBody = accepted.rawBody;
  else event.body = accepted.body;
  return event;
}

/** The callback URL of `message`, as the callback sender renders it from the receiver's endpoint. */
export function callbackUrlOf(message) {
  return callbackUrl(CALLBACK_TEMPLATES[message.callback.endpointType], message.callback);
}

/**
 * Everything a case runs, built once: per message, the edge's step (`edge()`, the sender's
 * API) and the callback sender's (`egress()`, to the receiver's API), each resolving to its
 * result and throwing on a refusal, so that nothing but accepted messages is measured.
 */
export async function buildCase({ sender, receiver }, { messages, limits, signCallback, logger }) {
  const versions = createDfspVersions();
  const steps = [];
  for (const message of messages) {
    const accept = edgeOf(message, limits);
    const edge = async () => {
      const nowMs = Date.now();
      const result = await accept(edgeRequest(message, sender, nowMs));
      if (!result.accepted) throw new Error(`${message.name} in ${sender} refused: ${JSON.stringify(result.refused)}`);
      return result.accepted;
    };
    const event = forwardEventOf(message, await edge());
    const url = callbackUrlOf(message);
    const egress = async () => {
      const result = await prepareCallback({ event, url, apiType: receiver, hubName: HUB_NAME, signCallback, versions, now: Date.now(), logger });
      if (result.failure) throw new Error(`${message.name} ${sender} → ${receiver} failed: ${result.failure.detail}`);
      return result;
    };
    steps.push({ message, edge, egress });
  }
  return steps;
}

/** CPU µs per call of `step`, over `count` calls one at a time. */
async function cpuMicrosecondsPerCall(step, count) {
  const started = process.cpuUsage();
  for (let i = 0; i < count; i += 1) await step();
  const { user, system } = process.cpuUsage(started);
  return (user + system) / count;
}

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

const fixed = (value) => value.toFixed(1);

/** One round: every case's every message, edge then callback sender; `{ [case]: { [message]: { edge, egress } } }`. */
async function round(cases, payments) {
  const figures = {};
  for (const [name, steps] of cases) {
    figures[name] = {};
    for (const { message, edge, egress } of steps) {
      figures[name][message.key] = { edge: await cpuMicrosecondsPerCall(edge, payments), egress: await cpuMicrosecondsPerCall(egress, payments) };
    }
  }
  return figures;
}

/** The medians over the rounds, per case and message, and per payment (the sum of a round's five, then the median). */
function summarise(rounds, cases, messages) {
  const summary = {};
  for (const [name] of cases) {
    const perMessage = {};
    for (const { key } of messages) {
      const edge = median(rounds.map((figures) => figures[name][key].edge));
      const egress = median(rounds.map((figures) => figures[name][key].egress));
      perMessage[key] = { edge, egress, both: median(rounds.map((figures) => figures[name][key].edge + figures[name][key].egress)) };
    }
    const sumOf = (figures, stage) => messages.reduce((sum, { key }) => sum + (stage ? figures[name][key][stage] : figures[name][key].edge + figures[name][key].egress), 0);
    const payment = { edge: median(rounds.map((figures) => sumOf(figures, 'edge'))), egress: median(rounds.map((figures) => sumOf(figures, 'egress'))), both: median(rounds.map((figures) => sumOf(figures))) };
    summary[name] = { perMessage, payment };
  }
  return summary;
}

function printSummary(summary, messages) {
  const names = Object.keys(summary);
  const base = summary['fspiop-fspiop'];
  console.log('\nper message, CPU µs (medians of the rounds): edge + callback sender = both');
  console.log(['message'.padEnd(16), ...names.map((name) => CASES[name].label.padEnd(24))].join(' '));
  for (const { key, name } of messages) {
    const cells = names.map((caseName) => {
      const { edge, egress, both } = summary[caseName].perMessage[key];
      return `${fixed(edge)} + ${fixed(egress)} = ${fixed(both)}`.padEnd(24);
    });
    console.log([name.padEnd(16), ...cells].join(' '));
  }
  console.log('\nper payment (the five messages), CPU µs:');
  for (const name of names) {
    const { edge, egress, both } = summary[name].payment;
    const ratio = base ? ` ×${(both / base.payment.both).toFixed(2)} of FSPIOP → FSPIOP` : '';
    console.log(`${CASES[name].label.padEnd(16)} edge ${fixed(edge).padStart(7)}  callback sender ${fixed(egress).padStart(7)}  both ${fixed(both).padStart(7)}${ratio}`);
  }
}

/**
 * A payment between DFSPs of different APIs is both crossings: the payer's POSTs cross one
 * way, the payee's PUTs the other. Its cost from the per-message medians.
 */
function printMixedPayments(summary, messages) {
  if (!summary['fspiop-iso'] || !summary['iso-fspiop']) return;
  const base = summary['fspiop-fspiop']?.payment.both;
  for (const [label, payerCase, payeeCase] of [['payer FSPIOP, payee ISO', 'fspiop-iso', 'iso-fspiop'], ['payer ISO, payee FSPIOP', 'iso-fspiop', 'fspiop-iso']]) {
    const total = messages.reduce((sum, { key, from }) => sum + summary[from === PAYER_FSP ? payerCase : payeeCase].perMessage[key].both, 0);
    console.log(`${label.padEnd(24)} both ${fixed(total).padStart(7)}${base ? ` ×${(total / base).toFixed(2)} of FSPIOP → FSPIOP` : ''} (sum of the per-message medians)`);
  }
}

function printSizes(messages) {
  const bytes = (body) => Buffer.byteLength(JSON.stringify(body));
  console.log(`body bytes, FSPIOP / ISO 20022: ${messages.map(({ name, fspiop, iso }) => `${name} ${bytes(fspiop)} / ${bytes(iso)}`).join(', ')}`);
}

async function main() {
  const { values } = parseArgs({ options: {
    payments: { type: 'string', default: '200' }, rounds: { type: 'string', default: '3' }, warmup: { type: 'string', default: '100' },
    'hub-key': { type: 'string', default: 'rsa' }, cases: { type: 'string', default: Object.keys(CASES).join(',') },
  } });
  const payments = Number(values.payments);
  const rounds = Number(values.rounds);
  const logger = pino({ level: 'silent' });
  // Loaded and configured once, as each process does when it starts.
  await loadTransformFacades(logger);
  const signCallback = createHubSigner(createPrivateKey(generateJwsKeyPair(values['hub-key']).privateKey));
  const { inputLimits: limits } = loadConfig({}, { usesDatabase: false });
  const messages = paymentMessages();
  const names = values.cases.split(',');
  for (const name of names) if (!CASES[name]) throw new Error(`unknown case ${name}: one of ${Object.keys(CASES).join(', ')}`);
  const cases = [];
  for (const name of names) cases.push([name, await buildCase(CASES[name], { messages, limits, signCallback, logger })]);
  console.log(`${payments} payments per case and round, ${rounds} rounds after ${values.warmup} of warm-up, one message at a time; hub signs ${values['hub-key'] === 'rsa' ? 'RS256' : 'ES256'}; CPU µs per message (process.cpuUsage)`);
  printSizes(messages);
  await round(cases, Number(values.warmup));
  const figures = [];
  for (let index = 1; index <= rounds; index += 1) {
    const result = await round(cases, payments);
    figures.push(result);
    for (const [name] of cases) {
      const perPayment = messages.reduce((sum, { key }) => sum + result[name][key].edge + result[name][key].egress, 0);
      console.log(`round ${index} ${CASES[name].label.padEnd(16)} ${messages.map(({ key, name: message }) => `${message} ${fixed(result[name][key].edge)}+${fixed(result[name][key].egress)}`).join('  ')}  payment ${fixed(perPayment)}`);
    }
  }
  const summary = summarise(figures, cases, messages);
  printSummary(summary, messages);
  printMixedPayments(summary, messages);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) await main();
