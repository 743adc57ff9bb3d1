// Composition root of the api-adapter process (FSPIOP /transfers, /fxTransfers and /bulkTransfers
// edge, port 3000): the component of component.js in a process of its own.
import { runComponent } from '../platform/component.js';
import { start } from './component.js';

await runComponent(start);
