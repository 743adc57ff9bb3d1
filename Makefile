# Local runtime of the switch, on one machine without containers. The work is done by the
# scripts in scripts/ (configuration: scripts/env.sh, every variable overridable from the
# environment, e.g. `ADMIN_API_REPLICAS=2 make up`).
SHELL := /bin/bash

.DEFAULT_GOAL := help
.PHONY: help deps deps-run up infra-up down clean status test test-compact demo bench-transfers bench-central-ledger fuzz

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  make %-13s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

deps: ## install everything that is missing (what the switch runs on, and every test's tools); fast no-op otherwise
	@bash scripts/deps.sh

# Only what the switch itself runs on (npm packages, MariaDB, the Kafka jars): `make up` and
# `make demo` need nothing more, and a first demo should not wait for the tests' tools.
deps-run:
	@DEPS_PROFILE=run bash scripts/deps.sh

up: deps-run ## start MariaDB, Kafka, topics, migrations and every service in scripts/services.conf
	@bash scripts/up.sh

infra-up: deps-run ## start MariaDB, Kafka, topics and migrations only (no services)
	@bash scripts/infra-up.sh

down: ## stop the processes `make up` started (data is kept)
	@bash scripts/down.sh

clean: ## `make down`, then delete .run/ (databases, Kafka data, logs)
	@bash scripts/clean.sh

status: ## table of the processes the local runtime manages
	@bash scripts/status.sh

test: deps ## infrastructure up, then lint, unit and integration tests
	@bash scripts/test.sh

test-compact: deps ## the integration tier again with every test's switch in the compact profile (SWITCH_PROFILE=compact), about 20 min
	@source scripts/env.sh && bash scripts/infra-up.sh && SWITCH_PROFILE=compact npm run test:integration

demo: up ## the switch up, then a demo transfer
	@source scripts/env.sh && node scripts/demo.js

fuzz: deps ## Schemathesis against the FSPIOP edges and the admin API of a switch of its own: FUZZ_SECONDS=1080 FUZZ_EXAMPLES= (per operation)
	@bash scripts/fuzz.sh

bench-transfers: deps infra-up ## transfers benchmark: MODE=kafka|http TRANSFERS=20000 IN_FLIGHT=1000 REPLICAS=1
	@node perf/bench-transfers.js --mode=$(or $(MODE),kafka) --transfers=$(or $(TRANSFERS),20000) --in-flight=$(or $(IN_FLIGHT),1000) --replicas=$(or $(REPLICAS),1)

bench-central-ledger: deps infra-up ## Mojaloop's central-ledger driven as bench-transfers MODE=kafka drives ours (installed into .run/central-ledger/ on first use): TRANSFERS=20000 IN_FLIGHT=300
	@node perf/bench-central-ledger.js --transfers=$(or $(TRANSFERS),20000) --in-flight=$(or $(IN_FLIGHT),300)

.PHONY: perf soak rate-search
perf: deps up ## k6 run against `make up` (perf/run.js): TPS=45 TRANSFERS=5400 (2 minutes) MODE=full|quote-transfer|transfer JWS_ALG=ES256|RS256|none DASHBOARD=1 (k6's live dashboard) FRESH=1 (own switch, in PROFILE=separate|compact) WARMUP=15 (seconds of ramp before the measured run; 0: none) CONVERSION_SHARE=0.2 (that share of the payments USD → EUR through an FXP) RTP_SHARE=0.1 (that share merchant-initiated: request to pay) RTP_OTP_SHARE=0.5 (that share of those approved by OTP) ISO20022_SHARE=0.5 (that share of the DFSPs registered as ISO 20022 DFSPs, speaking ISO 20022)
	@source scripts/env.sh && node perf/run.js --profile load --tps $(or $(TPS),45) --transfers $(or $(TRANSFERS),5400) --mode $(or $(MODE),full) --jws-alg $(or $(JWS_ALG),ES256) $(if $(DASHBOARD),--dashboard) $(if $(FRESH),--fresh --switch-profile $(or $(PROFILE),separate)) $(if $(WARMUP),--warmup $(WARMUP)) $(if $(CONVERSION_SHARE),--conversion-share $(CONVERSION_SHARE)) $(if $(RTP_SHARE),--rtp-share $(RTP_SHARE)) $(if $(RTP_OTP_SHARE),--rtp-otp-share $(RTP_OTP_SHARE)) $(if $(ISO20022_SHARE),--iso20022-share $(ISO20022_SHARE))

