// A component is one part of the switch (an edge, a handler, an admin API) as a unit that can
// be started in a process of its own or beside others (scripts/compact-host.js). Its module
// exports `start(env)`, which reads its own configuration from `env` (the process's
// environment with the component's SERVICE_NAME and PORT), starts its work, its /health and
// /metrics server, and resolves to `{ name, logger, port, stop }`. A component never touches
// process-wide state that another could share: no signal handlers and no exit on SIGTERM
// (whoever runs it installs those once), its own logger, metrics registry, connections and
// port. The one exception is the stall watchdog (handler-runtime.js), which ends the whole
// process so that its supervisor starts it again: in a shared process, every component it
// hosts restarts with it, which Kafka's redelivery and the handlers' idempotency make safe.
import { exitOnSignal } from './shutdown.js';

/** Runs one component as its own process: `main.js` of every component calls this. */
export async function runComponent(start, env = process.env) {
  const component = await start(env);
  exitOnSignal(component.logger, component.stop);
  return component;
}

/**
 * The environment one component of a shared process reads: the process's own, with the
 * component's name (its logs' `service`, its metrics' `service` label, its consumer group
 * suffix stays its own) and its port, or none so that it takes its default.
 */
export function componentEnv(env, { name, port }) {
  const own = { ...env, SERVICE_NAME: name };
  delete own.PORT;
  if (port !== undefined) own.PORT = String(port);
  return own;
}

/**
 * Starts `components` (`[{ name, port, start }]`) one after another in this process and, on
 * SIGTERM or SIGINT, stops them all at once, each as it stops in a process of its own (its
 * consumers commit their offsets, its server answers what is in flight). If one fails to
 * start, those already started are stopped and the error is thrown: the process exits and
 * its supervisor starts it again.
 */
export async function startComponents(components, { env = process.env, logger }) {
  const started = [];
  try {
    for (const { name, port, start } of components) started.push(await start(componentEnv(env, { name, port })));
  } catch (error) {
    await stopAll(started);
    throw error;
  }
  exitOnSignal(logger, () => stopAll(started));
  return started;
}

async function stopAll(components) {
  const results = await Promise.allSettled(components.map((component) => component.stop()));
  results.forEach((result, index) => {
    if (result.status === 'rejected') components[index].logger.error({ err: result.reason }, 'stopping failed');
  });
}
