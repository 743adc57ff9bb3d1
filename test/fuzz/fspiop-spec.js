// The FSPIOP v1.1 document of @mojaloop/api-snippets (one of the three the edges validate
// against, platform/fspiop/openapi.js; the signing proxy states version 1.1 on every request,
// so the edges check the fuzzed requests against this very document) as the fuzzer gets it: only the resources the switch serves,
// without the operations it answers 501/2002 by design (README's error table), and with the
// few patterns Schemathesis cannot generate from (Unicode property classes such as \p{L}, in
// PartyName) widened to a close equivalent it can: the edges still validate with the original.
import { fspiopSpec } from '../../platform/fspiop/openapi.js';

const SERVED_PATHS = /^\/(transfers|quotes|parties|participants)(\/|$)/;

// The PUTs under /participants the switch serves: a DFSP's error about a party, relayed.
const SERVED_PARTICIPANT_PUTS = new Set(['/participants/{Type}/{ID}/error', '/participants/{Type}/{ID}/{SubId}/error']);

// Operations the switch declares not served (notImplementedRoute in the edges' route files).
const NOT_SERVED = [
  (method, path) => method === 'patch' && path === '/transfers/{ID}',
  (method, path) => method === 'put' && path.startsWith('/participants/') && !SERVED_PARTICIPANT_PUTS.has(path),
];

// Python's \w is Unicode-aware: letters, digits, marks and connector punctuation, as the
// original's property classes say.
const GENERATABLE_NAME = "^(?!\\s*$)[\\w .,'-]{1,128}$";

function widenPatterns(node) {
  if (Array.isArray(node)) return node.map(widenPatterns);
  if (node === null || typeof node !== 'object') return node;
  const copy = {};
  for (const [key, value] of Object.entries(node)) {
    copy[key] = key === 'pattern' && typeof value === 'string' && value.includes('\\p{') ? GENERATABLE_NAME : widenPatterns(value);
  }
  return copy;
}

/** The fuzzer's copy of the document (a plain object, to be written as JSON). */
export function fuzzedFspiopDocument() {
  const { document } = fspiopSpec();
  const paths = {};
  for (const [path, item] of Object.entries(document.paths)) {
    if (!SERVED_PATHS.test(path)) continue;
    const kept = Object.fromEntries(Object.entries(item).filter(([method]) => !NOT_SERVED.some((rule) => rule(method, path))));
    if (Object.keys(kept).some((key) => key !== 'parameters')) paths[path] = kept;
  }
  return widenPatterns({ ...document, paths });
}
