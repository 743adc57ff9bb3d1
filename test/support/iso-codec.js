// How a test DFSP that speaks ISO 20022 reads and writes its messages: the load test's codec
// (perf/simulators/iso20022.js, Mojaloop's mapping library, as a DFSP built on Mojaloop's SDKs
// in ISO 20022 mode does), and a check of what it receives against the ISO 20022 document, so
// a test sees any message the switch sends that the document refuses.
import { isoOperation } from '../../platform/iso20022/document.js';

export { fspiopToIso, isoHeaders, isoOperationOf, isoResourceOf, isoToFspiop } from '../../perf/simulators/iso20022.js';

/** Why an ISO 20022 body does not fit the document's message for `method` and `template`, or null. */
export function isoDocumentProblem(method, template, body) {
  const { validate } = isoOperation(method, template);
  return validate(body) ? null : `${validate.errors[0].instancePath} ${validate.errors[0].message}`;
}
