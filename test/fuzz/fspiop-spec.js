// The FSPIOP documents of @mojaloop/api-snippets (the ones the edges validate against,
// platform/fspiop/openapi.js) as the fuzzer gets them, one per slice: the v1.1 document
// (transfers, quotes, bulkQuotes, parties, participants, transactionRequests, authorizations) and the v2.0 document (the resources of currency
// conversion, fxQuotes, fxTransfers and services/FXP, with the 2.0 versions of transfers,
// quotes and parties). The signing proxy states the slice's version on every request, so the
// edges check the fuzzed requests against this very document. Each keeps only the resources
// the switch serves, without the operations it answers 501/2002 by design (notImplementedRoute
// in the edges' route files; README's error table), with the path parameters the edges type
// more tightly than the document (pathSchemas in the route files: a transfer's {ID} is a
// CorrelationId, a currency pair's are Currency codes) typed as the edges check them, so that
// most generated paths pass and the requests go deeper (Schemathesis's coverage phase still
// sends values outside them), and with the few patterns Schemathesis cannot generate from
// (Unicode property classes such as \p{L}, in PartyName) widened to a close equivalent it
// can: the edges still validate with the original.
import { fspiopSpec } from '../../platform/fspiop/openapi.js';

// The PUTs under /participants the switch serves: a DFSP's error about a party, relayed.
const SERVED_PARTICIPANT_PUTS = new Set(['/participants/{Type}/{ID}/error', '/participants/{Type}/{ID}/{SubId}/error']);

/** What each fuzzed version keeps: the paths served, and the operations the switch declares not served. */
const SLICES = Object.freeze({
  '1.1': {
    served: /^\/(transfers|quotes|bulkQuotes|parties|participants|transactionRequests|authorizations)(\/|$)/,
    notServed: [
      (method, path) => method === 'patch' && path === '/transfers/{ID}',
      (method, path) => method === 'put' && path.startsWith('/participants/') && !SERVED_PARTICIPANT_PUTS.has(path),
    ],
  },
  '2.0': {
    served: /^\/(fxQuotes|fxTransfers|services\/FXP|transfers|quotes|parties)(\/|$)/,
    notServed: [
      // PATCH goes from the switch to a DFSP (the payee or the FXP), never to the switch.
      (method, path) => method === 'patch' && (path === '/transfers/{ID}' || path === '/fxTransfers/{ID}'),
      // The FXP discovery answers go from the switch to the DFSP that asked.
      (method, path) => method === 'put' && path.startsWith('/services/'),
    ],
  },
});

// The path parameters the edges validate with a named schema of the document, by path.
const TYPED_PATH_PARAMETERS = [
  { paths: /^\/(transfers|quotes|bulkQuotes|fxTransfers|fxQuotes|transactionRequests|authorizations)\/\{ID\}/, name: 'ID', schema: 'CorrelationId' },
  { paths: /^\/services\/FXP\//, name: 'SourceCurrency', schema: 'Currency' },
  { paths: /^\/services\/FXP\//, name: 'TargetCurrency', schema: 'Currency' },
];

/** Parameters of `path` (its item's or an operation's) with those the edges type tightly given their schema. */
function typedParameters(document, path, parameters) {
  return parameters.map((parameter) => {
    const typed = TYPED_PATH_PARAMETERS.find((rule) => rule.paths.test(path) && parameter.$ref === `#/components/parameters/${rule.name}`);
    if (!typed) return parameter;
    const original = document.components.parameters[typed.name];
    return { ...original, schema: { $ref: `#/components/schemas/${typed.schema}` } };
  });
}

/** A path item (its parameters and its operations') with its path parameters typed as the edges type them. */
function typedPathItem(document, path, item) {
  const typed = {};
  for (const [key, value] of Object.entries(item)) {
    if (key === 'parameters') typed[key] = typedParameters(document, path, value);
    else typed[key] = value.parameters ? { ...value, parameters: typedParameters(document, path, value.parameters) } : value;
  }
  return typed;
}

/** The versions the fuzzer has a document for. */
export const FUZZED_VERSIONS = Object.freeze(Object.keys(SLICES));

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

/** The fuzzer's copy of the document of `version` ('1.1' or '2.0'; a plain object, to be written as JSON). */
export function fuzzedFspiopDocument(version = '1.1') {
  const slice = SLICES[version];
  if (!slice) throw new Error(`the fuzzer has no FSPIOP ${version} slice; one of ${FUZZED_VERSIONS.join(', ')}`);
  const { document } = fspiopSpec(version);
  const paths = {};
  for (const [path, item] of Object.entries(document.paths)) {
    if (!slice.served.test(path)) continue;
    const kept = Object.fromEntries(Object.entries(item).filter(([method]) => !slice.notServed.some((rule) => rule(method, path))));
    if (!Object.keys(kept).some((key) => key !== 'parameters')) continue;
    paths[path] = typedPathItem(document, path, kept);
  }
  return widenPatterns({ ...document, paths });
}
