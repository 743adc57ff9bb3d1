// The batch consumer every handler runs (DESIGN.md, "Processing contract"): consume what is
// available, hand it to handleBatch, and commit the offsets only after handleBatch resolved.
// A failed batch is never acknowledged: its partitions are rewound and it is consumed again.
// Whatever a batch waits for, the member keeps its place in the group (whileBusy), and a
// consumer that cannot make progress says so (health), so that its process can be restarted.
import Kafka from 'node-rdkafka';
import { librdkafkaSecurity } from './security.js';
import { lastBrokerErrorAtMs, noteBrokerError } from './broker-errors.js';

const { ERRORS } = Kafka.CODES;
const BACKOFF_FIRST_MS = 100;
const BACKOFF_MAX_MS = 5_000;
const SEEK_TIMEOUT_MS = 5_000;
// How long a consumer with nothing to do waits for the first record of its next batch, and
// how long the broker holds an empty fetch (fetch.wait.max.ms). Both waits end the moment a
// record arrives, so they cost no latency; they only set how often an idle consumer wakes up
// (and how long stop() may take to return).
const IDLE_WAIT_MS = 100;
// While a pipelined consumer has batches in flight and nothing new arrives, it waits this
// much at a time, so that a batch that finishes meanwhile is committed within this bound.
const PIPELINE_IDLE_WAIT_MS = 10;
// How long a revoke waits for the batch in flight; a hung handler must not hold the whole
// group's rebalance hostage, so past this the partitions are given up uncommitted.
const REVOKE_WAIT_MAX_MS = 10_000;
// How often librdkafka commits the offsets of finished batches. A commit per batch was a
// broker request per batch, a third of the broker's requests at a few hundred payments a
// second; a crash now redelivers at most this much more, which the idempotent handlers absorb.
const COMMIT_INTERVAL_MS = 500;
// librdkafka serves group events (a revoke, an assignment) only inside consume(), and rejoins
// a group only once the application has answered its revoke. A batch that has run this long
// (a produce held through a broker outage, a statement waiting on a lock) is therefore
// waited for with the partitions paused and consume() called every KEEP_POLLING_WAIT_MS.
const KEEP_POLLING_AFTER_MS = 1_000;
const KEEP_POLLING_WAIT_MS = 200;

// Commit failures with these codes mean the group moved on (a rebalance, or this member was
// dropped); another member, or this one after rejoining, will be redelivered the batch.
const REBALANCE_CODES = new Set([
  ERRORS.ERR_REBALANCE_IN_PROGRESS, ERRORS.ERR_ILLEGAL_GENERATION, ERRORS.ERR_UNKNOWN_MEMBER_ID,
  ERRORS.ERR__STATE, ERRORS.ERR__ASSIGNMENT_LOST, ERRORS.ERR__UNKNOWN_PARTITION,
].filter((code) => code !== undefined));

function consumerConfig({ kafka, groupId, sessionTimeoutMs, rebalance }) {
  return {
    'bootstrap.servers': kafka.brokers,
    ...librdkafkaSecurity(kafka.security),
    'client.id': kafka.clientId,
    'group.id': groupId,
    // A finished batch's offsets are stored explicitly once the handler's work is durable, and
    // librdkafka commits what is stored every COMMIT_INTERVAL_MS, when partitions are taken
    // away (unassign) and on close. Nothing unfinished is ever stored, so nothing unfinished
    // is ever committed (librdkafka's recommended at-least-once set-up).
    'enable.auto.commit': true,
    'auto.commit.interval.ms': COMMIT_INTERVAL_MS,
    'enable.auto.offset.store': false,
    // Eager "range" rather than cooperative-sticky: node-rdkafka delivers rebalance events to
    // JavaScript asynchronously and does not report a lost assignment, so the simpler eager
    // protocol (every revoke is the whole assignment) is the one we can reason about. It
    // lets the revoke wait for the in-flight batch to commit before giving partitions away.
    // Rebalances happen only when replicas start or stop, so the brief stop-the-world pause
    // of eager rebalancing costs little.
    'partition.assignment.strategy': 'range',
    // A subscription follows the topics' metadata, which librdkafka refreshes every 5 minutes by
    // default: a handler that started before its topic existed (the chart's dev mode creates
    // topics beside the pods) would sit idle that long, and partitions the topic Job adds on an
    // upgrade would wait as long for a consumer. A metadata request every 10 s costs nothing.
    'topic.metadata.refresh.interval.ms': 10_000,
    // The broker answers a fetch as soon as one byte is there (fetch.min.bytes), so a long
    // wait costs no latency; it only sets how often an idle consumer asks again. A larger
    // fetch.min.bytes would gather records on the broker instead, but a quiet topic would then
    // wait the whole fetch.wait.max.ms; batches are gathered here, bounded by KAFKA_BATCH_WAIT_MS.
    'fetch.wait.max.ms': IDLE_WAIT_MS,
    'fetch.min.bytes': 1,
    'socket.nagle.disable': true,
    // Heartbeats run on librdkafka's own thread, so a busy event loop does not trip this;
    // a short session lets the group notice a killed replica within seconds.
    'session.timeout.ms': sessionTimeoutMs,
    'heartbeat.interval.ms': Math.min(3_000, Math.floor(sessionTimeoutMs / 3)),
    rebalance_cb: rebalance,
  };
}

