#!/usr/bin/env bash
# Proves the one-node cluster of test/cluster/k8s-cluster.sh works as a cluster: a Deployment behind a
# Service reached by DNS name, short name, ClusterIP and pod IP from another pod and by
# ClusterIP from the host, kubectl logs and exec, a Job, a rolling update, Secret and ConfigMap
# volumes under a read-only root as a non-root user, and NetworkPolicies (default deny, then
# allowed by pod selector and by namespace selector). Everything runs in two namespaces of its
# own, deleted at the end. Needs a cluster that is up.
#
#   test/cluster/k8s/cluster/verify.sh        prints one line per check and "N passed, N failed"
set -euo pipefail

REPO_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../../.." && pwd)"
CLUSTER="$REPO_ROOT/test/cluster/k8s-cluster.sh"
NS=cluster-verify
OTHER_NS=cluster-verify-other
BUSYBOX=$(cat "$REPO_ROOT/.run/images/busybox.ref")
passed=0
failed=0

k() { "$CLUSTER" kubectl "$@"; }
check() {
  local what="$1"
  shift
  local started=$SECONDS
  if out=$("$@" 2>&1); then
    passed=$((passed + 1))
    echo "ok   $what ($((SECONDS - started)) s)${out:+: $(tr '\n' ' ' <<<"$out" | cut -c1-140)}"
  else
    failed=$((failed + 1))
    echo "FAIL $what ($((SECONDS - started)) s): $(tr '\n' ' ' <<<"$out" | cut -c1-400)"
  fi
}
# The same check, expected to fail (traffic a policy must block).
check_blocked() {
  local what="$1"
  shift
  if out=$("$@" 2>&1); then
    failed=$((failed + 1))
    echo "FAIL $what: got through: $(tr '\n' ' ' <<<"$out" | cut -c1-200)"
  else
    passed=$((passed + 1))
    echo "ok   $what (blocked: $(tr '\n' ' ' <<<"$out" | cut -c1-100))"
  fi
}

cleanup() { k delete namespace "$NS" "$OTHER_NS" --ignore-not-found --wait=false >/dev/null 2>&1 || true; }
trap cleanup EXIT
k delete namespace "$NS" "$OTHER_NS" --ignore-not-found --wait=true >/dev/null
k create namespace "$NS" >/dev/null
k create namespace "$OTHER_NS" >/dev/null
k label namespace "$OTHER_NS" purpose=verify-client >/dev/null

# busybox httpd serves a page naming the pod and the GREETING of its template, so a rolling
# update and the load balancing across replicas can both be seen in the answers.
# A pod that only sleeps, to run wget from: NAME NAMESPACE LABELS (a YAML flow map).
client_pod() {
  cat <<POD
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: $2, labels: $3}
spec:
  terminationGracePeriodSeconds: 1
  containers:
  - {name: client, image: $BUSYBOX, imagePullPolicy: Never, command: [sleep, '3600']}
POD
}

k apply -f - >/dev/null <<EOF
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: $NS}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  strategy: {rollingUpdate: {maxUnavailable: 0, maxSurge: 1}}
  template:
    metadata: {labels: {app: web}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: httpd
        image: $BUSYBOX
        imagePullPolicy: IfNotPresent
        env: [{name: GREETING, value: v1}]
        command: [sh, -c, 'mkdir -p /tmp/www && echo "\$(hostname) \$GREETING" >/tmp/www/index.html && exec httpd -f -vv -p 8080 -h /tmp/www']
        ports: [{name: http, containerPort: 8080}]
        readinessProbe: {httpGet: {path: /index.html, port: http}, periodSeconds: 2}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: $NS}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: http}]
---
$(client_pod client "$NS" '{role: client}')
---
$(client_pod stranger "$NS" '{}')
---
$(client_pod client "$OTHER_NS" '{}')
EOF

check "deployment web (2 replicas) rolled out" k -n "$NS" rollout status deployment/web --timeout=90s
check "client pods ready" k -n "$NS" wait --for=condition=Ready pod/client pod/stranger --timeout=60s
check "client pod in $OTHER_NS ready" k -n "$OTHER_NS" wait --for=condition=Ready pod/client --timeout=60s

