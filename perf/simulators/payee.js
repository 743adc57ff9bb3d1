// The payee side of every simulated DFSP: it answers the switch's GET /parties, POST /quotes
// and POST /transfers at once with the matching PUT, statelessly. The ILP packet, condition
// and fulfilment come from the DFSP's secret (ILPv4, as test/support/test-dfsp.js derives
// them), so the switch's fulfilment check is real. Every answer is signed with the DFSP's key.
// A payee answers in the version it was asked in (a v2.0 payer's lookup, quote and transfer
// get v2.0 answers, the party naming the currencies the DFSP holds), as the SDKs do.
import { fulfilmentFor, quoteIlp } from './payee-ilp.js';
import { answerAs } from './fspiop.js';
import { dfspHeaders } from '../../scripts/lib/fspiop-headers.js';
import { contentVersionOf } from '../../platform/fspiop/versions.js';

export const secretOf = (config, name) => `${config.secretPrefix}${name}`;

/** The party a payee answers a lookup with; `supportedCurrencies` (v2.0 only) when given. */
export function partyBody(name, type, id, supportedCurrencies) {
  return {
    party: {
      partyIdInfo: { partyIdType: type, partyIdentifier: id, fspId: name }, name: `Customer ${id}`, personalInfo: { complexName: { firstName: 'Perf', lastName: id } },
      ...(supportedCurrencies ? { supportedCurrencies } : {}),
    },
  };
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
  const version = contentVersionOf(requestHeaders['content-type']) ?? '1.1';
  const answerHeaders = (resource) => dfspHeaders(resource, name, payer, { accept: false, version });
  if (method === 'GET' && parts[0] === 'parties') {
    const [type, id] = parts.slice(1);
    const currencies = version.startsWith('2') ? config.dfspCurrencies[name] : undefined;
    return answerAs(config, name, `${config.alsUrl}/parties/${type}/${id}`, 'PUT', answerHeaders('parties'), JSON.stringify(partyBody(name, type, id, currencies)));
  }
  if (method === 'POST' && parts[0] === 'quotes') {
    const quote = JSON.parse(text);
    return answerAs(config, name, `${config.quotingUrl}/quotes/${quote.quoteId}`, 'PUT', answerHeaders('quotes'), JSON.stringify(quoteAnswer(config, name, quote)));
  }
  if (method === 'POST' && parts[0] === 'transfers') {
    const prepare = JSON.parse(text);
    const body = { fulfilment: fulfilmentFor(secretOf(config, name), prepare.ilpPacket), completedTimestamp: new Date().toISOString(), transferState: 'COMMITTED' };
    return answerAs(config, name, `${config.transfersUrl}/transfers/${prepare.transferId}`, 'PUT', answerHeaders('transfers'), JSON.stringify(body));
  }
  return undefined;
}
