// The capacity model's arithmetic (perf/capacity.js): the fit through two runs, the plan's
// replicas and partitions, and the values file it writes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { COST_SAFETY_FACTOR, POD_VCPU_PLANNED, costModel, plan, predictedPercent, runsToFit, valuesYaml } from '../../perf/capacity.js';

// Two runs of a switch whose position handler costs 2 ms per iteration plus 3 % of a core idle.
const low = { name: 'low', rate: 50, cpuPercent: { position: 3 + (2 * 50) / 10, kafka: 10 } };
const high = { name: 'high', rate: 150, cpuPercent: { position: 3 + (2 * 150) / 10, kafka: 30 } };

test('two runs give the cost per iteration and the fixed cost per process', () => {
  const model = costModel(low, high);
  assert.ok(Math.abs(model.position.marginalMs - 2) < 1e-9);
  assert.ok(Math.abs(model.position.fixedPercent - 3) < 1e-9);
  assert.ok(Math.abs(predictedPercent(model.position, 100, 2) - (2 * 3 + 20)) < 1e-9);
  const single = costModel(high);
  assert.ok(Math.abs(single.position.marginalMs - (33 * 10) / 150) < 1e-9, 'one run: all of its CPU is per iteration');
});

test('two runs on a saturated machine give no line: the model goes through the lower-rate run', () => {
  // Both runs used about the two cores' total, so CPU did not follow the rate.
  const saturatedLow = { name: 'at-100', rate: 100, cpuPercent: { position: 90, kafka: 95 } };
  const saturatedHigh = { name: 'at-127', rate: 127, cpuPercent: { position: 91, kafka: 96 } };
  const fit = runsToFit([saturatedHigh, saturatedLow], 2);
  assert.equal(fit.low, saturatedLow);
  assert.equal(fit.high, null);
  assert.match(fit.note, /at-100 and at-127 used 90 % or more of 2 cores/);
  assert.ok(costModel(fit.low, fit.high).position.marginalMs > 0, 'every iteration costs CPU');
  const withRoom = runsToFit([high, low], 2);
  assert.deepEqual([withRoom.low, withRoom.high, withRoom.note], [low, high, null]);
});

test('replicas carry the planned work at 0.6 vCPU each, and topics get twice as many partitions', () => {
  const costs = costModel(low, high);
  const planned = plan({ costs, rate: 150 }, 1000);
  const position = planned.components.find((c) => c.name === 'position');
  const work = COST_SAFETY_FACTOR * (1000 * 2) / 1000;
  assert.ok(position.replicas * POD_VCPU_PLANNED >= work, `${position.replicas} replicas carry ${work} vCPU`);
  assert.ok((position.replicas - 1) * POD_VCPU_PLANNED < work + (COST_SAFETY_FACTOR * position.replicas * 3) / 100, 'not one replica more than needed');
  assert.ok(planned.partitions['topic-transfer-position-batch'] >= 2 * position.replicas);
  assert.equal(planned.partitions['topic-transfer-position-batch'] % 6, 0);
  assert.equal(planned.kafka.brokers % 3, 0, 'brokers in threes, one per availability zone');
});

test('the values file names every planned component with its replicas', () => {
  const planned = plan({ costs: costModel(low, high), rate: 150 }, 1000);
  const yaml = valuesYaml(planned, 'test runs');
  const position = planned.components.find((c) => c.name === 'position');
  assert.match(yaml, new RegExp(`  position:\\n    replicas: ${position.replicas}\\n`));
  assert.match(yaml, /tps: 1000\n/);
  // The load test's simulators are reached in the cluster's Service CIDR, and present client certificates.
  assert.match(yaml, /\nconfig:\n {2}CALLBACK_ALLOWED_CIDRS: "10\.100\.0\.0\/16"\n/);
  assert.match(valuesYaml(planned, 'test runs', { serviceCidr: '172.20.0.0/16' }), /CALLBACK_ALLOWED_CIDRS: "172\.20\.0\.0\/16"\n/);
  assert.match(yaml, /\n {4}clientCertificatesSecret: fspiop-loadtest-tls\n/);
});