/** Waits `ms`, or less once stopping (stop() must not sit out a 5 s back-off). */
function createSleeper(isStopping) {
  let wakeUp = () => {};
  return {
    sleep: (ms) => new Promise((resolve) => {
      if (isStopping()) { resolve(); return; }
      const timer = setTimeout(resolve, ms);
      wakeUp = () => { clearTimeout(timer); resolve(); };
    }),
    wake: () => wakeUp(),
  };
}

function backoffMs(failures) {
  return Math.min(BACKOFF_MAX_MS, BACKOFF_FIRST_MS * 2 ** Math.max(0, failures - 1));
}

function toMessage(raw) {
  return {
    topic: raw.topic,
    partition: raw.partition,
    offset: raw.offset,
    key: raw.key === null || raw.key === undefined ? null : raw.key.toString('utf8'),
    value: raw.value,
    timestamp: raw.timestamp,
  };
}

/** Per topic-partition, the first and last offset the batch holds. */
function partitionRanges(messages) {
  const ranges = new Map();
  for (const { topic, partition, offset } of messages) {
    const id = `${topic}\u0000${partition}`;
    const range = ranges.get(id);
    if (!range) ranges.set(id, { topic, partition, first: offset, last: offset });
    else {
      range.first = Math.min(range.first, offset);
      range.last = Math.max(range.last, offset);
    }
  }
  return [...ranges.values()];
}

function isAssigned(consumer, { topic, partition }) {
  try {
    return consumer.assignments().some((tp) => tp.topic === topic && tp.partition === partition);
  } catch {
    return false;
  }
}

/**
 * Takes up to `count` records. node-rdkafka's consume(count) waits up to `timeoutMs` for each
 * record in turn, restarting the wait after every one, so with a count above 1 and a non-zero
 * timeout a steady stream holds the call until `count` records are there. The callers below
 * therefore ask either for one record with a wait (the call returns as soon as it arrives) or
 * for many with a timeout of 0 (the call returns at once with what librdkafka has already
 * fetched). consume() takes its timeout only from setDefaultConsumeTimeout, which it reads
 * when called; a consumer's loop never has two consume() calls under way at once.
 */
function consumeUpTo(ctx, count, timeoutMs) {
  return new Promise((resolve, reject) => {
    ctx.consumer.setDefaultConsumeTimeout(timeoutMs);
    ctx.consumer.consume(count, (error, messages) => {
      ctx.lastPollAtMs = Date.now();
      if (error) reject(error);
      else resolve(messages);
    });
  });
}

/**
 * Forms one batch: waits up to `firstWaitMs` for a first record, then keeps taking what has
 * arrived until the batch holds `batchSizeMax` records or `batchWaitMs` have passed since the
 * first one. A backlog is drained in full batches without waiting; a trickle is handed over
 * at most `batchWaitMs` after its first record, with whatever arrived meanwhile. Resolves to
 * an empty batch when nothing arrived within `firstWaitMs`. `ctx` needs `consumer` (a
 * node-rdkafka KafkaConsumer), `batchSizeMax`, `batchWaitMs`, `stopping` and `log`; it is
 * exported for the unit test of these rules.
 */
