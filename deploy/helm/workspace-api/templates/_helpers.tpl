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

{{/* Image reference. Call with (dict "root" $ "image" .Values.gateway.image). */}}
{{- define "workspace-api.image" -}}
{{- $registry := .root.Values.image.registry | trimSuffix "/" -}}
{{- $repository := .image.repository -}}
{{- if $registry -}}
{{- $repository = printf "%s/%s" $registry $repository -}}
{{- end -}}
{{- if .image.digest -}}
{{- printf "%s@%s" $repository .image.digest -}}
{{- else -}}
{{- printf "%s:%s" $repository (.image.tag | default .root.Values.image.tag | default .root.Chart.AppVersion) -}}
{{- end -}}
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

{{/* Worst-case number of Postgres connections the release can open. */}}
{{- define "workspace-api.maxDatabaseConnections" -}}
{{- $total := 0 -}}
{{- range $name := splitList " " (include "workspace-api.components" $) -}}
{{- $c := index $.Values $name -}}
{{- $total = add $total (mul (include "workspace-api.maxPods" (dict "root" $ "name" $name) | int) (int $c.dbPoolMax)) -}}
{{- end -}}
{{- if .Values.migrations.enabled -}}
{{- $total = add $total (int .Values.migrations.dbPoolMax) -}}
{{- end -}}
{{- $total -}}
{{- end -}}

{{/* Fails the render on combinations that would not work; included by the ConfigMap, which is always rendered. */}}
{{- define "workspace-api.validate" -}}
{{- if not .Values.secrets.databaseUrl.name -}}
{{- fail "secrets.databaseUrl.name is required: in Kubernetes DATABASE_URL must point at an external Postgres" -}}
{{- end -}}
{{- if not .Values.secrets.internalSigningKey.name -}}
{{- fail "secrets.internalSigningKey.name is required: the gateway signs principals with it and the services verify them" -}}
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
{{- $max := int .Values.database.maxConnections -}}
{{- if gt $max 0 -}}
{{- $budget := sub $max (int .Values.database.reservedConnections) -}}
{{- $worst := include "workspace-api.maxDatabaseConnections" . | int -}}
{{- if gt $worst $budget -}}
{{- fail (printf "Postgres connections: the pools can open %d connections at peak (every Deployment at its maximum size plus two rolling-update surges, times its dbPoolMax, plus migrations), more than database.maxConnections %d - database.reservedConnections %d = %d. Lower dbPoolMax or maxReplicas, or raise max_connections (see deploy/README.md, Scaling)." $worst $max (int .Values.database.reservedConnections) $budget) -}}
{{- end -}}
{{- end -}}
{{- end -}}
