// The load harness's ISO 20022 DFSPs, without a switch: the run's ULIDs and how the gate finds
// them, which DFSPs a share makes ISO 20022 and the pairs k6 gets, and the messages a simulated
// ISO 20022 DFSP sends, checked against the ISO 20022 document the switch's edges validate with
// and read back into FSPIOP. The payee's answers go over real HTTP to a recording server.
import test from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { once } from 'node:events';
import { isValid } from 'ulidx';
import { ownedId, ownedUlid, runTagInUlid } from '../../perf/simulators/correlator.js';
import { answerAsIsoPayee, isIsoCall, readCall, typePairOf, wireRequest } from '../../perf/simulators/iso-dfsp.js';
import { allPairs, dfspNames, isoDfspNames } from '../../perf/provision.js';
import { sharesFailure } from '../../perf/run.js';
import { iso20022Lines } from '../../perf/report.js';
import { isoDocumentProblem, isoOperationOf } from '../support/iso-codec.js';
import { dfspHeaders } from '../../scripts/lib/fspiop-headers.js';

const RUN_TAG = 'a1b2c3';
// SQL's LIKE with `_` for any one character, as the gate matches a run's ids (perf/gate.js ofRun).
const like = (pattern) => new RegExp(`^${pattern.replaceAll('_', '.').replaceAll('%', '.*')}$`, 'i');
const uuidOfRun = like(`__${RUN_TAG}-%`);
const ulidOfRun = like(`__________${runTagInUlid(RUN_TAG)}%`);

test('a run\'s ULIDs are valid ULIDs of the time they were made, found by the gate\'s pattern and never mistaken for another run\'s or a UUID', () => {
  const ids = Array.from({ length: 200 }, (_, index) => ownedUlid(index % 3, RUN_TAG));
  assert.ok(ids.every((id) => isValid(id) && id.length === 26), ids.find((id) => !isValid(id)));
  assert.equal(new Set(ids).size, ids.length);
  assert.ok(ids.every((id) => ulidOfRun.test(id) && !uuidOfRun.test(id)));
  assert.ok(!ulidOfRun.test(ownedUlid(0, 'a1b2c4')));
  const uuid = ownedId(1, RUN_TAG, Buffer.alloc(12, 7));
  assert.ok(uuidOfRun.test(uuid) && !ulidOfRun.test(uuid));
  assert.equal(ownedUlid(0, RUN_TAG, Date.UTC(2026, 10, 27)).slice(0, 10), ownedUlid(5, 'ffffff', Date.UTC(2026, 10, 27)).slice(0, 10));
  assert.equal(runTagInUlid('000000'), '00000');
  assert.equal(runTagInUlid('ffffff'), 'FZZZZ');
});

test('a share makes the first DFSPs ISO 20022; the pairs name both sides\' types, and the shares need the FSPIOP DFSPs conversions and requests to pay use', () => {
  const names = dfspNames(4);
  assert.deepEqual(isoDfspNames(names, 0), []);
  assert.deepEqual(isoDfspNames(names, 0.5), ['perffsp1', 'perffsp2']);
  assert.deepEqual(isoDfspNames(names, 1), names);
  const pairs = allPairs(names, 10, isoDfspNames(names, 0.5));
  const typePairs = pairs.map((pair) => `${pair.payerApiType}→${pair.payeeApiType}`);
  assert.deepEqual(Object.fromEntries([...new Set(typePairs)].map((key) => [key, typePairs.filter((entry) => entry === key).length])), {
    'ISO20022→ISO20022': 2, 'ISO20022→FSPIOP': 4, 'FSPIOP→ISO20022': 4, 'FSPIOP→FSPIOP': 2,
  });
  // Without ISO 20022 DFSPs the pairs are the plain ones the chart's load test writes too.
  assert.ok(allPairs(names, 10).every((pair) => !('payerApiType' in pair) && !('payeeApiType' in pair)));
  assert.equal(sharesFailure({ mode: 'full', iso20022Share: 0.5, rtpShare: 0.1, conversionShare: 0.1 }), null);
  assert.match(sharesFailure({ mode: 'full', iso20022Share: 0.75, rtpShare: 0.1 }), /two FSPIOP DFSPs/);
  assert.match(sharesFailure({ mode: 'full', iso20022Share: 1, conversionShare: 0.1 }), /FSPIOP payer/);
  assert.match(sharesFailure({ mode: 'full', iso20022Share: 2 }), /between 0 and 1/);
});

