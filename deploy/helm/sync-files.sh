#!/usr/bin/env bash
# Copies the kustomize kit's data files into the chart (deploy/helm/gpu-admission/files): the
# policies, the alerts, the dashboard, the match conditions, the opt-out guard and the
# PriorityClasses. The kit stays their one source: edit them there and run this script;
# `make deploy-test` fails while a copy differs from its source (deploy/tests/helm.test.mjs).
# A chart cannot read files outside its directory, and copies (not symlinks) keep the chart
# packageable from anywhere. With a directory argument, writes the copies there instead (the test
# compares that with the chart's).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
files=${1:-"$root/deploy/helm/gpu-admission/files"}
# chart file <- kit file, one pair per line.
pairs=(
  "policy/observe/00-observe.yaml deploy/base/policy/00-observe.yaml"
  "policy/example/00-cluster.yaml policies/00-cluster.yaml"
  "policy/example/10-pools.yaml policies/10-pools.yaml"
  "policy/example/20-classes.yaml policies/20-classes.yaml"
  "policy/example/30-coexistence.yaml policies/30-coexistence.yaml"
  "policy/example/40-quotas-and-rollout.yaml policies/40-quotas-and-rollout.yaml"
  "example-priorityclasses.yaml deploy/components/example-policy/priorityclasses.yaml"
  "default-priorityclass.yaml deploy/components/default-priority/priorityclass.yaml"
  "opt-out-guard.yaml deploy/components/webhooks/base/opt-out-guard.yaml"
  "match-conditions.yaml deploy/components/match-conditions/patch.yaml"
  "prometheusrule.yaml deploy/components/monitoring/prometheusrule.yaml"
  "dashboard.json deploy/components/monitoring/dashboards/gpu-admission.json"
)
rm -rf "$files"
for p in "${pairs[@]}"; do
  set -- $p
  mkdir -p "$(dirname "$files/$1")"
  cp "$root/$2" "$files/$1"
done
