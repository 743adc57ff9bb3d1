// Composition root of the api-adapter process (FSPIOP /transfers edge, port 3000).
import { runEdgeProcess } from '../platform/fspiop/edge-process.js';
import { TOPIC } from '../platform/kafka/topics.js';
import { transferRoutes } from './routes.js';

await runEdgeProcess({ name: 'api-adapter', defaultPort: 3000, probeTopic: TOPIC.transferPrepare, routes: transferRoutes });
