// Composition root of the account-lookup admin process (the ALS admin API and the built-in
// oracle): the component of admin-component.js in a process of its own.
import { runComponent } from '../platform/component.js';
import { start } from './admin-component.js';

await runComponent(start);
