#!/usr/bin/env node
// Writes the Grafana dashboards of the chart (dashboards/*.json, loaded into ConfigMaps by
// templates/monitoring/dashboards.yaml). Edit here and run `node generate.mjs`, rather than
// editing the JSON by hand. test/charts/prometheus.test.js evaluates every query
// against the running switch. Only metrics that exist are used:
//   the switch:      http_request_duration_seconds{service,route,method,status},
//                    transfer_end_to_end_seconds, transfers_finished_total{kind,state,error_code},
//                    position_changes_total{reason}, callbacks_total{fsp,endpoint_type,outcome},
//                    callback_duration_seconds{endpoint_type}, notification_events_skipped_total,
//                    callback_conversions_total{from,to,outcome},
//                    handler_batch_size{handler}, handler_batch_duration_seconds{handler},
//                    quoting_messages_total{kind,outcome}, bulk_transfers_settled_total{state},
//                    bulk_item_results_total{result},
//                    kafka_consumer_lag_messages{handler,topic}, kafka_messages_produced_total{topic},
//                    db_pool_connections{state}, dfsp_position / dfsp_net_debit_cap /
//                    dfsp_net_debit_cap_utilisation_ratio{fsp,currency},
//                    prom-client's default process/nodejs metrics
//   settlement API:  settlement_window_open_age_seconds, settlement_window_open_transfers /
//                    settlement_window_open_amount{currency}, settlements_pending{state}
//                    (gauges read from MySQL at scrape), settlement_windows_closed_total,
//                    settlement_gross_settled_transfers_total{currency}
//   mysqld_exporter: mysql_up, mysql_global_status_*, mysql_global_variables_max_connections
import { writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const ds = { type: 'prometheus', uid: '${datasource}' };
const ns = 'namespace=~"$namespace"';

let nextId = 1;
function panel(title, targets, { unit = 'short', w = 12, h = 8, type = 'timeseries', description } = {}) {
  return {
    id: nextId++, type, title, description, datasource: ds,
    gridPos: { w, h, x: 0, y: 0 },
    fieldConfig: { defaults: { unit }, overrides: [] },
    options: { legend: { displayMode: 'table', placement: 'bottom', calcs: ['mean', 'max'] } },
    targets: targets.map(([expr, legendFormat], i) => ({ refId: String.fromCharCode(65 + i), datasource: ds, expr, legendFormat })),
  };
}

/** Lays panels out two per row, in order. */
function layout(panels) {
  let x = 0; let y = 0; let rowHeight = 0;
  for (const p of panels) {
    if (x + p.gridPos.w > 24) { x = 0; y += rowHeight; rowHeight = 0; }
    p.gridPos.x = x; p.gridPos.y = y;
    x += p.gridPos.w; rowHeight = Math.max(rowHeight, p.gridPos.h);
  }
  return panels;
}

function dashboard(uid, title, panels, extraVariables = []) {
  nextId = 1;
  return {
    uid, title, tags: ['fspiop-switch'], timezone: 'utc', schemaVersion: 39, version: 1,
    refresh: '30s', time: { from: 'now-1h', to: 'now' },
    templating: {
      list: [
        { name: 'datasource', type: 'datasource', query: 'prometheus', label: 'Data source' },
        { name: 'namespace', type: 'query', datasource: ds, query: 'label_values(http_request_duration_seconds_count, namespace)', includeAll: true, multi: true, refresh: 2 },
        ...extraVariables,
      ],
    },
    panels: layout(panels),
  };
}

const quantile = (q, metric, by = '') =>
  `histogram_quantile(${q}, sum by (le${by ? `, ${by}` : ''}) (rate(${metric}_bucket{${ns}}[$__rate_interval])))`;

const overview = () => dashboard('fspiop-overview', 'fspiop-switch / Overview', [
  panel('Transfers accepted per second (POST /transfers 202)', [
    [`sum(rate(http_request_duration_seconds_count{${ns}, service="api-adapter", method="POST", status="202"}[$__rate_interval]))`, 'TPS'],
  ], { unit: 'reqps' }),
  panel('Final-state callbacks delivered per second', [
    [`sum(rate(transfer_end_to_end_seconds_count{${ns}}[$__rate_interval]))`, 'completed'],
  ], { unit: 'ops' }),
  panel('End-to-end latency (edge accepted → final callback delivered)', [
    [quantile(0.5, 'transfer_end_to_end_seconds'), 'p50'],
    [quantile(0.95, 'transfer_end_to_end_seconds'), 'p95'],
    [quantile(0.99, 'transfer_end_to_end_seconds'), 'p99'],
  ], { unit: 's' }),
  panel('HTTP p99 by service', [
    [quantile(0.99, 'http_request_duration_seconds', 'service'), '{{service}}'],
  ], { unit: 's' }),
  panel('Callbacks by outcome and endpoint type', [
    [`sum by (outcome, endpoint_type) (rate(callbacks_total{${ns}}[$__rate_interval]))`, '{{outcome}} {{endpoint_type}}'],
  ], { unit: 'ops', description: 'Error callbacks (FSPIOP errorInformation) go to *_ERROR endpoint types.' }),
  panel('HTTP answers by status (4xx/5xx)', [
    [`sum by (service, status) (rate(http_request_duration_seconds_count{${ns}, status=~"[45].."}[$__rate_interval]))`, '{{service}} {{status}}'],
  ], { unit: 'reqps' }),
  panel('Transfers finished per second by kind and state', [
    [`sum by (kind, state) (rate(transfers_finished_total{${ns}}[$__rate_interval]))`, '{{kind}} {{state}}'],
  ], { unit: 'ops', description: 'PAYMENT: DFSPs\' payments; FX_TRANSFER: their currency conversions; FUNDS_IN and FUNDS_OUT: the operator\'s.' }),
  panel('Payment success ratio (committed of finished payments)', [
    [`sum(rate(transfers_finished_total{${ns}, kind="PAYMENT", state="COMMITTED"}[$__rate_interval])) / sum(rate(transfers_finished_total{${ns}, kind="PAYMENT"}[$__rate_interval]))`, 'committed'],
  ], { unit: 'percentunit' }),
  panel('Failed transfers by FSPIOP error code', [
    [`sum by (error_code, state) (rate(transfers_finished_total{${ns}, state!="COMMITTED"}[$__rate_interval]))`, '{{error_code}} {{state}}'],
  ], { unit: 'ops', description: '3xxx/4xxx: refused by the switch; 5xxx: rejected by the payee.' }),
  panel('Notification events skipped (malformed)', [
    [`sum by (reason) (rate(notification_events_skipped_total{${ns}}[$__rate_interval]))`, '{{reason}}'],
  ], { unit: 'ops' }),
]);

const handlers = () => dashboard('fspiop-handlers', 'fspiop-switch / Handlers', [
  panel('Batches per second', [
    [`sum by (handler) (rate(handler_batch_size_count{${ns}, handler=~"$handler"}[$__rate_interval]))`, '{{handler}}'],
  ], { unit: 'ops' }),
  panel('Events per second', [
    [`sum by (handler) (rate(handler_batch_size_sum{${ns}, handler=~"$handler"}[$__rate_interval]))`, '{{handler}}'],
  ], { unit: 'ops' }),
  panel('Mean batch size', [
    [`sum by (handler) (rate(handler_batch_size_sum{${ns}, handler=~"$handler"}[$__rate_interval])) / sum by (handler) (rate(handler_batch_size_count{${ns}, handler=~"$handler"}[$__rate_interval]))`, '{{handler}}'],
  ]),
  panel('Batch duration p99 (prefetch, decide, apply, produce)', [
    [quantile(0.99, 'handler_batch_duration_seconds', 'handler').replace(`{${ns}}`, `{${ns}, handler=~"$handler"}`), '{{handler}}'],
  ], { unit: 's' }),
  panel('CPU by pod', [
    [`sum by (pod) (rate(process_cpu_seconds_total{${ns}, service=~"$handler"}[$__rate_interval]))`, '{{pod}}'],
  ], { unit: 'percentunit' }),
  panel('Event-loop lag p99 by pod', [
    [`max by (pod) (nodejs_eventloop_lag_p99_seconds{${ns}, service=~"$handler"})`, '{{pod}}'],
  ], { unit: 's' }),
  panel('Consumer lag by handler', [
    [`sum by (handler) (kafka_consumer_lag_messages{${ns}, handler=~"$handler"})`, '{{handler}}'],
  ]),
  panel('Position changes per second by reason (position handler)', [
    [`sum by (reason) (rate(position_changes_total{${ns}}[$__rate_interval]))`, '{{reason}}'],
  ], { unit: 'ops' }),
], [{ name: 'handler', type: 'query', datasource: ds, query: 'label_values(handler_batch_size_count, handler)', includeAll: true, multi: true, refresh: 2 }]);

const kafka = () => dashboard('fspiop-kafka', 'fspiop-switch / Kafka lag', [
  panel('Consumer lag by handler', [
    [`sum by (handler) (kafka_consumer_lag_messages{${ns}})`, '{{handler}}'],
  ], { description: 'Messages on owned partitions not consumed yet, summed over replicas.' }),
  panel('Consumer lag by topic', [
    [`sum by (topic) (kafka_consumer_lag_messages{${ns}})`, '{{topic}}'],
  ]),
  panel('Records produced per second by topic', [
    [`sum by (topic) (rate(kafka_messages_produced_total{${ns}}[$__rate_interval]))`, '{{topic}}'],
  ], { unit: 'ops' }),
  panel('Events consumed per second by handler', [
    [`sum by (handler) (rate(handler_batch_size_sum{${ns}}[$__rate_interval]))`, '{{handler}}'],
  ], { unit: 'ops' }),
]);

const mysql = () => dashboard('fspiop-mysql', 'fspiop-switch / MySQL', [
  panel('MySQL up', [['mysql_up', '{{instance}}']]),
  panel('Connections (threads connected) vs max', [
    ['mysql_global_status_threads_connected', 'connected {{instance}}'],
    ['mysql_global_variables_max_connections', 'max {{instance}}'],
  ]),
  panel('Threads running', [['mysql_global_status_threads_running', '{{instance}}']]),
  panel('Queries per second', [['rate(mysql_global_status_queries[$__rate_interval])', '{{instance}}']], { unit: 'ops' }),
  panel('InnoDB row lock waits per second', [['rate(mysql_global_status_innodb_row_lock_waits[$__rate_interval])', '{{instance}}']], { unit: 'ops' }),
  panel('Handler batch duration p99 (one DB transaction per batch)', [
    [quantile(0.99, 'handler_batch_duration_seconds', 'handler'), '{{handler}}'],
  ], { unit: 's', description: 'The batch time includes its one database transaction.' }),
  panel('Connection pool by service', [
    [`sum by (service, state) (db_pool_connections{${ns}})`, '{{service}} {{state}}'],
  ], { description: 'pending: acquires waiting for a free connection (DB_POOL_SIZE_MAX reached).' }),
]);

const dfsp = () => dashboard('fspiop-dfsp', 'fspiop-switch / Per DFSP', [
  panel('Callbacks to the DFSP by outcome', [
    [`sum by (outcome) (rate(callbacks_total{${ns}, fsp=~"$fsp"}[$__rate_interval]))`, '{{outcome}}'],
  ], { unit: 'ops' }),
  panel('Callbacks to the DFSP by endpoint type', [
    [`sum by (endpoint_type) (rate(callbacks_total{${ns}, fsp=~"$fsp"}[$__rate_interval]))`, '{{endpoint_type}}'],
  ], { unit: 'ops' }),
  panel('Failed callback ratio by DFSP', [
    [`(sum by (fsp) (rate(callbacks_total{${ns}, fsp=~"$fsp", outcome!="delivered"}[$__rate_interval])) or 0 * sum by (fsp) (rate(callbacks_total{${ns}, fsp=~"$fsp"}[$__rate_interval]))) / sum by (fsp) (rate(callbacks_total{${ns}, fsp=~"$fsp"}[$__rate_interval]))`, '{{fsp}}'],
  ], { unit: 'percentunit' }),
  panel('Position by DFSP and currency', [
    [`max by (fsp, currency) (dfsp_position{${ns}, fsp=~"$fsp"})`, '{{fsp}} {{currency}}'],
  ], { description: 'Positive: what the DFSP owes the scheme, reservations included.' }),
  panel('Net debit cap by DFSP and currency', [
    [`max by (fsp, currency) (dfsp_net_debit_cap{${ns}, fsp=~"$fsp"})`, '{{fsp}} {{currency}}'],
  ]),
  panel('Position as a share of the net debit cap', [
    [`max by (fsp, currency) (dfsp_net_debit_cap_utilisation_ratio{${ns}, fsp=~"$fsp"})`, '{{fsp}} {{currency}}'],
  ], { unit: 'percentunit', description: 'At 100% new payments from the DFSP fail with 4200.' }),
  panel('Error callbacks by DFSP', [
    [`sum by (fsp) (rate(callbacks_total{${ns}, fsp=~"$fsp", endpoint_type=~".*ERROR.*"}[$__rate_interval]))`, '{{fsp}}'],
  ], { unit: 'ops' }),
], [{ name: 'fsp', type: 'query', datasource: ds, query: 'label_values(callbacks_total, fsp)', includeAll: true, multi: true, refresh: 2 }]);

// The settlement API's gauges are read from the database at scrape time, so every replica
// reports the same value: max, not sum.
const settlement = () => dashboard('fspiop-settlement', 'fspiop-switch / Settlement', [
  panel('Age of the open settlement window', [
    [`max(settlement_window_open_age_seconds{${ns}})`, 'open window'],
  ], { unit: 's', description: 'Drops to zero when the window is closed (POST /v2/settlementWindows/{id}); the FspiopSettlementWindowOpenTooLong alert fires above metrics.prometheusRule.settlementWindowMaxAgeSeconds.' }),
  panel('Settlement windows closed per hour', [
    [`sum(increase(settlement_windows_closed_total{${ns}}[1h]))`, 'closed'],
  ]),
  panel('Transfers in the open window by currency', [
    [`max by (currency) (settlement_window_open_transfers{${ns}})`, '{{currency}}'],
  ]),
  panel('Amount committed in the open window by currency', [
    [`max by (currency) (settlement_window_open_amount{${ns}})`, '{{currency}}'],
  ]),
  panel('Settlements pending by state', [
    [`max by (state) (settlements_pending{${ns}})`, '{{state}}'],
  ], { description: 'Settlements neither SETTLED nor ABORTED.' }),
  panel('Transfers settled gross per second by currency', [
    [`sum by (currency) (rate(settlement_gross_settled_transfers_total{${ns}}[$__rate_interval]))`, '{{currency}}'],
  ], { unit: 'ops', description: 'Continuous gross settlement: each committed transfer settled on its own.' }),
]);

// Currency conversion (FSPIOP v2.0) has no metrics of its own: its messages travel the
// transfer and quote topics and are decided by the same handlers, and what sets them apart is
// already a label: the position handler's reasons FX_PREPARE, FX_COMMIT, FX_ABORT and
// FX_TIMEOUT (a conversion's own position changes), the kind FX_TRANSFER of
// transfers_finished_total, the edges' route templates (/fxTransfers…, /fxQuotes…,
// /services/FXP…) and the callbacks' endpoint types (FSPIOP_CALLBACK_URL_FX_*,
// FSPIOP_CALLBACK_URL_SERVICES).
const FX_REASONS = 'reason=~"FX_.*"';
const FX_CALLBACKS = 'endpoint_type=~"FSPIOP_CALLBACK_URL_FX_.*|FSPIOP_CALLBACK_URL_SERVICES"';
const edgeRequests = (service, route) =>
  `sum by (method, route, status) (rate(http_request_duration_seconds_count{${ns}, service="${service}", route=~"${route}"}[$__rate_interval]))`;

const fx = () => dashboard('fspiop-fx', 'fspiop-switch / Currency conversion', [
  panel('Fx transfers by outcome (position changes of conversions)', [
    [`sum by (reason) (rate(position_changes_total{${ns}, ${FX_REASONS}}[$__rate_interval]))`, '{{reason}}'],
  ], { unit: 'ops', description: 'FX_PREPARE: a conversion reserved on the payer\'s source currency; FX_COMMIT: committed with its payment (the FXP\'s source position); FX_ABORT and FX_TIMEOUT: released (the FXP\'s error or a wrong fulfilment, the payment\'s end, the expiry).' }),
  panel('Fx transfers committed of those reserved', [
    [`sum(rate(position_changes_total{${ns}, reason="FX_COMMIT"}[$__rate_interval])) / sum(rate(position_changes_total{${ns}, reason="FX_PREPARE"}[$__rate_interval]))`, 'committed'],
  ], { unit: 'percentunit', description: 'Below 100% while conversions are released (FX_ABORT, FX_TIMEOUT) or still wait for their payment.' }),
  panel('Fx transfer requests at the edge by route and status', [
    [edgeRequests('api-adapter', '/fxTransfers.*'), '{{method}} {{route}} {{status}}'],
  ], { unit: 'reqps', description: 'POST /fxTransfers from payer DFSPs, PUT /fxTransfers/{ID} (and …/error) from FXPs, GET from either.' }),
  panel('Fx quotes at the edge by route and status', [
    [edgeRequests('quoting', '/fxQuotes.*'), '{{method}} {{route}} {{status}}'],
  ], { unit: 'reqps', description: 'POST /fxQuotes from payer DFSPs, PUT /fxQuotes/{ID} (and …/error) from FXPs.' }),
  panel('FXP discovery requests (GET /services/FXP)', [
    [edgeRequests('account-lookup', '/services.*'), '{{method}} {{route}} {{status}}'],
  ], { unit: 'reqps' }),
  panel('Conversion callbacks by endpoint type and outcome', [
    [`sum by (endpoint_type, outcome) (rate(callbacks_total{${ns}, ${FX_CALLBACKS}}[$__rate_interval]))`, '{{outcome}} {{endpoint_type}}'],
  ], { unit: 'ops', description: 'Fx quotes and their answers (FX_QUOTES), fx transfers, the FXP\'s answers and the hub\'s PATCH to the FXP (FX_TRANSFER_*), FXP discovery answers (SERVICES).' }),
  panel('Conversion callback latency p95 by endpoint type', [
    [quantile(0.95, 'callback_duration_seconds', 'endpoint_type').replace(`{${ns}}`, `{${ns}, ${FX_CALLBACKS}}`), '{{endpoint_type}}'],
  ], { unit: 's' }),
  panel('Failed conversion callbacks by DFSP', [
    [`sum by (fsp, endpoint_type) (rate(callbacks_total{${ns}, ${FX_CALLBACKS}, outcome!="delivered"}[$__rate_interval])) or 0 * sum by (fsp, endpoint_type) (rate(callbacks_total{${ns}, ${FX_CALLBACKS}}[$__rate_interval]))`, '{{fsp}} {{endpoint_type}}'],
  ], { unit: 'ops', description: 'Zero while every conversion callback is delivered.' }),
  panel('Fx transfers finished by state and FSPIOP error code', [
    [`sum by (state, error_code) (rate(transfers_finished_total{${ns}, kind="FX_TRANSFER"}[$__rate_interval]))`, '{{state}} {{error_code}}'],
  ], { unit: 'ops', description: 'COMMITTED with its payment, or ended with the code that released it (the FXP\'s own 5xxx, the switch\'s 3xxx/4xxx, 3303 on expiry).' }),
]);

// Request to pay and bulk: the quoting handler counts what it decided of each relayed kind
// (quoting_messages_total: FORWARD_* relayed to the other DFSP, ERROR refused by the hub);
// a bulk transfer's individual transfers are ordinary payments (transfers_finished_total,
// position_changes_total), and the bulk handler counts each item's results and each bulk's
// state changes (by the state a batch left it in: one that completes in a batch skips
// PROCESSING). A panel whose series may be absent while nothing failed adds `or 0 * …` of the
// series it filters, so that it shows zero rather than no data.
const R2P_KINDS = 'kind=~"transactionRequest|authorization"';
const R2P_AND_BULK_CALLBACKS = 'endpoint_type=~"FSPIOP_CALLBACK_URL_TRX_REQ_SERVICE|FSPIOP_CALLBACK_URL_AUTHORIZATIONS|FSPIOP_CALLBACK_URL_BULK_.*"';
const orZero = (expr, of) => `${expr} or 0 * ${of}`;
const byKindAndOutcome = (kinds, filter = '') => `sum by (kind, outcome) (rate(quoting_messages_total{${ns}, ${kinds}${filter}}[$__rate_interval]))`;

const requestToPayAndBulk = () => dashboard('fspiop-r2p-bulk', 'fspiop-switch / Request to pay and bulk', [
  panel('Transaction requests and authorizations by outcome', [
    [byKindAndOutcome(R2P_KINDS), '{{kind}} {{outcome}}'],
  ], { unit: 'ops', description: 'transactionRequest: FORWARD_REQUEST, the merchant\'s POST /transactionRequests to the payer\'s DFSP; FORWARD_ANSWER, the payer\'s DFSP\'s answer (RECEIVED, REJECTED …). authorization: FORWARD_REQUEST, the payer\'s DFSP\'s GET /authorizations (an OTP round) to the merchant\'s; FORWARD_ANSWER, the answer (ENTERED, REJECTED, RESEND). FORWARD_ERROR: a DFSP\'s PUT …/error relayed; ERROR: refused by the hub.' }),
  panel('Bulk quotes by outcome', [
    [byKindAndOutcome('kind="bulkQuote"'), '{{outcome}}'],
  ], { unit: 'ops', description: 'FORWARD_REQUEST: a payer\'s POST /bulkQuotes to the payee; FORWARD_ANSWER: the payee\'s answer, every item\'s quote or error; FORWARD_ERROR: its PUT …/error; ERROR: refused by the hub.' }),
  panel('Request-to-pay and bulk quote messages refused by the hub, by kind', [
    [orZero(`sum by (kind) (rate(quoting_messages_total{${ns}, kind=~"transactionRequest|authorization|bulkQuote", outcome="ERROR"}[$__rate_interval]))`,
      `sum by (kind) (rate(quoting_messages_total{${ns}, kind=~"transactionRequest|authorization|bulkQuote"}[$__rate_interval]))`), '{{kind}}'],
  ], { unit: 'ops', description: 'The hub\'s PUT …/error to the sender: an unknown or inactive DFSP, a sender that may not answer, a duplicate with other content (quoting/README.md "Who may ask and who may answer"). Zero while none is refused.' }),
  panel('Request-to-pay and bulk quote requests at the edge by route and status', [
    [edgeRequests('quoting', '/transactionRequests.*|/authorizations.*|/bulkQuotes.*'), '{{method}} {{route}} {{status}}'],
  ], { unit: 'reqps' }),
  panel('Bulks finished by state', [
    [`sum by (state) (rate(bulk_transfers_settled_total{${ns}, state=~"COMPLETED|REJECTED|EXPIRED"}[$__rate_interval]))`, '{{state}}'],
  ], { unit: 'ops', description: 'COMPLETED: every reserved item committed or aborted by the payee\'s answer; REJECTED: no item could be reserved; EXPIRED: the payee did not answer every item in time.' }),
  panel('Bulk state changes by the state reached', [
    [`sum by (state) (rate(bulk_transfers_settled_total{${ns}}[$__rate_interval]))`, '{{state}}'],
  ], { unit: 'ops', description: 'ACCEPTED: forwarded to the payee with the items reserved. A bulk that completes within one batch of the bulk handler is counted COMPLETED without PROCESSING.' }),
  panel('Bulk items by result', [
    [`sum by (result) (rate(bulk_item_results_total{${ns}}[$__rate_interval]))`, '{{result}}'],
  ], { unit: 'ops', description: 'Prepare results: RESERVED, FAILED (refused at prepare or by the position handler, e.g. 4001). Final results: COMMITTED, ABORTED (the payee\'s error or a wrong fulfilment), EXPIRED.' }),
  panel('Bulk items committed of those reserved', [
    [`sum(rate(bulk_item_results_total{${ns}, result="COMMITTED"}[$__rate_interval])) / sum(rate(bulk_item_results_total{${ns}, result="RESERVED"}[$__rate_interval]))`, 'committed'],
  ], { unit: 'percentunit', description: 'Below 100% while items abort or expire, or still wait for the payee\'s answer.' }),
  panel('Bulk transfers at the edge by route and status', [
    [edgeRequests('api-adapter', '/bulkTransfers.*'), '{{method}} {{route}} {{status}}'],
  ], { unit: 'reqps', description: 'POST /bulkTransfers from payers, PUT /bulkTransfers/{ID} (and …/error) from payees, GET from either.' }),
  panel('Request-to-pay and bulk callbacks by endpoint type and outcome', [
    [`sum by (endpoint_type, outcome) (rate(callbacks_total{${ns}, ${R2P_AND_BULK_CALLBACKS}}[$__rate_interval]))`, '{{outcome}} {{endpoint_type}}'],
  ], { unit: 'ops', description: 'Transaction requests (TRX_REQ_SERVICE), authorizations, bulk quotes and bulk transfers (the forward to the payee, the aggregated answer to the payer, errors).' }),
]);

// ISO 20022: what the callback senders converted between FSPIOP and ISO 20022 for a receiver of
// the other API (callback_conversions_total, platform/iso20022/egress.js). Messages between two
// DFSPs of one API pass unconverted and are counted with every callback (callbacks_total).
const iso20022 = () => dashboard('fspiop-iso20022', 'fspiop-switch / ISO 20022', [
  panel('Callbacks converted between APIs, by direction', [
    [`sum by (from, to) (rate(callback_conversions_total{${ns}, outcome="converted"}[$__rate_interval]))`, '{{from}} → {{to}}'],
  ], { unit: 'ops', description: 'FSPIOP → ISO20022: an FSPIOP DFSP\'s message, or the hub\'s own (errors, GET answers, PATCH, expiries), written as ISO 20022 for an ISO 20022 DFSP and signed by the hub. ISO20022 → FSPIOP: an ISO 20022 DFSP\'s message passed on in its FSPIOP 2.0 form.' }),
  panel('Conversions that failed, by direction', [
    [orZero(`sum by (from, to) (rate(callback_conversions_total{${ns}, outcome="failed"}[$__rate_interval]))`,
      `sum by (from, to) (rate(callback_conversions_total{${ns}}[$__rate_interval]))`), '{{from}} → {{to}}'],
  ], { unit: 'ops', description: 'A message the other API cannot carry (a UUID id toward an ISO 20022 DFSP, which ISO 20022 requires to be a ULID): not sent, its requester told 3201. Zero while every conversion succeeds.' }),
  panel('Share of callbacks converted', [
    [`sum(rate(callback_conversions_total{${ns}, outcome="converted"}[$__rate_interval])) / sum(rate(callbacks_total{${ns}}[$__rate_interval]))`, 'converted'],
  ], { unit: 'percentunit', description: 'Of every callback sent, those converted between APIs: the traffic that crosses from FSPIOP to ISO 20022 DFSPs and back, and pays the conversion\'s CPU (perf/RESULTS.md, "ISO 20022").' }),
]);

const boards = [
  ['overview', overview], ['handlers', handlers], ['kafka', kafka], ['mysql', mysql], ['dfsp', dfsp], ['settlement', settlement], ['fx', fx],
  ['request-to-pay-and-bulk', requestToPayAndBulk], ['iso20022', iso20022],
];
for (const [file, make] of boards) {
  writeFileSync(join(here, `${file}.json`), `${JSON.stringify(make(), null, 2)}\n`);
}
