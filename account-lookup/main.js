// Composition root of the account-lookup edge process (FSPIOP /parties, /participants and
// v2.0's /services/FXP, PORT default 4002): the component of component.js in a process of its
// own.
import { runComponent } from '../platform/component.js';
import { start } from './component.js';

await runComponent(start);
