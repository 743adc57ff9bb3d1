// The messages perf/bench-iso20022.js measures are messages the switch accepts: each of the
// five, in FSPIOP 2.0 and in ISO 20022, passes the edge; each case's callback goes out without
// a failure, passed through where sender and receiver share an API and converted and signed by
// the hub where they do not; what goes out is valid in the receiver's API (the ISO 20022
// document's message, and the edge accepting it again in the receiver's API); and a message the
// edge refuses stops the benchmark instead of being measured.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createPrivateKey, createPublicKey } from 'node:crypto';
import pino from 'pino';
import { createHubSigner } from '../../platform/delivery/hub-signature.js';
import { verifyFspiopMessage } from '../../platform/fspiop/jws.js';
import { isoOperation } from '../../platform/iso20022/document.js';
import { SWITCH_HEADERS } from '../../platform/iso20022/egress.js';
import { API_TYPE } from '../../platform/iso20022/media-types.js';
import { ORIGINAL_BODY_HEADER } from '../../platform/iso20022/original.js';
import { generateJwsKeyPair } from '../../tools/lib/jws-key-files.js';
import { CASES, buildCase, callbackUrlOf, edgeOf, edgeRequest, paymentMessages } from '../../perf/bench-iso20022.js';

const hubPair = generateJwsKeyPair('ec');
const signCallback = createHubSigner(createPrivateKey(hubPair.privateKey));
const hubKeys = [createPublicKey(hubPair.publicKey)];
const logger = pino({ level: 'silent' });
const limits = { expirationAheadMaxMs: 86_400_000, minorUnitCurrencies: new Set(['USD']) };
const messages = paymentMessages();

test('the benchmark measures the five messages of a payment', () => {
  assert.deepEqual(messages.map(({ name }) => name), ['PUT /parties', 'POST /quotes', 'PUT /quotes', 'POST /transfers', 'PUT /transfers']);
  assert.deepEqual(Object.keys(CASES), ['fspiop-fspiop', 'iso-iso', 'fspiop-iso', 'iso-fspiop']);
});

test('each ISO 20022 message is valid against the ISO 20022 document, and each FSPIOP one passes the FSPIOP edge', async () => {
  for (const message of messages) {
    const { validate } = isoOperation(message.method, message.path);
    assert.ok(validate(message.iso), `${message.name}: ${JSON.stringify(validate.errors)}`);
    const accept = edgeOf(message, limits);
    const fspiop = await accept(edgeRequest(message, API_TYPE.fspiop));
    assert.ok(fspiop.accepted, `${message.name} in FSPIOP: ${JSON.stringify(fspiop.refused)}`);
    assert.deepEqual(fspiop.accepted.body, message.fspiop);
  }
});

test('each ISO 20022 message passes the edge and converts into the same payment as its FSPIOP twin', async () => {
  const forms = {};
  for (const message of messages) {
    const iso = await edgeOf(message, limits)(edgeRequest(message, API_TYPE.iso20022));
    assert.ok(iso.accepted, `${message.name} in ISO 20022: ${JSON.stringify(iso.refused)}`);
    assert.equal(iso.accepted.headers[ORIGINAL_BODY_HEADER], JSON.stringify(message.iso));
    forms[message.key] = { converted: iso.accepted.body, fspiop: message.fspiop };
  }
  const { partiesPut, quotesPost, quotesPut, transfersPost, transfersPut } = forms;
  assert.deepEqual(partiesPut.converted.party.partyIdInfo, partiesPut.fspiop.party.partyIdInfo);
  for (const field of ['quoteId', 'transactionId', 'amount', 'amountType']) assert.deepEqual(quotesPost.converted[field], quotesPost.fspiop[field], field);
  assert.deepEqual(quotesPost.converted.payer.partyIdInfo, quotesPost.fspiop.payer.partyIdInfo);
  assert.deepEqual(quotesPost.converted.payee.partyIdInfo, quotesPost.fspiop.payee.partyIdInfo);
  for (const field of ['transferAmount', 'ilpPacket', 'condition', 'expiration']) assert.deepEqual(quotesPut.converted[field], quotesPut.fspiop[field], field);
  assert.deepEqual(transfersPost.converted, transfersPost.fspiop);
  assert.deepEqual(transfersPut.converted, transfersPut.fspiop);
});

/** The callback as the receiver's edge would take it: its headers and body, in the receiver's API. */
function asRequest(message, sent) {
  return { headers: sent.headers, params: { ...message.params }, payload: sent.body, info: { received: Date.now() }, app: {} };
}

for (const [name, pair] of Object.entries(CASES)) {
  test(`${pair.label}: every callback goes out in the receiver's API, as the edge of that API accepts it`, async () => {
    const steps = await buildCase(pair, { messages, limits, signCallback, logger });
    for (const { message, edge, egress } of steps) {
      const accepted = await edge();
      const sent = await egress();
      const sentBytes = JSON.stringify(pair.sender === API_TYPE.iso20022 ? message.iso : message.fspiop);
      if (pair.sender === pair.receiver) {
        assert.equal(sent.body.toString('utf8'), sentBytes, `${message.name}: the sender's bytes pass through`);
        assert.equal(sent.headers[SWITCH_HEADERS.signer], undefined);
      } else {
        assert.notEqual(sent.body.toString('utf8'), sentBytes, `${message.name}: converted`);
        assert.equal(sent.headers[SWITCH_HEADERS.signer], 'Hub');
        const url = callbackUrlOf(message);
        const problem = await verifyFspiopMessage({ method: message.method, uri: `${url.pathname}${url.search}`, headers: sent.headers, body: sent.body, keys: hubKeys });
        assert.equal(problem, null, `${message.name}: signed by the hub`);
      }
      if (pair.receiver === API_TYPE.iso20022) {
        const { validate } = isoOperation(message.method, message.path);
        const iso = JSON.parse(sent.body.toString('utf8'));
        assert.ok(validate(iso), `${name} ${message.name}: ${JSON.stringify(validate.errors)}`);
      }
      const again = await edgeOf(message, limits)(asRequest(message, sent));
      assert.ok(again.accepted, `${name} ${message.name} as received: ${JSON.stringify(again.refused)}`);
      assert.equal(accepted.headers['fspiop-source'], message.from);
    }
  });
}

test('a message the edge refuses stops the benchmark instead of being measured', async () => {
  const broken = paymentMessages().map((message) => ({ ...message, iso: { ...message.iso, GrpHdr: undefined, Assgnmt: undefined } }));
  await assert.rejects(buildCase(CASES['iso-iso'], { messages: broken, limits, signCallback, logger }), /PUT \/parties in ISO20022 refused: .*"status":400/);
});
