// The FSPIOP transaction an ILP packet carries (its data: the transaction's JSON, base64url
// encoded as Mojaloop's SDKs write it, or the JSON itself): the quote and transaction ids and
// both parties, which the switch reads to convert a transfer into ISO 20022 and to index a
// transfer for the operators' searches. A packet that does not decode is no transaction.
import ilpPacket from 'ilp-packet';

/** The packet's transaction as an object, or null when the packet carries none. */
export function transactionOfIlpPacket(packet) {
  if (typeof packet !== 'string') return null;
  try {
    const text = ilpPacket.deserializeIlpPrepare(Buffer.from(packet, 'base64url')).data.toString('utf8');
    const json = text.trimStart().startsWith('{') ? text : Buffer.from(text, 'base64url').toString('utf8');
    const transaction = JSON.parse(json);
    return transaction !== null && typeof transaction === 'object' ? transaction : null;
  } catch {
    return null;
  }
}

/** A party's id as one searchable key, "<partyIdType>:<partyIdentifier>", or null without both. */
export function partyKey(info) {
  if (typeof info?.partyIdType !== 'string' || typeof info?.partyIdentifier !== 'string') return null;
  return `${info.partyIdType}:${info.partyIdentifier}`.slice(0, 160);
}

/** What the operators' searches index of a transfer: its quote and both parties (nulls when unknown). */
export function searchKeysOfIlpPacket(packet) {
  const transaction = transactionOfIlpPacket(packet);
  return {
    quoteId: typeof transaction?.quoteId === 'string' ? transaction.quoteId.slice(0, 36) : null,
    payerParty: partyKey(transaction?.payer?.partyIdInfo),
    payeeParty: partyKey(transaction?.payee?.partyIdInfo),
  };
}
