#!/usr/bin/env bash
# A real Kubernetes API server (+ etcd) for the chart tests, without containers or kubelet:
# objects are stored and validated (schemas, CRDs, server-side dry run), pods never run.
#
#   test/cluster/k8s-apiserver.sh build   builds .tools/bin/kube-apiserver and .tools/bin/etcd from
#                                    the Go module proxy (modules in test/cluster/k8s/); a no-op
#                                    when both exist. Slow once: ~37 min measured on this
#                                    2-core machine under load (etcd ~3, kube-apiserver ~34).
#   test/cluster/k8s-apiserver.sh crds    copies the ServiceMonitor/PodMonitor/PrometheusRule and KEDA
#                                    CRDs from their Go modules into .tools/crds/ (part of build)
#   test/cluster/k8s-apiserver.sh start   starts etcd and kube-apiserver under DIR (a fresh temp
#                                    dir by default), waits for /readyz, writes DIR/kubeconfig
#                                    and prints DIR. Ports are picked free ones.
#   test/cluster/k8s-apiserver.sh stop DIR  stops exactly the two processes started in DIR (PIDs).
#
# Env: K8S_TOOLS_BIN (default <repo>/.tools/bin), K8S_DIR (start: where to run).
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="${K8S_TOOLS_BIN:-$REPO_ROOT/.tools/bin}"

say() { echo "[k8s-apiserver] $*" >&2; }

build() {
  mkdir -p "$BIN"
  # No -trimpath: the same flags as `go install` (helm) so the k8s.io packages helm already
  # compiled come from the build cache. Built into a temp name and renamed, so an interrupted build never leaves a binary that
  # looks complete.
  if [[ ! -x "$BIN/etcd" ]]; then
    say "building etcd"
    (cd "$REPO_ROOT/test/cluster/k8s/etcd" && go build -ldflags=-s -o "$BIN/etcd.tmp" . && mv "$BIN/etcd.tmp" "$BIN/etcd")
  fi
  if [[ ! -x "$BIN/kube-apiserver" ]]; then
    say "building kube-apiserver"
    (cd "$REPO_ROOT/test/cluster/k8s/apiserver" && go build -ldflags=-s -o "$BIN/kube-apiserver.tmp" . &&
      mv "$BIN/kube-apiserver.tmp" "$BIN/kube-apiserver")
  fi
  say "built: $BIN/etcd $BIN/kube-apiserver"
  crds
}

