// JSON for APIs that carry money. JSON numbers are parsed into their exact decimal text
// (never a JavaScript Number), and amounts leave as JSON numbers written from that text,
// which is the shape central-ledger's admin API answers with.
import { parse, stringify, LosslessNumber } from 'lossless-json';

export class MalformedJsonError extends Error {}

/** Parses request bytes; every JSON number becomes the string of its digits. */
export function parseJsonPreservingNumbers(bytes) {
  try {
    return parse(bytes.toString('utf8'), null, (text) => text);
  } catch (error) {
    throw new MalformedJsonError(error.message);
  }
}

/** Marks a decimal string so that it is written as a JSON number, digit for digit. */
export function jsonNumber(decimalText) {
  return new LosslessNumber(decimalText);
}

export function stringifyJson(value) {
  return stringify(value);
}
