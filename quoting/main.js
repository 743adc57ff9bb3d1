// Composition root of the quoting edge process (FSPIOP /quotes, port 3002): the component of
// component.js in a process of its own.
import { runComponent } from '../platform/component.js';
import { start } from './component.js';

await runComponent(start);