# The CRDs the chart's optional objects need, from the Go modules that publish them
# (shared/crds/README.md), copied to .tools/crds/ for the tests.
PROMETHEUS_OPERATOR_MODULE=github.com/prometheus-operator/prometheus-operator@v0.77.1
KEDA_MODULE=github.com/kedacore/keda/v2@v2.15.1
crds() {
  local out="$BIN/../crds" dir
  mkdir -p "$out"
  if [[ ! -f "$out/monitoring.coreos.com_servicemonitors.yaml" ]]; then
    dir=$(go mod download -json "$PROMETHEUS_OPERATOR_MODULE" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
    for kind in servicemonitors podmonitors prometheusrules; do
      cp "$dir/example/prometheus-operator-crd/monitoring.coreos.com_$kind.yaml" "$out/"
    done
  fi
  if [[ ! -f "$out/keda.sh_scaledobjects.yaml" ]]; then
    dir=$(go mod download -json "$KEDA_MODULE" | sed -n 's/^\t"Dir": "\(.*\)",$/\1/p')
    for kind in scaledobjects triggerauthentications; do
      cp "$dir/config/crd/bases/keda.sh_$kind.yaml" "$out/"
    done
  fi
  chmod u+w "$out"/*.yaml
  say "CRDs in $out: $(ls "$out" | tr '\n' ' ')"
}

# A base port with COUNT free ports after it, from below the ephemeral range (scripts/lib/ports.js):
# a port the system hands out for listen(0) can be taken by an outgoing connection before etcd or
# the apiserver binds it.
free_port_range() {
  node --input-type=module -e "import { freePortRange } from '$REPO_ROOT/scripts/lib/ports.js'; console.log(await freePortRange($1));"
}

start() {
  [[ -x "$BIN/etcd" && -x "$BIN/kube-apiserver" ]] || { say "binaries missing: run '$0 build'"; exit 2; }
  local dir="${K8S_DIR:-$(mktemp -d -t k8s-apiserver.XXXXXX)}"
  mkdir -p "$dir/etcd-data" "$dir/pki"
  local etcd_client etcd_peer api_port
  etcd_client=$(free_port_range 3); etcd_peer=$((etcd_client + 1)); api_port=$((etcd_client + 2))

  "$BIN/etcd" --data-dir "$dir/etcd-data" --name chart-test \
    --listen-client-urls "http://127.0.0.1:$etcd_client" --advertise-client-urls "http://127.0.0.1:$etcd_client" \
    --listen-peer-urls "http://127.0.0.1:$etcd_peer" --initial-advertise-peer-urls "http://127.0.0.1:$etcd_peer" \
    --initial-cluster "chart-test=http://127.0.0.1:$etcd_peer" \
    --quota-backend-bytes 1073741824 --log-level warn >"$dir/etcd.log" 2>&1 &
  echo $! >"$dir/etcd.pid"

  # Service-account tokens need a signing key; the serving cert is self-signed by the apiserver
  # itself (--cert-dir). A static token file authenticates the test client as a superuser
  # (AlwaysAllow authorizes everything anyway).
  openssl genrsa -out "$dir/pki/sa.key" 2048 2>/dev/null
  local token
  token=$(od -An -N16 -tx1 /dev/urandom | tr -d ' \n')
  echo "$token,chart-test,chart-test,system:masters" >"$dir/pki/tokens.csv"

  "$BIN/kube-apiserver" \
    --etcd-servers "http://127.0.0.1:$etcd_client" \
    --bind-address 127.0.0.1 --secure-port "$api_port" --cert-dir "$dir/pki" \
    --token-auth-file "$dir/pki/tokens.csv" --authorization-mode AlwaysAllow \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$dir/pki/sa.key" --service-account-signing-key-file "$dir/pki/sa.key" \
    --service-cluster-ip-range 10.96.0.0/16 \
    --disable-admission-plugins ServiceAccount \
    --enable-priority-and-fairness=false \
    >"$dir/apiserver.log" 2>&1 &
  echo $! >"$dir/apiserver.pid"

  cat >"$dir/kubeconfig" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: chart-test
  cluster: {server: "https://127.0.0.1:$api_port", insecure-skip-tls-verify: true}
users:
- name: chart-test
  user: {token: "$token"}
contexts:
- name: chart-test
  context: {cluster: chart-test, user: chart-test, namespace: default}
current-context: chart-test
EOF
  chmod 600 "$dir/kubeconfig"

  local deadline=$((SECONDS + ${K8S_START_TIMEOUT:-180}))
  until curl -skf -H "Authorization: Bearer $token" "https://127.0.0.1:$api_port/readyz" >/dev/null 2>&1; do
    if ((SECONDS > deadline)) || ! kill -0 "$(cat "$dir/apiserver.pid")" 2>/dev/null; then
      say "apiserver did not become ready; last log lines:"
      tail -n 20 "$dir/apiserver.log" >&2
      stop "$dir"
      exit 1
    fi
    sleep 1
  done
  # No controller-manager: namespaces get no default ServiceAccount (hence the ServiceAccount
  # admission plugin is off above); the apiserver itself creates the default namespace.
  say "ready on https://127.0.0.1:$api_port (dir $dir)"
  echo "$dir"
}

stop() {
  local dir="$1" name pid
  for name in apiserver etcd; do
    [[ -f "$dir/$name.pid" ]] || continue
    pid=$(cat "$dir/$name.pid")
    kill "$pid" 2>/dev/null || true
    for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$pid" 2>/dev/null || true
    rm -f "$dir/$name.pid"
  done
}

case "${1:-}" in
  build) build ;;
  crds) crds ;;
  start) start ;;
  stop) [[ -n "${2:-}" ]] || { say "usage: $0 stop DIR"; exit 2; }; stop "$2" ;;
  *) say "usage: $0 build | start | stop DIR"; exit 2 ;;
esac