export async function formBatch(ctx, firstWaitMs) {
  const batch = await consumeUpTo(ctx, 1, firstWaitMs);
  if (batch.length === 0) return batch;
  const deadlineMs = Date.now() + ctx.batchWaitMs;
  try {
    while (batch.length < ctx.batchSizeMax && !ctx.stopping) {
      batch.push(...await consumeUpTo(ctx, ctx.batchSizeMax - batch.length, 0));
      const remainingMs = deadlineMs - Date.now();
      if (batch.length >= ctx.batchSizeMax || remainingMs <= 0) break;
      const next = await consumeUpTo(ctx, 1, remainingMs);
      if (next.length === 0) break;
      batch.push(...next);
    }
  } catch (error) {
    // The records already taken have moved the consumer's position past them: dropping them
    // here would let a later commit acknowledge records never handled. The batch goes on as
    // it is; the error, if it persists, fails the next consume, which backs off.
    ctx.log.debug({ err: error, code: error.code, size: batch.length }, 'consume failed while filling a batch; handing over what was taken');
  }
  return batch;
}

function seek(consumer, topicPartitionOffset) {
  return new Promise((resolve, reject) => {
    consumer.seek(topicPartitionOffset, SEEK_TIMEOUT_MS, (error) => (error ? reject(error) : resolve()));
  });
}

/**
 * Stores `last + 1` for every partition of a successful batch, for librdkafka's next commit
 * (see consumerConfig). A commit that is lost (a crash, a rebalance) only means the batch is
 * redelivered, which the idempotent handlers absorb. The order that matters holds: the
 * batch's database transaction and produced events are durable before its offsets are stored.
 */
function storeOffsets(ctx, ranges) {
  const offsets = ranges.map(({ topic, partition, last }) => ({ topic, partition, offset: last + 1 }));
  try {
    ctx.consumer.offsetsStore(offsets);
  } catch (error) {
    // A partition taken away meanwhile refuses the store; its new owner redelivers the batch.
    const level = REBALANCE_CODES.has(error.code) ? 'debug' : 'warn';
    ctx.log[level]({ err: error, code: error.code, offsets }, 'storing offsets failed; the batch will be redelivered');
  }
}

/**
 * Puts every partition of a failed batch back to the batch's first offset, so the next
 * consume() returns the same messages. A partition that is no longer ours needs no rewind
 * (its new owner starts at the committed offset); one that still is must be rewound before
 * we consume again, or a later commit would acknowledge the failed messages.
 */
async function rewind(ctx, ranges) {
  for (const { topic, partition, first } of ranges) {
    for (let attempt = 1; !ctx.stopping; attempt += 1) {
      try {
        await seek(ctx.consumer, { topic, partition, offset: first });
        break;
      } catch (error) {
        // After a revoke the partition restarts at its committed offset wherever it goes next.
        if (ctx.revoking || !isAssigned(ctx.consumer, { topic, partition })) {
          ctx.log.debug({ topic, partition, code: error.code }, 'partition revoked before rewind; skipping');
          break;
        }
        ctx.log.warn({ err: error, topic, partition, offset: first, attempt }, 'seek failed; retrying');
        await ctx.sleeper.sleep(backoffMs(attempt));
      }
    }
  }
}

/**
 * Runs one batch through the handler; returns whether it succeeded and was committed. A
 * failure a retry may cure (a database or broker outage) rewinds the batch, to be retried
 * without limit. Any other failure is a message the handler cannot process: the batch's
 * messages are then taken one at a time, so the rest go through and the poison one, after
 * `deadLetterAfterFailures` attempts, is set aside as a dead letter and the partition moves on.
 */
async function processBatch(ctx, rawMessages) {
  const messages = rawMessages.map(toMessage);
  const ranges = partitionRanges(messages);
  const { generation } = ctx;
  ctx.busySinceMs = Date.now();
  const settled = await handleOrIsolate(ctx, messages, ranges);
  ctx.busySinceMs = null;
  // Partitions given up while the batch ran start again at their committed offsets wherever
  // they go next, this member included: the batch is then neither acknowledged nor rewound.
  const current = ctx.generation === generation;
  if (!settled) {
    ctx.failingSinceMs ??= Date.now();
    if (current) await rewind(ctx, ranges);
    return false;
  }
  ctx.failingSinceMs = null;
  if (current) storeOffsets(ctx, ranges);
  ctx.counters.batches += 1;
  ctx.counters.messages += messages.length;
  ctx.counters.lastBatchSize = messages.length;
  return true;
}

