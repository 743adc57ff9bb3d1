// The fault campaign's poison messages (perf/chaos.js): one record per topic that its handler
// cannot process, produced straight onto the topic as a buggy or hostile producer would,
// past every check of the edges. Until dead letters are in place, each blocks its partition
// (the batch is rewound and retried for ever); with them, it is set aside and the partition
// moves on, which the campaign sees as the throughput coming back.
import { randomUUID } from 'node:crypto';
import { createProducer } from '../platform/kafka/producer.js';
import { encodeEvent } from '../platform/kafka/envelope.js';
import { TOPIC, topicName } from '../platform/kafka/topics.js';
import { dfspHeaders } from '../scripts/lib/fspiop-headers.js';
import { fulfilmentFor, quoteIlp } from './simulators/payee-ilp.js';
import { secretOf } from './simulators/payee.js';

// Accepted by the API's DateTime pattern, but year 10000 in UTC: MariaDB refuses to store it.
const YEAR_10000 = '9999-12-31T23:59:59.999-01:00';
const PAYER = 'perffsp1';
const PAYEE = 'perffsp2';
const PAYEE_PAUSE_MS = 2_000;
const silentLogger = { child: () => silentLogger, warn() {}, error() {}, info() {}, debug() {} };

/** Sets the payee fault switch of every simulator process (perf/simulators/faults.js). */
export async function setPayeeFault(env, mode, forMs) {
  for (let index = 0; index < Number(env.BRIDGE_WORKERS); index += 1) {
    const response = await fetch(`http://127.0.0.1:${Number(env.BRIDGE_PORT) + index}/fault`, { method: 'POST', body: JSON.stringify({ mode, forMs }) });
    if (response.status !== 200) throw new Error(`fault switch of simulator ${index}: ${response.status} ${await response.text()}`);
  }
}

async function produce(target, baseTopic, key, event) {
  const producer = createProducer({ kafka: { brokers: target.kafka.brokers, clientId: 'perf-chaos' }, logger: silentLogger });
  await producer.connect();
  try {
    await producer.produce([{ topic: topicName(target.kafka.prefix, baseTopic), key, value: encodeEvent(event) }]);
  } finally {
    await producer.disconnect();
  }
}

function transferEvent(action, { id, from, to, body }) {
  return { id, type: 'transfer', action, from, to, headers: dfspHeaders('transfers', from, to), body, rawBody: JSON.stringify(body), at: Date.now() };
}

function prepareBody(transferId, expiration) {
  // The ILP packet carries an expiry of its own, which ILP's encoding limits; only the
  // transfer's expiration is the poison.
  const ilpExpiration = new Date(Date.now() + 60_000).toISOString();
  const ilp = quoteIlp({ secret: secretOf({ secretPrefix: 'perf-secret-' }, PAYEE), transferId, amount: '1', currency: 'USD', payeeAddress: `g.${PAYEE}`, expiration: ilpExpiration });
  return { transferId, payerFsp: PAYER, payeeFsp: PAYEE, amount: { amount: '1', currency: 'USD' }, ...ilp, expiration };
}

/**
 * A fulfil the database cannot store, for a transfer of the run that is RESERVED right
 * now: correct fulfilment, completedTimestamp in year 10000. So that the payee's own fulfil
 * does not win the race, the payees answer 500 for two seconds around it (the notification
 * handler delivers those callbacks again later, from its retry topic).
 */
async function fulfilPoison(target, env) {
  await setPayeeFault(env, 'error', PAYEE_PAUSE_MS);
  await new Promise((resolve) => setTimeout(resolve, PAYEE_PAUSE_MS / 2));
  const transfer = await target.db('transfer').where('transfer_id', 'like', `__${env.RUN_TAG}-%`).where('state', 'RESERVED')
    .orderBy('transfer_id').first('transfer_id', 'payer_fsp', 'payee_fsp', 'ilp_packet');
  if (!transfer) return 'no RESERVED transfer to poison';
  const body = { fulfilment: fulfilmentFor(secretOf({ secretPrefix: 'perf-secret-' }, transfer.payee_fsp), transfer.ilp_packet), completedTimestamp: YEAR_10000, transferState: 'COMMITTED' };
  await produce(target, TOPIC.transferFulfil, transfer.transfer_id, transferEvent('commit', { id: transfer.transfer_id, from: transfer.payee_fsp, to: transfer.payer_fsp, body }));
  return `transfer ${transfer.transfer_id}`;
}

function quotePoison() {
  const quoteId = randomUUID();
  const body = {
    quoteId, transactionId: randomUUID(),
    payee: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '2000000001', fspId: PAYEE } },
    payer: { partyIdInfo: { partyIdType: 'MSISDN', partyIdentifier: '10000000000', fspId: PAYER } },
    amountType: 'SEND', amount: { amount: '1', currency: 'USD' },
    transactionType: { scenario: 'TRANSFER', initiator: 'PAYER', initiatorType: 'CONSUMER' }, expiration: YEAR_10000,
  };
  return { id: quoteId, type: 'quote', action: 'request', from: PAYER, to: PAYEE, headers: dfspHeaders('quotes', PAYER, PAYEE), body, rawBody: JSON.stringify(body), at: Date.now() };
}

const POISONS = [
  {
    topic: 'prepare', label: 'a prepare whose expiration MariaDB cannot store',
    inject: async ({ target }) => {
      const id = randomUUID();
      await produce(target, TOPIC.transferPrepare, id, transferEvent('prepare', { id, from: PAYER, to: PAYEE, body: prepareBody(id, YEAR_10000) }));
    },
  },
  { topic: 'fulfil', label: 'a fulfil whose completedTimestamp MariaDB cannot store', inject: ({ target, env }) => fulfilPoison(target, env) },
  {
    topic: 'position-batch', label: 'a position event for an account that does not exist',
    inject: ({ target }) => produce(target, TOPIC.transferPositionBatch, 'not-an-account', {
      id: randomUUID(), type: 'position', action: 'prepare', accountId: 'not-an-account', from: PAYER, to: PAYEE, body: {},
    }),
  },
  { topic: 'quotes-post', label: 'a quote whose expiration MariaDB cannot store', inject: async ({ target }) => { const event = quotePoison(); await produce(target, TOPIC.quotesPost, event.id, event); } },
  {
    topic: 'notification-event', label: 'a callback to a DFSP named by 5,000 commas',
    inject: ({ target }) => {
      const id = randomUUID();
      return produce(target, TOPIC.notificationEvent, id, {
        id, type: 'notification', action: 'error', from: 'Hub', to: ','.repeat(5000), headers: {},
        callback: { endpointType: 'FSPIOP_CALLBACK_URL_TRANSFER_ERROR', templateParams: { transferId: id }, method: 'PUT', resource: 'transfers' },
        body: { errorInformation: { errorCode: '2001', errorDescription: 'poison' } },
      });
    },
  },
];

/** The poison rows of the campaign: injected once, after the warm phase. */
export function poisonFaults() {
  return POISONS.map((poison) => ({ name: `poison-${poison.topic}`, label: `poison on ${poison.topic}: ${poison.label}`, seconds: 0, inject: poison.inject }));
}
