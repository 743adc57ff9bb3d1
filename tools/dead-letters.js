// The operator's view of dead letters (README.md, "Dead letters"):
//   node tools/dead-letters.js list [handler ...]                            every dead letter, oldest first
//   node tools/dead-letters.js replay <handler> all|<partition>:<offset> ...   back onto their topics
// Every partition of a dead-letter topic is read to its end as it was when the command began.
// A bare offset still names a letter on a topic of one partition (the local default). Handlers:
// prepare, position, fulfil, quoting-handler, notification. Kafka settings come from the
// environment every process uses (scripts/env.sh; in a pod, the chart's). Exit status 2 is a
// usage error.
import { loadConfig } from '../platform/config.js';
import { createLogger } from '../platform/logger.js';
import { createMetrics } from '../platform/metrics.js';
import { createProducer } from '../platform/kafka/producer.js';
import { DEAD_LETTER_HANDLERS } from '../platform/kafka/topics.js';
import { deadLetterAddress, readDeadLetterTopic, replayDeadLetters, selectDeadLetters } from '../platform/kafka/dead-letter-reader.js';

const USAGE = `usage: node tools/dead-letters.js list [handler ...]
       node tools/dead-letters.js replay <handler> all|<partition>:<offset> ...
handlers: ${DEAD_LETTER_HANDLERS.join(', ')}`;

function usageError(message) {
  process.stderr.write(`${message}\n${USAGE}\n`);
  process.exit(2);
}

function summary(letter) {
  const preview = letter.value === null ? `(value left out: ${letter.valueBytes} bytes at the source offset)` : letter.value.toString('utf8').slice(0, 160);
  return `${letter.handler}\t#${deadLetterAddress(letter)}\t${letter.deadLetteredAt}\t${letter.topic}[${letter.partition}]@${letter.offset}\tkey=${letter.key}\t`
    + `failures=${letter.failures}\t${letter.error.name}: ${letter.error.message.slice(0, 200)}\n\t${preview}\n`;
}

async function list(config, handlers) {
  for (const handler of handlers.length > 0 ? handlers : DEAD_LETTER_HANDLERS) {
    const { topic, partitions, letters } = await readDeadLetterTopic({ kafka: config.kafka, handler });
    process.stdout.write(`${handler}: ${letters.length} dead letter(s) on ${topic} (${partitions} partition(s))\n`);
    for (const letter of letters) process.stdout.write(summary(letter));
  }
}

async function replay(config, handler, selectors) {
  const selected = selectDeadLetters(await readDeadLetterTopic({ kafka: config.kafka, handler }), selectors);
  if (selected.refusal) usageError(`${handler}: ${selected.refusal}`);
  const withoutValue = selected.wanted.filter((letter) => letter.value === null);
  for (const letter of withoutValue) process.stdout.write(`#${deadLetterAddress(letter)} has no value to replay: read it at ${letter.topic}[${letter.partition}]@${letter.offset}\n`);
  const wanted = selected.wanted.filter((letter) => letter.value !== null);
  if (wanted.length === 0) return;
  const logger = createLogger(config);
  const producer = createProducer({ kafka: config.kafka, logger, metrics: createMetrics(config) });
  await producer.connect();
  try {
    await replayDeadLetters({ producer, letters: wanted });
  } finally {
    await producer.disconnect();
  }
  process.stdout.write(`replayed ${wanted.length} dead letter(s) of ${handler}: ${wanted.map((letter) => `#${deadLetterAddress(letter)}`).join(' ')}\n`);
}

const [command, ...rest] = process.argv.slice(2);
const unknown = rest.filter((name, index) => (command === 'list' || index === 0) && !DEAD_LETTER_HANDLERS.includes(name));
if (!['list', 'replay'].includes(command) || unknown.length > 0) usageError(unknown.length > 0 ? `unknown handler ${unknown.join(', ')}` : 'unknown command');
if (command === 'replay' && rest.length < 2) usageError('replay needs a handler and the letters\' addresses (or all)');
const config = loadConfig({ SERVICE_NAME: 'dead-letters', LOG_LEVEL: 'warn', ...process.env }, { usesDatabase: false });
try {
  if (command === 'list') await list(config, rest);
  else await replay(config, rest[0], rest.slice(1));
} catch (error) {
  process.stderr.write(`dead-letters: ${error.message}\n`);
  process.exit(1);
}
