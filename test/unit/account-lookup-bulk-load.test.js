// The bulk loader's command line and the identifiers it generates (the load itself runs
// against MariaDB in test/integration/account-lookup.test.js).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { LOAD_DEFAULTS, UsageError, chunkIdentifiers, parseLoadArguments } from '../../account-lookup/oracle/bulk-load.js';
import { PARTY_ID_TYPES } from '../../account-lookup/party-id-types.js';
import { fspiopSpec } from '../../platform/fspiop/openapi.js';

test('the party id types are exactly the FSPIOP v1.1 PartyIdType enumeration', () => {
  assert.deepEqual([...PARTY_ID_TYPES], fspiopSpec().document.components.schemas.PartyIdType.enum);
});

const args = (text) => text.split(' ');

test('the documented command line parses, with defaults', () => {
  const options = parseLoadArguments(args('--type MSISDN --from 1000000000 --count 1000000 --fsp payeefsp'));
  assert.deepEqual(options, {
    type: 'MSISDN', from: 1000000000n, count: 1000000, fspId: 'payeefsp', currency: undefined, subId: undefined,
    chunkRows: LOAD_DEFAULTS.chunkRows, concurrency: LOAD_DEFAULTS.concurrency,
  });
  const tuned = parseLoadArguments(args('--type EMAIL --from 7 --count 3 --fsp a --currency USD --sub-id X --chunk 2 --concurrency 1'));
  assert.deepEqual([tuned.currency, tuned.subId, tuned.chunkRows, tuned.concurrency], ['USD', 'X', 2, 1]);
});

test('bad command lines are usage errors naming the option', () => {
  const cases = {
    '--type PHONE --from 1 --count 1 --fsp a': /--type/,
    '--type MSISDN --from -1 --count 1 --fsp a': /--from/,
    '--type MSISDN --from 1 --count 0 --fsp a': /--count/,
    '--type MSISDN --from 1 --count 1': /--fsp/,
    '--type MSISDN --from 1 --count 1 --fsp a --colour red': /unknown option/,
    '--type MSISDN --from 1 --count 1 --fsp a --currency usd': /--currency/,
    '--type MSISDN --from': /pairs/,
  };
  for (const [line, message] of Object.entries(cases)) {
    assert.throws(() => parseLoadArguments(args(line)), (error) => error instanceof UsageError && message.test(error.message), line);
  }
});

test('chunks cover the range exactly, and big identifiers stay exact', () => {
  const options = { from: 9007199254740990n, count: 5, chunkRows: 2 };
  const chunks = [0, 1, 2].map((index) => chunkIdentifiers(options, index));
  assert.deepEqual(chunks, [['9007199254740990', '9007199254740991'], ['9007199254740992', '9007199254740993'], ['9007199254740994']]);
});
