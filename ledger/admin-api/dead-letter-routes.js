// Dead letters through the admin API, for the operators' portal (the same reads and replays as
// `make dead-letters`, platform/kafka/dead-letter-reader.js): GET /deadLetters[?handler=] lists
// every handler's letters with why each failed and whether it was replayed; POST
// /deadLetters/{handler}/replay {letters: ["<partition>:<offset>", …]} or {all: true} puts
// them back on their topics. Each replay is recorded in the request's transaction before its
// record is produced, and a letter already recorded is not produced again, so a repeated
// request replays nothing twice; a produce that fails rolls its records back.
import { bodyRoute, jsonResponse } from '../../platform/http/server.js';
import { FAILURE, failure, isFailure } from '../../platform/domain/failures.js';
import { operatorSubject } from '../../platform/http/operator-auth.js';
import { DEAD_LETTER_HANDLERS } from '../../platform/kafka/topics.js';
import { deadLetterAddress, readDeadLetterTopic, replayDeadLetters, selectDeadLetters } from '../../platform/kafka/dead-letter-reader.js';
import { recordReplay, replaysOf } from '../repositories/dead-letter-replays.js';
import { failureResponse, readQuery } from './route-helpers.js';
import { validators } from './schemas.js';

// A read takes far less; only a broker that does not answer reaches it.
const READ_TIMEOUT_MS = 8000;
const PREVIEW_CHARACTERS = 300;

function letterView(handler, letter, replay) {
  return {
    handler, address: deadLetterAddress(letter), topic: letter.topic, partition: letter.partition, offset: letter.offset, key: letter.key,
    deadLetteredAt: letter.deadLetteredAt, failures: letter.failures, error: letter.error,
    preview: letter.value === null ? null : letter.value.toString('utf8').slice(0, PREVIEW_CHARACTERS), valueBytes: letter.valueBytes ?? letter.value?.length ?? null,
    replayedAt: replay?.replayedAt ?? null, replayedBy: replay?.actor ?? null,
  };
}

/** `handler`'s topic read to its end, `{ topic, partitions, letters }`, or a failure when Kafka does not answer. */
async function readTopic(kafka, handler) {
  try {
    return await readDeadLetterTopic({ kafka, handler, timeoutMs: READ_TIMEOUT_MS });
  } catch (error) {
    // A handler whose dead-letter topic was never created has no letters.
    if (/does not exist/.test(error.message)) return { topic: null, partitions: 0, letters: [] };
    return failure(FAILURE.messagingUnavailable, `the dead letters of ${handler} could not be read from Kafka (${error.message})`);
  }
}

export function deadLetterRoutes({ db, kafka, producer, clock }) {
  async function list(request, h) {
    const query = readQuery(request, ['handler']);
    if (isFailure(query)) return failureResponse(h, query);
    if (query.handler !== undefined && !DEAD_LETTER_HANDLERS.includes(query.handler)) {
      return failureResponse(h, failure(FAILURE.validation, `handler must be one of ${DEAD_LETTER_HANDLERS.join(', ')}`));
    }
    // The handlers' topics are read at once: each read waits mostly on the broker.
    const handlers = query.handler ? [query.handler] : DEAD_LETTER_HANDLERS;
    const reads = await Promise.all(handlers.map((handler) => readTopic(kafka, handler)));
    const failed = reads.find(isFailure);
    if (failed) return failureResponse(h, failed);
    const letters = [];
    for (const [index, read] of reads.entries()) {
      const replays = read.topic ? await replaysOf(db, read.topic) : new Map();
      letters.push(...read.letters.map((letter) => letterView(handlers[index], letter, replays.get(deadLetterAddress(letter)))));
    }
    return jsonResponse(h, letters);
  }

  async function replay(request, h, body) {
    const { handler } = request.params;
    if (!DEAD_LETTER_HANDLERS.includes(handler)) return failureResponse(h, failure(FAILURE.validation, `handler must be one of ${DEAD_LETTER_HANDLERS.join(', ')}`));
    if (Boolean(body.all) === Boolean(body.letters)) return failureResponse(h, failure(FAILURE.validation, 'name the letters, or all: true, not both'));
    const read = await readTopic(kafka, handler);
    if (isFailure(read)) return failureResponse(h, read);
    const selection = body.all ? { wanted: read.letters } : selectDeadLetters(read, body.letters);
    if (selection.refusal) return failureResponse(h, failure(FAILURE.validation, selection.refusal));
    const outcome = { replayed: [], alreadyReplayed: [], withoutValue: [] };
    try {
      await db.transaction(async (trx) => {
        const produced = [];
        for (const letter of selection.wanted) {
          const address = deadLetterAddress(letter);
          if (letter.value === null) outcome.withoutValue.push(address);
          else if (await recordReplay(trx, { handler, topic: read.topic, partition: letter.deadLetterPartition, offset: letter.deadLetterOffset, actor: operatorSubject(request), now: clock() })) produced.push(letter);
          else outcome.alreadyReplayed.push(address);
        }
        if (produced.length > 0) await replayDeadLetters({ producer: await producer(), letters: produced });
        outcome.replayed = produced.map(deadLetterAddress);
      });
    } catch (error) {
      return failureResponse(h, failure(FAILURE.messagingUnavailable, `the dead letters of ${handler} could not be replayed (${error.message}); nothing was recorded as replayed`));
    }
    return jsonResponse(h, outcome);
  }

  return [
    { method: 'GET', path: '/deadLetters', handler: list },
    bodyRoute('POST', '/deadLetters/{handler}/replay', validators.deadLetterReplay, replay),
  ];
}