cluster_ip=$(k -n "$NS" get service web -o jsonpath='{.spec.clusterIP}')
web_pod_ips=$(k -n "$NS" get pods -l app=web -o jsonpath='{.items[*].status.podIP}')
first_web_ip=${web_pod_ips%% *}
fetch() { k -n "$1" exec "$2" -- timeout 5 wget -q -O - "$3"; }

check "pod -> Service by full DNS name" fetch "$NS" client "http://web.$NS.svc.cluster.local/"
check "pod -> Service by short name" fetch "$NS" client "http://web/"
check "pod -> Service by ClusterIP $cluster_ip" fetch "$NS" client "http://$cluster_ip/"
check "pod -> pod by IP $first_web_ip" fetch "$NS" client "http://$first_web_ip:8080/"
check "pod in another namespace -> web.$NS" fetch "$OTHER_NS" client "http://web.$NS/"
# Hairpin: a web pod through its own Service, which sends some requests back to itself.
web_pod=$(k -n "$NS" get pods -l app=web -o jsonpath='{.items[0].metadata.name}')
hairpin() { local _; for _ in 1 2 3 4 5 6; do fetch "$NS" "$web_pod" "http://web/" || return 1; done; }
check "hairpin: web pod -> its own Service, 6 requests" hairpin
check "host -> ClusterIP $cluster_ip" curl -sf --max-time 5 "http://$cluster_ip/"
check "DNS: nslookup of a Service from a pod" k -n "$NS" exec client -- nslookup "web.$NS.svc.cluster.local"
check "kubectl exec" k -n "$NS" exec client -- hostname
check "kubectl logs (httpd's request log)" sh -c "\"$CLUSTER\" kubectl -n $NS logs $web_pod | grep -m1 -i 'GET\\|response'"

k -n "$NS" create job done-job --image="$BUSYBOX" -- sh -c 'echo job-ran' >/dev/null
check "a Job completes" k -n "$NS" wait --for=condition=complete job/done-job --timeout=60s
check "the Job's log" k -n "$NS" logs job/done-job

old_web_pods=$(k -n "$NS" get pods -l app=web -o name)
k -n "$NS" set env deployment/web GREETING=v2 >/dev/null
check "rolling update (GREETING=v2) completes" k -n "$NS" rollout status deployment/web --timeout=90s
# kube-proxy drops the old pods' endpoints a moment after the rollout reports done (its rules
# are rewritten at most once a second), so a request or two may still meet an old pod.
rolled() {
  local body try
  for try in $(seq 10); do
    body=$(fetch "$NS" client "http://web/" 2>/dev/null) && grep -q ' v2$' <<<"$body" && { echo "$body (try $try)"; return 0; }
    sleep 1
  done
  return 1
}
check "the Service answers with v2 after the update" rolled

k -n "$NS" create secret generic app-secret --from-literal=password=s3cret >/dev/null
k -n "$NS" create configmap app-config --from-literal=mode=verify >/dev/null
k apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Pod
metadata: {name: restricted, namespace: $NS}
spec:
  terminationGracePeriodSeconds: 1
  securityContext: {runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000, runAsNonRoot: true}
  containers:
  - name: app
    image: $BUSYBOX
    imagePullPolicy: Never
    command: [sleep, '3600']
    securityContext: {readOnlyRootFilesystem: true, allowPrivilegeEscalation: false, capabilities: {drop: [ALL]}}
    volumeMounts:
    - {name: secret, mountPath: /etc/app-secret, readOnly: true}
    - {name: config, mountPath: /etc/app-config, readOnly: true}
  volumes:
  - {name: secret, secret: {secretName: app-secret}}
  - {name: config, configMap: {name: app-config}}
EOF
check "restricted pod ready" k -n "$NS" wait --for=condition=Ready pod/restricted --timeout=60s
check "Secret and ConfigMap volumes readable as uid 1000" k -n "$NS" exec restricted -- sh -c 'id -u && cat /etc/app-secret/password /etc/app-config/mode'
check_blocked "read-only root file system refuses a write" k -n "$NS" exec restricted -- touch /written

