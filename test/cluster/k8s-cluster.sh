#!/usr/bin/env bash
# A real one-node Kubernetes cluster on this machine, every component a host process, pods run
# by containerd with runc, for proving the Helm chart (charts/fspiop-switch) where no registry,
# no Docker and no systemd are available. Run as root.
#
#   test/cluster/k8s-cluster.sh build       builds what the cluster needs into .tools/bin (etcd and
#                                      kube-apiserver through test/cluster/k8s-apiserver.sh build, the
#                                      node components, kubectl, CoreDNS, the NetworkPolicy
#                                      controller, the pause process) and the pause and busybox
#                                      image archives into .run/images; a fast no-op when built
#   test/cluster/k8s-cluster.sh up          starts the cluster, waits until the node is Ready, the DNS
#                                      answers and a smoke pod has run; writes CLUSTER_DIR/kubeconfig
#                                      (cluster-admin); says so and does nothing when already up
#   test/cluster/k8s-cluster.sh down        stops everything `up` started and undoes what it changed on
#                                      the host; safe after a half-failed `up` and when already down
#   test/cluster/k8s-cluster.sh purge       down, then removes CLUSTER_DIR with its PKI and images
#   test/cluster/k8s-cluster.sh load IMAGE.tar...  imports image archives (docker save or OCI) into the
#                                      cluster's containerd, namespace k8s.io, for pods with
#                                      imagePullPolicy IfNotPresent or Never
#   test/cluster/k8s-cluster.sh status      each component's process, the node, DNS and whether
#                                      NetworkPolicies are enforced
#   test/cluster/k8s-cluster.sh kubectl ARGS...  kubectl with the cluster's kubeconfig
#   test/cluster/k8s/cluster/verify.sh      proves the running cluster (Services, DNS, logs/exec, Jobs,
#                                      rolling updates, restricted pods, NetworkPolicies)
#
# Measured on this 2-core machine: `up` 11-14 s once built, `down` 3-4 s, `build` when built
# 0.3 s; test/cluster/k8s/cluster/verify.sh 25-31 s.
#
# Env: CLUSTER_DIR (default <repo>/.run/cluster), K8S_TOOLS_BIN (default <repo>/.tools/bin),
# CLUSTER_UP_TIMEOUT (seconds for each wait of `up`, default 120).
#
# Components, addresses and ports (NODE_IP is the address of the default route's interface):
#   etcd                      http://127.0.0.1:2379 (peer 127.0.0.1:2380), data in CLUSTER_DIR/etcd
#   kube-apiserver            https://0.0.0.0:6443, advertised as NODE_IP:6443; service CIDR
#                             10.96.0.0/16 (kubernetes = 10.96.0.1); authorization Node,RBAC;
#                             the default admission plugins (ServiceAccount, NodeRestriction, ...)
#   kube-controller-manager   https://127.0.0.1:10257; all default controllers, service-account
#                             credentials, node CIDRs from 10.244.0.0/16
#   kube-scheduler            https://127.0.0.1:10259
#   containerd                unix socket CLUSTER_DIR/containerd/containerd.sock (root, state and
#                             runc root under CLUSTER_DIR/containerd), CRI with cgroupfs
#   kubelet                   https://0.0.0.0:10250 (healthz 127.0.0.1:10248), root dir
#                             CLUSTER_DIR/kubelet, pod logs CLUSTER_DIR/pod-logs
#   kube-proxy                iptables mode; metrics 127.0.0.1:10249, healthz 127.0.0.1:10256
#   CNI                       bridge cni0, pods 10.244.0.0/24, gateway 10.244.0.1, host-local IPAM,
#                             ipMasq, hairpin, portmap, loopback (plugins from /usr/lib/cni)
#   CoreDNS                   10.244.0.1:53 udp/tcp (health 127.0.0.1:18180, ready 127.0.0.1:18181);
#                             also the kube-dns Service 10.96.0.10 in kube-system
#   NetworkPolicy controller  k8s-netpol (test/cluster/k8s/cluster/netpol), iptables chains NETPOL-*
#                             hooked first in FORWARD; health 127.0.0.1:18182
#   Images                    localhost/pause:3.10 and localhost/busybox:<Debian version>, built
#                             from scratch by `build` (no registry is reachable)
#
# How this node deviates from a production node, and why:
#   - Every component is a host process, not a static pod or a systemd unit: PID 1 is not
#     systemd and the control plane's own images could not be pulled.
#   - The cluster DNS is CoreDNS as a host process on the bridge's gateway address, and the pods'
#     resolv.conf names that address rather than the kube-dns ClusterIP, so DNS does not depend on
#     kube-proxy; the kube-dns Service exists for software that looks it up.
#   - NetworkPolicies are enforced by a small controller of this project (k8s-netpol), because
#     kube-router, the controller first chosen, cannot be had: the Go module proxy answers
#     "403 Forbidden: This module version is not available" for github.com/cloudnativelabs/kube-router/v2
#     (and for sigs.k8s.io/kube-network-policies). It covers policy types Ingress and Egress, pod,
#     namespace and ipBlock peers, ports, named ports and port ranges, for pod-to-pod traffic;
#     traffic between a pod and the node itself (DNS, kubelet probes) is never filtered.
#   - No certificate rotation or TLS bootstrap: the PKI is made once with openssl (EC P-256,
#     ten years) and kept across down/up in CLUSTER_DIR/pki; no front proxy, so no aggregated APIs.
#   - cgroup v1 with the cgroupfs driver (failCgroupV1: false), swap allowed, eviction only when
#     memory or disk are nearly exhausted: the machine is shared with the project's other work.
#   - containerd restricts OOM score adjustments to its own score (restrict_oom_score_adj): root
#     here lacks CAP_SYS_RESOURCE, so runc cannot give the pause container its usual -998 and
#     every sandbox failed with "can't get final child's PID from pipe: EOF". For the same reason
#     no process can raise an rlimit above the host's hard limit (NOFILE 20000).
#   - The kubelet's root dir is CLUSTER_DIR/kubelet and its pod logs CLUSTER_DIR/pod-logs, but
#     two of its paths are fixed: /var/log/containers (log links) and
#     /var/lib/kubelet/device-plugins/kubelet.sock; `down` removes both when it made them.
#   - The DNS answers for cluster.local live 5 s (usually 30 s), for tests that re-create Services.
#   - One node, no leader election, no high availability; etcd without TLS on loopback only.
#   - The service CIDR is routed onto the pod bridge, so a ClusterIP without rules never leaves
#     the machine through the default route.
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
BIN="${K8S_TOOLS_BIN:-$REPO_ROOT/.tools/bin}"
CLUSTER_DIR="${CLUSTER_DIR:-$REPO_ROOT/.run/cluster}"
IMAGES_DIR="$REPO_ROOT/.run/images"
TEMPLATES="$REPO_ROOT/test/cluster/k8s/cluster/templates"
UP_TIMEOUT="${CLUSTER_UP_TIMEOUT:-120}"

