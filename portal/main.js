// Composition root of the portal process: the component of component.js in a process of its own.
import { runComponent } from '../platform/component.js';
import { start } from './component.js';

await runComponent(start);
