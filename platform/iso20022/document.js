// The ISO 20022 document of the FSPIOP API as @mojaloop/api-snippets ships it (18.x:
// docs/fspiop-rest-v2.0-ISO20022-openapi3-snippets.yaml, "v2.0-iso20022-draft"), loaded once
// per process and compiled with Ajv as openapi.js compiles the FSPIOP documents: no copy of
// a schema is kept here, only the repairs described at repairedChoice() and withFxQuoteExpiry().
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { load as loadYaml } from 'js-yaml';
import Ajv from 'ajv';
import addFormats from 'ajv-formats';

const DOCUMENT_ID = 'fspiop-v2.0-iso20022';

/**
 * The ISO 20022 message each operation carries (issue 34's mapping) and the document's schema
 * for it: the body of every PUT and PATCH about a transfer, and every error, is a pacs.002.
 */
export const ISO_MESSAGES = Object.freeze({
  'PUT /parties/{Type}/{ID}': { message: 'acmt.024', schema: 'GetParties_IdentificationVerificationReportV03' },
  'PUT /parties/{Type}/{ID}/{SubId}': { message: 'acmt.024', schema: 'GetParties_IdentificationVerificationReportV03' },
  'PUT /parties/{Type}/{ID}/error': { message: 'acmt.024', schema: 'GetPartiesError_IdentificationVerificationReportV03' },
  'PUT /parties/{Type}/{ID}/{SubId}/error': { message: 'acmt.024', schema: 'GetPartiesError_IdentificationVerificationReportV03' },
  'POST /quotes': { message: 'pacs.081', schema: 'TermsRequest_FIToFICustomerCreditProposal' },
  'PUT /quotes/{ID}': { message: 'pacs.082', schema: 'TermsResponse_FIToFICustomerCreditConfirmation' },
  'PUT /quotes/{ID}/error': { message: 'pacs.002', schema: 'PacsError_FIToFIPaymentStatusReportV15' },
  'POST /transfers': { message: 'pacs.008', schema: 'Execute_FIToFICustomerCreditTransferV13' },
  'PUT /transfers/{ID}': { message: 'pacs.002', schema: 'PacsStatus_FIToFIPaymentStatusReportV15' },
  'PATCH /transfers/{ID}': { message: 'pacs.002', schema: 'PacsStatus_FIToFIPaymentStatusReportV15' },
  'PUT /transfers/{ID}/error': { message: 'pacs.002', schema: 'PacsError_FIToFIPaymentStatusReportV15' },
  'POST /fxQuotes': { message: 'pacs.091', schema: 'FxRequest_FICreditTransferProposal' },
  'PUT /fxQuotes/{ID}': { message: 'pacs.092', schema: 'FxResponse_FICreditTransferConfirmation' },
  'PUT /fxQuotes/{ID}/error': { message: 'pacs.002', schema: 'PacsError_FIToFIPaymentStatusReportV15' },
  'POST /fxTransfers': { message: 'pacs.009', schema: 'Fxecute_FinancialInstitutionCreditTransferV12' },
  'PUT /fxTransfers/{ID}': { message: 'pacs.002', schema: 'PacsStatus_FIToFIPaymentStatusReportV15' },
  'PATCH /fxTransfers/{ID}': { message: 'pacs.002', schema: 'PacsStatus_FIToFIPaymentStatusReportV15' },
  'PUT /fxTransfers/{ID}/error': { message: 'pacs.002', schema: 'PacsError_FIToFIPaymentStatusReportV15' },
});

let loaded = null;

/** Where api-snippets keeps the bundled ISO 20022 document. */
export function isoSpecPath() {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve('@mojaloop/api-snippets/package.json')), 'docs', 'fspiop-rest-v2.0-ISO20022-openapi3-snippets.yaml');
}

/**
 * A choice schema repaired for JSON Schema. The document writes an ISO 20022 choice (one of
 * several elements, e.g. Party52Choice: OrgId or PrvtId) as `additionalProperties: false`
 * beside an `anyOf` whose branches each name their element. In JSON Schema
 * `additionalProperties` sees only the `properties` next to it, none here, so the schema
 * refuses every element, and every real message with it (20 schemas, among them the debtor's
 * and creditor's identification of every pacs.008). The branches' elements are lifted next to
 * `additionalProperties` (without their constraints, which the `anyOf` still applies), so an
 * element outside every branch is still refused.
 */
