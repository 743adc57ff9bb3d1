// The DFSPs of a relayed request, checked as the quote rules check them: each must be a
// participant and active, a payer's DFSP failing with 3202 and a payee's with 3203, whichever
// of the two asks.
import { FAILURE, failure } from '../../platform/domain/failures.js';

/** The first DFSP (of `roles`) that is unknown or inactive, as a failure; null when all are fine. */
export function checkParties(participants, roles) {
  for (const { role, name, code } of roles) {
    const participant = typeof name === 'string' ? participants.get(name) : undefined;
    if (!participant) return failure(code, name ? `${role} FSP ${name} is not a participant` : `no ${role} FSP is named`);
    if (!participant.isActive) return failure(code, `${role} FSP ${name} is not active`);
  }
  return null;
}

export const payerRole = (name) => ({ role: 'payer', name, code: FAILURE.payerFspNotFound });
export const payeeRole = (name) => ({ role: 'payee', name, code: FAILURE.payeeFspNotFound });