PKI="$CLUSTER_DIR/pki"
CONF="$CLUSTER_DIR/config"
RUN="$CLUSTER_DIR/run"
LOGS="$CLUSTER_DIR/logs"
HOST_STATE="$CLUSTER_DIR/host-state"
KUBECONFIG_FILE="$CLUSTER_DIR/kubeconfig"
CONTAINERD_SOCK="$CLUSTER_DIR/containerd/containerd.sock"

SERVICE_CIDR=10.96.0.0/16
API_SERVICE_IP=10.96.0.1
DNS_SERVICE_IP=10.96.0.10
CLUSTER_CIDR=10.244.0.0/16
POD_CIDR=10.244.0.0/24
BRIDGE=cni0
BRIDGE_IP=10.244.0.1
DNS_HEALTH_PORT=18180
DNS_READY_PORT=18181
NETPOL_HEALTH_PORT=18182
API_PORT=6443
CNI_BIN_DIR=/usr/lib/cni
PAUSE_IMAGE=localhost/pause:3.10

# The host processes in the order `up` starts them; `down` stops them in reverse.
COMPONENTS=(etcd kube-apiserver containerd kube-controller-manager kube-scheduler kube-proxy coredns kubelet k8s-netpol)

# Kernel settings the node changes (the CNI bridge and kube-proxy need forwarding through
# iptables; the kubelet sets the vm/kernel ones itself), recorded on `up` and restored on `down`.
HOST_SYSCTLS=(net.ipv4.ip_forward net.bridge.bridge-nf-call-iptables net.bridge.bridge-nf-call-ip6tables
  vm.overcommit_memory vm.panic_on_oom kernel.panic kernel.panic_on_oops kernel.keys.root_maxkeys
  kernel.keys.root_maxbytes net.ipv4.conf.all.route_localnet)
# Host directories the node's components create if they are missing; `down` removes the ones
# that were missing before `up`, when nothing else has put files in them.
# The kubelet's device-plugin socket is at a fixed /var/lib/kubelet/device-plugins/kubelet.sock
# whatever its root dir.
HOST_DIRS=(/var/lib/cni /var/log/containers /run/netns /run/containerd /var/lib/kubelet)

say() { echo "[k8s-cluster] $*" >&2; }
die() { say "error: $*"; exit 1; }

require_root() { ((EUID == 0)) || die "must run as root (containerd, the kubelet and iptables need it)"; }

# --- build -------------------------------------------------------------------------------------

# Builds one Go package into $BIN/NAME unless the binary is newer than every source file of its
# module: `go build` with a warm cache would be fast too, but this makes a built tree a true no-op.
#   build_go MODULE_DIR PACKAGE NAME LDFLAGS [ENV=VALUE...]
build_go() {
  local module_dir="$1" package="$2" name="$3" ldflags="$4" started
  shift 4
  if [[ -x "$BIN/$name" ]] && [[ -z "$(find "$module_dir" \( -name '*.go' -o -name go.mod -o -name go.sum \) -newer "$BIN/$name" -print -quit)" ]]; then
    return 0
  fi
  say "building $name"
  started=$SECONDS
  # Into a temp name and renamed, so an interrupted build never leaves a binary that looks complete.
  (cd "$module_dir" && env "$@" go build -ldflags="$ldflags" -o "$BIN/$name.tmp" "$package") ||
    die "building $name from $module_dir ($package) failed"
  mv "$BIN/$name.tmp" "$BIN/$name"
  say "built $name in $((SECONDS - started)) s"
}

# The version a Kubernetes binary reports, which `go build` of the module leaves at
# v0.0.0-master; the release's version is stamped in as its own build does.
kubernetes_version() { awk '$1 == "k8s.io/kubernetes" {print $2; exit}' "$REPO_ROOT/test/cluster/k8s/node/go.mod"; }
version_ldflags() {
  local version="$1" minor
  minor="${version#v1.}"
  minor="${minor%%.*}"
  echo "-X k8s.io/component-base/version.gitVersion=$version -X k8s.io/component-base/version.gitMajor=1" \
    "-X k8s.io/component-base/version.gitMinor=$minor -X k8s.io/component-base/version.gitTreeState=clean" \
    "-X k8s.io/component-base/version.gitCommit=$version -X k8s.io/client-go/pkg/version.gitVersion=$version"
}
reported_version() {
  if [[ "$1" == kubectl ]]; then "$BIN/kubectl" version --client 2>/dev/null | head -n 1; else "$BIN/$1" --version 2>/dev/null; fi
}

build() {
  mkdir -p "$BIN"
  "$REPO_ROOT/test/cluster/k8s-apiserver.sh" build
  local node_module="$REPO_ROOT/test/cluster/k8s/node" cluster_module="$REPO_ROOT/test/cluster/k8s/cluster" name
  local version
  version=$(kubernetes_version)
  for name in kubelet kube-controller-manager kube-scheduler kube-proxy kubectl; do
    # A binary built before the version was stamped in is rebuilt (relinked, mostly).
    [[ ! -x "$BIN/$name" || "$(reported_version "$name")" == *"$version"* ]] || rm -f "$BIN/$name"
    build_go "$node_module" "./$name" "$name" "-s $(version_ldflags "$version")"
  done
  build_go "$REPO_ROOT/test/cluster/k8s/coredns" . coredns -s
  build_go "$cluster_module" ./cri-reset cri-reset -s
  build_go "$cluster_module" ./netpol k8s-netpol -s
  # Static, so the pause image holds nothing but this one file.
  build_go "$cluster_module" ./pause k8s-pause -s CGO_ENABLED=0
  build_images
  say "built: $BIN/{etcd,kube-apiserver,kubelet,kube-controller-manager,kube-scheduler,kube-proxy,kubectl,coredns,k8s-netpol,cri-reset,k8s-pause}"
}

