// The api-adapter component (FSPIOP /transfers, /fxTransfers and /bulkTransfers edge, port
// 3000), startable in a process of its own (main.js) or beside others (scripts/compact-host.js).
import { startEdge } from '../platform/fspiop/edge-process.js';
import { TOPIC } from '../platform/kafka/topics.js';
import { bulkTransferRoutes } from './bulk-routes.js';
import { fxTransferRoutes } from './fx-routes.js';
import { transferRoutes } from './routes.js';

const routes = (deps) => [...transferRoutes(deps), ...fxTransferRoutes(deps), ...bulkTransferRoutes(deps)];

export function start(env) {
  return startEdge({ name: 'api-adapter', defaultPort: 3000, probeTopic: TOPIC.transferPrepare, routes }, env);
}
