// JSON schemas of the admin API's request bodies, with central-ledger's field names. JSON
// numbers arrive as their decimal text (platform/http/json.js), so money fields are strings
// matching a decimal pattern whether the client sent 5000 or "5000".
import Ajv from 'ajv';
import addFormats from 'ajv-formats';
import {
  EMAIL_ENDPOINT_TYPES, ENDPOINT_TYPES, HUB_ACCOUNT_TYPES, LIMIT_TYPE, MODEL_LEDGER_ACCOUNT_TYPES, MODEL_SETTLEMENT_ACCOUNT_TYPES,
  TOPIC_ENDPOINT_TYPES,
} from '../domain/participants.js';
import { FUNDS_ACTION } from '../domain/funds.js';
import { API_TYPE } from '../../platform/iso20022/media-types.js';

const ajv = new Ajv({ allErrors: true, strict: true });
addFormats(ajv);

const currency = { type: 'string', pattern: '^[A-Z]{3}$' };
const nonNegativeDecimal = { type: 'string', pattern: '^\\d{1,14}(\\.\\d{1,4})?$' };
const signedDecimal = { type: 'string', pattern: '^-?\\d{1,14}(\\.\\d{1,4})?$' };
const percentage = { type: 'string', pattern: '^\\d{1,3}(\\.\\d{1,2})?$' };
// The API a DFSP receives its messages in (docs/iso20022.md §2); not a central-ledger field.
const apiType = { type: 'string', enum: Object.values(API_TYPE) };
const isActive = { type: 'boolean' };
const participantName = { type: 'string', minLength: 2, maxLength: 30, pattern: '^[A-Za-z0-9_.-]+$' };
const extensionList = {
  type: 'object',
  required: ['extension'],
  additionalProperties: false,
  properties: {
    extension: {
      type: 'array', minItems: 1, maxItems: 16,
      items: {
        type: 'object', required: ['key', 'value'], additionalProperties: false,
        properties: { key: { type: 'string', minLength: 1, maxLength: 32 }, value: { type: 'string', minLength: 1, maxLength: 128 } },
      },
    },
  },
};

function object(required, properties) {
  return { type: 'object', required, additionalProperties: false, properties };
}

const limit = (withAlarm) => object(['type', 'value'], {
  type: { type: 'string', enum: Object.values(LIMIT_TYPE) },
  value: nonNegativeDecimal,
  ...(withAlarm ? { alarmPercentage: percentage } : {}),
});

// An endpoint's value is checked for what its type holds: an e-mail address for the e-mail
// notification types, a Kafka topic name for the alarm topic, otherwise a URL (checked by
// ledger/domain/callback-urls.js, which the route applies to URL types only).
const endpoint = {
  ...object(['type', 'value'], {
    type: { type: 'string', enum: ENDPOINT_TYPES },
    value: { type: 'string', minLength: 1, maxLength: 512 },
  }),
  allOf: [
    { if: valueOfTypes(EMAIL_ENDPOINT_TYPES), then: { properties: { value: { type: 'string', format: 'email', maxLength: 254 } } } },
    { if: valueOfTypes(TOPIC_ENDPOINT_TYPES), then: { properties: { value: { type: 'string', pattern: '^[A-Za-z0-9._-]{1,249}$' } } } },
  ],
};

function valueOfTypes(types) {
  return { required: ['type'], properties: { type: { type: 'string', enum: types } } };
}