/** Resolves to true once every message is handled or dead-lettered; false to retry the batch. */
async function handleOrIsolate(ctx, messages, ranges) {
  try {
    await ctx.handleBatch(messages);
    return true;
  } catch (error) {
    ctx.counters.failedBatches += 1;
    if (!ctx.deadLetter || ctx.isTransient(error)) {
      ctx.log.error({ err: error, size: messages.length, partitions: ranges }, 'batch failed; it will be retried');
      return false;
    }
    ctx.log.warn({ err: error, size: messages.length, partitions: ranges }, 'batch failed with an error a retry may not cure; handling its messages one at a time');
    // A lone message has had its first attempt already.
    return settleOneByOne(ctx, messages, messages.length === 1 ? 1 : 0, error);
  }
}

async function settleOneByOne(ctx, messages, firstFailures, firstError) {
  for (const message of messages) {
    if (!(await settleAlone(ctx, message, firstFailures, firstError))) return false;
  }
  return true;
}

/**
 * One message on its own: retried with back-off while its failures are transient (without
 * limit: the outage will end), dead-lettered once it has failed `deadLetterAfterFailures`
 * times for any other reason. Gives up (false) when the consumer stops or loses the
 * partitions, leaving the message uncommitted for whoever consumes it next.
 */
async function settleAlone(ctx, message, firstFailures, firstError) {
  let failures = firstFailures;
  let attempts = firstFailures;
  let lastError = firstError;
  while (failures < ctx.deadLetterAfterFailures) {
    if (ctx.stopping || ctx.revoking) return false;
    if (attempts > 0) await ctx.sleeper.sleep(backoffMs(attempts));
    if (ctx.stopping || ctx.revoking) return false;
    attempts += 1;
    try {
      await ctx.handleBatch([message]);
      return true;
    } catch (error) {
      lastError = error;
      if (ctx.isTransient(error)) ctx.failingSinceMs ??= Date.now();
      else failures += 1;
    }
  }
  return deadLetterMessage(ctx, message, lastError, failures);
}

/** Hands the message to the dead-letter sink; a sink that cannot write yet (Kafka down) is retried. */
async function deadLetterMessage(ctx, message, error, failures) {
  for (let attempt = 1; !ctx.stopping; attempt += 1) {
    try {
      await ctx.deadLetter(message, error, failures);
      ctx.counters.deadLetters += 1;
      const { topic, partition, offset } = message;
      ctx.log.error({ err: error, topic, partition, offset, failures }, 'message set aside as a dead letter');
      return true;
    } catch (sinkError) {
      ctx.log.warn({ err: sinkError, topic: message.topic, partition: message.partition, offset: message.offset, attempt }, 'writing a dead letter failed; retrying');
      await ctx.sleeper.sleep(backoffMs(attempt));
    }
  }
  return false;
}

/** Consumes; a consume error (broker unreachable, say) backs off rather than spinning. */
async function nextBatch(ctx, failures, firstWaitMs = IDLE_WAIT_MS) {
  // Records that keepPolling took come first, in the order they were consumed.
  if (ctx.carried.length > 0) return { messages: ctx.carried.splice(0, ctx.batchSizeMax), failed: false };
  try {
    return { messages: await formBatch(ctx, firstWaitMs), failed: false };
  } catch (error) {
    if (!ctx.stopping) {
      ctx.log.warn({ err: error, code: error.code }, 'consume failed; backing off');
      await ctx.sleeper.sleep(backoffMs(failures + 1));
    }
    return { messages: [], failed: true };
  }
}

async function runLoop(ctx) {
  let failures = 0;
  while (!ctx.stopping) {
    const { messages, failed } = await nextBatch(ctx, failures);
    if (failed) { failures += 1; continue; }
    // A batch consumed while stop() was called is left uncommitted for the next owner.
    if (messages.length === 0 || ctx.stopping) continue;
    ctx.inFlight = whileBusy(ctx, processBatch(ctx, messages));
    const succeeded = await ctx.inFlight;
    ctx.inFlight = null;
    failures = succeeded ? 0 : failures + 1;
    if (!succeeded && !ctx.stopping) await whileBusy(ctx, ctx.sleeper.sleep(backoffMs(failures)));
  }
}

/**
 * Resolves as `work` does. Once `work` has run KEEP_POLLING_AFTER_MS, the member's partitions
 * are paused and consume() is called until `work` settles, so that the group's events are
 * served meanwhile: a revoke is answered (createRebalanceHandler) and the member rejoins,
 * and the new assignment stays paused until the work is done. Pausing costs librdkafka's
 * prefetched records, which is why a batch that ends quickly is simply awaited.
 */
