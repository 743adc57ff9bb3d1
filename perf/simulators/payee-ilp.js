// What a payee DFSP does with ILPv4, as Mojaloop's SDKs do it: the fulfilment is
// HMAC-SHA256(secret, the packet's data) and the condition SHA-256(fulfilment), so the payee
// keeps no state between its quote and the transfer. Used by the load-test simulators and the
// test DFSPs (test/support/test-dfsp.js).
import { createHash, createHmac } from 'node:crypto';
import IlpPacket from 'ilp-packet';

/**
 * What the payee would put in its quote: the ILP packet and the condition from its secret. The
 * packet's transaction is its id and amount, with what `transaction` adds (the quote id and the
 * parties, as Mojaloop's SDKs write them; the load test's simulators leave them out).
 */
export function quoteIlp({ secret, transferId, amount, currency, payeeAddress, expiration, transaction = {} }) {
  const data = Buffer.from(JSON.stringify({ transactionId: transferId, ...transaction, amount: { amount, currency } }));
  const fulfilment = createHmac('sha256', secret).update(data).digest();
  const condition = createHash('sha256').update(fulfilment).digest();
  const packet = IlpPacket.serializeIlpPrepare({
    amount: amount.replace('.', ''), executionCondition: condition, expiresAt: new Date(expiration), destination: payeeAddress, data,
  });
  return { ilpPacket: packet.toString('base64url'), condition: condition.toString('base64url') };
}

/** The fulfilment a payee derives from a received ILP packet and its secret. */
export function fulfilmentFor(secret, ilpPacket) {
  const { data } = IlpPacket.deserializeIlpPrepare(Buffer.from(ilpPacket, 'base64url'));
  return createHmac('sha256', secret).update(data).digest('base64url');
}
