// Composition root of the api-adapter process (FSPIOP /transfers, /fxTransfers and /bulkTransfers
// edge, port 3000).
import { runEdgeProcess } from '../platform/fspiop/edge-process.js';
import { TOPIC } from '../platform/kafka/topics.js';
import { bulkTransferRoutes } from './bulk-routes.js';
import { fxTransferRoutes } from './fx-routes.js';
import { transferRoutes } from './routes.js';

const routes = (deps) => [...transferRoutes(deps), ...fxTransferRoutes(deps), ...bulkTransferRoutes(deps)];

await runEdgeProcess({ name: 'api-adapter', defaultPort: 3000, probeTopic: TOPIC.transferPrepare, routes });