async function whileBusy(ctx, work) {
  let settled = false;
  const watched = work.finally(() => { settled = true; });
  let timer;
  const early = await Promise.race([
    watched.then(() => true, () => true),
    new Promise((resolve) => { timer = setTimeout(resolve, KEEP_POLLING_AFTER_MS, false); }),
  ]);
  clearTimeout(timer);
  if (!early) await keepPolling(ctx, () => settled);
  return watched;
}

async function keepPolling(ctx, isSettled) {
  ctx.keepingPolled = true;
  setPaused(ctx, true, assignedPartitions(ctx.consumer));
  try {
    while (!isSettled() && !ctx.stopping) {
      try {
        // Paused partitions return nothing; a record can only come from an assignment made
        // before its pause took effect, and it is kept for the next batch, in order.
        ctx.carried.push(...await consumeUpTo(ctx, 1, KEEP_POLLING_WAIT_MS));
      } catch {
        await new Promise((resolve) => { setTimeout(resolve, KEEP_POLLING_WAIT_MS); });
      }
    }
  } finally {
    ctx.keepingPolled = false;
    setPaused(ctx, false, assignedPartitions(ctx.consumer));
  }
}

function assignedPartitions(consumer) {
  try {
    return consumer.assignments().map(({ topic, partition }) => ({ topic, partition }));
  } catch {
    return [];
  }
}

function setPaused(ctx, paused, partitions) {
  if (partitions.length === 0) return;
  try {
    if (paused) ctx.consumer.pause(partitions);
    else ctx.consumer.resume(partitions);
  } catch (error) {
    if (ctx.consumer.isConnected()) ctx.log.warn({ err: error, paused, partitions }, 'pausing or resuming partitions failed');
  }
}

/**
 * Pipelined mode, for a handler whose work on one batch can take long without later batches
 * depending on it (the notification handler waiting on slow DFSPs). Batches are handed over
 * as they arrive, up to `pipelineDepthMax` unfinished at once; each partition is committed
 * only up to the longest run of finished batches, so nothing unfinished is ever
 * acknowledged. When a batch fails, consumption pauses until every batch in flight has
 * settled, then each partition is rewound to its first unfinished offset and the loop backs
 * off: the failed batch and everything after it come again (at least once).
 */
async function runPipelinedLoop(ctx) {
  const { pending } = ctx;
  let failures = 0;
  while (!ctx.stopping) {
    commitFinishedPrefix(ctx, pending);
    if (pending.some((entry) => entry.failed)) {
      failures += 1;
      ctx.failingSinceMs ??= Date.now();
      await whileBusy(ctx, recoverPipeline(ctx, pending, failures));
      continue;
    }
    if (pending.length >= ctx.pipelineDepthMax || unsettledBytes(pending) >= ctx.inFlightBytesMax) {
      // Only an unsettled batch can change anything: racing settled ones would resolve at
      // once, forever, spinning on microtasks that starve I/O (the head batch could then
      // never finish) while every lap adds a reaction to the head's promise.
      await whileBusy(ctx, Promise.race(pending.filter((entry) => !entry.settled).map((entry) => entry.done)));
      continue;
    }
    // A batch that finishes while the loop waits here is committed only once the wait ends.
    const firstWaitMs = pending.length > 0 ? PIPELINE_IDLE_WAIT_MS : IDLE_WAIT_MS;
    const { messages, failed } = await nextBatch(ctx, failures, firstWaitMs);
    if (failed || messages.length === 0 || ctx.stopping) continue;
    if (!pending.some((entry) => entry.failed)) failures = 0;
    pending.push(startPipelinedBatch(ctx, messages.map(toMessage)));
    // A revoke waits for this before giving the partitions up (createRebalanceHandler).
    ctx.inFlight = Promise.allSettled(pending.map((entry) => entry.done));
  }
  await Promise.allSettled(pending.map((entry) => entry.done));
  commitFinishedPrefix(ctx, pending);
}

/**
 * Bytes of the message values held by batches still being handled: with `inFlightBytesMax`
 * consumption pauses above it, so large messages cannot multiply the depth bound into
 * memory. A settled batch holds no messages, so it does not count.
 */
function unsettledBytes(pending) {
  let bytes = 0;
  for (const entry of pending) if (!entry.settled) bytes += entry.bytes;
  return bytes;
}

