// Composition root of the prepare handler process.
import { createPrepareHandler } from './handler.js';
import { consumeEvents, runHandlerProcess } from '../../platform/handler-runtime.js';
import { createTransferDeadLetterFinisher } from '../dead-letters.js';

await runHandlerProcess({
  name: 'prepare',
  defaultPort: 4201,
  start: (deps) => consumeEvents({
    ...deps, name: 'prepare', subscribeTo: [deps.topics.transferPrepare],
    finishDeadLetter: createTransferDeadLetterFinisher({ ...deps, hubName: deps.config.hubName }),
    handleEvents: createPrepareHandler({ ...deps, hubName: deps.config.hubName }),
  }),
});
