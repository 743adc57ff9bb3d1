// Views are written as tagged templates (htm) over React's createElement: plain JavaScript the
// linter reads like the rest of the project, with no JSX step.
import { createElement } from 'react';
import htm from 'htm';

export const html = htm.bind(createElement);
