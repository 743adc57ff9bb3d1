// Per-DFSP rate limits: the token bucket's arithmetic on an injected clock, the bounded map of
// buckets, which requests count as their DFSP's own, and the settings that configure it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createRateLimiter, fullBucket, takeToken } from '../../platform/fspiop/rate-limit.js';
import { ConfigError, loadConfig } from '../../platform/config.js';

const limit = { perSecond: 10, burst: 3 };

/** A clock the test moves by hand. */
function manualClock(startMs = 1_000_000) {
  let nowMs = startMs;
  return { now: () => nowMs, advance: (ms) => { nowMs += ms; } };
}

test('a bucket lets a burst through at once, then refuses with the time until its next token', () => {
  const bucket = fullBucket(limit, 0);
  assert.deepEqual([takeToken(bucket, limit, 0), takeToken(bucket, limit, 0), takeToken(bucket, limit, 0)], [0, 0, 0]);
  assert.equal(takeToken(bucket, limit, 0), 100, 'at 10/s the next token comes in 100 ms');
  assert.equal(takeToken(bucket, limit, 40), 60, 'a refused request spends nothing: 60 ms are left');
  assert.equal(takeToken(bucket, limit, 100), 0, 'the token refilled in 100 ms is taken');
  assert.equal(takeToken(bucket, limit, 100), 100);
});

test('a bucket refills at its rate and never beyond its burst', () => {
  const bucket = fullBucket(limit, 0);
  for (let index = 0; index < 3; index += 1) takeToken(bucket, limit, 0);
  const allowedAfterAnHour = Array.from({ length: 5 }, () => takeToken(bucket, limit, 3_600_000));
  assert.deepEqual(allowedAfterAnHour, [0, 0, 0, 100, 100], 'an hour idle is worth the burst, not 36,000 requests');
});

test('a sender at exactly its rate is never refused; one slightly above is refused in proportion', () => {
  const bucket = fullBucket({ perSecond: 100, burst: 1 }, 0);
  const atRate = Array.from({ length: 1000 }, (_, index) => takeToken(bucket, { perSecond: 100, burst: 1 }, index * 10));
  assert.equal(atRate.filter((retryAfterMs) => retryAfterMs > 0).length, 0);
  const fast = fullBucket({ perSecond: 100, burst: 1 }, 0);
  const twiceTheRate = Array.from({ length: 1000 }, (_, index) => takeToken(fast, { perSecond: 100, burst: 1 }, index * 5));
  assert.equal(twiceTheRate.filter((retryAfterMs) => retryAfterMs === 0).length, 500, 'half of a sender at twice its rate passes');
});

test('a clock that steps back refills nothing and takes nothing away', () => {
  const bucket = fullBucket(limit, 10_000);
  for (let index = 0; index < 3; index += 1) takeToken(bucket, limit, 10_000);
  assert.equal(takeToken(bucket, limit, 5_000), 100);
  assert.equal(takeToken(bucket, limit, 10_100), 0, 'the refill counts from the latest time seen');
});

test('one DFSP over its limit does not touch another DFSP\'s bucket; overrides and off', () => {
  const clock = manualClock();
  const limiter = createRateLimiter({
    defaultLimit: limit, overrides: { bigbank: { perSecond: 1000, burst: 5 }, labfsp: null }, bucketsMax: 100, now: clock.now,
  });
  const outcomes = (fsp, count) => Array.from({ length: count }, () => limiter.take(fsp, fsp).retryAfterMs === 0);
  assert.deepEqual(outcomes('greedyfsp', 4), [true, true, true, false]);
  assert.deepEqual(outcomes('politefsp', 1), [true], 'another DFSP at the same moment still passes');
  assert.deepEqual(outcomes('bigbank', 6), [true, true, true, true, true, false], 'an override has its own burst');
  assert.ok(outcomes('labfsp', 50).every(Boolean), 'an override of off is no limit');
  assert.equal(limiter.has('labfsp'), false, 'and keeps no bucket');
  assert.deepEqual(outcomes('constructor', 4), [true, true, true, false], 'a name that is an Object property gets the default');
});