# Writes a one-layer image archive in the `docker save` layout (manifest.json, config, layer
# tar), which `ctr images import` reads, from a root file system directory. The layer tar is
# reproducible: sorted names, zero times, root owner.
#   write_image_archive OUT.tar ROOTFS CONFIG_JSON TAG...
write_image_archive() {
  local out="$1" rootfs="$2" container_config="$3" work layer_digest config_digest tags="" tag
  shift 3
  for tag in "$@"; do tags+="${tags:+,}\"$tag\""; done
  work=$(mktemp -d)
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$rootfs" -cf "$work/layer.tar" .
  layer_digest=$(sha256sum "$work/layer.tar" | cut -d' ' -f1)
  mkdir "$work/$layer_digest"
  mv "$work/layer.tar" "$work/$layer_digest/layer.tar"
  printf '{"architecture":"%s","os":"linux","config":%s,"rootfs":{"type":"layers","diff_ids":["sha256:%s"]}}' \
    "$(dpkg --print-architecture)" "$container_config" "$layer_digest" >"$work/config.json"
  config_digest=$(sha256sum "$work/config.json" | cut -d' ' -f1)
  mv "$work/config.json" "$work/$config_digest.json"
  printf '[{"Config":"%s.json","RepoTags":[%s],"Layers":["%s/layer.tar"]}]' \
    "$config_digest" "$tags" "$layer_digest" >"$work/manifest.json"
  tar --sort=name --mtime=@0 --owner=0 --group=0 --numeric-owner -C "$work" -cf "$out.tmp" manifest.json "$config_digest.json" "$layer_digest"
  mv "$out.tmp" "$out"
  rm -rf "$work"
}

# The busybox image's tags: the Debian package version made a valid tag (no epoch, '+' and '~'
# become '-'), and the upstream version alone for tests that need a name that outlives security
# updates.
busybox_tags() {
  local version
  version=$(dpkg-query -W -f '${Version}' busybox-static 2>/dev/null) ||
    die "busybox-static is not installed (apt-get install busybox-static); the busybox image is made from it"
  version="${version#*:}"
  echo "localhost/busybox:$(tr '+~' '--' <<<"$version") localhost/busybox:${version%%-*}"
}

build_images() {
  mkdir -p "$IMAGES_DIR"
  local rootfs applet
  if [[ ! -f "$IMAGES_DIR/k8s-pause.tar" || "$BIN/k8s-pause" -nt "$IMAGES_DIR/k8s-pause.tar" ]]; then
    rootfs=$(mktemp -d)
    install -m 0755 "$BIN/k8s-pause" "$rootfs/pause"
    write_image_archive "$IMAGES_DIR/k8s-pause.tar" "$rootfs" '{"Entrypoint":["/pause"]}' "$PAUSE_IMAGE"
    rm -rf "$rootfs"
    say "image $PAUSE_IMAGE: $IMAGES_DIR/k8s-pause.tar ($(du -k "$IMAGES_DIR/k8s-pause.tar" | cut -f1) KiB)"
  fi
  local tags
  tags=$(busybox_tags)
  if [[ ! -f "$IMAGES_DIR/busybox.tar" || /bin/busybox -nt "$IMAGES_DIR/busybox.tar" || "$(cat "$IMAGES_DIR/busybox.ref" 2>/dev/null)" != "${tags%% *}" ]]; then
    rootfs=$(mktemp -d)
    mkdir -p "$rootfs"/{bin,etc,root,usr,tmp,var}
    chmod 1777 "$rootfs/tmp"
    install -m 0755 /bin/busybox "$rootfs/bin/busybox"
    for applet in $(/bin/busybox --list); do
      [[ "$applet" == busybox ]] || ln -s busybox "$rootfs/bin/$applet"
    done
    # One directory for every applet, reachable by the usual paths (#!/usr/bin/env ...).
    ln -s bin "$rootfs/sbin"
    ln -s ../bin "$rootfs/usr/bin"
    ln -s ../bin "$rootfs/usr/sbin"
    printf 'root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n' >"$rootfs/etc/passwd"
    printf 'root:x:0:\nnogroup:x:65534:\n' >"$rootfs/etc/group"
    # shellcheck disable=SC2086 # two tags, split on purpose
    write_image_archive "$IMAGES_DIR/busybox.tar" "$rootfs" \
      '{"Env":["PATH=/usr/sbin:/usr/bin:/sbin:/bin"],"Cmd":["sh"]}' $tags
    echo "${tags%% *}" >"$IMAGES_DIR/busybox.ref"
    rm -rf "$rootfs"
    say "image ${tags// / and }: $IMAGES_DIR/busybox.tar ($(du -k "$IMAGES_DIR/busybox.tar" | cut -f1) KiB)"
  fi
}