function startPipelinedBatch(ctx, messages) {
  const bytes = messages.reduce((sum, { value }) => sum + (value?.length ?? 0), 0);
  const entry = {
    ranges: partitionRanges(messages), bytes, settled: false, failed: false, startedAtMs: Date.now(), generation: ctx.generation,
  };
  ctx.counters.lastBatchSize = messages.length;
  entry.done = Promise.resolve().then(() => handleOrIsolate(ctx, messages, entry.ranges)).then((handled) => {
    Object.assign(entry, { settled: true, failed: !handled });
    if (!handled) return;
    ctx.failingSinceMs = null;
    ctx.counters.batches += 1;
    ctx.counters.messages += messages.length;
  });
  return entry;
}

/** Commits and drops the finished batches at the head of the pipeline. */
function commitFinishedPrefix(ctx, pending) {
  const finished = [];
  while (pending.length > 0 && pending[0].settled && !pending[0].failed) finished.push(pending.shift());
  if (finished.length === 0) return;
  const last = new Map();
  // Batches of partitions given up since they began are not acknowledged (see processBatch).
  for (const { ranges } of finished.filter((entry) => entry.generation === ctx.generation)) {
    for (const range of ranges) last.set(`${range.topic}\u0000${range.partition}`, range);
  }
  if (last.size > 0) storeOffsets(ctx, [...last.values()]);
}

/** After a failure: let everything settle, rewind each partition to its first unfinished offset. */
async function recoverPipeline(ctx, pending, failures) {
  await Promise.allSettled(pending.map((entry) => entry.done));
  commitFinishedPrefix(ctx, pending);
  const firstUnfinished = new Map();
  for (const { ranges } of pending.filter((entry) => entry.generation === ctx.generation)) {
    for (const range of ranges) {
      const id = `${range.topic}\u0000${range.partition}`;
      if (!firstUnfinished.has(id)) firstUnfinished.set(id, range);
    }
  }
  pending.length = 0;
  await rewind(ctx, [...firstUnfinished.values()]);
  if (!ctx.stopping) await ctx.sleeper.sleep(backoffMs(failures));
}

/**
 * The rebalance callback. An assignment is taken as given (paused while keepPolling waits
 * for a batch). A revoke first lets the batch in flight finish and commit (the group still
 * accepts this member's commits while it waits for us), then gives the partitions up, so a
 * rebalance redelivers as little as possible; a batch that outlasts the wait is left to
 * finish on its own, unacknowledged (processBatch), while the member rejoins.
 */
function createRebalanceHandler(ctx) {
  return function onRebalance(error, assignment) {
    const consumer = this;
    const apply = (event, change) => {
      try {
        change();
        ctx.onRebalance?.({ event, assignment: consumer.assignments() });
      } catch (applyError) {
        if (consumer.isConnected()) ctx.log.warn({ err: applyError, event }, 'applying a rebalance failed');
      }
    };
    if (error?.code === ERRORS.ERR__ASSIGN_PARTITIONS) {
      ctx.log.debug({ assignment }, 'partitions assigned');
      ctx.revoking = false;
      ctx.outOfGroupSinceMs = null;
      apply('assign', () => {
        consumer.assign(assignment);
        // A partition keeps librdkafka's pause through an unassign: one paused by keepPolling
        // before a revoke would never be fetched again unless resumed here.
        if (assignment.length > 0) setPaused(ctx, ctx.keepingPolled, assignment);
      });
      return;
    }
    if (error?.code === ERRORS.ERR__REVOKE_PARTITIONS) ctx.log.debug({ assignment }, 'partitions revoked');
    else ctx.log.warn({ err: error }, 'rebalance error; unassigning');
    ctx.revoking = true;
    ctx.outOfGroupSinceMs ??= Date.now();
    let timer;
    const waited = new Promise((resolve) => { timer = setTimeout(resolve, REVOKE_WAIT_MAX_MS); });
    Promise.race([ctx.inFlight, waited]).finally(() => {
      clearTimeout(timer);
      ctx.generation += 1;
      ctx.carried.length = 0;
      apply('revoke', () => consumer.unassign());
    });
  };
}

function connect(consumer) {
  return new Promise((resolve, reject) => {
    consumer.connect({ timeout: 30_000 }, (error) => (error ? reject(error) : resolve()));
  });
}

function disconnect(consumer) {
  return new Promise((resolve) => {
    if (!consumer.isConnected()) { resolve(); return; }
    consumer.disconnect(() => resolve());
  });
}

