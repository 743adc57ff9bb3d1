// The quoting handler's decisions for a batch of bulk quote events (POST /bulkQuotes, GET
// /bulkQuotes/{ID}, PUT /bulkQuotes/{ID} and PUT /bulkQuotes/{ID}/error): a payer asks the
// payee DFSP it names for up to 1,000 quotes at once, and only that payee answers, only to that
// payer. The rules are every relayed resource's (relay.js); what is a bulk quote's own is here:
// every individual quote is checked, not only the first as Mojaloop does, so a bulk the payee
// could never complete is refused before the payee spends work on it, and the payee's answer
// may name only the individual quotes it was asked for.
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { keptMessage } from './batch.js';
import { decideRelayBatch, relayKind } from './relay.js';

/** The event type the /bulkQuotes edge produces (quoting/routes.js). */
export const BULK_QUOTE_EVENT = 'bulkQuote';

/** The most individual quotes a bulk quote holds, as the API definition's schemas bound them. */
export const BULK_QUOTE_ITEMS_MAX = 1000;

const itemsOf = (body) => (Array.isArray(body?.individualQuotes) ? body.individualQuotes : []);
const resultsOf = (body) => (Array.isArray(body?.individualQuoteResults) ? body.individualQuoteResults : []);
const currencyOf = (item) => item?.amount?.currency;
const holdsPosition = (participant, currency) => participant.activePositionCurrencies?.includes(currency) ?? false;

/** The first id listed twice, or undefined. */
function firstRepeated(ids) {
  const seen = new Set();
  return ids.find((id) => (seen.has(id) ? true : (seen.add(id), false)));
}

/** The currencies of a bulk's individual quotes, each once, in the order they first appear. */
export const bulkCurrencies = (body) => [...new Set(itemsOf(body).map(currencyOf).filter((currency) => typeof currency === 'string'))];

/** The DFSP `name` in `role` as a participant: unknown or inactive is a failure with `code`. */
function partyFailure(participants, role, name, code) {
  const participant = typeof name === 'string' ? participants.get(name) : undefined;
  if (!participant) return failure(code, name ? `${role} FSP ${name} is not a participant` : `no ${role} FSP is named`);
  if (!participant.isActive) return failure(code, `${role} FSP ${name} is not active`);
  return null;
}

// An error description is cut at 128 characters (platform/fspiop/errors.js), so the failures
// name the individual quote first and the DFSP by its role: the sender knows both parties.

/**
 * Why the bulk quote `body` asked by `from` of `to` cannot be relayed, or null. The payer is
 * the sender (a payer party naming another FSP is 3100), both DFSPs are active participants,
 * no individual quote's id is listed twice, and each individual quote's currency is one both
 * DFSPs hold an active position in: the payer's lack is 3202, the payee's 3203, as a quote's
 * unknown payer and payee are, naming the individual quote and its currency.
 */
export function bulkRequestFailure(body, { from, to }, participants) {
  const payerFsp = body?.payer?.partyIdInfo?.fspId;
  if (payerFsp !== undefined && payerFsp !== from) return failure(FAILURE.validation, `payer.partyIdInfo.fspId ${payerFsp} is not the sender ${from}`);
  const items = itemsOf(body);
  if (items.length === 0 || items.length > BULK_QUOTE_ITEMS_MAX) {
    return failure(FAILURE.validation, `individualQuotes holds ${items.length} quotes; 1 to ${BULK_QUOTE_ITEMS_MAX} are allowed`);
  }
  const repeated = firstRepeated(items.map((item) => item?.quoteId));
  if (repeated !== undefined) return failure(FAILURE.validation, `individual quote ${repeated} is listed twice`);
  const parties = [['payer', from, FAILURE.payerFspNotFound], ['payee', to, FAILURE.payeeFspNotFound]];
  for (const [role, name, code] of parties) {
    const problem = partyFailure(participants, role, name, code);
    if (problem) return problem;
  }
  for (const item of items) {
    for (const [role, name, code] of parties) {
      if (!holdsPosition(participants.get(name), currencyOf(item))) {
        return failure(code, `individual quote ${item.quoteId}: ${role} FSP has no active ${currencyOf(item)} position`);
      }
    }
  }
  return null;
}

/**
 * Why the payee's answer `body` cannot go to the payer of the bulk quote `record`, or null: its
 * individualQuoteResults may name only the individual quotes the payer asked for, each once.
 * An error callback carries no results and is always relayed.
 */
export function bulkAnswerFailure(body, record) {
  const asked = new Set(record.quoteIds ?? []);
  const ids = resultsOf(body).map((result) => result?.quoteId);
  const stranger = ids.find((id) => !asked.has(id));
  if (stranger !== undefined) return failure(FAILURE.validation, `individual quote ${stranger} was not asked for`);
  const repeated = firstRepeated(ids);
  if (repeated !== undefined) return failure(FAILURE.validation, `individual quote ${repeated} is answered twice`);
  return null;
}

function requestRecord(event) {
  return { ...keptMessage(event), itemCount: itemsOf(event.body).length, currencies: bulkCurrencies(event.body) };
}

/** A bulk quote: requested by its payer (FSPIOP-Source) of its payee (FSPIOP-Destination). */
export const BULK_QUOTE_KIND = relayKind({
  idField: 'bulkQuoteId',
  requesterField: 'payerFsp',
  answererField: 'payeeFsp',
  noun: 'bulk quote',
  resource: 'bulkQuotes',
  requesterRole: 'payer',
  notFound: FAILURE.bulkQuoteNotFound,
  requestFailure: (event, participants) => bulkRequestFailure(event.body, event, participants),
  answerPartiesFailure: (participants, payee, payer) => partyFailure(participants, 'payee', payee, FAILURE.payeeFspNotFound)
    ?? partyFailure(participants, 'payer', payer, FAILURE.payerFspNotFound),
  answerFailure: (event, record) => bulkAnswerFailure(event.body, record),
  // The payee's answer is checked against the ids asked, so they are kept even when requests are not.
  decisionFields: (event) => ({ quoteIds: itemsOf(event.body).map((item) => item.quoteId) }),
  requestRecord,
});

/**
 * `events`: decoded bulk quote events in consumption order (`id`: the bulkQuoteId).
 * `bulkQuotes`: id → stored bulk quote (quoting/repositories/bulk-quotes.js). `participants`:
 * name → `{ isActive, activePositionCurrencies }` (the ledger's port) for the DFSPs the events
 * name, and at least `{ isActive }` for the stored bulk quotes' parties. Returns bulk quotes to
 * insert, `{ bulkQuoteId, changes }` to apply, outcomes, and events with an unknown action.
 */
export function decideBulkQuoteBatch({ events, bulkQuotes, participants, persist }) {
  return decideRelayBatch(BULK_QUOTE_KIND, { events, records: bulkQuotes, participants, persist });
}