require_built() {
  local name missing=()
  for name in etcd kube-apiserver kubelet kube-controller-manager kube-scheduler kube-proxy kubectl coredns k8s-netpol cri-reset; do
    [[ -x "$BIN/$name" ]] || missing+=("$name")
  done
  [[ -f "$IMAGES_DIR/k8s-pause.tar" && -f "$IMAGES_DIR/busybox.tar" ]] || missing+=("images in $IMAGES_DIR")
  ((${#missing[@]} == 0)) || die "not built: ${missing[*]} (run '$0 build')"
  local tool
  for tool in containerd containerd-shim-runc-v2 runc ctr iptables iptables-save iptables-restore ip6tables ipset conntrack openssl ip; do
    command -v "$tool" >/dev/null || die "$tool is not installed (scripts/deps.sh installs containerd, runc, iptables, ipset, conntrack)"
  done
}

# --- host facts --------------------------------------------------------------------------------

node_ip() {
  local dev ip
  dev=$(ip -4 route show default | awk '{for (i = 1; i < NF; i++) if ($i == "dev") {print $(i + 1); exit}}')
  [[ -n "$dev" ]] || die "no IPv4 default route: cannot tell the node's address"
  ip=$(ip -4 -o addr show dev "$dev" | awk '{split($4, a, "/"); print a[1]; exit}')
  [[ -n "$ip" ]] || die "interface $dev of the default route has no IPv4 address"
  echo "$ip"
}

node_name() { hostname | tr '[:upper:]' '[:lower:]'; }

# --- PKI ---------------------------------------------------------------------------------------

# Issues PKI/NAME.{key,crt} signed by the cluster CA unless it exists (serving certificates are
# reissued when the node's address changed, see make_pki).
#   issue_cert NAME SUBJECT EXTENDED_KEY_USAGE [SUBJECT_ALT_NAMES]
issue_cert() {
  local name="$1" subject="$2" usage="$3" sans="${4:-}"
  [[ -f "$PKI/$name.crt" ]] && return 0
  openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes \
    -keyout "$PKI/$name.key" -subj "$subject" -out "$PKI/$name.csr" 2>/dev/null ||
    die "openssl could not make the key and request for $name"
  {
    echo "basicConstraints = critical, CA:FALSE"
    echo "keyUsage = critical, digitalSignature, keyEncipherment"
    echo "extendedKeyUsage = $usage"
    [[ -z "$sans" ]] || echo "subjectAltName = $sans"
  } >"$PKI/$name.ext"
  openssl x509 -req -in "$PKI/$name.csr" -CA "$PKI/ca.crt" -CAkey "$PKI/ca.key" -CAcreateserial \
    -days 3650 -sha256 -extfile "$PKI/$name.ext" -out "$PKI/$name.crt" 2>/dev/null ||
    die "openssl could not sign the certificate for $name"
  rm -f "$PKI/$name.csr" "$PKI/$name.ext"
  chmod 600 "$PKI/$name.key"
}

# Writes a kubeconfig with the client certificate embedded, so it can be copied elsewhere.
#   write_kubeconfig FILE CERT_NAME USER
write_kubeconfig() {
  local file="$1" cert="$2" user="$3"
  cat >"$file.tmp" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: fspiop-cluster
  cluster:
    server: https://127.0.0.1:$API_PORT
    certificate-authority-data: $(base64 -w0 "$PKI/ca.crt")
users:
- name: $user
  user:
    client-certificate-data: $(base64 -w0 "$PKI/$cert.crt")
    client-key-data: $(base64 -w0 "$PKI/$cert.key")
contexts:
- name: fspiop-cluster
  context: {cluster: fspiop-cluster, user: $user, namespace: default}
current-context: fspiop-cluster
EOF
  chmod 600 "$file.tmp"
  mv "$file.tmp" "$file"
}

make_pki() {
  local ip="$1" node="$2"
  mkdir -p "$PKI"
  chmod 700 "$PKI"
  if [[ ! -f "$PKI/ca.crt" ]]; then
    openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 3650 -sha256 \
      -keyout "$PKI/ca.key" -out "$PKI/ca.crt" -subj "/CN=fspiop-switch-cluster-ca" \
      -addext "basicConstraints=critical,CA:TRUE" -addext "keyUsage=critical,keyCertSign,cRLSign,digitalSignature" \
      2>/dev/null || die "openssl could not make the cluster CA"
    chmod 600 "$PKI/ca.key"
  fi
  if [[ ! -f "$PKI/sa.key" ]]; then
    openssl genpkey -algorithm EC -pkeyopt ec_paramgen_curve:P-256 -out "$PKI/sa.key" 2>/dev/null ||
      die "openssl could not make the service-account signing key"
    openssl pkey -in "$PKI/sa.key" -pubout -out "$PKI/sa.pub" 2>/dev/null
    chmod 600 "$PKI/sa.key"
  fi
  # The serving certificates name the node's address: reissue them when it changed.
  if [[ "$(cat "$PKI/node" 2>/dev/null)" != "$ip $node" ]]; then
    rm -f "$PKI/kube-apiserver.crt" "$PKI/kubelet.crt" "$PKI/kubelet-client.crt"
    echo "$ip $node" >"$PKI/node"
  fi
  issue_cert kube-apiserver "/CN=kube-apiserver" serverAuth \
    "DNS:kubernetes, DNS:kubernetes.default, DNS:kubernetes.default.svc, DNS:kubernetes.default.svc.cluster.local, DNS:localhost, DNS:$node, IP:127.0.0.1, IP:$ip, IP:$API_SERVICE_IP"
  # The apiserver's identity towards kubelets (kubectl logs/exec go through it).
  issue_cert kube-apiserver-kubelet-client "/O=system:masters/CN=kube-apiserver-kubelet-client" clientAuth
  issue_cert kubelet "/CN=$node" serverAuth "DNS:$node, DNS:localhost, IP:$ip, IP:127.0.0.1"
  issue_cert kubelet-client "/O=system:nodes/CN=system:node:$node" clientAuth
  issue_cert admin "/O=system:masters/CN=cluster-admin" clientAuth
  issue_cert kube-controller-manager "/CN=system:kube-controller-manager" clientAuth
  issue_cert kube-scheduler "/CN=system:kube-scheduler" clientAuth
  issue_cert kube-proxy "/CN=system:kube-proxy" clientAuth
  issue_cert cluster-dns "/CN=cluster-dns" clientAuth
  issue_cert cluster-netpol "/CN=cluster-netpol" clientAuth
  write_kubeconfig "$KUBECONFIG_FILE" admin cluster-admin
  write_kubeconfig "$PKI/kubelet.kubeconfig" kubelet-client "system:node:$node"
  write_kubeconfig "$PKI/kube-controller-manager.kubeconfig" kube-controller-manager system:kube-controller-manager
  write_kubeconfig "$PKI/kube-scheduler.kubeconfig" kube-scheduler system:kube-scheduler
  write_kubeconfig "$PKI/kube-proxy.kubeconfig" kube-proxy system:kube-proxy
  write_kubeconfig "$PKI/coredns.kubeconfig" cluster-dns cluster-dns
  write_kubeconfig "$PKI/netpol.kubeconfig" cluster-netpol cluster-netpol
}

# --- processes ---------------------------------------------------------------------------------

# Fills a template of test/cluster/k8s/cluster/templates into CONF (or the given path).
render() {
  local template="$1" out="${2:-$CONF/$1}"
  mkdir -p "$(dirname "$out")"
  sed -e "s|@CLUSTER_DIR@|$CLUSTER_DIR|g" -e "s|@PKI@|$PKI|g" -e "s|@PAUSE_IMAGE@|$PAUSE_IMAGE|g" \
    -e "s|@RUNC@|$(command -v runc)|g" -e "s|@CNI_BIN_DIR@|$CNI_BIN_DIR|g" -e "s|@BRIDGE@|$BRIDGE|g" \
    -e "s|@BRIDGE_IP@|$BRIDGE_IP|g" -e "s|@POD_CIDR@|$POD_CIDR|g" -e "s|@CLUSTER_CIDR@|$CLUSTER_CIDR|g" \
    -e "s|@DNS_IP@|$BRIDGE_IP|g" -e "s|@DNS_SERVICE_IP@|$DNS_SERVICE_IP|g" \
    -e "s|@DNS_HEALTH_PORT@|$DNS_HEALTH_PORT|g" -e "s|@DNS_READY_PORT@|$DNS_READY_PORT|g" \
    -e "s|@NODE_NAME@|$(node_name)|g" -e "s|@BUSYBOX_IMAGE@|$(cat "$IMAGES_DIR/busybox.ref")|g" \
    "$TEMPLATES/$template" >"$out.tmp"
  mv "$out.tmp" "$out"
}

# The PID of a component started from this cluster dir, if it is still running. The command line
# must name the cluster dir, so a PID reused by an unrelated process is never taken for ours.
component_pid() {
  local name="$1" pid
  [[ -f "$RUN/$name.pid" ]] || return 1
  pid=$(cat "$RUN/$name.pid")
  [[ -n "$pid" ]] && kill -0 "$pid" 2>/dev/null || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$CLUSTER_DIR" || return 1
  echo "$pid"
}

# Starts a component detached from the caller (its own session, so a terminal or a job runner
# that ends `up` does not end the cluster), logging to LOGS/NAME.log.
#   start_component NAME COMMAND...
start_component() {
  local name="$1"
  shift
  if component_pid "$name" >/dev/null; then
    return 0
  fi
  rm -f "$RUN/$name.pid"
  # The shell writes its own PID and then execs the component, so the PID file is the
  # component's whether or not setsid had to fork.
  # shellcheck disable=SC2016 # expanded by the inner shell
  setsid bash -c 'echo $$ >"$0"; exec "$@"' "$RUN/$name.pid" "$@" >"$LOGS/$name.log" 2>&1 </dev/null &
  local tries=0
  until [[ -s "$RUN/$name.pid" ]]; do
    ((++tries < 100)) || die "$name did not start (no PID file)"
    sleep 0.05
  done
}

# Alive and not a zombie: the components are children of PID 1 once `up` has exited, and PID 1
# here may take seconds to reap them.
process_alive() {
  local stat
  stat=$(cat "/proc/$1/stat" 2>/dev/null) || return 1
  [[ "${stat##*) }" != Z* ]]
}

stop_component() {
  local name="$1" pid
  if pid=$(component_pid "$name"); then
    kill -TERM "$pid" 2>/dev/null || true
    for _ in $(seq 100); do process_alive "$pid" || break; sleep 0.1; done
    if process_alive "$pid"; then
      say "$name (PID $pid) did not stop in 10 s: killing it"
      kill -KILL "$pid" 2>/dev/null || true
    fi
    say "stopped $name (PID $pid)"
  fi
  rm -f "$RUN/$name.pid"
}

# Waits until a command succeeds; on time-out names what it waited for and shows the log of the
# component most likely at fault.
#   wait_for WHAT LOG_NAME COMMAND...
wait_for() {
  local what="$1" log="$2" deadline=$((SECONDS + UP_TIMEOUT))
  shift 2
  until "$@" >/dev/null 2>&1; do
    if ((SECONDS > deadline)); then
      say "timed out after ${UP_TIMEOUT} s waiting for $what; last lines of $LOGS/$log.log:"
      tail -n 25 "$LOGS/$log.log" >&2 || true
      exit 1
    fi
    if [[ -n "$log" && -f "$RUN/$log.pid" ]] && ! component_pid "$log" >/dev/null; then
      say "$log exited while waiting for $what; last lines of $LOGS/$log.log:"
      tail -n 25 "$LOGS/$log.log" >&2 || true
      exit 1
    fi
    sleep 0.5
  done
}

kctl() { "$BIN/kubectl" --kubeconfig "$KUBECONFIG_FILE" "$@"; }
crt_ctr() { ctr --address "$CONTAINERD_SOCK" --namespace k8s.io "$@"; }

# --- host state --------------------------------------------------------------------------------

# Records, once per up/down cycle, what `down` must put back: sysctl values, the host directories
# that did not exist, and the network namespaces that did.
record_host_state() {
  mkdir -p "$HOST_STATE"
  [[ -f "$HOST_STATE/recorded" ]] && return 0
  local key dir value
  : >"$HOST_STATE/sysctls"
  for key in "${HOST_SYSCTLS[@]}"; do
    if value=$(sysctl -n "$key" 2>/dev/null); then echo "$key=$value" >>"$HOST_STATE/sysctls"; fi
  done
  : >"$HOST_STATE/missing-dirs"
  for dir in "${HOST_DIRS[@]}"; do
    [[ -e "$dir" ]] || echo "$dir" >>"$HOST_STATE/missing-dirs"
  done
  ls /run/netns 2>/dev/null >"$HOST_STATE/netns-before" || true
  touch "$HOST_STATE/recorded"
}

restore_host_state() {
  [[ -f "$HOST_STATE/recorded" ]] || return 0
  local line dir
  while IFS= read -r line; do
    [[ -n "$line" ]] || continue
    [[ "$(sysctl -n "${line%%=*}" 2>/dev/null)" == "${line#*=}" ]] && continue
    sysctl -q -w "$line" >/dev/null || say "could not restore sysctl $line"
    say "restored sysctl $line"
  done <"$HOST_STATE/sysctls"
  while IFS= read -r dir; do
    [[ -d "$dir" ]] || continue
    # `ip netns` makes /run/netns a bind mount of itself; it goes with the directory.
    if mountpoint -q "$dir" && [[ -z "$(ls -A "$dir")" ]]; then umount "$dir" 2>/dev/null || true; fi
    # Only empty directories go: anything another program put there stays.
    find "$dir" -depth -type d -empty -delete 2>/dev/null || true
    if [[ -d "$dir" ]]; then say "left $dir in place: it is not empty"; else say "removed $dir"; fi
  done <"$HOST_STATE/missing-dirs"
  rm -rf "$HOST_STATE"
}

# The pod bridge with the gateway address exists before the first pod, because the DNS server
# binds to that address; the CNI bridge plugin adopts it. The service CIDR is routed onto the
# bridge so that a ClusterIP not (yet) rewritten by kube-proxy stays on this machine.
ensure_bridge() {
  ip link show "$BRIDGE" >/dev/null 2>&1 || ip link add "$BRIDGE" type bridge || die "could not create bridge $BRIDGE"
  ip -4 addr show dev "$BRIDGE" | grep -qF " $BRIDGE_IP/" || ip addr add "$BRIDGE_IP/${POD_CIDR#*/}" dev "$BRIDGE"
  ip link set "$BRIDGE" up
  ip route replace "$SERVICE_CIDR" dev "$BRIDGE" src "$BRIDGE_IP"
}

# --- up ----------------------------------------------------------------------------------------

cluster_healthy() {
  local name
  for name in "${COMPONENTS[@]}"; do component_pid "$name" >/dev/null || return 1; done
  kctl get --raw /readyz >/dev/null 2>&1 || return 1
  [[ "$(kctl get node "$(node_name)" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}' 2>/dev/null)" == True ]]
}

any_component_running() {
  local name
  for name in "${COMPONENTS[@]}"; do component_pid "$name" >/dev/null && return 0; done
  return 1
}

any_state_left() {
  [[ -d "$CLUSTER_DIR/etcd" || -d "$CLUSTER_DIR/kubelet" || -f "$HOST_STATE/recorded" ]] || ip link show "$BRIDGE" >/dev/null 2>&1
}

apiserver_ready() { curl -sf --cacert "$PKI/ca.crt" --cert "$PKI/admin.crt" --key "$PKI/admin.key" "https://127.0.0.1:$API_PORT/readyz" >/dev/null; }
node_ready() { [[ "$(kctl get node "$(node_name)" -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}')" == True ]]; }
dns_ready() {
  curl -sf "http://127.0.0.1:$DNS_READY_PORT/ready" >/dev/null &&
    /bin/busybox nslookup kubernetes.default.svc.cluster.local "$BRIDGE_IP" | grep -qF "$API_SERVICE_IP"
}
default_service_account() { kctl -n kube-system get serviceaccount default; }
# True once the smoke pod has finished, either way; `up` then looks at how.
smoke_pod_finished() {
  local phase
  phase=$(kctl -n kube-system get pod cluster-smoke -o jsonpath='{.status.phase}')
  [[ "$phase" == Succeeded || "$phase" == Failed ]]
}

import_image_archive() {
  local archive="$1"
  [[ -f "$archive" ]] || die "no image archive $archive"
  crt_ctr images import "$archive" >/dev/null || die "ctr could not import $archive"
}

up() {
  require_root
  require_built
  local started=$SECONDS ip node
  ip=$(node_ip)
  node=$(node_name)
  if cluster_healthy; then
    say "already up: node $node Ready; kubeconfig $KUBECONFIG_FILE"
    return 0
  fi
  # Some components running: the ones that stopped are started again below (every step of `up`
  # leaves what exists alone), and the cluster's objects survive. None running but state left
  # (a crash, a reboot of the machine): that state is stale, so it is cleaned away first.
  if any_component_running; then
    say "resuming: starting the components that are not running"
  elif any_state_left; then
    say "a previous cluster left state behind but no process: taking it down first"
    down
  fi
  mkdir -p "$RUN" "$LOGS" "$CONF" "$CLUSTER_DIR/containerd" "$CLUSTER_DIR/etcd" "$CLUSTER_DIR/kubelet" \
    "$CLUSTER_DIR/pod-logs" "$CLUSTER_DIR/cni/net.d" "$CLUSTER_DIR/cni/ipam"
  record_host_state
  sysctl -q -w net.ipv4.ip_forward=1 net.bridge.bridge-nf-call-iptables=1 net.bridge.bridge-nf-call-ip6tables=1 >/dev/null ||
    die "could not set the forwarding sysctls (net.ipv4.ip_forward, net.bridge.bridge-nf-call-iptables)"
  make_pki "$ip" "$node"
  render containerd.toml
  render 10-cluster-bridge.conflist "$CLUSTER_DIR/cni/net.d/10-cluster-bridge.conflist"
  render kubelet.yaml
  render kube-proxy.yaml
  render Corefile
  render addons.yaml
  render smoke-pod.yaml
  ensure_bridge

  say "starting etcd, kube-apiserver and containerd (node $node, $ip)"
  start_component etcd "$BIN/etcd" --name "$node" --data-dir "$CLUSTER_DIR/etcd" \
    --listen-client-urls http://127.0.0.1:2379 --advertise-client-urls http://127.0.0.1:2379 \
    --listen-peer-urls http://127.0.0.1:2380 --initial-advertise-peer-urls http://127.0.0.1:2380 \
    --initial-cluster "$node=http://127.0.0.1:2380" --quota-backend-bytes 2147483648 --log-level warn
  start_component kube-apiserver "$BIN/kube-apiserver" \
    --advertise-address "$ip" --bind-address 0.0.0.0 --secure-port "$API_PORT" \
    --etcd-servers http://127.0.0.1:2379 \
    --client-ca-file "$PKI/ca.crt" --tls-cert-file "$PKI/kube-apiserver.crt" --tls-private-key-file "$PKI/kube-apiserver.key" \
    --kubelet-client-certificate "$PKI/kube-apiserver-kubelet-client.crt" --kubelet-client-key "$PKI/kube-apiserver-kubelet-client.key" \
    --kubelet-certificate-authority "$PKI/ca.crt" --kubelet-preferred-address-types InternalIP,Hostname \
    --service-account-issuer https://kubernetes.default.svc.cluster.local \
    --service-account-key-file "$PKI/sa.pub" --service-account-signing-key-file "$PKI/sa.key" \
    --service-cluster-ip-range "$SERVICE_CIDR" --authorization-mode Node,RBAC --allow-privileged=true \
    --enable-admission-plugins NodeRestriction --profiling=false
  start_component containerd containerd --config "$CONF/containerd.toml"

  wait_for "containerd's socket" containerd ctr --address "$CONTAINERD_SOCK" version
  local tag
  for tag in "$PAUSE_IMAGE:k8s-pause.tar" "$(cat "$IMAGES_DIR/busybox.ref"):busybox.tar"; do
    crt_ctr images check "name==${tag%:*}" 2>/dev/null | grep -q complete ||
      import_image_archive "$IMAGES_DIR/${tag##*:}"
  done
  wait_for "kube-apiserver /readyz" kube-apiserver apiserver_ready
  kctl apply -f "$CONF/addons.yaml" >/dev/null || die "kubectl apply of $CONF/addons.yaml failed"

  say "starting the controller-manager, scheduler, kube-proxy, CoreDNS, kubelet and NetworkPolicy controller"
  start_component kube-controller-manager "$BIN/kube-controller-manager" \
    --kubeconfig "$PKI/kube-controller-manager.kubeconfig" \
    --authentication-kubeconfig "$PKI/kube-controller-manager.kubeconfig" \
    --authorization-kubeconfig "$PKI/kube-controller-manager.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port 10257 --leader-elect=false \
    --use-service-account-credentials --service-account-private-key-file "$PKI/sa.key" --root-ca-file "$PKI/ca.crt" \
    --cluster-signing-cert-file "$PKI/ca.crt" --cluster-signing-key-file "$PKI/ca.key" \
    --allocate-node-cidrs --cluster-cidr "$CLUSTER_CIDR" --node-cidr-mask-size 24 \
    --service-cluster-ip-range "$SERVICE_CIDR" --controllers '*'
  start_component kube-scheduler "$BIN/kube-scheduler" \
    --kubeconfig "$PKI/kube-scheduler.kubeconfig" \
    --authentication-kubeconfig "$PKI/kube-scheduler.kubeconfig" \
    --authorization-kubeconfig "$PKI/kube-scheduler.kubeconfig" \
    --bind-address 127.0.0.1 --secure-port 10259 --leader-elect=false
  start_component kube-proxy "$BIN/kube-proxy" --config "$CONF/kube-proxy.yaml"
  start_component coredns "$BIN/coredns" -conf "$CONF/Corefile"
  start_component kubelet "$BIN/kubelet" --config "$CONF/kubelet.yaml" \
    --kubeconfig "$PKI/kubelet.kubeconfig" --root-dir "$CLUSTER_DIR/kubelet" \
    --hostname-override "$node" --node-ip "$ip"
  start_component k8s-netpol "$BIN/k8s-netpol" --kubeconfig "$PKI/netpol.kubeconfig" \
    --node-name "$node" --health-address "127.0.0.1:$NETPOL_HEALTH_PORT" --state-dir "$CLUSTER_DIR"

  wait_for "node $node to be Ready" kubelet node_ready
  wait_for "CoreDNS to answer on $BRIDGE_IP:53" coredns dns_ready
  wait_for "the kube-system default service account" kube-controller-manager default_service_account
  kctl -n kube-system delete pod cluster-smoke --ignore-not-found --wait=false >/dev/null 2>&1 || true
  kctl apply -f "$CONF/smoke-pod.yaml" >/dev/null || die "could not create the smoke pod"
  wait_for "the smoke pod to run" kubelet smoke_pod_finished
  if [[ "$(kctl -n kube-system get pod cluster-smoke -o jsonpath='{.status.phase}')" != Succeeded ]]; then
    say "the smoke pod failed; its log:"
    kctl -n kube-system logs cluster-smoke >&2 || true
    exit 1
  fi
  kctl -n kube-system delete pod cluster-smoke --wait=false >/dev/null 2>&1 || true
  say "up in $((SECONDS - started)) s: node $node Ready, DNS on $BRIDGE_IP, smoke pod succeeded"
  say "kubeconfig: $KUBECONFIG_FILE (or '$0 kubectl ...')"
}

# --- down --------------------------------------------------------------------------------------

# Removes the iptables chains the node made (kube-proxy's and the kubelet's KUBE-*, the
# NetworkPolicy controller's NETPOL-*, the CNI plugins' CNI-*) and every rule that jumps to them,
# from each table, through one iptables-restore per table so that nothing else is flushed.
remove_iptables_chains() {
  local family="$1" table dump chains script rule chain
  for table in filter nat mangle raw; do
    dump=$("$family-save" -t "$table" 2>/dev/null) || continue
    chains=$(grep -oE '^:(KUBE-|NETPOL-|CNI-)[^ ]+' <<<"$dump" | cut -c2- || true)
    [[ -n "$chains" ]] || continue
    script="*$table"$'\n'
    while IFS= read -r rule; do
      chain=$(awk '{print $2}' <<<"$rule")
      grep -qxF -- "$chain" <<<"$chains" && continue
      script+="-D ${rule#-A }"$'\n'
    done < <(grep -E '^-A .* -(j|g) (KUBE-|NETPOL-|CNI-)' <<<"$dump" || true)
    while IFS= read -r chain; do script+="-F $chain"$'\n'; done <<<"$chains"
    while IFS= read -r chain; do script+="-X $chain"$'\n'; done <<<"$chains"
    script+="COMMIT"$'\n'
    "$family-restore" --noflush <<<"$script" || say "$family-restore could not remove the $table chains: $(tr '\n' ' ' <<<"$chains")"
  done
}

unmount_under_cluster_dir() {
  local mount_point
  # Deepest first, so a mount inside another comes off before it.
  while IFS= read -r mount_point; do
    umount "$mount_point" 2>/dev/null || umount -l "$mount_point" 2>/dev/null || say "could not unmount $mount_point"
  done < <(awk -v dir="$CLUSTER_DIR/" 'index($5, dir) == 1 {print $5}' /proc/self/mountinfo | sort -r)
}

# Removes the network namespaces that appeared while the cluster ran, when removing the pods
# through containerd could not (containerd would not start).
remove_leftover_netns() {
  local path ns
  [[ -f "$HOST_STATE/netns-before" ]] || return 0
  for path in /run/netns/cni-*; do
    [[ -e "$path" ]] || continue
    ns=$(basename "$path")
    grep -qxF "$ns" "$HOST_STATE/netns-before" && continue
    umount "$path" 2>/dev/null || true
    rm -f "$path" && say "removed network namespace $ns"
  done
}

remove_pod_cgroups() {
  local hierarchy
  for hierarchy in /sys/fs/cgroup/*/kubepods /sys/fs/cgroup/kubepods; do
    [[ -d "$hierarchy" ]] || continue
    find "$hierarchy" -depth -type d -exec rmdir {} \; 2>/dev/null || true
    [[ -d "$hierarchy" ]] && say "could not remove cgroup $hierarchy (a process is still in it)"
  done
  return 0
}

down() {
  require_root
  local name pods_removed=false
  # The kubelet first, so that nothing restarts the pods removed below.
  for name in k8s-netpol kubelet kube-proxy coredns kube-scheduler kube-controller-manager; do
    stop_component "$name"
  done

  # The pods: through the CRI, as the kubelet would, so that the CNI tears their networking down.
  # containerd is started for this if it is not running but has pod state from a previous run.
  if [[ -d "$CLUSTER_DIR/containerd/root" && -f "$CONF/containerd.toml" ]]; then
    if ! component_pid containerd >/dev/null; then
      mkdir -p "$RUN" "$LOGS"
      start_component containerd containerd --config "$CONF/containerd.toml"
      local tries=0
      until ctr --address "$CONTAINERD_SOCK" version >/dev/null 2>&1 || ((++tries > 100)); do sleep 0.1; done
    fi
    if "$BIN/cri-reset" "unix://$CONTAINERD_SOCK" >&2; then
      pods_removed=true
    else
      say "could not remove every pod through containerd; cleaning up after them by hand"
    fi
  fi
  stop_component containerd
  # Shims of this containerd that outlived it (their command line names its socket).
  local shim
  for shim in $(pgrep -f "containerd-shim-runc-v2 .*-address $CONTAINERD_SOCK" || true); do
    kill -KILL "$shim" 2>/dev/null && say "killed leftover shim $shim"
  done
  stop_component kube-apiserver
  stop_component etcd

  # kube-proxy's own clean-up first (it knows its chains), then whatever else is left.
  if [[ -x "$BIN/kube-proxy" ]] && iptables-save 2>/dev/null | grep -q 'KUBE-'; then
    timeout 60 "$BIN/kube-proxy" --cleanup >"$LOGS/kube-proxy-cleanup.log" 2>&1 ||
      say "kube-proxy --cleanup failed (see $LOGS/kube-proxy-cleanup.log); removing its chains directly"
  fi
  remove_iptables_chains iptables
  remove_iptables_chains ip6tables
  local set
  for set in $(ipset list -n 2>/dev/null | grep -E '^(KUBE-|NETPOL-)' || true); do
    ipset destroy "$set" 2>/dev/null || say "could not destroy ipset $set"
  done

  unmount_under_cluster_dir
  $pods_removed || remove_leftover_netns
  remove_pod_cgroups
  # Pod log links the kubelet made in the fixed /var/log/containers.
  find /var/log/containers -maxdepth 1 -type l -lname "$CLUSTER_DIR/*" -delete 2>/dev/null || true
  # The kubelet's device-plugin registration socket (its path is fixed; the kubelet is stopped).
  rm -f /var/lib/kubelet/device-plugins/kubelet.sock
  if ip link show "$BRIDGE" >/dev/null 2>&1; then
    ip link delete "$BRIDGE" && say "removed bridge $BRIDGE"
  fi
  ip route del "$SERVICE_CIDR" dev "$BRIDGE" 2>/dev/null || true
  restore_host_state
  # Run-time state goes; the PKI, the kubeconfig, containerd's image store and the logs stay, so
  # the next `up` is fast and loaded images survive.
  rm -rf "$RUN" "$CLUSTER_DIR/etcd" "$CLUSTER_DIR/kubelet" "$CLUSTER_DIR/pod-logs" "$CLUSTER_DIR/cni" \
    "$CLUSTER_DIR/containerd/state" "$CLUSTER_DIR/netpol"
  say "down: no cluster process, pod, mount, bridge or iptables rule left"
}

purge() {
  down
  rm -rf "$CLUSTER_DIR"
  say "removed $CLUSTER_DIR"
}

# --- load, status ------------------------------------------------------------------------------

load() {
  require_root
  (($# > 0)) || die "usage: $0 load IMAGE-ARCHIVE.tar..."
  component_pid containerd >/dev/null || die "the cluster's containerd is not running: run '$0 up' first"
  local archive
  for archive in "$@"; do
    import_image_archive "$archive"
    say "loaded $archive"
  done
  crt_ctr images ls -q | grep -v '^sha256:' >&2
}

status() {
  local name pid rc=0
  for name in "${COMPONENTS[@]}"; do
    if pid=$(component_pid "$name"); then
      printf '  %-24s running (PID %s)\n' "$name" "$pid"
    else
      printf '  %-24s not running\n' "$name"
      rc=1
    fi
  done
  if ((rc == 0)); then
    kctl get nodes -o wide 2>&1 | sed 's/^/  /'
    if dns_ready 2>/dev/null; then echo "  DNS: answering on $BRIDGE_IP:53"; else echo "  DNS: not answering"; rc=1; fi
    if curl -sf "http://127.0.0.1:$NETPOL_HEALTH_PORT/healthz" >/dev/null 2>&1 && iptables -S FORWARD 2>/dev/null | sed -n 2p | grep -q NETPOL-FORWARD; then
      echo "  NetworkPolicy: enforced (k8s-netpol, first in FORWARD)"
    else
      echo "  NetworkPolicy: NOT enforced"
    fi
    echo "  kubeconfig: $KUBECONFIG_FILE"
  fi
  return "$rc"
}

case "${1:-}" in
  build) build ;;
  up) up ;;
  down) down ;;
  purge) purge ;;
  load) shift; load "$@" ;;
  status) status ;;
  kubectl) shift; exec "$BIN/kubectl" --kubeconfig "$KUBECONFIG_FILE" "$@" ;;
  *) say "usage: $0 build | up | down | purge | load IMAGE.tar... | status | kubectl ARGS..."; exit 2 ;;
esac
