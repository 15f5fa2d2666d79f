{{/* The three long-running components, in a fixed order. */}}
{{- define "workspace-api.components" -}}
gateway pages calendar
{{- end -}}

{{- define "workspace-api.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" -}}
{{- end -}}

{{- define "workspace-api.fullname" -}}
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

{{/* Name of a component's objects. Call with (dict "root" $ "name" "pages"). */}}
{{- define "workspace-api.componentName" -}}
{{- printf "%s-%s" (include "workspace-api.fullname" .root | trunc 50 | trimSuffix "-") .name -}}
{{- end -}}

{{- define "workspace-api.labels" -}}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
app.kubernetes.io/name: {{ include "workspace-api.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
app.kubernetes.io/part-of: workspace-api
{{- end -}}

{{/* Call with (dict "root" $ "name" "pages"). */}}
{{- define "workspace-api.selectorLabels" -}}
app.kubernetes.io/name: {{ include "workspace-api.name" .root }}
app.kubernetes.io/instance: {{ .root.Release.Name }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "workspace-api.componentLabels" -}}
{{ include "workspace-api.labels" .root }}
app.kubernetes.io/component: {{ .name }}
{{- end -}}

{{- define "workspace-api.serviceAccountName" -}}
{{- if .Values.serviceAccount.create -}}
{{- default (include "workspace-api.fullname" .) .Values.serviceAccount.name -}}
{{- else -}}
{{- default "default" .Values.serviceAccount.name -}}
{{- end -}}
{{- end -}}

{{/* The image every component runs. */}}
{{- define "workspace-api.image" -}}
{{- $image := .Values.image -}}
{{- $repository := $image.repository -}}
{{- with $image.registry | trimSuffix "/" -}}
{{- $repository = printf "%s/%s" . $repository -}}
{{- end -}}
{{- if $image.digest -}}
{{- printf "%s@%s" $repository $image.digest -}}
{{- else -}}
{{- printf "%s:%s" $repository ($image.tag | default .Chart.AppVersion) -}}
{{- end -}}
{{- end -}}

{{/*
What each component runs in the image: the runtime flags, entry file and
variables of its definition.ts (migrate: the migrate npm script), as JSON
{"command": [...], "env": {...}} (a test keeps them equal). The gateway's
flags and forceRAMSize (the pages service's too) make JavaScriptCore collect
garbage sooner, and the MIMALLOC_ variables make Bun's allocator give freed
memory back at once (bench/; for pages: large answers).
*/}}
{{- define "workspace-api.run" -}}
{{- $runs := dict
  "gateway" (dict "command" (list "bun" "--smol" "--max-http-header-size=1048576" "gateway/src/main.bun.ts") "env" (dict "BUN_JSC_forceRAMSize" "268435456" "MIMALLOC_PURGE_DELAY" "0" "MIMALLOC_ARENA_EAGER_COMMIT" "0"))
  "pages" (dict "command" (list "bun" "--max-http-header-size=1048576" "services/pages/src/main.bun.ts") "env" (dict "BUN_JSC_forceRAMSize" "268435456" "MIMALLOC_PURGE_DELAY" "0" "MIMALLOC_ARENA_EAGER_COMMIT" "0"))
  "calendar" (dict "command" (list "bun" "--max-http-header-size=1048576" "services/calendar/src/main.bun.ts") "env" (dict))
  "migrate" (dict "command" (list "bun" "scripts/migrate.ts") "env" (dict))
  "test" (dict "command" (list "bun" "scripts/smoke-check.ts") "env" (dict))
-}}
{{- index $runs . | toJson -}}
{{- end -}}

{{/* The Secret holding a component's DATABASE_URL: its own, or the shared one. Call with (dict "root" $ "name" "pages"). */}}
{{- define "workspace-api.databaseSecret" -}}
{{- $own := (index .root.Values .name).database.secret -}}
{{- if $own.name -}}
{{- toJson $own -}}
{{- else -}}
{{- toJson .root.Values.secrets.databaseUrl -}}
{{- end -}}
{{- end -}}

{{/*
The migration Job's steps: the components grouped by the Secret of their
DATABASE_URL, in component order, as a JSON list of {"secret", "components"}.
*/}}
{{- define "workspace-api.migrationSteps" -}}
{{- $steps := list -}}
{{- range $name := splitList " " (include "workspace-api.components" $) -}}
{{- $secret := include "workspace-api.databaseSecret" (dict "root" $ "name" $name) | fromJson -}}
{{- $found := false -}}
{{- range $step := $steps -}}
{{- if and (not $found) (eq (toJson $step.secret) (toJson $secret)) -}}
{{- $_ := set $step "components" (append $step.components $name) -}}
{{- $found = true -}}
{{- end -}}
{{- end -}}
{{- if not $found -}}
{{- $steps = append $steps (dict "secret" $secret "components" (list $name)) -}}
{{- end -}}
{{- end -}}
{{- toJson $steps -}}
{{- end -}}

{{/* An env entry read from an existing Secret. Call with (dict "env" "DATABASE_URL" "ref" .Values.secrets.databaseUrl). */}}
{{- define "workspace-api.secretEnv" -}}
- name: {{ .env }}
  valueFrom:
    secretKeyRef:
      name: {{ .ref.name | quote }}
      key: {{ .ref.key | quote }}
{{- end -}}

{{/* SIGTERM arrives after the preStop sleep; the process then drains for up to SHUTDOWN_GRACE_MS. */}}
{{- define "workspace-api.terminationGracePeriodSeconds" -}}
{{- $drain := div (add (int .Values.config.shutdownGraceMs) 999) 1000 -}}
{{- add (int .Values.lifecycle.preStopSleepSeconds) $drain (int .Values.lifecycle.terminationMarginSeconds) -}}
{{- end -}}

{{/*
The most pods of a component that can hold database connections at once: its
largest size, plus the rolling-update surge starting, plus one earlier surge
batch still draining (terminating pods are not counted by the Deployment
controller but keep their pool until they exit).
*/}}
{{- define "workspace-api.maxPods" -}}
{{- $c := index .root.Values .name -}}
{{- $pods := int $c.replicaCount -}}
{{- if $c.autoscaling.enabled -}}
{{- $pods = int $c.autoscaling.maxReplicas -}}
{{- end -}}
{{- $surge := .root.Values.rollingUpdate.maxSurge -}}
{{- if kindIs "string" $surge -}}
{{- $surge = div (add (mul $pods (trimSuffix "%" $surge | int)) 99) 100 -}}
{{- end -}}
{{- add $pods (mul 2 (int $surge)) -}}
{{- end -}}

{{/* Worst-case Postgres connections of one component: its most pods times its pool. Call with (dict "root" $ "name" "pages"). */}}
{{- define "workspace-api.componentConnections" -}}
{{- mul (include "workspace-api.maxPods" .) (int (index .root.Values .name).dbPoolMax) -}}
{{- end -}}

{{/*
The Postgres servers the release connects to, each with its budget and the
worst case its pools can open, as a JSON list of {"name", "max", "reserved",
"connections", "components"}. "shared" holds every component without a
database.maxConnections of its own; each other component is a server of its
own. The migration Job counts on every server it migrates.
*/}}
{{- define "workspace-api.databaseServers" -}}
{{- $shared := dict "name" "shared" "max" (int .Values.database.maxConnections) "reserved" (int .Values.database.reservedConnections) "connections" 0 "components" (list) -}}
{{- $servers := list $shared -}}
{{- range $name := splitList " " (include "workspace-api.components" $) -}}
{{- $c := index $.Values $name -}}
{{- $connections := include "workspace-api.componentConnections" (dict "root" $ "name" $name) | int -}}
{{- if gt (int $c.database.maxConnections) 0 -}}
{{- $servers = append $servers (dict "name" $name "max" (int $c.database.maxConnections) "reserved" (int $c.database.reservedConnections) "connections" $connections "components" (list $name)) -}}
{{- else -}}
{{- $_ := set $shared "connections" (add $shared.connections $connections) -}}
{{- $_ := set $shared "components" (append $shared.components $name) -}}
{{- end -}}
{{- end -}}
{{- $result := list -}}
{{- range $server := $servers -}}
{{- if $server.components -}}
{{- if $.Values.migrations.enabled -}}
{{- $_ := set $server "connections" (add $server.connections (int $.Values.migrations.dbPoolMax)) -}}
{{- end -}}
{{- $result = append $result $server -}}
{{- end -}}
{{- end -}}
{{- toJson $result -}}
{{- end -}}

{{/* Fails the render on combinations that would not work; included by the ConfigMap, which is always rendered. */}}
{{- define "workspace-api.validate" -}}
{{- range $name := splitList " " (include "workspace-api.components" .) -}}
{{- $secret := include "workspace-api.databaseSecret" (dict "root" $ "name" $name) | fromJson -}}
{{- if not $secret.name -}}
{{- fail (printf "secrets.databaseUrl.name (or %s.database.secret.name) is required: in Kubernetes DATABASE_URL must point at an external Postgres" $name) -}}
{{- end -}}
{{- end -}}
{{- if not .Values.secrets.internalSigningKey.name -}}
{{- fail "secrets.internalSigningKey.name is required: the gateway signs principals with it and the services verify them" -}}
{{- end -}}
{{- if and .Values.metrics.serviceMonitor.enabled .Values.metrics.podMonitor.enabled -}}
{{- fail "metrics.serviceMonitor and metrics.podMonitor are both enabled: every target would be scraped twice; enable one" -}}
{{- end -}}
{{- $gw := .Values.gateway -}}
{{- if and (not .Values.secrets.redisUrl.name) (or $gw.autoscaling.enabled (gt (int $gw.replicaCount) 1)) -}}
{{- fail "secrets.redisUrl.name is required when the gateway can run more than one replica: the rate limit is shared through Redis" -}}
{{- end -}}
{{- range $name := splitList " " (include "workspace-api.components" .) -}}
{{- $c := index $.Values $name -}}
{{- if and $c.autoscaling.enabled (gt (int $c.autoscaling.minReplicas) (int $c.autoscaling.maxReplicas)) -}}
{{- fail (printf "%s.autoscaling.minReplicas must not exceed maxReplicas" $name) -}}
{{- end -}}
{{- end -}}
{{- range $server := include "workspace-api.databaseServers" . | fromJsonArray -}}
{{- $max := int $server.max -}}
{{- if gt $max 0 -}}
{{- $budget := sub $max (int $server.reserved) -}}
{{- $worst := int $server.connections -}}
{{- if gt $worst $budget -}}
{{- $where := ternary "database" (printf "%s.database" $server.name) (eq $server.name "shared") -}}
{{- fail (printf "Postgres connections (%s server: %s): the pools can open %d connections at peak (every Deployment at its maximum size plus two rolling-update surges, times its dbPoolMax, plus migrations), more than %s.maxConnections %d - %s.reservedConnections %d = %d. Lower dbPoolMax or maxReplicas, or raise max_connections (see deploy/README.md, Scaling)." $server.name (join ", " $server.components) $worst $where $max $where (int $server.reserved) $budget) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- end -}}

{{/* One migration step: `bun scripts/migrate.ts <components>` with their DATABASE_URL. Call with (dict "root" $ "step" $step "run" $run "name" "migrate"). */}}
{{- define "workspace-api.migrationContainer" -}}
{{- $root := .root -}}
{{- $m := $root.Values.migrations -}}
- name: {{ .name }}
  image: {{ include "workspace-api.image" $root | quote }}
  imagePullPolicy: {{ $root.Values.image.pullPolicy }}
  command:
    {{- toYaml (concat .run.command .step.components) | nindent 4 }}
  env:
    - name: DB_POOL_MAX
      value: {{ $m.dbPoolMax | quote }}
    - name: LOG_LEVEL
      value: {{ $root.Values.config.logLevel | quote }}
    {{- include "workspace-api.secretEnv" (dict "env" "DATABASE_URL" "ref" .step.secret) | nindent 4 }}
  resources:
    {{- toYaml $m.resources | nindent 4 }}
  securityContext:
    {{- toYaml $root.Values.containerSecurityContext | nindent 4 }}
  volumeMounts:
    - name: tmp
      mountPath: /tmp
    {{- with $m.extraVolumeMounts }}
    {{- toYaml . | nindent 4 }}
    {{- end }}
{{- end -}}

{{/* Target labels the dashboard and the alert rules select on: the component and the release of each pod. */}}
{{- define "workspace-api.targetRelabelings" -}}
- sourceLabels: [__meta_kubernetes_pod_label_app_kubernetes_io_component]
  targetLabel: component
- sourceLabels: [__meta_kubernetes_pod_label_app_kubernetes_io_instance]
  targetLabel: release
{{- end -}}

{{/* A map of annotations or node labels with every value quoted: YAML would read true or 1 as a boolean or a number, which Kubernetes refuses. */}}
{{- define "workspace-api.stringMap" -}}
{{- range $key, $value := . }}
{{ $key | quote }}: {{ $value | toString | quote }}
{{- end -}}
{{- end -}}
