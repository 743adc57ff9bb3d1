{{/* The compact profile (values `compact`; README.md, "The compact profile") ------------------- */}}

{{/*
The hosts of the compact profile, checked and resolved, as YAML {hosts: [...]}, empty when it is
off. Each host: `name`, `members` (its enabled components, in the order given), `settings`
(componentDefaults with the host's own settings over them), `ports` (each member's port:
{member, port, name, scheme}) and `topics` (every topic its members consume). A host whose
components are all turned off is left out. Refuses what the switch could not run: two hosts of
one name, a component in two hosts, an enabled component in none (but the built-in oracle,
which keeps its own Deployment when no host lists it), and the oracle in a host without
account-lookup-admin, the component that serves it there.
*/}}
{{- define "fspiop-switch.compactHosts" -}}
{{- $hosts := list -}}
{{- if .Values.compact.enabled -}}
{{- $hostOf := dict -}}
{{- $hostNames := dict -}}
{{- range $host := .Values.compact.hosts -}}
{{- if hasKey $hostNames $host.name -}}
{{- fail (printf "compact.hosts: two hosts are called %s" $host.name) -}}
{{- end -}}
{{- $_ := set $hostNames $host.name true -}}
{{- $members := list -}}
{{- $ports := list -}}
{{- $topics := list -}}
{{- range $name := $host.components -}}
{{- if hasKey $hostOf $name -}}
{{- fail (printf "compact.hosts: %s is in two hosts, %s and %s; a component runs in one process" $name (get $hostOf $name) $host.name) -}}
{{- end -}}
{{- $_ := set $hostOf $name $host.name -}}
{{- $ctx := dict "root" $ "name" $name -}}
{{- if include "fspiop-switch.enabled" $ctx -}}
{{- $c := include "fspiop-switch.component" $ctx | fromYaml -}}
{{- $scheme := include "fspiop-switch.portName" (dict "root" $ "c" $c) -}}
{{- $members = append $members $name -}}
{{- $ports = append $ports (dict "member" $name "port" (int $c.port) "name" (printf "%s-%d" $scheme (int $c.port)) "scheme" $scheme) -}}
{{- $topics = concat $topics ($c.topics | default list) -}}
{{- end -}}
{{- end -}}
{{- if and (has "oracle" $members) (not (has "account-lookup-admin" $members)) -}}
{{- fail (printf "compact.hosts: host %s lists the oracle without account-lookup-admin, which serves it in a host; list both, or leave the oracle out (its own Deployment)" $host.name) -}}
{{- end -}}
{{- if $members -}}
{{- $settings := mergeOverwrite (deepCopy $.Values.componentDefaults) (omit (deepCopy $host) "name" "components") -}}
{{- $hosts = append $hosts (dict "name" $host.name "members" $members "settings" $settings "ports" $ports "topics" $topics) -}}
{{- end -}}
{{- end -}}
{{- range $name, $c := .Values.components -}}
{{- if and $c.enabled (ne $name "oracle") (not (hasKey $hostOf $name)) -}}
{{- fail (printf "compact.hosts: %s is enabled but in no host; list it in one, or turn it off (components.%s.enabled=false)" $name $name) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- toYaml (dict "hosts" $hosts) -}}
{{- end -}}

{{/* The host a component runs in with the compact profile on, or nothing. Call with (dict "root" $ "name" $name). */}}
{{- define "fspiop-switch.compactHostOf" -}}
{{- if .root.Values.compact.enabled -}}
{{- range .root.Values.compact.hosts -}}
{{- if has $.name .components -}}{{ .name }}{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/*
What a host's process needs, the union of what its members need alone, as YAML: `env` (the
members' `env`, a variable two members set differently refused, since one process has one
environment; ORACLE_PORT set when the host serves the oracle), `database`, `operatorTokens`
(in the Secret's order), `operatorClient` (a member sends operator tokens, or is the portal), `verifies` (a
member is an FSPIOP edge), `hubKeyPrivate`, `hubKeyPublic`. SERVICE_NAME and PORT are not in
it: scripts/compact-host.js gives each member its own. Call with (dict "root" $ "host" $host).
*/}}
{{- define "fspiop-switch.compactNeeds" -}}
{{- $root := .root -}}
{{- $hostName := .host.name -}}
{{- $needs := dict "env" (dict) "database" false "operatorTokens" (list) "operatorClient" false "verifies" false "hubKeyPrivate" false "hubKeyPublic" false -}}
{{- $tokens := list -}}
{{- range $name := .host.members -}}
{{- $c := include "fspiop-switch.component" (dict "root" $root "name" $name) | fromYaml -}}
{{- range $key, $value := $c.env -}}
{{- if and (hasKey $needs.env $key) (ne (get $needs.env $key) (toString $value)) -}}
{{- fail (printf "compact: the components of one host share one environment, and %s is set to %q for %s but to %q for another component of host %s; give them the same value or put them in different hosts" $key (toString $value) $name (get $needs.env $key) $hostName) -}}
{{- end -}}
{{- $_ := set $needs.env $key (toString $value) -}}
{{- end -}}
{{- if ne (toString $c.database) "false" -}}{{- $_ := set $needs "database" true -}}{{- end -}}
{{- if or $c.operatorTokens $c.operatorPortal -}}{{- $_ := set $needs "operatorClient" true -}}{{- end -}}
{{- if $c.jwsVerifies -}}{{- $_ := set $needs "verifies" true -}}{{- end -}}
{{- if eq (toString $c.jwsHubKey) "private" -}}{{- $_ := set $needs "hubKeyPrivate" true -}}{{- end -}}
{{- if eq (toString $c.jwsHubKey) "public" -}}{{- $_ := set $needs "hubKeyPublic" true -}}{{- end -}}
{{- $tokens = concat $tokens (include "fspiop-switch.operatorTokens" $c | fromYamlArray) -}}
{{- end -}}
{{- range $name := list "readWrite" "readOnly" "oracleWrite" "dfspDirectoryRead" -}}
{{- if has $name $tokens -}}{{- $_ := set $needs "operatorTokens" (append $needs.operatorTokens $name) -}}{{- end -}}
{{- end -}}
{{- if has "oracle" .host.members -}}
{{- $_ := set $needs.env "ORACLE_PORT" (toString (index $root.Values.components "oracle").port) -}}
{{- end -}}
{{- toYaml $needs -}}
{{- end -}}
