{{/* Names ------------------------------------------------------------------------------- */}}

{{- define "fspiop-switch.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "fspiop-switch.fullname" -}}
{{- if .Values.fullnameOverride -}}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- $name := default .Chart.Name .Values.nameOverride -}}
{{- if contains $name .Release.Name -}}
{{- .Release.Name | trunc 63 | trimSuffix "-" -}}
{{- else -}}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* The name of one component's objects: <fullname>-<component>, within 63 characters. */}}
{{- define "fspiop-switch.componentName" -}}
{{- printf "%s-%s" (include "fspiop-switch.fullname" .root) .name | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "fspiop-switch.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "fspiop-switch.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{- define "fspiop-switch.image" -}}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) -}}
{{- end -}}

{{/* Labels -------------------------------------------------------------------------------- */}}

{{- define "fspiop-switch.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "fspiop-switch.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end -}}

{{/* Selector labels of one component; call with (dict "root" $ "name" $name). */}}
{{- define "fspiop-switch.selectorLabels" -}}
app.kubernetes.io/name: {{ include "fspiop-switch.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "fspiop-switch.componentLabels" -}}
{{ include "fspiop-switch.labels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{/* Components ---------------------------------------------------------------------------- */}}

{{/*
One component's settings: componentDefaults deep-merged with what the component names, as
YAML (templates read it back with fromYaml). Call with (dict "root" $ "name" $name).
*/}}
{{- define "fspiop-switch.component" -}}
{{- $own := index .root.Values.components .name -}}
{{- toYaml (mergeOverwrite (deepCopy .root.Values.componentDefaults) (deepCopy $own)) -}}
{{- end -}}

{{/*
The most replicas a handler can usefully run: a consumer group has at most one active consumer
per partition, so the cap is its topics' smallest partition count. Prints the configured
maxReplicas when the component consumes no topic. Call with (dict "root" $ "c" $component).
*/}}
{{- define "fspiop-switch.maxReplicas" -}}
{{- $max := int .c.autoscaling.maxReplicas -}}
{{- range (.c.topics | default list) -}}
{{- $partitions := int (index $.root.Values.kafka.topics.partitions .) -}}
{{- if lt $partitions $max -}}{{- $max = $partitions -}}{{- end -}}
{{- end -}}
{{- $max -}}
{{- end -}}

{{/* True ("true") when a component is enabled. Call with (dict "root" $ "name" $name). */}}
{{- define "fspiop-switch.enabled" -}}
{{- $c := index .root.Values.components .name | default dict -}}
{{- if $c.enabled -}}true{{- end -}}
{{- end -}}

{{/* In-cluster URLs ----------------------------------------------------------------------- */}}

{{- /* A component's in-cluster URL: https for the FSPIOP edges when they serve TLS. */}}
{{- define "fspiop-switch.url" -}}
{{- $c := index .root.Values.components .name -}}
{{- $scheme := ternary "https" "http" (eq (include "fspiop-switch.servesTls" (dict "root" .root "c" $c)) "true") -}}
{{- printf "%s://%s:%v" $scheme (include "fspiop-switch.componentName" .) $c.port -}}
{{- end -}}

{{- define "fspiop-switch.kafkaBrokers" -}}
{{- if .Values.dev.kafka.enabled -}}
{{- printf "%s-dev-kafka:9092" (include "fspiop-switch.fullname" .) -}}
{{- else -}}
{{- .Values.kafka.brokers -}}
{{- end -}}
{{- end -}}

{{- define "fspiop-switch.dbHost" -}}
{{- if .Values.dev.mysql.enabled -}}
{{- printf "%s-dev-mysql" (include "fspiop-switch.fullname" .) -}}
{{- else -}}
{{- .Values.db.host -}}
{{- end -}}
{{- end -}}

{{/* Configuration ------------------------------------------------------------------------- */}}

{{/*
The non-secret environment every process shares (README "Configuration"), as a YAML map:
`.Values.config` plus what the chart derives (database, brokers, in-cluster URLs). Rendered
into the ConfigMap, and inline into the hook Jobs (which run before the ConfigMap exists).
*/}}
{{- define "fspiop-switch.configData" -}}
{{- $data := dict -}}
{{- range $k, $v := .Values.config -}}
{{- if ne (toString $v) "" -}}{{- $_ := set $data $k (toString $v) -}}{{- end -}}
{{- end -}}
{{- $_ := set $data "DB_HOST" (include "fspiop-switch.dbHost" .) -}}
{{- $_ := set $data "DB_PORT" (ternary "3306" (toString .Values.db.port) .Values.dev.mysql.enabled) -}}
{{- $_ := set $data "DB_USER" (ternary "root" .Values.db.user .Values.dev.mysql.enabled) -}}
{{- $_ := set $data "DB_NAME" .Values.db.name -}}
{{- $_ := set $data "DB_SSL" (toString .Values.db.ssl) -}}
{{- $_ := set $data "KAFKA_BROKERS" (include "fspiop-switch.kafkaBrokers" .) -}}
{{- $_ := set $data "KAFKA_TOPIC_REPLICATION_FACTOR" (ternary "1" (toString .Values.kafka.topics.replicationFactor) .Values.dev.kafka.enabled) -}}
{{- /* Partitions for tools/create-topics.js (env override proposed in charts/README.md). */ -}}
{{- $_ := set $data "TOPIC_PARTITIONS_JSON" (toJson .Values.kafka.topics.partitions) -}}
{{- $security := ternary "plaintext" .Values.kafka.securityProtocol .Values.dev.kafka.enabled -}}
{{- $_ := set $data "KAFKA_SECURITY_PROTOCOL" $security -}}
{{- if hasPrefix "sasl" $security -}}
{{- $_ := set $data "KAFKA_SASL_MECHANISM" .Values.kafka.sasl.mechanism -}}
{{- $_ := set $data "KAFKA_SASL_USERNAME" .Values.kafka.sasl.username -}}
{{- end -}}
{{- if .Values.kafka.sslCaLocation -}}
{{- $_ := set $data "KAFKA_SSL_CA_LOCATION" .Values.kafka.sslCaLocation -}}
{{- end -}}
{{- /* Inside a pod every server listens on the pod's address; the NetworkPolicy, not the bind address, keeps the operator APIs to operator clients. */ -}}
{{- $_ := set $data "HOST" "0.0.0.0" -}}
{{- $_ := set $data "OPERATOR_HOST" "0.0.0.0" -}}
{{- $_ := set $data "OPERATOR_AUTH" (ternary "required" "off" .Values.operatorAuth.enabled) -}}
{{- $_ := set $data "JWS_VERIFICATION" .Values.jws.verification -}}
{{- $_ := set $data "JWS_KEY_CACHE_TTL_MS" (toString .Values.jws.keyCacheTtlMs) -}}
{{- $admin := dict "root" . "name" "admin-api" -}}
{{- $_ := set $data "ADMIN_API_URL" (include "fspiop-switch.url" $admin) -}}
{{- if not .Values.config.ADMIN_API_BASE_URL -}}
{{- $_ := set $data "ADMIN_API_BASE_URL" (include "fspiop-switch.url" $admin) -}}
{{- end -}}
{{- /* The ALS edge reaches the built-in oracle in its own Deployment, or in the ALS admin. */ -}}
{{- /* The portal forwards to the operator APIs by their Services. */ -}}
{{- $_ := set $data "PORTAL_SETTLEMENT_API_URL" (include "fspiop-switch.url" (dict "root" . "name" "settlement-api")) -}}
{{- $_ := set $data "PORTAL_ALS_ADMIN_API_URL" (include "fspiop-switch.url" (dict "root" . "name" "account-lookup-admin")) -}}
{{- $oracle := ternary "oracle" "account-lookup-admin" (eq (include "fspiop-switch.enabled" (dict "root" . "name" "oracle")) "true") -}}
{{- $_ := set $data "ORACLE_BUILTIN_URL" (printf "http://%s:4003" (include "fspiop-switch.componentName" (dict "root" . "name" $oracle))) -}}
{{- toYaml $data -}}
{{- end -}}

{{- define "fspiop-switch.dbSecretName" -}}
{{- default (printf "%s-secrets" (include "fspiop-switch.fullname" .)) .Values.db.existingSecret -}}
{{- end -}}

{{- define "fspiop-switch.kafkaSecretName" -}}
{{- default (printf "%s-secrets" (include "fspiop-switch.fullname" .)) .Values.kafka.sasl.existingSecret -}}
{{- end -}}

{{- define "fspiop-switch.saslEnabled" -}}
{{- if and (not .Values.dev.kafka.enabled) (hasPrefix "sasl" .Values.kafka.securityProtocol) -}}true{{- end -}}
{{- end -}}

{{/*
Secret env vars. `hook` = true points at the hook copy of the chart's Secret (pre-install hooks
run before the release's own Secret exists); a Secret you manage (existingSecret) is used as is.
`db` = false leaves out DB_PASSWORD (processes without a database); `noKafka` = true leaves out
KAFKA_SASL_PASSWORD (the portal, which talks to no broker).
Call with (dict "root" $ "hook" bool "db" bool ["noKafka" bool]).
*/}}
{{- define "fspiop-switch.secretEnv" -}}
{{- $root := .root -}}
{{- $suffix := ternary "-hooks" "" .hook -}}
{{- if .db }}
- name: DB_PASSWORD
  valueFrom:
    secretKeyRef:
      {{- if and $root.Values.db.existingSecret (not $root.Values.dev.mysql.enabled) }}
      name: {{ $root.Values.db.existingSecret }}
      key: {{ $root.Values.db.existingSecretKey }}
      {{- else }}
      name: {{ printf "%s-secrets%s" (include "fspiop-switch.fullname" $root) $suffix }}
      key: DB_PASSWORD
      {{- end }}
{{- end }}
{{- if and (include "fspiop-switch.saslEnabled" $root) (not .noKafka) }}
- name: KAFKA_SASL_PASSWORD
  valueFrom:
    secretKeyRef:
      {{- if $root.Values.kafka.sasl.existingSecret }}
      name: {{ $root.Values.kafka.sasl.existingSecret }}
      key: {{ $root.Values.kafka.sasl.existingSecretKey }}
      {{- else }}
      name: {{ printf "%s-secrets%s" (include "fspiop-switch.fullname" $root) $suffix }}
      key: KAFKA_SASL_PASSWORD
      {{- end }}
{{- end }}
{{- if $root.Values.operatorAuth.enabled }}
{{- range (.operatorTokens | default list) }}
{{- $key := get (include "fspiop-switch.operatorTokenKeys" $root | fromYaml) . }}
- name: {{ $key }}
  valueFrom:
    secretKeyRef:
      name: {{ default (printf "%s-secrets%s" (include "fspiop-switch.fullname" $root) $suffix) $root.Values.operatorAuth.existingSecret }}
      key: {{ $key }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
The operator tokens by the name a component asks for them with, and their keys in the Secret
(the variables platform/config.js reads). The operator's two reach every operator API; the
others are the narrow ones the DFSP-facing processes hold.
*/}}
{{- define "fspiop-switch.operatorTokenKeys" -}}
readWrite: OPERATOR_TOKEN_READ_WRITE
readOnly: OPERATOR_TOKEN_READ_ONLY
oracleWrite: OPERATOR_TOKEN_ORACLE_WRITE
dfspDirectoryRead: OPERATOR_TOKEN_DFSP_DIRECTORY_READ
{{- end -}}

{{/*
The operator tokens a component sends or checks: an internal API checks every token (it tells
a known token out of its scope from a stranger); the portal, fenced like one, holds none (it
forwards the operator's own). Call with the component.
*/}}
{{- define "fspiop-switch.operatorTokens" -}}
{{- if and .internal (not .operatorPortal) -}}[readWrite, readOnly, oracleWrite, dfspDirectoryRead]{{- else -}}{{ toJson (.operatorTokens | default list) }}{{- end -}}
{{- end -}}

{{/* The keys of the chart-made Secret (empty when every secret is an existing one). */}}
{{- define "fspiop-switch.secretData" -}}
{{- if or .Values.dev.mysql.enabled (not .Values.db.existingSecret) }}
DB_PASSWORD: {{ (ternary .Values.dev.mysql.rootPassword .Values.db.password .Values.dev.mysql.enabled) | b64enc | quote }}
{{- end }}
{{- if and (include "fspiop-switch.saslEnabled" .) (not .Values.kafka.sasl.existingSecret) }}
KAFKA_SASL_PASSWORD: {{ .Values.kafka.sasl.password | b64enc | quote }}
{{- end }}
{{- if and .Values.operatorAuth.enabled (not .Values.operatorAuth.existingSecret) }}
{{- /* Tokens not given are generated once: an upgrade keeps the installed Secret's. */}}
{{- $installed := (lookup "v1" "Secret" .Release.Namespace (printf "%s-secrets" (include "fspiop-switch.fullname" .))).data | default dict }}
{{- $given := dict "readWrite" .Values.operatorAuth.readWriteToken "readOnly" .Values.operatorAuth.readOnlyToken "oracleWrite" .Values.operatorAuth.oracleWriteToken "dfspDirectoryRead" .Values.operatorAuth.dfspDirectoryReadToken }}
{{- range $name, $key := include "fspiop-switch.operatorTokenKeys" . | fromYaml }}
{{ $key }}: {{ get $given $name | b64enc | default (get $installed $key) | default (randAlphaNum 48 | b64enc) | quote }}
{{- end }}
{{- end }}
{{- end -}}

{{/*
Hook annotations of the setup Jobs. With the in-cluster dev Kafka/MySQL the Jobs are plain
resources instead: a pre-install hook would wait for a broker that is only created after it.
Call with (dict "root" $ "weight" "N").
*/}}
{{- define "fspiop-switch.hookAnnotations" -}}
{{- if not (or .root.Values.dev.kafka.enabled .root.Values.dev.mysql.enabled) -}}
helm.sh/hook: pre-install,pre-upgrade
helm.sh/hook-weight: {{ .weight | quote }}
helm.sh/hook-delete-policy: before-hook-creation,hook-succeeded
{{- end -}}
{{- end -}}

{{- /*
A setup Job's name. As a hook it is deleted and created anew on each upgrade. In dev mode it is
a plain resource, and a Job's pod template cannot be changed in place: an upgrade to a new image
would be refused, so each revision has a Job of its own (helm deletes the previous one).
*/}}
{{- define "fspiop-switch.setupJobName" -}}
{{- $base := printf "%s-%s" (include "fspiop-switch.fullname" .root) .name -}}
{{- if include "fspiop-switch.devMode" .root -}}{{ printf "%s-%d" $base (int .root.Release.Revision) }}{{- else -}}{{ $base }}{{- end -}}
{{- end -}}

{{- define "fspiop-switch.devMode" -}}
{{- if or .Values.dev.kafka.enabled .Values.dev.mysql.enabled -}}true{{- end -}}
{{- end -}}

{{/* Space-separated /health URLs of every enabled component (helm test). */}}
{{- define "fspiop-switch.healthUrls" -}}
{{- $urls := list -}}
{{- range $name, $_ := .Values.components -}}
{{- $ctx := dict "root" $ "name" $name -}}
{{- if include "fspiop-switch.enabled" $ctx -}}
{{- $urls = append $urls (printf "%s/health" (include "fspiop-switch.url" $ctx)) -}}
{{- end -}}
{{- end -}}
{{- join " " $urls -}}
{{- end -}}

{{/* Volume, mount and env of the extra CA bundle (extraCaCerts); empty when not set. */}}
{{- define "fspiop-switch.caVolume" -}}
{{- if .Values.extraCaCerts.configMapName }}
- name: extra-ca
  configMap:
    name: {{ .Values.extraCaCerts.configMapName }}
{{- end }}
{{- end -}}

{{- define "fspiop-switch.caMount" -}}
{{- if .Values.extraCaCerts.configMapName }}
- name: extra-ca
  mountPath: /etc/fspiop-switch/ca
  readOnly: true
{{- end }}
{{- end -}}

{{- define "fspiop-switch.caEnv" -}}
{{- if .Values.extraCaCerts.configMapName }}
- name: NODE_EXTRA_CA_CERTS
  value: {{ printf "/etc/fspiop-switch/ca/%s" .Values.extraCaCerts.key | quote }}
{{- end }}
{{- end -}}

{{/*
The load test's payer/payee pairs, as perf/provision.js's allPairs makes them: every ordered
pair of distinct DFSPs perffsp1…N, equal weights, each payee's MSISDN range starting at
2,000,000,000 + 10,000,000 × its index (test/charts/helm-template.test.js compares the two).
*/}}
{{- define "fspiop-switch.loadTestPairs" -}}
{{- $lt := .Values.loadTest -}}
{{- $pairs := list -}}
{{- range $payer := until (int $lt.dfsps) -}}
{{- range $payee := until (int $lt.dfsps) -}}
{{- if ne $payer $payee -}}
{{- $pairs = append $pairs (dict "payer" (printf "perffsp%d" (add1 $payer)) "payee" (printf "perffsp%d" (add1 $payee)) "weight" 1 "msisdnFrom" (add 2000000000 (mul $payee 10000000)) "msisdnCount" (int $lt.msisdnsPerDfsp)) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- toJson $pairs -}}
{{- end -}}

{{/* The load test's DFSP names, perffsp1…N as perf/provision.js's dfspNames makes them, as JSON. */}}
{{- /* The simulator process that owns each load-test DFSP as payer, as perf/provision.js assigns them: DFSP i → i mod workers. */}}
{{- define "fspiop-switch.loadTestPayerWorkers" -}}
{{- $owners := dict -}}
{{- range $index := until (int .Values.loadTest.dfsps) -}}
{{- $_ := set $owners (printf "perffsp%d" (add1 $index)) (mod $index (int $.Values.loadTest.simulators.workers)) -}}
{{- end -}}
{{- toJson $owners -}}
{{- end -}}

{{- define "fspiop-switch.loadTestDfsps" -}}
{{- $names := list -}}
{{- range $index := until (int .Values.loadTest.dfsps) -}}
{{- $names = append $names (printf "perffsp%d" (add1 $index)) -}}
{{- end -}}
{{- if include "fspiop-switch.loadTestConverts" . -}}
{{- $names = append $names "perffxp1" -}}
{{- range $index := until (int .Values.loadTest.conversionPayees) -}}
{{- $names = append $names (printf "perffspeur%d" (add1 $index)) -}}
{{- end -}}
{{- end -}}
{{- toJson $names -}}
{{- end -}}

{{- /* "true" when a share of the load test's payments converts currency (loadTest.conversionShare above 0). */}}
{{- define "fspiop-switch.loadTestConverts" -}}
{{- if gt (float64 (toString .Values.loadTest.conversionShare)) 0.0 -}}true{{- end -}}
{{- end -}}

{{- /* The conversion payments' pairs, as perf/provision.js's conversionPairs makes them: every USD payer with every EUR payee through perffxp1. */}}
{{- define "fspiop-switch.loadTestConversionPairs" -}}
{{- $lt := .Values.loadTest -}}
{{- $pairs := list -}}
{{- $payees := ternary (int $lt.conversionPayees) 0 (eq (include "fspiop-switch.loadTestConverts" .) "true") -}}
{{- range $payer := until (int $lt.dfsps) -}}
{{- range $payee := until $payees -}}
{{- $pairs = append $pairs (dict "payer" (printf "perffsp%d" (add1 $payer)) "payee" (printf "perffspeur%d" (add1 $payee)) "fxp" "perffxp1" "targetCurrency" "EUR" "weight" 1 "msisdnFrom" (add 3000000000 (mul $payee 10000000)) "msisdnCount" (int $lt.msisdnsPerDfsp)) -}}
{{- end -}}
{{- end -}}
{{- toJson $pairs -}}
{{- end -}}

{{- /* The currencies each load-test DFSP holds (the simulators' SIM_DFSP_CURRENCIES_JSON), as perf/provision.js provisions them. */}}
{{- define "fspiop-switch.loadTestDfspCurrencies" -}}
{{- $currencies := dict -}}
{{- range $name := include "fspiop-switch.loadTestDfsps" . | fromJsonArray -}}
{{- $_ := set $currencies $name (ternary (list "USD" "EUR") (ternary (list "EUR") (list "USD") (hasPrefix "perffspeur" $name)) (eq $name "perffxp1")) -}}
{{- end -}}
{{- toJson $currencies -}}
{{- end -}}

{{/*
JWS keys of one component, as files (README "Configuration"): the hub's private key for the
notification handler (`jwsHubKey: private`), its public key for the admin API (`jwsHubKey:
public`), and the DFSP keys directory (jws.dfspKeys) for the edges that verify (`jwsVerifies`).
Each prints nothing when it does not apply. Call with (dict "root" $ "c" $component).
*/}}
{{- define "fspiop-switch.jwsHubSecretName" -}}
{{- default (printf "%s-jws-hub" (include "fspiop-switch.fullname" .)) .Values.jws.hubKey.existingSecret -}}
{{- end -}}

{{- define "fspiop-switch.jwsVolumes" -}}
{{- $jws := .root.Values.jws -}}
{{- if .c.jwsHubKey }}
- name: jws-hub
  secret:
    secretName: {{ include "fspiop-switch.jwsHubSecretName" .root }}
    defaultMode: 0400
    items:
      - key: {{ ternary $jws.hubKey.privateKeyKey $jws.hubKey.publicKeyKey (eq .c.jwsHubKey "private") }}
        path: {{ ternary "hub-private.pem" "hub-public.pem" (eq .c.jwsHubKey "private") }}
{{- end }}
{{- if and .c.jwsVerifies $jws.dfspKeys.existingSecret }}
- name: jws-dfsps
  secret:
    secretName: {{ $jws.dfspKeys.existingSecret }}
{{- end }}
{{- end -}}

{{- define "fspiop-switch.jwsMounts" -}}
{{- if .c.jwsHubKey }}
- name: jws-hub
  mountPath: /etc/fspiop-switch/jws-hub
  readOnly: true
{{- end }}
{{- if and .c.jwsVerifies .root.Values.jws.dfspKeys.existingSecret }}
- name: jws-dfsps
  mountPath: /etc/fspiop-switch/jws-dfsps
  readOnly: true
{{- end }}
{{- end -}}

{{- /* Mutual TLS of the DFSP-facing edges (the components that verify DFSP signatures). */}}
{{- define "fspiop-switch.clientIdentityEnv" -}}
{{- $identity := .root.Values.clientIdentity -}}
{{- if and .c.jwsVerifies (ne (toString $identity.mode) "off") }}
- name: CLIENT_IDENTITY
  value: {{ $identity.mode | quote }}
- name: CLIENT_IDENTITY_HEADER
  value: {{ $identity.header | quote }}
{{- if eq $identity.mode "certificate" }}
- name: TLS_CERT_PATH
  value: /etc/fspiop-switch/edge-tls/tls.crt
- name: TLS_KEY_PATH
  value: /etc/fspiop-switch/edge-tls/tls.key
- name: TLS_CLIENT_CA_PATH
  value: /etc/fspiop-switch/edge-tls/ca.crt
{{- end }}
{{- end }}
{{- end -}}

{{- /* "true" when component `c` serves HTTPS: an FSPIOP edge with clientIdentity.mode=certificate. Call with (dict "root" $ "c" $component). */}}
{{- define "fspiop-switch.servesTls" -}}
{{- if and .c.jwsVerifies (eq (toString .root.Values.clientIdentity.mode) "certificate") }}true{{ end -}}
{{- end -}}

{{- /* The name of a component's port: https where it serves TLS (probes, Services, monitors go by it). */}}
{{- define "fspiop-switch.portName" -}}
{{- ternary "https" "http" (eq (include "fspiop-switch.servesTls" .) "true") -}}
{{- end -}}

{{- /* "true" when some enabled FSPIOP edge serves HTTPS, and so needs a certificate. */}}
{{- define "fspiop-switch.edgesServeTls" -}}
{{- range $name, $c := .Values.components -}}
{{- if and $c.enabled (include "fspiop-switch.servesTls" (dict "root" $ "c" $c)) -}}true{{- break -}}{{- end -}}
{{- end -}}
{{- end -}}

{{- /* The Secret of the edges' certificate: the operator's, or the one the chart generates for a lab. */}}
{{- define "fspiop-switch.edgeTlsSecretName" -}}
{{- .Values.clientIdentity.tls.existingSecret | default (printf "%s-edge-tls" (include "fspiop-switch.fullname" .)) -}}
{{- end -}}

{{- /* The Secret of the load-test DFSPs' client certificates: the operator's, or the generated one. */}}
{{- define "fspiop-switch.loadTestTlsSecretName" -}}
{{- .Values.loadTest.simulators.clientCertificatesSecret | default (printf "%s-loadtest-tls" (include "fspiop-switch.fullname" .)) -}}
{{- end -}}

{{- define "fspiop-switch.edgeTlsMount" -}}
{{- if include "fspiop-switch.servesTls" . }}
- name: edge-tls
  mountPath: /etc/fspiop-switch/edge-tls
  readOnly: true
{{- end }}
{{- end -}}

{{- define "fspiop-switch.edgeTlsVolume" -}}
{{- if include "fspiop-switch.servesTls" . }}
- name: edge-tls
  secret:
    secretName: {{ include "fspiop-switch.edgeTlsSecretName" .root }}
    defaultMode: 0400
    items:
      - {key: tls.crt, path: tls.crt}
      - {key: tls.key, path: tls.key}
      - {key: ca.crt, path: ca.crt}
{{- end }}
{{- end -}}

{{- define "fspiop-switch.jwsEnv" -}}
{{- if eq (toString .c.jwsHubKey) "private" }}
- name: JWS_HUB_SIGNING_KEY_PATH
  value: /etc/fspiop-switch/jws-hub/hub-private.pem
{{- else if eq (toString .c.jwsHubKey) "public" }}
- name: JWS_HUB_PUBLIC_KEY_PATH
  value: /etc/fspiop-switch/jws-hub/hub-public.pem
{{- end }}
{{- if and .c.jwsVerifies .root.Values.jws.dfspKeys.existingSecret }}
- name: JWS_KEYS_DIRECTORY
  value: /etc/fspiop-switch/jws-dfsps
{{- end }}
{{- end -}}

{{- /*
Mutual TLS on the hub's calls to DFSPs (callbackTls): the hub's client certificate and the
scheme's CA, in the components that send those calls, the ones that sign as the hub.
*/}}
{{- define "fspiop-switch.sendsCallbackTls" -}}
{{- if and (eq (toString .c.jwsHubKey) "private") .root.Values.callbackTls.secret }}true{{ end -}}
{{- end -}}

{{- define "fspiop-switch.callbackTlsEnv" -}}
{{- if include "fspiop-switch.sendsCallbackTls" . }}
- name: CALLBACK_TLS_CERT_PATH
  value: /etc/fspiop-switch/callback-tls/tls.crt
- name: CALLBACK_TLS_KEY_PATH
  value: /etc/fspiop-switch/callback-tls/tls.key
- name: CALLBACK_TLS_CA_PATH
  value: /etc/fspiop-switch/callback-tls/ca.crt
- name: CALLBACK_TLS_PUBLIC_ROOTS
  value: {{ .root.Values.callbackTls.publicRoots | toString | quote }}
{{- end }}
{{- end -}}

{{- define "fspiop-switch.callbackTlsMount" -}}
{{- if include "fspiop-switch.sendsCallbackTls" . }}
- name: callback-tls
  mountPath: /etc/fspiop-switch/callback-tls
  readOnly: true
{{- end }}
{{- end -}}

{{- define "fspiop-switch.callbackTlsVolume" -}}
{{- if include "fspiop-switch.sendsCallbackTls" . }}
- name: callback-tls
  secret:
    secretName: {{ .root.Values.callbackTls.secret }}
    defaultMode: 0400
{{- end }}
{{- end -}}
