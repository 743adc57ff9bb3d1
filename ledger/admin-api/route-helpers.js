// Small wrappers that keep the admin API's route handlers to their decision: participant
// lookup, account ids and query parameters, and the FSPIOP error answer when one fails.
import { failureResponse } from '../../platform/http/server.js';
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { findParticipantByName } from '../repositories/participants.js';
import { PARTICIPANT_NAME_PATTERN } from './schemas.js';

/** Resolves `{name}` to a participant, answering 3200 for an unknown one. */
export async function resolveParticipant(db, request) {
  const { name } = request.params;
  if (!PARTICIPANT_NAME_PATTERN.test(name)) return failure(FAILURE.validation, `"${name}" is not a valid participant name`);
  const participant = await findParticipantByName(db, name);
  return participant ?? failure(FAILURE.participantNotFound, `participant ${name} was not found`);
}

export function parseAccountId(text) {
  return /^\d{1,9}$/.test(text) ? Number(text) : failure(FAILURE.validation, `account id "${text}" is not a number`);
}

/** Reads optional query parameters, refusing unknown ones and malformed currencies. */
export function readQuery(request, allowed) {
  const unknown = Object.keys(request.query).filter((key) => !allowed.includes(key));
  if (unknown.length > 0) return failure(FAILURE.validation, `unknown query parameter(s) ${unknown.join(', ')}`);
  const { currency } = request.query;
  if (currency !== undefined && !/^[A-Z]{3}$/.test(currency)) return failure(FAILURE.malformedSyntax, `currency "${currency}" is not an ISO 4217 code`);
  return { ...request.query };
}

export { failureResponse };
