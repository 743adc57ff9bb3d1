// perf/cpu-by-kind.js: naming processes, reading perf's report, and the kind of code a sample is in.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { kindOf, parseReport, processName, summarise } from '../../perf/cpu-by-kind.js';

test('a process is named by the component, compact host or tool it runs', () => {
  assert.equal(processName(['/usr/bin/node', '/srv/switch/api-adapter/main.js'], '/srv/switch'), 'api-adapter');
  assert.equal(processName(['node', 'handlers/position/main.js'], '/srv/switch'), 'handlers/position');
  assert.equal(processName(['node', '/srv/switch/scripts/compact-host.js', 'api-adapter=3000,quoting=3002'], '/'), 'api-adapter+quoting');
  assert.equal(processName(['node', '/srv/switch/perf/simulators/worker.js'], '/srv/switch'), 'simulators');
  assert.equal(processName(['/srv/switch/.run/mariadb/bin/mariadbd', '--datadir=x']), 'MariaDB');
  assert.equal(processName(['/usr/bin/java', '-cp', '/opt/kafka/libs/*', 'kafka.Kafka']), 'Kafka');
  assert.equal(processName(['/usr/bin/bash', 'script.sh']), undefined);
});

test('perf\'s report is read field by field, a thread name with a space and a JIT object included', () => {
  const text = [
    '# comment',
    ' 7.28%  \t      0:swapper        \t[kernel.kallsyms]     \t[k] pv_native_safe_halt',
    ' 0.34%  \t  13620:node           \tlibc.so.6             \t[.] _int_malloc',
    ' 0.05%  \t  10898:C2 CompilerThre\t[JIT] tid 10655       \t[.] 0x00007fe79d191efe',
  ].join('\n');
  assert.deepEqual(parseReport(text), [
    { percent: 7.28, tid: 0, dso: '[kernel.kallsyms]', name: 'pv_native_safe_halt' },
    { percent: 0.34, tid: 13620, dso: 'libc.so.6', name: '_int_malloc' },
    { percent: 0.05, tid: 10898, dso: '[JIT] tid 10655', name: '0x00007fe79d191efe' },
  ]);
});

test('a sample\'s kind follows its object and symbol; the switch\'s table leaves out the load generator and the services', () => {
  assert.equal(kindOf('[kernel.kallsyms]', { name: 'tcp_sendmsg', process: 'api-adapter' }), 'kernel');
  assert.equal(kindOf('[JIT] tid 11066', { name: '0x7f', process: 'api-adapter' }), 'JavaScript (compiled)');
  assert.equal(kindOf('[JIT] tid 10655', { name: '0x7f', process: 'Kafka' }), 'JVM');
  assert.equal(kindOf('node', { name: 'Builtins_LoadIC_Megamorphic', process: 'quoting' }), 'V8 builtins');
  assert.equal(kindOf('node', { name: 'v8::internal::Scavenger::ScavengeObject', process: 'quoting' }), 'V8 garbage collector');
  assert.equal(kindOf('node', { name: 'v8::internal::JsonParser::ParseJson', process: 'quoting' }), 'V8 runtime');
  assert.equal(kindOf('node', { name: '__ecp_nistz256_mul_montx', process: 'quoting' }), 'OpenSSL (TLS, JWS)');
  assert.equal(kindOf('librdkafka.so.1', { name: 'rd_kafka_q_pop', process: 'position' }), 'librdkafka');
  assert.equal(kindOf('mariadbd', { name: 'row_search_mvcc', process: 'MariaDB' }), 'MariaDB, k6 (their own code)');

  const rows = [
    { percent: 10, tid: 0, dso: '[kernel.kallsyms]', name: 'halt' },
    { percent: 20, tid: 5, dso: '[kernel.kallsyms]', name: 'tcp_sendmsg' },
    { percent: 30, tid: 6, dso: 'node', name: 'Builtins_LoadIC' },
    { percent: 40, tid: 7, dso: 'mariadbd', name: 'row_search_mvcc' },
  ];
  const { byProcess, switchByKind } = summarise(rows, new Map([[5, 'api-adapter'], [6, 'simulators'], [7, 'MariaDB']]));
  assert.deepEqual(Object.fromEntries(byProcess), { idle: 10, 'api-adapter': 20, simulators: 30, MariaDB: 40 });
  assert.deepEqual(Object.fromEntries(switchByKind), { kernel: 20 });
});
