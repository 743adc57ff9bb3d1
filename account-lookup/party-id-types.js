// FSPIOP v1.1's party id types (the PartyIdType enumeration). Kept as a constant so that the
// bulk loader need not parse the whole OpenAPI document to start; a unit test checks it
// against the document, so it cannot drift from the specification.
export const PARTY_ID_TYPES = Object.freeze(['MSISDN', 'EMAIL', 'PERSONAL_ID', 'BUSINESS', 'DEVICE', 'ACCOUNT_ID', 'IBAN', 'ALIAS']);
