{{/*
The policy files the server reads: the chosen policy's files (files/policy/<source>/, copies of
the kit's: deploy/helm/sync-files.sh, or policy.files), with spec.exempt.namespaces.names set to
.Values.exemptNamespaces. A dict file name -> text, as JSON (toYaml would drop the last file's
final newline, and the bytes must be the kit's).
*/}}
{{- define "gpua.policyFiles" -}}
{{- $files := dict -}}
{{- $want := .Values.exemptNamespaces -}}
{{- $found := 0 -}}
{{- $sources := dict -}}
{{- if eq .Values.policy.source "files" -}}
{{- $sources = .Values.policy.files -}}
{{- else -}}
{{- range $path, $bytes := .Files.Glob (printf "files/policy/%s/*.yaml" .Values.policy.source) -}}
{{- $_ := set $sources (base $path) (toString $bytes) -}}
{{- end -}}
{{- end -}}
{{- range $path, $text := $sources -}}
{{- if regexMatch "(?m)^  exempt:$" $text -}}
{{- $text = regexReplaceAll "(?m)^(      names: )\\[[^\\]\\n]*\\]$" $text (printf "${1}[%s]" (join ", " $want)) -}}
{{- $doc := fromYaml $text -}}
{{- if ne (toJson (dig "spec" "exempt" "namespaces" "names" "" $doc)) (toJson $want) -}}
{{- fail (printf "%s: could not write exemptNamespaces into spec.exempt.namespaces.names (spell it on one line, names: [a, b], in valid YAML)" (base $path)) -}}
{{- end -}}
{{- $found = add1 $found -}}
{{- end -}}
{{- $_ := set $files (base $path) $text -}}
{{- end -}}
{{- if ne $found 1 -}}
{{- fail (printf "policy %q: exactly one file must hold spec.exempt (at the top of spec, with namespaces: {names: [...]}: exemptNamespaces is written there), found %d" .Values.policy.source $found) -}}
{{- end -}}
{{- toJson $files -}}
{{- end -}}

{{/*
The policies ConfigMap's name: gpu-admission-policies-<hash>, the hash kustomize's
configMapGenerator gives the same data, so a policy change rolls the Deployment and the name
equals the kit's: sha256 of {"data","kind","name"} as Go's JSON, its first 10 hex digits with
0 1 3 a e spelt g h k m t. The name in it is "": kustomize's hasher (api/hasher, v0.21) looks up
the field "metadata/name" as one key and finds none.
*/}}
{{- define "gpua.policyConfigMapName" -}}
{{- $data := include "gpua.policyFiles" . | fromJson -}}
{{- $hash := dict "data" $data "kind" "ConfigMap" "name" "" | toJson | sha256sum | trunc 10 -}}
{{- $hash = $hash | replace "0" "g" | replace "1" "h" | replace "3" "k" | replace "a" "m" | replace "e" "t" -}}
gpu-admission-policies-{{ $hash }}
{{- end -}}

{{/* The namespaces every webhook leaves alone whatever the policy says. */}}
{{- define "gpua.alwaysExcluded" -}}
{{- $l := list .Release.Namespace "kube-system" -}}
{{- if eq .Values.certificate.mode "cert-manager" }}{{ $l = append $l "cert-manager" }}{{ end -}}
{{- toJson $l -}}
{{- end -}}

{{/* A webhook's namespaceSelector (the kit's deploy/components/webhooks/base/webhooks.yaml). */}}
{{- define "gpua.namespaceSelector" -}}
namespaceSelector:
  matchExpressions:
  - key: kubernetes.io/metadata.name
    operator: NotIn
    values: {{ toJson .Values.exemptNamespaces }}
  - key: kubernetes.io/metadata.name
    operator: NotIn
    values: {{ include "gpua.alwaysExcluded" . }}
  - key: gpu-admission.io/webhook
    operator: NotIn
    values: [disabled]
{{- end -}}

{{/* A webhook's clientConfig: the Service, and caBundle with a provided certificate. */}}
{{- define "gpua.clientConfig" -}}
clientConfig:
  service:
    name: gpu-admission
    namespace: {{ .root.Release.Namespace }}
    path: {{ .path }}
    port: 443
  {{- if eq .root.Values.certificate.mode "provided" }}
  caBundle: {{ .root.Values.certificate.provided.caCrt | b64enc }}
  {{- end }}
{{- end -}}

{{/* The annotations of both webhook configurations. */}}
{{- define "gpua.webhookMetadata" -}}
name: gpu-admission
labels:
  app.kubernetes.io/name: gpu-admission
{{- if eq .Values.certificate.mode "cert-manager" }}
annotations:
  cert-manager.io/inject-ca-from: {{ .Release.Namespace }}/gpu-admission-tls
{{- end }}
{{- end -}}

{{/* The rules of the template webhooks (validate-templates, and mutate-templates with
webhooks.templateMutation), for the operations given as a list: the workload kinds of
deploy/components/webhooks/base/webhooks.yaml, one rule per API group. */}}
{{- define "gpua.templateRules" -}}
{{- $ops := toJson . -}}
rules:
- apiGroups: ["apps"]
  apiVersions: ["v1"]
  operations: {{ $ops }}
  resources: ["deployments", "statefulsets", "daemonsets", "replicasets"]
  scope: Namespaced
- apiGroups: ["batch"]
  apiVersions: ["v1"]
  operations: {{ $ops }}
  resources: ["jobs", "cronjobs"]
  scope: Namespaced
- apiGroups: [""]
  apiVersions: ["v1"]
  operations: {{ $ops }}
  resources: ["replicationcontrollers", "podtemplates"]
  scope: Namespaced
- apiGroups: ["kubeflow.org"]
  apiVersions: ["*"]
  operations: {{ $ops }}
  resources: ["pytorchjobs", "tfjobs", "mpijobs", "paddlejobs", "xgboostjobs"]
  scope: Namespaced
- apiGroups: ["ray.io"]
  apiVersions: ["*"]
  operations: {{ $ops }}
  resources: ["rayclusters", "rayjobs", "rayservices"]
  scope: Namespaced
{{- end -}}
