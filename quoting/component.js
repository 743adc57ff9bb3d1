// The quoting edge component (FSPIOP /quotes, port 3002), startable in a process of its own
// (main.js) or beside others (scripts/compact-host.js).
import { startEdge } from '../platform/fspiop/edge-process.js';
import { TOPIC } from '../platform/kafka/topics.js';
import { quoteRoutes } from './routes.js';

export function start(env) {
  return startEdge({ name: 'quoting', defaultPort: 3002, probeTopic: TOPIC.quotesPost, routes: quoteRoutes }, env);
}