test('the report gives the share, the ISO 20022 DFSPs and the committed payments of each type pair', () => {
  assert.deepEqual(iso20022Lines({ iso20022Share: 0 }, { details: {} }), []);
  const [, line] = iso20022Lines({ iso20022Share: 0.5, isoDfsps: ['perffsp1', 'perffsp2'] }, { details: { paymentsByTypePair: { 'FSPIOP→FSPIOP': 3, 'ISO20022→FSPIOP': 5 } } });
  assert.match(line, /share of 0\.5: perffsp1, perffsp2/);
  assert.match(line, /FSPIOP→FSPIOP 3, FSPIOP→ISO20022 0, ISO20022→FSPIOP 5, ISO20022→ISO20022 0/);
});

/** A switch stand-in that records what the simulated DFSPs send it and answers 200. */
async function recorder() {
  const received = [];
  const waiters = [];
  const server = http.createServer((request, response) => {
    let text = '';
    request.on('data', (chunk) => { text += chunk; });
    request.on('end', () => {
      received.push({ method: request.method, path: request.url, headers: request.headers, text });
      response.writeHead(200).end();
      waiters.splice(0).forEach((resolve) => resolve());
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  const url = `http://127.0.0.1:${server.address().port}`;
  const next = async () => {
    const count = received.length;
    while (received.length === count) await new Promise((resolve) => { waiters.push(resolve); });
    return received.at(-1);
  };
  return { url, next, close: () => server.close() };
}

const configFor = (url) => ({
  sign: false, alsUrl: url, quotingUrl: url, transfersUrl: url, expirationMs: 60_000, secretPrefix: 'perf-secret-', mode: 'full', runTag: RUN_TAG,
  dfspCurrencies: { isopayee: ['USD'] }, isoDfsps: new Set(['isopayer', 'isopayee']),
});

/** What the switch would forward of a call `wire`: the ISO 20022 call as the receiver reads it. */
const asReceived = (wire, path) => readCall(wire.method, path.split('/').filter(Boolean), wire.headers, wire.body);

/** Checks an ISO 20022 message against the document's operation of `method` on `path`. */
function assertFitsDocument(method, path, text) {
  const { template } = isoOperationOf(method, path);
  assert.equal(isoDocumentProblem(method, template, JSON.parse(text)), null, `${method} ${path}: ${text}`);
}

test('an ISO 20022 payer and payee: quote, terms, transfer and fulfilment in ISO 20022 that fit the document and read back into the FSPIOP the simulators decided', { timeout: 60_000 }, async () => {
  const stand = await recorder();
  try {
    const config = configFor(stand.url);
    const quoteId = ownedUlid(0, RUN_TAG);
    const transactionId = ownedUlid(0, RUN_TAG);
    const quote = {
      quoteId, transactionId, amountType: 'SEND', amount: { amount: '1', currency: 'USD' },
      payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '2010000001', fspId: 'isopayee' } },
      payer: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '10000000000', fspId: 'isopayer' }, name: 'Perf Payer' },
      transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'CONSUMER' }, expiration: new Date(Date.now() + 60_000).toISOString(),
    };
    // An FSPIOP DFSP sends FSPIOP as it is; an ISO 20022 one the ISO 20022 message.
    const plain = await wireRequest(config, 'fspiopfsp', { url: `${stand.url}/quotes`, method: 'POST', headers: dfspHeaders('quotes', 'fspiopfsp', 'isopayee'), body: quote });
    assert.equal(plain.body, JSON.stringify(quote));
    const posted = await wireRequest(config, 'isopayer', { url: `${stand.url}/quotes`, method: 'POST', headers: dfspHeaders('quotes', 'isopayer', 'isopayee', { version: '2.0' }), body: quote });
    assert.equal(posted.headers['content-type'], 'application/vnd.interoperability.iso20022.quotes+json;version=2.0');
    assertFitsDocument('POST', '/quotes', posted.body);
    const quoteAtPayee = await asReceived(posted, '/quotes');
    assert.equal(quoteAtPayee.body.quoteId, quoteId);
    assert.deepEqual(quoteAtPayee.body.amount, quote.amount);
    // The payee answers with its terms, in ISO 20022.
    const answered = stand.next();
    await answerAsIsoPayee(config, 'isopayee', 'POST', ['quotes'], quoteAtPayee, posted.headers);
    const terms = await answered;
    assert.equal(terms.path, `/quotes/${quoteId}`);
    assert.match(terms.headers['content-type'], /iso20022\.quotes\+json;version=2\.0/);
    assertFitsDocument('PUT', terms.path, terms.text);
    const termsAtPayer = await readCall('PUT', ['quotes', quoteId], terms.headers, terms.text);
    assert.deepEqual(termsAtPayer.body.transferAmount, quote.amount);
    // The payer's transfer of the terms, in ISO 20022 with the terms as the mapping's context.
    const prepare = {
      transferId: transactionId, payerFsp: 'isopayer', payeeFsp: 'isopayee', amount: termsAtPayer.body.transferAmount, ilpPacket: termsAtPayer.body.ilpPacket,
      condition: termsAtPayer.body.condition, expiration: new Date(Date.now() + 60_000).toISOString(),
    };
    const transfer = await wireRequest(config, 'isopayer', {
      url: `${stand.url}/transfers`, method: 'POST', headers: dfspHeaders('transfers', 'isopayer', 'isopayee', { version: '2.0' }), body: prepare,
      context: { isoPostQuoteResponse: termsAtPayer.isoBody },
    });
    assertFitsDocument('POST', '/transfers', transfer.body);
    const prepareAtPayee = await asReceived(transfer, '/transfers');
    assert.equal(prepareAtPayee.body.transferId, transactionId);
    assert.equal(prepareAtPayee.body.condition, prepare.condition);
    // The payee's fulfilment, in ISO 20022: COMMITTED with the fulfilment of the condition.
    const fulfilled = stand.next();
    await answerAsIsoPayee(config, 'isopayee', 'POST', ['transfers'], prepareAtPayee, transfer.headers);
    const result = await fulfilled;
    assertFitsDocument('PUT', result.path, result.text);
    const resultAtPayer = await readCall('PUT', ['transfers', transactionId], result.headers, result.text);
    assert.equal(resultAtPayer.body.transferState, 'COMMITTED');
    const { createHash } = await import('node:crypto');
    assert.equal(createHash('sha256').update(Buffer.from(resultAtPayer.body.fulfilment, 'base64url')).digest('base64url'), prepare.condition);
    // Discovery: the payee's party in ISO 20022.
    const party = stand.next();
    await answerAsIsoPayee(config, 'isopayee', 'GET', ['parties', 'MSISDN', '2010000001'], { body: undefined }, dfspHeaders('parties', 'isopayer'));
    const partyAnswer = await party;
    assertFitsDocument('PUT', partyAnswer.path, partyAnswer.text);
    const partyAtPayer = await readCall('PUT', ['parties', 'MSISDN', '2010000001'], partyAnswer.headers, partyAnswer.text);
    assert.equal(partyAtPayer.body.party.partyIdInfo.fspId, 'isopayee');
    assert.equal(typePairOf(config, 'isopayer', 'fspiopfsp'), 'ISO20022→FSPIOP');
  } finally {
    stand.close();
  }
});

