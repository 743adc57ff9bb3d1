// The list routes' filters. central-settlement insists on at least one filter and answers a
// search that finds nothing with its generic validation error rather than an empty list;
// operator scripts expect both, so both are kept.
import { FAILURE, failure } from '../../platform/domain/failures.js';
import { readQuery } from '../admin-api/route-helpers.js';

const DATE_FILTERS = new Set(['fromDateTime', 'toDateTime', 'fromSettlementWindowDateTime', 'toSettlementWindowDateTime']);
const ID_FILTERS = new Set(['participantId', 'accountId', 'settlementWindowId']);

/** The filters present, parsed (dates as Date, ids as numbers), or a failure naming what is wrong. */
export function readFilters(request, allowed) {
  const query = readQuery(request, allowed);
  if (query.ok === false) return query;
  const filters = {};
  for (const [key, text] of Object.entries(query)) {
    if (text === undefined || text === '') continue;
    if (DATE_FILTERS.has(key)) {
      const date = new Date(text);
      if (Number.isNaN(date.getTime())) return failure(FAILURE.validation, `${key} "${text}" is not a date-time`);
      filters[key] = date;
    } else if (ID_FILTERS.has(key)) {
      if (!/^[1-9]\d{0,8}$/.test(text)) return failure(FAILURE.validation, `${key} "${text}" is not an id`);
      filters[key] = Number(text);
    } else {
      filters[key] = text;
    }
  }
  if (Object.keys(filters).length === 0) return failure(FAILURE.validation, `Use at least one parameter: ${allowed.join(', ')}`);
  return filters;
}

/** central-settlement's words for a search that found nothing: the filters, without quotes. */
export function nothingFound(what, request) {
  return failure(FAILURE.validation, `${what} by filters: ${JSON.stringify(request.query).replace(/"/g, '')} not found`);
}

export function parseId(text, what) {
  return /^[1-9]\d{0,8}$/.test(text) ? Number(text) : failure(FAILURE.validation, `${what} "${text}" is not an id`);
}
