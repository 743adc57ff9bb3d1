// JSON schemas of the two non-FSPIOP APIs account lookup serves: the oracle API (built-in
// oracle) and the ALS admin API (oracle registry), with Mojaloop's field names.
import Ajv from 'ajv';
import { PARTY_ID_TYPES } from './party-id-types.js';

export { PARTY_ID_TYPES };

// A batch of 10,000 parties (the specification's maximum) needs more than a single request's
// limit; 5,242,880 bytes is FSPIOP's maximum payload.
export const BATCH_PAYLOAD_BYTES_MAX = 5_242_880;

const ajv = new Ajv({ allErrors: true, strict: true });

const fspId = { type: 'string', minLength: 1, maxLength: 32 };
const currency = { type: 'string', pattern: '^[A-Z]{3}$' };
const partyIdType = { type: 'string', enum: PARTY_ID_TYPES };
const identifier = { type: 'string', minLength: 1, maxLength: 128 };

/** An object schema; `open` objects accept fields they do not name (an oracle is lenient). */
function object(required, properties, { open = false } = {}) {
  return { type: 'object', required, additionalProperties: open, properties };
}

const endpoint = object(['value', 'endpointType'], {
  value: { type: 'string', minLength: 1, maxLength: 512 },
  endpointType: { type: 'string', enum: ['URL'] },
});
const oracleInfo = { oracleIdType: partyIdType, endpoint, currency, isDefault: { type: 'boolean' } };

export const validators = Object.freeze({
  /** POST and PUT /participants/{Type}/{ID} of the oracle API, as Mojaloop's ALS sends them. */
  oracleRegistration: ajv.compile(object(['fspId'], { fspId, currency, partySubIdOrType: identifier }, { open: true })),
  /** POST /participants of the oracle API (batch). */
  oracleBatch: ajv.compile(object(['requestId', 'partyList'], {
    requestId: { type: 'string', minLength: 1, maxLength: 64 },
    partyList: {
      type: 'array', minItems: 1, maxItems: 10_000,
      items: object(['partyIdType', 'partyIdentifier', 'fspId'], {
        partyIdType, partyIdentifier: identifier, partySubIdOrType: identifier, fspId,
      }, { open: true }),
    },
    currency,
  }, { open: true })),
  /** POST /oracles of the ALS admin API (OracleInfo). */
  oracleCreate: ajv.compile(object(['oracleIdType', 'endpoint'], oracleInfo)),
  /** PUT /oracles/{ID}: any of OracleInfo's fields, as Mojaloop's ALS applies them. */
  oracleUpdate: ajv.compile({ ...object([], oracleInfo), minProperties: 1 }),
});

/** Why a path's party is unusable (`{ Type, ID, SubId? }`), or null. */
export function partyPathProblem({ Type, ID, SubId }) {
  if (!PARTY_ID_TYPES.includes(Type)) return `Type must be one of ${PARTY_ID_TYPES.join(', ')}`;
  if (ID.length > 128) return 'ID must be at most 128 characters';
  if (SubId !== undefined && (SubId.length === 0 || SubId.length > 128)) return 'SubId must be 1 to 128 characters';
  return null;
}