/**
 * Starts a consumer-group member that feeds `handleBatch(messages)` with batches of at most
 * `batchSizeMax` messages, each handed over at most `batchWaitMs` after its first message
 * arrived (see formBatch; 0 takes only what has already been fetched). `groupId` is the
 * full group name. `onRebalance({ event, assignment })`, optional, observes assignments.
 * With `pipelineDepthMax` above 1 the next batches are consumed while earlier ones are
 * still being handled (see runPipelinedLoop); the default, 1, handles one batch at a time,
 * which handlers that read what the previous batch wrote need. In pipelined mode,
 * `inFlightBytesMax` also bounds the bytes of the messages being handled at once.
 * With `deadLetter(message, error, failures)`, a batch failing for a reason `isTransient`
 * does not recognise is handled one message at a time, and a message failing
 * `deadLetterAfterFailures` times is handed to `deadLetter` and committed past (see
 * processBatch); without it every failed batch is retried until it succeeds.
 * `stuckAfterMs` and `exitAfterMs` bound how long the consumer may make no progress before
 * its health says so and before a restart is called for (see healthOf); a consumer whose
 * batches wait on purpose (notification retries) passes `stuckAfterMs: Infinity`.
 * Resolves once connected and subscribed, to `{ stop(), stats(), lagByTopic(), health() }`.
 */
export async function startBatchConsumer({
  kafka, groupId, topics, logger, handleBatch,
  batchSizeMax = kafka.batchSizeMax, batchWaitMs = kafka.batchWaitMs,
  sessionTimeoutMs = 10_000, onRebalance, pipelineDepthMax = 1, inFlightBytesMax = Infinity,
  deadLetter, isTransient = () => true, deadLetterAfterFailures = 3, stuckAfterMs = 60_000, exitAfterMs = 60_000,
}) {
  const calls = new Set();
  const ctx = {
    log: logger.child({ component: 'kafka-consumer', groupId, topics }),
    handleBatch: trackCalls(handleBatch, calls), calls,
    batchSizeMax, batchWaitMs, onRebalance, pipelineDepthMax, inFlightBytesMax, deadLetter, isTransient, deadLetterAfterFailures,
    stopping: false, revoking: false, inFlight: null, pending: [], busySinceMs: null, failingSinceMs: null,
    // What health() judges by (see healthOf); `generation` counts the assignments given up.
    generation: 0, carried: [], keepingPolled: false, lastPollAtMs: Date.now(), outOfGroupSinceMs: Date.now(), loopError: null,
    counters: { batches: 0, messages: 0, lastBatchSize: 0, failedBatches: 0, deadLetters: 0 },
  };
  ctx.sleeper = createSleeper(() => ctx.stopping);
  ctx.consumer = new Kafka.KafkaConsumer(
    consumerConfig({ kafka, groupId, sessionTimeoutMs, rebalance: createRebalanceHandler(ctx) }),
    { 'auto.offset.reset': 'earliest' },
  );
  ctx.consumer.on('event.error', (error) => {
    noteBrokerError();
    ctx.log.warn({ err: error, code: error.code }, 'kafka consumer error');
  });
  await connect(ctx.consumer);
  ctx.consumer.subscribe(topics);
  ctx.outOfGroupSinceMs = Date.now();
  const run = pipelineDepthMax > 1 ? runPipelinedLoop : runLoop;
  const loop = run(ctx).catch((error) => {
    ctx.loopError = error;
    ctx.log.error({ err: error }, 'consumer loop crashed');
  });
  let stopped = null;
  return {
    stop() {
      stopped ??= (async () => {
        ctx.stopping = true;
        ctx.sleeper.wake();
        await loop;
        await disconnect(ctx.consumer);
      })();
      return stopped;
    },
    stats: () => ({ ...ctx.counters }),
    lagByTopic: () => lagByTopic(ctx.consumer),
    health: () => (ctx.stopping ? { status: 'OK' } : healthOf({ ...ctx, brokerErrorAtMs: lastBrokerErrorAtMs() }, {
      stuckAfterMs, exitAfterMs, rejoinWithinMs: 2 * (REVOKE_WAIT_MAX_MS + sessionTimeoutMs),
    })),
  };
}

