// The operators' look-ups of transfers (read scope; not central-ledger's, whose operators
// query its database): GET /transfers/{id} with the state history, both DFSPs and parties,
// amounts, errors and times; GET /transfers?quoteId= or ?partyIdType=&partyIdentifier= for the
// newest transfers of a quote or a party (payer or payee). Parties and the quote are read from
// the transfer's ILP packet, as the payer's and payee's DFSPs agreed it.
import { jsonResponse } from '../../platform/http/server.js';
import { FAILURE, failure, isFailure } from '../../platform/domain/failures.js';
import { partyKey, transactionOfIlpPacket } from '../../platform/fspiop/ilp-transaction.js';
import { fspiopCodeOf } from '../../platform/fspiop/errors.js';
import { formatAmount } from '../domain/money.js';
import { findTransferWithHistory, searchTransfers } from '../repositories/transfer-lookup.js';
import { failureResponse, readQuery } from './route-helpers.js';

const LIMIT_DEFAULT = 50;
const LIMIT_MAX = 500;
const TRANSFER_ID = /^[0-9A-Za-z-]{1,36}$/;

const money = (amount, currency) => (amount === null ? null : { amount: formatAmount(amount), currency });

function partyOf(party) {
  const info = party?.partyIdInfo;
  return info ? { partyIdType: info.partyIdType ?? null, partyIdentifier: info.partyIdentifier ?? null, fspId: info.fspId ?? null } : null;
}

function summaryView(transfer) {
  return {
    transferId: transfer.transferId, kind: transfer.kind, state: transfer.state, payerFsp: transfer.payerFsp, payeeFsp: transfer.payeeFsp,
    amount: money(transfer.amount, transfer.currency), createdAt: transfer.createdAt, completedAt: transfer.completedAt,
  };
}

function detailView(transfer) {
  const transaction = transactionOfIlpPacket(transfer.ilpPacket);
  return {
    ...summaryView(transfer),
    targetAmount: money(transfer.targetAmount, transfer.targetCurrency),
    determiningTransferId: transfer.determiningTransferId, commitRequestId: transfer.commitRequestId,
    quoteId: transaction?.quoteId ?? null, transactionId: transaction?.transactionId ?? null,
    payer: partyOf(transaction?.payer), payee: partyOf(transaction?.payee),
    condition: transfer.condition, expiration: transfer.expiresAt, reason: transfer.reason, externalReference: transfer.externalReference,
    // The switch's own failure as the FSPIOP error its parties were told, with the domain's name for it.
    failure: transfer.failureCode ? { code: String(fspiopCodeOf(transfer.failureCode) ?? transfer.failureCode), name: transfer.failureCode, detail: transfer.failureDetail } : null,
    payeeError: transfer.payeeErrorCode ? { errorCode: transfer.payeeErrorCode, errorDescription: transfer.payeeErrorDescription } : null,
    history: transfer.history,
  };
}

/** GET /transfers' query as a search, or a failure naming what is wrong. */
function readSearch(request) {
  const query = readQuery(request, ['quoteId', 'partyIdType', 'partyIdentifier', 'limit']);
  if (isFailure(query)) return query;
  const { quoteId, partyIdType, partyIdentifier } = query;
  const limit = query.limit === undefined ? LIMIT_DEFAULT : Number(query.limit);
  if (!/^\d{1,4}$/.test(query.limit ?? '1') || limit < 1 || limit > LIMIT_MAX) return failure(FAILURE.validation, `limit must be a whole number from 1 to ${LIMIT_MAX}`);
  const byParty = partyIdType !== undefined || partyIdentifier !== undefined;
  if ((quoteId === undefined) === !byParty) return failure(FAILURE.validation, 'search by quoteId, or by partyIdType and partyIdentifier, not both');
  if (quoteId !== undefined) return TRANSFER_ID.test(quoteId) ? { quoteId, limit } : failure(FAILURE.validation, `quoteId "${quoteId}" is not an id`);
  if (!/^[A-Z_]{1,32}$/.test(partyIdType ?? '') || !/^.{1,128}$/.test(partyIdentifier ?? '')) {
    return failure(FAILURE.validation, 'a party search needs partyIdType (e.g. MSISDN) and partyIdentifier');
  }
  return { party: partyKey({ partyIdType, partyIdentifier }), limit };
}

export function transferRoutes({ db }) {
  return [
    {
      method: 'GET',
      path: '/transfers',
      handler: async (request, h) => {
        const search = readSearch(request);
        if (isFailure(search)) return failureResponse(h, search);
        return jsonResponse(h, (await searchTransfers(db, search)).map(summaryView));
      },
    },
    {
      method: 'GET',
      path: '/transfers/{id}',
      handler: async (request, h) => {
        const { id } = request.params;
        if (!TRANSFER_ID.test(id)) return failureResponse(h, failure(FAILURE.validation, `"${id}" is not a transfer id`));
        const transfer = await findTransferWithHistory(db, id);
        if (!transfer) return failureResponse(h, failure(FAILURE.transferNotFound, `transfer ${id} was not found`));
        return jsonResponse(h, detailView(transfer));
      },
    },
  ];
}
