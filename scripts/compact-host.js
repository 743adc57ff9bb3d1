// The compact profile's host: several components of the switch in one process,
//   node scripts/compact-host.js prepare,position,fulfil,timeout,bulk
//   node scripts/compact-host.js prepare=4201,position=4211,...
// each started from its own module's start(env) (platform/component.js) with its own
// SERVICE_NAME, configuration, logger, metrics registry and /health and /metrics port (the one
// given after `=`, or its default), and its own consumer group: Kafka stays between them, so
// the processing contract holds as with a process each. SIGTERM or SIGINT stops them all at
// once, each as it stops alone (consumers commit their offsets). A component that cannot
// start, or one whose consumer stalls for good (the watchdog in platform/handler-runtime.js),
// ends the whole process with status 1, and its supervisor starts them all again.
import { realpathSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { createLogger } from '../platform/logger.js';
import { startComponents } from '../platform/component.js';

/** Each component's module, relative to the repository root, by the name services.conf gives it. */
export const COMPONENT_MODULES = Object.freeze({
  'admin-api': 'ledger/admin-api/component.js',
  'settlement-api': 'ledger/settlement-api/component.js',
  'api-adapter': 'api-adapter/component.js',
  prepare: 'handlers/prepare/component.js',
  position: 'handlers/position/component.js',
  fulfil: 'handlers/fulfil/component.js',
  timeout: 'handlers/timeout/component.js',
  bulk: 'handlers/bulk/component.js',
  notification: 'handlers/notification/component.js',
  quoting: 'quoting/component.js',
  'quoting-handler': 'quoting/handler/component.js',
  'account-lookup': 'account-lookup/component.js',
  'account-lookup-admin': 'account-lookup/admin-component.js',
  portal: 'portal/component.js',
});

/** Kafka consumers each component holds: every one waits in consume() on a libuv pool thread. */
const CONSUMERS = Object.freeze({ prepare: 1, position: 1, fulfil: 1, bulk: 1, notification: 2, 'quoting-handler': 1 });

/** `name[=port]` items, comma-separated over any number of arguments, as `[{ name, port }]`. */
export function parseComponents(args) {
  const items = args.flatMap((arg) => arg.split(',')).map((item) => item.trim()).filter(Boolean);
  if (items.length === 0) throw new Error(`usage: node scripts/compact-host.js name[=port][,name[=port]...] (names: ${Object.keys(COMPONENT_MODULES).join(', ')})`);
  const seen = new Set();
  return items.map((item) => {
    const match = /^([\w-]+)(?:=(\d{1,5}))?$/.exec(item);
    if (!match || !COMPONENT_MODULES[match[1]]) throw new Error(`unknown component "${item}" (names: ${Object.keys(COMPONENT_MODULES).join(', ')})`);
    if (seen.has(match[1])) throw new Error(`component ${match[1]} is named twice`);
    seen.add(match[1]);
    return { name: match[1], port: match[2] === undefined ? undefined : Number(match[2]) };
  });
}

/**
 * The libuv pool's size for these components: node-rdkafka's consume() holds a pool thread for
 * up to its wait, so with the default four, four consumers would leave none for the others, for
 * DNS lookups or for file reads. Four more than the consumers, as a process of its own has.
 */
export function threadPoolSize(components) {
  return 4 + components.reduce((sum, { name }) => sum + (CONSUMERS[name] ?? 0), 0);
}

async function main() {
  let components;
  try {
    components = parseComponents(process.argv.slice(2));
  } catch (error) {
    console.error(error.message);
    process.exit(2);
  }
  // Read by libuv when the pool first starts, which nothing has made it do yet: the components'
  // modules are imported below, after this line.
  process.env.UV_THREADPOOL_SIZE ||= String(threadPoolSize(components));
  const names = components.map(({ name }) => name);
  const logger = createLogger({
    serviceName: process.env.SERVICE_NAME || 'compact-host', logLevel: process.env.LOG_LEVEL || 'info', replicaIndex: Number(process.env.REPLICA_INDEX ?? 0),
  });
  try {
    const withStart = [];
    for (const component of components) {
      const { start } = await import(new URL(`../${COMPONENT_MODULES[component.name]}`, import.meta.url));
      withStart.push({ ...component, start });
    }
    const started = await startComponents(withStart, { logger });
    logger.info({ components: started.map(({ name, port }) => ({ name, port })), threadPoolSize: process.env.UV_THREADPOOL_SIZE }, 'compact host running');
  } catch (error) {
    logger.fatal({ err: error, components: names }, 'a component could not start; exiting so that the host is restarted');
    process.exit(1);
  }
}

// Run as a program; imported (by the tests' harness, for its tables) it starts nothing.
if (process.argv[1] && realpathSync(process.argv[1]) === fileURLToPath(import.meta.url)) await main();