test('the buckets are bounded: past the limit the one idle longest is dropped', () => {
  const clock = manualClock();
  const limiter = createRateLimiter({ defaultLimit: limit, bucketsMax: 3, now: clock.now });
  const refused = (fsp) => limiter.take(fsp, fsp).retryAfterMs > 0;
  for (let index = 0; index < 3; index += 1) limiter.take('busyfsp', 'busyfsp');
  for (const name of ['a', 'b', 'c', 'd', 'e']) {
    limiter.take(name, name);
    assert.equal(refused('busyfsp'), true, `a DFSP sending all along keeps its empty bucket while ${name} comes`);
  }
  for (let index = 0; index < 1000; index += 1) limiter.take(`invented${index}`, `invented${index}`);
  assert.equal(limiter.size(), 3, 'a thousand invented names leave three buckets');
  assert.equal(limiter.has('a'), false);
});

const BASE = { DB_PASSWORD: 'x' };

test('the rate limit is on by default, far above what one DFSP sends in a load test', () => {
  const { rateLimit } = loadConfig(BASE);
  assert.deepEqual(rateLimit.defaultLimit, { perSecond: 1000, burst: 2000 });
  assert.equal(Object.keys(rateLimit.overrides).length, 0);
  assert.equal(rateLimit.bucketsMax, 10_000);
});

test('the rate limit settings: burst, overrides, off', () => {
  const custom = loadConfig({ ...BASE, RATE_LIMIT_PER_SECOND: '50', RATE_LIMIT_BURST: '70', RATE_LIMIT_BUCKETS_MAX: '20' }).rateLimit;
  assert.deepEqual([custom.defaultLimit, custom.bucketsMax], [{ perSecond: 50, burst: 70 }, 20]);
  assert.deepEqual(loadConfig({ ...BASE, RATE_LIMIT_PER_SECOND: '50' }).rateLimit.defaultLimit, { perSecond: 50, burst: 100 }, 'two seconds\' worth');
  assert.equal(loadConfig({ ...BASE, RATE_LIMIT_PER_SECOND: 'off' }).rateLimit.defaultLimit, null);
  assert.equal(loadConfig({ ...BASE, RATE_LIMIT_PER_SECOND: '0' }).rateLimit.defaultLimit, null);
  const overrides = loadConfig({
    ...BASE, RATE_LIMIT_OVERRIDES_JSON: '{"bigbank": {"perSecond": 500, "burst": 1000}, "smallbank": {"perSecond": 5}, "labfsp": {"perSecond": "off"}}',
  }).rateLimit.overrides;
  assert.deepEqual({ ...overrides }, { bigbank: { perSecond: 500, burst: 1000 }, smallbank: { perSecond: 5, burst: 10 }, labfsp: null });
});

test('bad rate limit settings stop the process at start-up', () => {
  const bad = [
    { RATE_LIMIT_PER_SECOND: 'fast' }, { RATE_LIMIT_PER_SECOND: '-1' }, { RATE_LIMIT_BURST: '0' }, { RATE_LIMIT_BUCKETS_MAX: '0' },
    { RATE_LIMIT_OVERRIDES_JSON: 'bigbank=5' }, { RATE_LIMIT_OVERRIDES_JSON: '[]' }, { RATE_LIMIT_OVERRIDES_JSON: '{"big bank": {"perSecond": 5}}' },
    { RATE_LIMIT_OVERRIDES_JSON: '{"bigbank": 5}' }, { RATE_LIMIT_OVERRIDES_JSON: '{"bigbank": {"perSecond": 2.5}}' },
    { RATE_LIMIT_OVERRIDES_JSON: '{"bigbank": {"perSecond": 5, "burst": 0}}' },
  ];
  for (const env of bad) assert.throws(() => loadConfig({ ...BASE, ...env }), ConfigError, JSON.stringify(env));
});
