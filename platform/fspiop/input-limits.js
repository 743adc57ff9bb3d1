// Limits an FSPIOP edge applies to a request the OpenAPI schema already accepts, before
// anything is produced: a value that passes the specification's patterns can still be one
// no handler can store or settle (a DateTime in year 10000 once converted to UTC, an amount
// finer than its currency's minor unit where the scheme asks for that, JSON nested deeper than
// any FSPIOP body). Every check here is a pure function of the values it is given, so it is
// unit-tested without HTTP.
import currencyCodes from 'currency-codes';

/** Deeper than any FSPIOP v1.1 body (the deepest, a quote's payee, nests about 6 levels). */
export const JSON_DEPTH_MAX = 32;

/**
 * How far ahead of now an `expiration` may lie by default: a day is far beyond what any DFSP
 * asks for (Mojaloop's SDKs use a minute for quotes and transfers), while it keeps a reserved
 * transfer from holding the payer's liquidity for years.
 */
export const EXPIRATION_AHEAD_MAX_MS_DEFAULT = 24 * 60 * 60 * 1000;

// MariaDB's DATETIME stops at 9999; the switch keeps no instant before the Unix epoch.
const INSTANT_MIN_MS = Date.UTC(1970, 0, 1);
const INSTANT_END_MS = Date.UTC(10000, 0, 1);

// The FSPIOP Amount pattern allows four decimals, which is also the ledger's scale; a code the
// ISO 4217 table no longer lists (HRK, VEF, ...) keeps that bound rather than being refused.
const AMOUNT_DECIMALS_FALLBACK = 4;

/** Whether `currency` is an ISO 4217 code of the maintained table (a scheme setting names only those). */
export function isKnownCurrency(currency) {
  return currencyCodes.code(currency) !== undefined;
}

/**
 * The depth of a parsed JSON value (a scalar is 0, `[]` is 1), measured without recursion so
 * that a hostile body cannot overflow the stack; it stops as soon as `depthMax` is exceeded.
 * Returns true when the value nests deeper than `depthMax`.
 */
export function exceedsJsonDepth(value, depthMax = JSON_DEPTH_MAX) {
  const stack = [[value, 0]];
  while (stack.length > 0) {
    const [node, depth] = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (depth + 1 > depthMax) return true;
    for (const child of Object.values(node)) {
      if (child !== null && typeof child === 'object') stack.push([child, depth + 1]);
    }
  }
  return false;
}

/**
 * Checks an FSPIOP DateTime (already matching the specification's pattern) against the
 * window 1970-01-01T00:00:00.000Z to 9999-12-31T23:59:59.999Z once its offset is applied.
 * Returns the instant in epoch milliseconds, or null when it lies outside the window.
 */
export function dateTimeWithinWindow(text) {
  const instantMs = Date.parse(text);
  if (Number.isNaN(instantMs) || instantMs < INSTANT_MIN_MS || instantMs >= INSTANT_END_MS) return null;
  return instantMs;
}

/** The minor units of an ISO 4217 currency, from the maintained table in `currency-codes`. */
export function currencyDecimals(currency) {
  return currencyCodes.code(currency)?.digits ?? AMOUNT_DECIMALS_FALLBACK;
}

/**
 * Checks an FSPIOP Money `{ currency, amount }`: in a currency of `minorUnitCurrencies` (the
 * scheme's setting), the amount (a decimal string, never parsed into a Number) may have no
 * more decimals than the currency's ISO 4217 minor units; any other takes the four the API's
 * Amount pattern allows, as Mojaloop does. The Amount pattern forbids trailing zeros, so the
 * digits after the point are exactly its precision. Returns null, or a description of the problem.
 */
export function moneyProblem(money, minorUnitCurrencies = new Set()) {
  const { currency, amount } = money;
  if (typeof amount !== 'string' || typeof currency !== 'string' || !minorUnitCurrencies.has(currency)) return null;
  const point = amount.indexOf('.');
  const decimals = point === -1 ? 0 : amount.length - point - 1;
  const allowed = currencyDecimals(currency);
  if (decimals <= allowed) return null;
  return `amount ${amount} has ${decimals} decimals, ${currency} allows ${allowed}`;
}

