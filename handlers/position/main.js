// Composition root of the position handler process.
import { createPositionHandler } from './handler.js';
import { consumeEvents, runHandlerProcess } from '../../platform/handler-runtime.js';
import { createTransferDeadLetterFinisher } from '../dead-letters.js';

await runHandlerProcess({
  name: 'position',
  defaultPort: 4211,
  start: (deps) => consumeEvents({
    ...deps, name: 'position', subscribeTo: [deps.topics.transferPositionBatch],
    finishDeadLetter: createTransferDeadLetterFinisher({ ...deps, hubName: deps.config.hubName }),
    handleEvents: createPositionHandler({ ...deps, hubName: deps.config.hubName }),
  }),
});