test('which calls a simulated DFSP reads as ISO 20022: an ISO 20022 media type, or an ISO 20022 resource called on an ISO 20022 DFSP', () => {
  const config = { isoDfsps: new Set(['isopayee']) };
  assert.equal(isIsoCall(config, 'fspiopfsp', ['transfers'], { 'content-type': 'application/vnd.interoperability.iso20022.transfers+json;version=2.0' }), true);
  assert.equal(isIsoCall(config, 'fspiopfsp', ['transfers'], { 'content-type': 'application/vnd.interoperability.transfers+json;version=2.0' }), false);
  assert.equal(isIsoCall(config, 'isopayee', ['parties', 'MSISDN', '1'], { accept: 'application/vnd.interoperability.parties+json;version=2' }), true);
  assert.equal(isIsoCall(config, 'isopayee', ['bulkQuotes'], { 'content-type': 'application/vnd.interoperability.bulkQuotes+json;version=1.1' }), false);
  // Converted by the switch from an ISO 20022 DFSP's message: answered in 2.0, as its ids are ULIDs.
  assert.equal(isIsoCall(config, 'fspiopfsp', ['quotes'], {
    'content-type': 'application/vnd.interoperability.quotes+json;version=1.1', 'fspiop-switch-original-content-type': 'application/vnd.interoperability.iso20022.quotes+json;version=2.0',
  }), true);
});