/**
 * The values at a path of property names in a body; `[]` in a path stands for every element
 * of an array. Returns `[{ value, where }]` with `where` a JSON pointer, for those present.
 */
export function valuesAt(body, path) {
  let found = [{ value: body, where: '' }];
  for (const step of path) {
    const next = [];
    for (const { value, where } of found) {
      if (step === '[]') {
        if (Array.isArray(value)) value.forEach((item, index) => next.push({ value: item, where: `${where}/${index}` }));
      } else if (value !== null && typeof value === 'object' && !Array.isArray(value) && Object.hasOwn(value, step)) {
        next.push({ value: value[step], where: `${where}/${step}` });
      }
    }
    found = next;
  }
  return found;
}

function dateTimeProblem(body, path, { nowMs, expirationAheadMaxMs }) {
  for (const { value, where } of valuesAt(body, path)) {
    if (typeof value !== 'string') continue;
    const instantMs = dateTimeWithinWindow(value);
    if (instantMs === null) return `body${where} ${value} is outside the years 1970 to 9999 in UTC`;
    if (path.at(-1) === 'expiration' && instantMs - nowMs > expirationAheadMaxMs) {
      return `body${where} ${value} is more than ${expirationAheadMaxMs} ms ahead`;
    }
  }
  return null;
}

/**
 * Applies the date and amount limits to a schema-valid body. `fields` says where the
 * operation's schema puts DateTime and Money values (`{ dateTimes: [path], moneys: [path] }`);
 * an `expiration` DateTime may lie at most `expirationAheadMaxMs` after `nowMs`, and an amount
 * in a currency of `minorUnitCurrencies` within its minor units (moneyProblem).
 * Returns null, or `{ code: 3100, detail }` naming the field.
 */
export function checkBodyLimits(body, fields, { nowMs, expirationAheadMaxMs = EXPIRATION_AHEAD_MAX_MS_DEFAULT, minorUnitCurrencies }) {
  for (const path of fields.dateTimes) {
    const detail = dateTimeProblem(body, path, { nowMs, expirationAheadMaxMs });
    if (detail) return { code: 3100, detail };
  }
  for (const path of fields.moneys) {
    for (const { value, where } of valuesAt(body, path)) {
      const detail = value !== null && typeof value === 'object' ? moneyProblem(value, minorUnitCurrencies) : null;
      if (detail) return { code: 3100, detail: `body${where} ${detail}` };
    }
  }
  return null;
}

function resolveReference(document, schema) {
  if (!schema?.$ref) return { schema, name: undefined };
  const name = schema.$ref.split('/').at(-1);
  const target = schema.$ref.replace(/^#\//, '').split('/').reduce((parent, key) => parent?.[key], document);
  return { schema: target, name };
}

function isMoneySchema(schema) {
  return schema?.type === 'object' && Boolean(schema.properties?.currency) && Boolean(schema.properties?.amount);
}

/**
 * Finds where a request schema of the OpenAPI document holds DateTime and Money values:
 * `{ dateTimes: [path], moneys: [path] }`, each path a list of property names with `[]` for
 * array elements. The walk follows `$ref`, properties, items and allOf/anyOf/oneOf, and does
 * not enter a named schema it is already inside, so a recursive definition ends.
 */
export function limitedFieldsOf(document, rootSchema) {
  const fields = { dateTimes: [], moneys: [] };
  const pending = [{ schema: rootSchema, path: [], inside: new Set() }];
  while (pending.length > 0) {
    const { schema: raw, path, inside } = pending.pop();
    const { schema, name } = resolveReference(document, raw);
    if (!schema || (name && inside.has(name))) continue;
    const within = name ? new Set([...inside, name]) : inside;
    if (name === 'DateTime') { fields.dateTimes.push(path); continue; }
    if (isMoneySchema(schema)) { fields.moneys.push(path); continue; }
    for (const [key, child] of Object.entries(schema.properties ?? {})) pending.push({ schema: child, path: [...path, key], inside: within });
    if (schema.items) pending.push({ schema: schema.items, path: [...path, '[]'], inside: within });
    for (const child of [...(schema.allOf ?? []), ...(schema.anyOf ?? []), ...(schema.oneOf ?? [])]) {
      pending.push({ schema: child, path, inside: within });
    }
  }
  return fields;
}