export const validators = Object.freeze({
  // POST /deadLetters/{handler}/replay: the letters by address, or all of the handler's.
  deadLetterReplay: ajv.compile(object([], {
    letters: { type: 'array', minItems: 1, maxItems: 1000, uniqueItems: true, items: { type: 'string', pattern: '^(\\d{1,9}:)?\\d{1,19}$' } },
    all: { type: 'boolean', enum: [true] },
  })),
  hubAccount: ajv.compile(object(['currency', 'type'], { currency, type: { type: 'string', enum: HUB_ACCOUNT_TYPES } })),
  settlementModel: ajv.compile(object(
    ['name', 'settlementGranularity', 'settlementInterchange', 'settlementDelay', 'requireLiquidityCheck',
      'ledgerAccountType', 'settlementAccountType', 'autoPositionReset'],
    {
      // central-ledger's rule (Joi alphanum, 2 to 30): a name it would refuse is refused here too.
      name: { type: 'string', minLength: 2, maxLength: 30, pattern: '^[A-Za-z0-9]+$' },
      settlementGranularity: { type: 'string', enum: ['GROSS', 'NET'] },
      settlementInterchange: { type: 'string', enum: ['BILATERAL', 'MULTILATERAL'] },
      settlementDelay: { type: 'string', enum: ['IMMEDIATE', 'DEFERRED'] },
      currency,
      requireLiquidityCheck: { type: 'boolean' },
      ledgerAccountType: { type: 'string', enum: MODEL_LEDGER_ACCOUNT_TYPES },
      settlementAccountType: { type: 'string', enum: MODEL_SETTLEMENT_ACCOUNT_TYPES },
      autoPositionReset: { type: 'boolean' },
    },
  )),
  participantCreate: ajv.compile(object(['name', 'currency'], { name: participantName, currency, isProxy: { type: 'boolean' }, apiType })),
  // central-ledger's `{ isActive }`, which Mojaloop's tooling sends, or `{ apiType }`, or both:
  // isActive is required, as central-ledger requires it, unless apiType is given.
  // (`{}` rather than `true` for "any value": the fuzzer reads these schemas as OpenAPI 3.0,
  // which has no boolean schemas.)
  participantUpdate: ajv.compile({
    ...object([], { isActive, apiType }),
    if: { not: { required: ['apiType'], properties: { apiType: {} } } },
    then: { required: ['isActive'], properties: { isActive: {} } },
  }),
  isActive: ajv.compile(object(['isActive'], { isActive })),
  initialPositionAndLimits: ajv.compile(object(['currency', 'limit'], { currency, limit: limit(false), initialPosition: signedDecimal })),
  limitAdjustment: ajv.compile(object(['currency', 'limit'], { currency, limit: limit(true) })),
  endpoint: ajv.compile(endpoint),
  // A pair an FXP converts, source → target (ledger/domain/currency-pairs.js).
  currencyPair: ajv.compile(object(['sourceCurrency', 'targetCurrency'], { sourceCurrency: currency, targetCurrency: currency })),
  // One key, or two while a DFSP rotates; each a PEM public key (checked by the route).
  jwsKeys: ajv.compile(object(['keys'], {
    keys: { type: 'array', minItems: 1, maxItems: 2, items: { type: 'string', minLength: 64, maxLength: 8192 } },
  })),
  recordFunds: ajv.compile(object(['transferId', 'externalReference', 'action', 'reason', 'amount'], {
    transferId: { type: 'string', pattern: '^([0-9a-f]{8}-[0-9a-f]{4}-[1-7][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}|[0-9A-HJKMNP-TV-Z]{26})$' },
    externalReference: { type: 'string', minLength: 1, maxLength: 128 },
    action: { type: 'string', enum: [FUNDS_ACTION.fundsIn, FUNDS_ACTION.fundsOutPrepareReserve] },
    reason: { type: 'string', minLength: 1, maxLength: 512 },
    amount: object(['amount', 'currency'], { amount: nonNegativeDecimal, currency }),
    extensionList,
  })),
  fundsOutCompletion: ajv.compile(object(['action', 'reason'], {
    action: { type: 'string', enum: [FUNDS_ACTION.fundsOutCommit, FUNDS_ACTION.fundsOutAbort] },
    reason: { type: 'string', minLength: 1, maxLength: 512 },
    extensionList,
  })),
});

export const PARTICIPANT_NAME_PATTERN = new RegExp(participantName.pattern);
