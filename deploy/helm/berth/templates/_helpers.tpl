{{/* The prefix of every object's name: "berth" for a release called berth, else "<release>-berth". */}}
{{- define "berth.name" -}}
{{- if contains "berth" .Release.Name }}{{ .Release.Name }}{{ else }}{{ .Release.Name }}-berth{{ end }}
{{- end }}

{{- define "berth.labels" -}}
app.kubernetes.io/name: berth
app.kubernetes.io/part-of: berth
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ .Chart.Name }}-{{ .Chart.Version }}
{{- end }}

{{/* The chart's labels and extra ones a user gives (the chart's win a clash). */}}
{{- define "berth.labelsWith" -}}
{{- toYaml (merge (include "berth.labels" .root | fromYaml) (deepCopy .extra)) }}
{{- end }}

{{- define "berth.selectorLabels" -}}
app.kubernetes.io/name: berth
app.kubernetes.io/component: operator
{{- end }}

{{- define "berth.credentialsSecret" -}}
{{- if .Values.credentials.existingSecret }}{{ .Values.credentials.existingSecret }}{{ else }}berth-credentials{{ end }}
{{- end }}

{{/* The --watch-label-selector of a shard ("" for the main Deployment). */}}
{{- define "berth.shardSelector" -}}
{{- if .shard }}berth.dev/shard in ({{ .shard }}){{ else if .root.Values.sharding.shards }}!berth.dev/shard{{ end }}
{{- end }}

{{/* A shard's Lease, as src/operator/shard.ts names it. */}}
{{- define "berth.leaseName" -}}
{{- $slug := regexReplaceAll "[^a-z0-9]+" (. | lower | replace "!=" "-not-" | replace "!" "not-") "-" | trimAll "-" -}}
{{- if or (eq . "") (eq (. | replace " " "") "!berth.dev/shard") }}berth-operator{{ else }}berth-operator-{{ $slug }}{{ end }}
{{- end }}

{{- define "berth.leaseNames" -}}
{{- $names := list (include "berth.leaseName" (include "berth.shardSelector" (dict "root" . "shard" ""))) -}}
{{- range .Values.sharding.shards }}
{{- $names = append $names (include "berth.leaseName" (include "berth.shardSelector" (dict "root" $ "shard" .))) -}}
{{- end }}
{{- toJson $names }}
{{- end }}

{{/* The pods' affinity as given, with the chart's podAntiAffinity (replicas prefer different nodes) unless it gives its own. */}}
{{- define "berth.affinity" -}}
{{- $affinity := deepCopy .Values.affinity }}
{{- if not (hasKey $affinity "podAntiAffinity") }}
{{- $term := dict "topologyKey" "kubernetes.io/hostname" "labelSelector" (dict "matchLabels" (include "berth.selectorLabels" . | fromYaml)) }}
{{- $_ := set $affinity "podAntiAffinity" (dict "preferredDuringSchedulingIgnoredDuringExecution" (list (dict "weight" 100 "podAffinityTerm" $term))) }}
{{- end }}
{{- toYaml $affinity }}
{{- end }}

{{/* Whether the operator serves cert-manager's certificate for /metrics (and Prometheus verifies it). */}}
{{- define "berth.metricsCertManaged" -}}
{{- if and .Values.metrics.secure .Values.metrics.certManager.enabled }}true{{ end }}
{{- end }}

{{/* The Secret cert-manager writes the metrics serving certificate to (tls.crt, tls.key, ca.crt). */}}
{{- define "berth.metricsCertSecret" -}}
{{ include "berth.name" . }}-metrics-cert
{{- end }}

{{/* The metrics Service's DNS name, which the certificate is for and Prometheus checks. */}}
{{- define "berth.metricsServerName" -}}
{{ include "berth.name" . }}-operator-metrics.{{ .Release.Namespace }}.svc
{{- end }}
