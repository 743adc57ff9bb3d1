// Quotes for the quoting handler: set-based reads (locked, so that two consumers of one
// partition during a rebalance cannot both change a quote), bulk inserts and updates.
import { bulkUpdate } from '../../platform/db.js';

const QUOTE_COLUMNS = ['quote_id', 'payer_fsp', 'payee_fsp', 'state', 'request_hash', 'request_at', 'answer_hash', 'answer_at',
  'ilp_condition', 'answer_error_code', 'answer_headers', 'answer_body'];

// BIGINT columns come back as strings (platform/db.js); epoch milliseconds fit a Number.
const epochMs = (value) => (value === null || value === undefined ? null : Number(value));

function toQuote(row) {
  return {
    quoteId: row.quote_id,
    payerFsp: row.payer_fsp,
    payeeFsp: row.payee_fsp,
    state: row.state,
    requestHash: row.request_hash,
    requestAt: epochMs(row.request_at),
    answerHash: row.answer_hash,
    answerAt: epochMs(row.answer_at),
    answer: row.answer_body === null ? null : {
      headers: JSON.parse(row.answer_headers ?? '{}'),
      rawBody: row.answer_body,
      condition: row.ilp_condition,
      errorCode: row.answer_error_code,
    },
  };
}

/** Quotes by id (without the stored request, which no decision reads); `forUpdate` locks them in id order. */
export async function findQuotes(trx, quoteIds, { forUpdate = false } = {}) {
  if (quoteIds.length === 0) return new Map();
  const query = trx('quote').whereIn('quote_id', [...new Set(quoteIds)].sort()).orderBy('quote_id').select(QUOTE_COLUMNS);
  const rows = await (forUpdate ? query.forUpdate() : query);
  return new Map(rows.map((row) => [row.quote_id, toQuote(row)]));
}

/** name → { isActive } for the participants that exist. */
export async function findParticipantStates(trx, names) {
  const wanted = [...new Set(names.filter((name) => typeof name === 'string' && name !== ''))];
  if (wanted.length === 0) return new Map();
  const rows = await trx('participant').whereIn('name', wanted).select('name', 'is_active');
  return new Map(rows.map((row) => [row.name, { isActive: Boolean(row.is_active) }]));
}

function requestColumns(request) {
  return {
    transaction_id: request?.transactionId ?? null,
    amount: request?.amount ?? null,
    currency: request?.currency ?? null,
    expires_at: request?.expiresAt ?? null,
    request_headers: request ? JSON.stringify(request.headers) : null,
    request_body: request?.rawBody ?? null,
  };
}

function answerColumns(answer) {
  return {
    ilp_condition: answer?.condition ?? null,
    answer_error_code: answer?.errorCode ?? null,
    answer_headers: answer ? JSON.stringify(answer.headers) : null,
    answer_body: answer?.rawBody ?? null,
  };
}

export async function insertQuotes(trx, quotes, now) {
  if (quotes.length === 0) return;
  await trx('quote').insert(quotes.map((quote) => ({
    quote_id: quote.quoteId,
    payer_fsp: quote.payerFsp,
    payee_fsp: quote.payeeFsp,
    state: quote.state,
    request_hash: quote.requestHash,
    request_at: quote.requestAt,
    answer_hash: quote.answerHash,
    answer_at: quote.answerAt,
    ...requestColumns(quote.request),
    ...answerColumns(quote.answer),
    created_at: now,
    changed_at: now,
  })));
}

const SIMPLE_CHANGES = Object.freeze({ state: 'state', requestAt: 'request_at', answerHash: 'answer_hash', answerAt: 'answer_at' });

/** Applies `[{ quoteId, changes }]` as decided: one UPDATE per group of alike changes. */
export async function updateQuotes(trx, updates, now) {
  const rows = updates.map(({ quoteId, changes }) => {
    const columns = { changed_at: now };
    for (const [field, column] of Object.entries(SIMPLE_CHANGES)) if (field in changes) columns[column] = changes[field];
    if ('request' in changes) Object.assign(columns, requestColumns(changes.request));
    if ('answer' in changes) Object.assign(columns, answerColumns(changes.answer));
    return { key: quoteId, changes: columns };
  });
  await bulkUpdate(trx, 'quote', 'quote_id', rows);
}
