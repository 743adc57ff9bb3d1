#!/usr/bin/env bash
# `make cluster-test`: the Helm chart on a real one-node Kubernetes on this machine.
#   1. builds what the cluster needs (test/cluster/k8s-cluster.sh build; fast when built) and the
#      images (scripts/image.sh: the switch under two tags, so that an upgrade has a new tag
#      to roll to, the load test's image the simulators and the provisioning Job run, and the
#      dev stand-ins for Kafka, MySQL and k6);
#   2. starts the cluster (test/cluster/k8s-cluster.sh up) and loads the images into its containerd;
#   3. runs test/cluster/ against it (install, helm test, a payment, upgrade and rollback under
#      load, the NetworkPolicy);
#   4. stops the cluster and removes what it changed on the host, pass or fail, unless
#      KEEP_CLUSTER=1 (then `bash test/cluster/k8s-cluster.sh down` when done).
# PROFILE=compact installs the chart's compact profile (one Deployment per host) instead of one
# Deployment per component; the tests are the same.
set -euo pipefail
source "$(dirname "${BASH_SOURCE[0]}")/../../scripts/env.sh"
source "$REPO_ROOT/scripts/lib.sh"

# Fixed tags: the cluster's containerd starts empty and each run imports them afresh.
IMAGE_TAG=test-a
UPGRADE_IMAGE_TAG=test-b
CLUSTER="$REPO_ROOT/test/cluster/k8s-cluster.sh"

bash "$CLUSTER" build
IMAGE_TAG="$IMAGE_TAG" bash "$REPO_ROOT/scripts/image.sh" all
IMAGE_TAG="$UPGRADE_IMAGE_TAG" bash "$REPO_ROOT/scripts/image.sh" switch

# The tests' report is kept, and what failed is printed again after the teardown, whose own
# page of output would otherwise bury it.
TESTS_LOG="$RUN_DIR/logs/cluster-tests.log"
mkdir -p "$(dirname "$TESTS_LOG")"
: > "$TESTS_LOG"
print_failures() {
  if grep -q 'failing tests:' "$TESTS_LOG"; then
    echo "[cluster-test] what failed (the whole report: $TESTS_LOG):"
    sed -n '/failing tests:/,$p' "$TESTS_LOG" | head -150
  fi
}
if [[ "${KEEP_CLUSTER:-0}" != 1 ]]; then
  trap 'bash "$CLUSTER" down; print_failures' EXIT
fi
bash "$CLUSTER" up
bash "$CLUSTER" load "$RUN_DIR/images/fspiop-switch-$IMAGE_TAG.tar" "$RUN_DIR/images/fspiop-switch-$UPGRADE_IMAGE_TAG.tar" \
  "$RUN_DIR/images/fspiop-switch-loadtest-$IMAGE_TAG.tar" "$RUN_DIR"/images/fspiop-switch-dev-*.tar "$RUN_DIR"/images/fspiop-switch-k6-*.tar

# Whether the cluster enforces NetworkPolicies (its controller is running and in sync).
cluster_status=$(bash "$CLUSTER" status)
network_policy=none
[[ "$cluster_status" == *"NetworkPolicy: enforced"* ]] && network_policy=enforced

KUBECONFIG="$RUN_DIR/cluster/kubeconfig" IMAGE_TAG="$IMAGE_TAG" UPGRADE_IMAGE_TAG="$UPGRADE_IMAGE_TAG" \
  BUSYBOX_IMAGE=localhost/busybox:1.35.0 NETWORK_POLICY="$network_policy" SWITCH_PROFILE="${PROFILE:-separate}" \
  node --test --test-reporter=spec "$REPO_ROOT/test/cluster/" 2>&1 | tee "$TESTS_LOG"