# The rolling update replaced the pods: once the old ones are gone, the new ones' addresses.
# shellcheck disable=SC2086 # one argument per pod
check "the old pods are gone" k -n "$NS" wait --for=delete $old_web_pods --timeout=60s
web_pod_ips=$(k -n "$NS" get pods -l app=web -o jsonpath='{.items[*].status.podIP}')
first_web_ip=${web_pod_ips%% *}

# NetworkPolicy: deny all ingress to the namespace, then allow the web pods from the pod with
# role=client, then from the namespace labelled purpose=verify-client.
k apply -f - >/dev/null <<EOF
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: default-deny-ingress, namespace: $NS}
spec:
  podSelector: {}
  policyTypes: [Ingress]
EOF
sleep 1
check_blocked "default-deny: client -> Service" fetch "$NS" client "http://web/"
check_blocked "default-deny: client -> pod IP" fetch "$NS" client "http://$first_web_ip:8080/"
check_blocked "default-deny: other namespace -> Service" fetch "$OTHER_NS" client "http://web.$NS/"
check "default-deny: host -> ClusterIP still allowed (node traffic)" curl -sf --max-time 5 "http://$cluster_ip/"
k apply -f - >/dev/null <<EOF
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: web-from-clients, namespace: $NS}
spec:
  podSelector: {matchLabels: {app: web}}
  policyTypes: [Ingress]
  ingress:
  - from: [{podSelector: {matchLabels: {role: client}}}]
    ports: [{port: http}]
EOF
sleep 1
check "allow by podSelector: client -> Service" fetch "$NS" client "http://web/"
check "allow by podSelector: client -> pod IP $first_web_ip" fetch "$NS" client "http://$first_web_ip:8080/"
check_blocked "allow by podSelector: unlabelled pod -> pod IP still blocked" fetch "$NS" stranger "http://$first_web_ip:8080/"
check_blocked "allow by podSelector: unlabelled pod still blocked" fetch "$NS" stranger "http://web/"
check_blocked "allow by podSelector: other namespace still blocked" fetch "$OTHER_NS" client "http://web.$NS/"
k apply -f - >/dev/null <<EOF
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: web-from-client-namespace, namespace: $NS}
spec:
  podSelector: {matchLabels: {app: web}}
  ingress:
  - from: [{namespaceSelector: {matchLabels: {purpose: verify-client}}}]
    ports: [{port: 8080, protocol: TCP}]
EOF
sleep 1
check "allow by namespaceSelector: other namespace -> Service" fetch "$OTHER_NS" client "http://web.$NS/"
# Egress: without the ingress policies the stranger reaches web; a policy that isolates its
# egress with no rule then blocks that (DNS on the node stays reachable), and deleting it
# lets the traffic through again.
k -n "$NS" delete networkpolicy --all >/dev/null
sleep 1
check "ingress policies deleted: stranger -> web pod IP" fetch "$NS" stranger "http://$first_web_ip:8080/"
k apply -f - >/dev/null <<EOF
apiVersion: networking.k8s.io/v1
kind: NetworkPolicy
metadata: {name: stranger-no-egress, namespace: $NS}
spec:
  podSelector: {matchLabels: {role: stranger}}
  policyTypes: [Egress]
EOF
k -n "$NS" label pod stranger role=stranger >/dev/null
sleep 1
check_blocked "egress deny: stranger -> web pod IP" fetch "$NS" stranger "http://$first_web_ip:8080/"
check_blocked "egress deny: stranger -> Service" fetch "$NS" stranger "http://web/"
check "egress deny: client (not selected) -> Service" fetch "$NS" client "http://web/"
k -n "$NS" delete networkpolicy --all >/dev/null
sleep 1
check "all policies deleted: stranger -> Service again" fetch "$NS" stranger "http://web/"

echo "$passed passed, $failed failed"
((failed == 0))
