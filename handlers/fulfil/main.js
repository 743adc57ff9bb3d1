// Composition root of the fulfil handler process.
import { createFulfilHandler } from './handler.js';
import { consumeEvents, runHandlerProcess } from '../../platform/handler-runtime.js';
import { createTransferDeadLetterFinisher } from '../dead-letters.js';

await runHandlerProcess({
  name: 'fulfil',
  defaultPort: 4221,
  start: (deps) => consumeEvents({
    ...deps, name: 'fulfil', subscribeTo: [deps.topics.transferFulfil],
    finishDeadLetter: createTransferDeadLetterFinisher({ ...deps, hubName: deps.config.hubName }),
    handleEvents: createFulfilHandler({ ...deps, hubName: deps.config.hubName }),
  }),
});