/** Wraps `handleBatch` so that `calls` holds the start of every call still running. */
function trackCalls(handleBatch, calls) {
  return async (messages) => {
    const call = { startedAtMs: Date.now() };
    calls.add(call);
    try {
      return await handleBatch(messages);
    } finally {
      calls.delete(call);
    }
  };
}

/** The earliest of the given start times (null ones ignored), or null. */
function earliest(starts) {
  const known = starts.filter((start) => start !== null);
  return known.length > 0 ? Math.min(...known) : null;
}

/**
 * `{ status: 'OK' }`, or what keeps the consumer from making progress, with the reason and
 * whether only a restart can cure it (`exit`):
 * - STOPPED: the loop ended (a bug); exit at once.
 * - NOT_POLLING: consume() has not been called for `exitAfterMs`; exit.
 * - NOT_IN_GROUP: no assignment since the start or the last revoke for `rejoinWithinMs` (a
 *   member rejoins within its revoke's wait and its old session's expiry, twice over) or
 *   `exitAfterMs` if smaller; exit. librdkafka can stay without a group coordinator after a
 *   broker restart (perf/chaos.js, 2026-11-26), and only a new client gets out of that.
 * - STUCK: a batch running, or failing and retried, for `stuckAfterMs`. An outage retried
 *   shows here, but a restart cannot end it; exit only when one call of the handler has not
 *   returned for `exitAfterMs` (a hang).
 * Nobody joins a group or delivers a record while the brokers are out of reach, so the group
 * and hung-call clocks start again at `ctx.brokerErrorAtMs`, the process's last Kafka error
 * (broker-errors.js). Exported for its unit test.
 */
export function healthOf(ctx, { stuckAfterMs, exitAfterMs, rejoinWithinMs = exitAfterMs }, nowMs = Date.now()) {
  if (ctx.loopError) return { status: 'STOPPED', reason: `the consumer loop ended: ${ctx.loopError.message}`, exit: true };
  const sinceOutage = (startMs) => (startMs === null ? 0 : nowMs - Math.max(startMs, ctx.brokerErrorAtMs));
  const pendingStarts = ctx.pending.filter((entry) => !entry.settled).map((entry) => entry.startedAtMs);
  const busyStart = earliest([ctx.busySinceMs, ctx.failingSinceMs, ...pendingStarts]);
  const outOfGroupMaxMs = Math.min(rejoinWithinMs, exitAfterMs);
  const findings = [
    { status: 'NOT_POLLING', what: 'the consumer has not polled Kafka', forMs: nowMs - ctx.lastPollAtMs, reportAfterMs: exitAfterMs, exitAfterMs },
    {
      status: 'NOT_IN_GROUP', what: 'no partitions assigned by the consumer group', forMs: sinceOutage(ctx.outOfGroupSinceMs),
      reportAfterMs: outOfGroupMaxMs, exitAfterMs: outOfGroupMaxMs,
    },
    {
      status: 'STUCK', what: 'a batch running or failing', forMs: busyStart === null ? 0 : nowMs - busyStart, reportAfterMs: stuckAfterMs,
      hungForMs: sinceOutage(earliest([...ctx.calls].map((call) => call.startedAtMs))), exitAfterMs: Math.max(exitAfterMs, stuckAfterMs),
    },
  ];
  for (const finding of findings) {
    const { status, what, forMs, hungForMs = forMs } = finding;
    const exit = hungForMs > finding.exitAfterMs;
    if (exit || forMs > finding.reportAfterMs) return { status, reason: `${what} for ${Math.round(forMs / 1000)} s`, exit };
  }
  return { status: 'OK' };
}

/**
 * Messages not yet consumed, per topic, over the partitions this member owns: the high
 * watermark librdkafka last saw on a fetch minus the next offset to consume. It reads only
 * librdkafka's cached state, so a scrape never waits on the broker. A partition with no
 * position yet (nothing consumed since it was assigned) adds nothing rather than a guess.
 */
function lagByTopic(consumer) {
  const lag = new Map();
  let positions;
  try {
    positions = consumer.position();
  } catch {
    return lag;
  }
  for (const { topic, partition, offset } of positions) {
    if (!lag.has(topic)) lag.set(topic, 0);
    let highOffset;
    try {
      ({ highOffset } = consumer.getWatermarkOffsets(topic, partition));
    } catch {
      continue;
    }
    if (!(offset >= 0) || !(highOffset >= 0)) continue;
    lag.set(topic, (lag.get(topic) ?? 0) + Math.max(0, highOffset - offset));
  }
  return lag;
}
