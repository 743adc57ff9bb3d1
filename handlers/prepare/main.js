// Composition root of the prepare handler process.
import { createPrepareHandler } from './handler.js';
import { consumeEvents, runHandlerProcess } from '../../platform/handler-runtime.js';

await runHandlerProcess({
  name: 'prepare',
  defaultPort: 4201,
  start: (deps) => consumeEvents({
    ...deps, name: 'prepare', subscribeTo: [deps.topics.transferPrepare],
    handleEvents: createPrepareHandler({ ...deps, hubName: deps.config.hubName }),
  }),
});