function repairedChoice(schema) {
  if (schema?.additionalProperties !== false || !Array.isArray(schema.anyOf) || schema.properties) return schema;
  const lifted = {};
  for (const branch of schema.anyOf) for (const name of Object.keys(branch.properties ?? {})) lifted[name] = true;
  return { ...schema, properties: lifted };
}

/**
 * The schemas with the fx quote's expiry in the group header of pacs.091 and pacs.092
 * (GroupHeader113), which the document leaves out although FSPIOP requires it
 * (`conversionTerms.expiration`) and it has no other place in those messages. Mojaloop's mapping
 * library writes and reads it as `GrpHdr.PmtInstrXpryDtTm`, the element the group header of the
 * other messages (GroupHeader129: pacs.081, pacs.082, pacs.008, pacs.009) has for a quote's or a
 * transfer's expiry; without it no fx quote an ISO 20022 DFSP writes would be valid, and none
 * could reach one. The element is added with GroupHeader129's definition, unless the document
 * has it already.
 */
function withFxQuoteExpiry(schemas) {
  const header = schemas.GroupHeader113;
  const expiry = schemas.GroupHeader129?.properties?.PmtInstrXpryDtTm;
  if (!header?.properties || header.properties.PmtInstrXpryDtTm || !expiry) return schemas;
  return { ...schemas, GroupHeader113: { ...header, properties: { ...header.properties, PmtInstrXpryDtTm: expiry } } };
}

/** The document's components with every choice schema repaired (repairedChoice) and the fx quote's expiry added (withFxQuoteExpiry). */
function repairedComponents(components) {
  const schemas = Object.fromEntries(Object.entries(components.schemas).map(([name, schema]) => [name, repairedChoice(schema)]));
  return { ...components, schemas: withFxQuoteExpiry(schemas) };
}

/**
 * Loads the document once per process and registers its components with an Ajv instance of
 * its own, with the settings openapi.js gives the FSPIOP documents (not strict, for the
 * OpenAPI keywords such as `example`; first error only, as Ajv advises for untrusted input).
 */
export function isoSpec() {
  if (loaded) return loaded;
  const document = loadYaml(readFileSync(isoSpecPath(), 'utf8'));
  const ajv = new Ajv({ strict: false, allErrors: false });
  addFormats(ajv);
  ajv.addSchema({ $id: DOCUMENT_ID, components: repairedComponents(document.components) });
  loaded = { document, ajv };
  return loaded;
}

/** A compiled validator for a named schema of the ISO 20022 document. */
export function isoSchemaValidator(name) {
  const validate = isoSpec().ajv.getSchema(`${DOCUMENT_ID}#/components/schemas/${name}`);
  if (!validate) throw new Error(`the ISO 20022 document has no schema ${name}`);
  return validate;
}

/**
 * The ISO 20022 message of an operation: `{ message, schema, validate }` (the message's name,
 * e.g. pacs.008, its schema's name in the document and its compiled validator), checked
 * against the document's own operation so that a package update that moves a body is noticed
 * when the edge starts rather than on a DFSP's request.
 */
export function isoOperation(method, path) {
  const key = `${method.toUpperCase()} ${path}`;
  const entry = ISO_MESSAGES[key];
  if (!entry) throw new Error(`${key} carries no ISO 20022 message the switch knows`);
  const operation = isoSpec().document.paths[path]?.[method.toLowerCase()];
  const stated = operation?.requestBody?.content?.['application/json']?.schema?.$ref;
  if (stated !== `#/components/schemas/${entry.schema}`) {
    throw new Error(`the ISO 20022 document's ${key} takes ${stated ?? 'no body'}, not ${entry.schema}`);
  }
  return { ...entry, required: operation.requestBody.required === true, validate: isoSchemaValidator(entry.schema) };
}
