// Composition root of the position handler process.
import { createPositionHandler } from './handler.js';
import { consumeEvents, runHandlerProcess } from '../../platform/handler-runtime.js';

await runHandlerProcess({
  name: 'position',
  defaultPort: 4211,
  start: (deps) => consumeEvents({
    ...deps, name: 'position', subscribeTo: [deps.topics.transferPositionBatch],
    handleEvents: createPositionHandler({ ...deps, hubName: deps.config.hubName }),
  }),
});
