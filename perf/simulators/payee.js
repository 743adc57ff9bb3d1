// The payee side of every simulated DFSP: it answers the switch's GET /parties, POST /quotes
// and POST /transfers at once with the matching PUT, statelessly. The ILP packet, condition
// and fulfilment come from the DFSP's secret (ILPv4, as test/support/test-dfsp.js derives
// them), so the switch's fulfilment check is real. Every answer is signed with the DFSP's key.
import { fulfilmentFor, quoteIlp } from './payee-ilp.js';
import { sendAs } from './fspiop.js';
import { dfspHeaders } from '../../scripts/lib/fspiop-headers.js';

export const secretOf = (config, name) => `${config.secretPrefix}${name}`;

export function partyBody(name, type, id) {
  return { party: { partyIdInfo: { partyIdType: type, partyIdentifier: id, fspId: name }, name: `Customer ${id}`, personalInfo: { complexName: { firstName: 'Perf', lastName: id } } } };
}

/** The payee's quote answer for a QuotesPostRequest. */
export function quoteAnswer(config, name, quote) {
  const expiration = new Date(Date.now() + config.expirationMs).toISOString();
  const { amount, currency } = quote.amount;
  const ilp = quoteIlp({
    secret: secretOf(config, name), transferId: quote.transactionId, amount, currency,
    payeeAddress: `g.${name}.msisdn.${quote.payee.partyIdInfo.partyIdentifier}`, expiration,
  });
  return { transferAmount: { amount, currency }, payeeReceiveAmount: { amount, currency }, expiration, ...ilp };
}

/** Handles a request the switch sent to payee `name` (already answered 202). */
export function answerAsPayee(config, name, method, parts, text, requestHeaders) {
  const payer = requestHeaders['fspiop-source'];
  if (method === 'GET' && parts[0] === 'parties') {
    const [type, id] = parts.slice(1);
    return sendAs(config, name, `${config.alsUrl}/parties/${type}/${id}`, 'PUT', dfspHeaders('parties', name, payer, { accept: false }), JSON.stringify(partyBody(name, type, id)));
  }
  if (method === 'POST' && parts[0] === 'quotes') {
    const quote = JSON.parse(text);
    return sendAs(config, name, `${config.quotingUrl}/quotes/${quote.quoteId}`, 'PUT', dfspHeaders('quotes', name, payer, { accept: false }), JSON.stringify(quoteAnswer(config, name, quote)));
  }
  if (method === 'POST' && parts[0] === 'transfers') {
    const prepare = JSON.parse(text);
    const body = { fulfilment: fulfilmentFor(secretOf(config, name), prepare.ilpPacket), completedTimestamp: new Date().toISOString(), transferState: 'COMMITTED' };
    return sendAs(config, name, `${config.transfersUrl}/transfers/${prepare.transferId}`, 'PUT', dfspHeaders('transfers', name, payer, { accept: false }), JSON.stringify(body));
  }
  return undefined;
}
