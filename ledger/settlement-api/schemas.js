// JSON schemas of the settlement API's request bodies, with central-settlement's field names.
// JSON numbers arrive as their decimal text (platform/http/json.js), so ids are strings of digits.
import Ajv from 'ajv';
import { WINDOW_STATE } from '../domain/settlement-windows.js';
import { ACCOUNT_STATES, SETTLEMENT_STATE } from '../domain/settlements.js';

const ajv = new Ajv({ allErrors: true, strict: true });

const id = { type: 'string', pattern: '^[1-9]\\d{0,8}$' };
const reason = { type: 'string', minLength: 1, maxLength: 512 };
const externalReference = { type: 'string', minLength: 1, maxLength: 128 };
const object = (required, properties, extra = {}) => ({ type: 'object', required, additionalProperties: false, properties, ...extra });

const accountUpdate = object(['id', 'state', 'reason'], { id, state: { type: 'string', enum: ACCOUNT_STATES }, reason, externalReference });

export const validators = Object.freeze({
  closeWindow: ajv.compile(object(['state', 'reason'], { state: { type: 'string', enum: [WINDOW_STATE.closed] }, reason })),
  createSettlement: ajv.compile(object(['settlementModel', 'reason', 'settlementWindows'], {
    settlementModel: { type: 'string', minLength: 1, maxLength: 64 },
    reason,
    settlementWindows: { type: 'array', minItems: 1, maxItems: 1000, uniqueItems: true, items: object(['id'], { id }) },
  })),
  // Either the participants' account changes or the settlement's abort, never both
  // (central-settlement refuses the mix, checked by the route for its wording).
  updateSettlement: ajv.compile(object([], {
    participants: {
      type: 'array', minItems: 1, maxItems: 1000,
      items: object(['id', 'accounts'], { id, accounts: { type: 'array', minItems: 1, maxItems: 100, items: accountUpdate } }),
    },
    state: { type: 'string', enum: [SETTLEMENT_STATE.aborted] },
    reason,
    externalReference,
  })),
  updateParticipant: ajv.compile(object(['accounts'], { accounts: { type: 'array', minItems: 1, maxItems: 100, items: accountUpdate } })),
  updateAccount: ajv.compile(object(['state', 'reason'], { state: { type: 'string', enum: ACCOUNT_STATES }, reason, externalReference })),
});
