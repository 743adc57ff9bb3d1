// Composition root of the quoting edge process (FSPIOP /quotes, port 3002).
import { runEdgeProcess } from '../platform/fspiop/edge-process.js';
import { TOPIC } from '../platform/kafka/topics.js';
import { quoteRoutes } from './routes.js';

await runEdgeProcess({ name: 'quoting', defaultPort: 3002, probeTopic: TOPIC.quotesPost, routes: quoteRoutes });