.PHONY: perf-bulk
perf-bulk: deps up ## bulk run against `make up` (perf/run.js --profile bulk, perf/k6/bulk.js): BULKS=100 bulks of BULK_SIZE=100 items at BULK_RATE=2 a second, JWS_ALG=ES256|RS256|none, FRESH=1 (own switch with the bulk handler)
	@source scripts/env.sh && node perf/run.js --profile bulk --bulks $(or $(BULKS),100) --bulk-size $(or $(BULK_SIZE),100) --bulk-rate $(or $(BULK_RATE),2) --jws-alg $(or $(JWS_ALG),ES256) $(if $(FRESH),--fresh)

soak: deps up ## 1,000,000 transfers at TPS=125 (about 2 h 15 min) against `make up`, settled every SETTLE_EVERY=300 s (perf/run.js --profile soak; p95 and RSS per process over time in the report) JWS_ALG=ES256|RS256|none CONVERSION_SHARE=0.1 (that share USD → EUR through an FXP; both currencies settled) ISO20022_SHARE=0.5 (that share of the DFSPs ISO 20022)
	@source scripts/env.sh && node perf/run.js --profile soak --tps $(or $(TPS),125) --transfers $(or $(TRANSFERS),1000000) --mode $(or $(MODE),full) --jws-alg $(or $(JWS_ALG),ES256) --settle-every $(or $(SETTLE_EVERY),300) $(if $(WARMUP),--warmup $(WARMUP)) $(if $(CONVERSION_SHARE),--conversion-share $(CONVERSION_SHARE)) $(if $(ISO20022_SHARE),--iso20022-share $(ISO20022_SHARE))

rate-search: deps up ## one run per rate against `make up` (in its PROFILE) until one fails (perf/rate-search.js): RATES=150,200,250,300 RUN_SECONDS=60 MODE=full JWS_ALG=ES256|RS256|none BEYOND=0 WARMUP=15 FRESH=1 (a switch of its own, in PROFILE=separate|compact)
	@source scripts/env.sh && node perf/rate-search.js --rates $(or $(RATES),150,200,250,300) --seconds $(or $(RUN_SECONDS),60) --mode $(or $(MODE),full) --jws-alg $(or $(JWS_ALG),ES256) --beyond $(or $(BEYOND),0) $(if $(WARMUP),--warmup $(WARMUP)) $(if $(FRESH),--fresh --switch-profile $(or $(PROFILE),separate))

.PHONY: image cluster-test
image: ## the switch's image from the Dockerfile without a Docker daemon (buildah, local Debian base): .run/images/fspiop-switch-<tag>.tar; IMAGE_TAG= ARGS=loadtest (the in-cluster load test's image) ARGS=all (both, and the dev Kafka, MySQL and k6 stand-ins)
	@DEPS_CLUSTER=1 bash scripts/deps.sh && bash scripts/image.sh $(or $(ARGS),switch)

cluster-test: ## the chart on a real one-node Kubernetes here: install, helm test, a payment, upgrade and rollback under load, NetworkPolicy (test/cluster); PROFILE=compact: the chart's compact profile; KEEP_CLUSTER=1 leaves it up
	@DEPS_CLUSTER=1 bash scripts/deps.sh && bash test/cluster/cluster-test.sh

.PHONY: dead-letters
dead-letters: ## list dead letters of every partition (ARGS="list [handler]"), or replay them after a fix (ARGS="replay <handler> all|<partition>:<offset> ...")
	@source scripts/env.sh && node tools/dead-letters.js $(or $(ARGS),list)

.PHONY: chaos chaos-short
chaos: deps ## fault campaign under load (perf/chaos.js) on a MariaDB and Kafka of its own: TPS=45 ONLY=kill-position,kafka-restart SKIP_POISON=1 SLOW=0.5 (that share of the CPU taken from the switch: a cgroup quota, else competitor processes; SLOW_BY=cgroup|competitor) PROFILE=separate|compact (compact: a kill takes down the component's whole host)
	@source scripts/env.sh && node perf/chaos.js --tps $(or $(TPS),45) $(if $(PROFILE),--profile $(PROFILE)) $(if $(ONLY),--only $(ONLY)) $(if $(SKIP_POISON),--skip-poison) $(if $(SLOW),--slow $(SLOW)) $(if $(SLOW_BY),--slow-by $(SLOW_BY))

chaos-short: deps ## the campaign CI runs (.ci/run): SIGKILL position, Kafka and MariaDB restarts at TPS=20, a row that does not recover fails; non-zero exit if any fails; SLOW= and PROFILE= as for chaos
	@source scripts/env.sh && node perf/chaos.js --short $(if $(PROFILE),--profile $(PROFILE)) $(if $(TPS),--tps $(TPS)) $(if $(SLOW),--slow $(SLOW)) $(if $(SLOW_BY),--slow-by $(SLOW_BY))
