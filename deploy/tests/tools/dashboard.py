#!/usr/bin/env python3
"""Writes deploy/components/monitoring/dashboards/gpu-admission.json, the Grafana dashboard.

The panels are listed here as data (title, unit, queries) and laid out on a grid, so editing
the dashboard is editing this list, and the JSON stays reviewable. Run it after a change:

    python3 deploy/tests/tools/dashboard.py

deploy/tests checks that the committed JSON is what this script writes (--print), and (the e2e metric-name
test) that every metric a panel names is exported by the server or listed as external.
"""
import json
import pathlib

RATE = "$__rate_interval"

# (row title, [(panel title, type, unit, [(expr, legend)], description)])
ROWS = [
    ("Admissions", [
        ("Admissions by decision", "timeseries", "reqps",
         [(f'sum by (decision) (rate(gpu_admission_requests_total{{path="/validate"}}[{RATE}]))', "{{decision}}")],
         "Validating reviews answered per second, by decision (allowed, denied, error)."),
        ("Admissions by class", "timeseries", "reqps",
         [(f'sum by (class, decision) (rate(gpu_admission_requests_total{{path="/validate",class!=""}}[{RATE}]))', "{{class}} {{decision}}")],
         "Validating reviews of classified pods per second, by workload class and decision."),
        ("Latency p50 / p99", "timeseries", "s",
         [(f'histogram_quantile(0.5, sum by (le, path) (rate(gpu_admission_request_duration_seconds_bucket[{RATE}])))', "p50 {{path}}"),
          (f'histogram_quantile(0.99, sum by (le, path) (rate(gpu_admission_request_duration_seconds_bucket[{RATE}])))', "p99 {{path}}")],
         "Answer time per path. The apiserver gives up after 5 s (pods) or 3 s (templates)."),
        ("Denials by namespace (top 10)", "timeseries", "reqps",
         [(f'topk(10, sum by (namespace) (rate(gpu_admission_requests_total{{decision="denied"}}[{RATE}])))', "{{namespace}}")],
         "Denied reviews per second in the ten namespaces with the most denials."),
        ("Violations by rule and mode", "timeseries", "ops",
         [(f'sum by (rule, mode) (rate(gpu_admission_violations_total[{RATE}]))', "{{rule}} ({{mode}})")],
         "Broken rules per second, whatever the rollout mode: warn and audit show what enforce would deny."),
        ("Malformed requests (4xx) by kind", "timeseries", "reqps",
         [(f'sum by (kind) (rate(gpu_admission_bad_requests_total[{RATE}]))', "{{kind}}")],
         "Requests refused before the engine ran. The apiserver sends none of these."),
    ]),
    ("GPU usage and showback", [
        ("GPU-equivalents in use by namespace", "timeseries", "short",
         [(f'sum by (namespace) (rate(gpu_admission_gpu_equivalent_seconds_total[{RATE}]))', "{{namespace}}")],
         "GPU-equivalents held by pods, Pending ones included (a whole GPU = 1, a 2g MIG slice of an A100 = 2/7)."),
        ("GPU-equivalent-hours by namespace (time range)", "bargauge", "short",
         [('sort_desc(sum by (namespace) (increase(gpu_admission_gpu_equivalent_seconds_total[$__range])) / 3600)', "{{namespace}}")],
         "Showback: GPU time consumed in the selected time range, in GPU-equivalent-hours."),
        ("GPU-equivalent-hours by team (time range)", "bargauge", "short",
         [('sort_desc(sum by (label_team) (sum by (namespace) (increase(gpu_admission_gpu_equivalent_seconds_total[$__range])) '
           '* on (namespace) group_left (label_team) max by (namespace, label_team) (kube_namespace_labels)) / 3600)', "{{label_team}}")],
         "Showback per team label of the namespaces (kube-state-metrics with "
         "--metric-labels-allowlist=namespaces=[team])."),
        ("Pods holding GPUs (ledger)", "timeseries", "short",
         [("max(gpu_admission_ledger_pods)", "pods")],
         "Pods the usage ledger counts against quotas."),
    ]),
    ("Health", [
        ("Policy reload status", "stat", "short",
         [("min(gpu_admission_policy_last_reload_success)", "last reload ok (1) / failed (0)")],
         "0 while a broken policy is being ignored on some replica (alert GpuAdmissionPolicyReloadFailing)."),
        ("Policy revision per replica", "table", "short",
         [("max by (pod, revision) (gpu_admission_policy_revision_info)", "{{pod}} {{revision}}")],
         "The revision each replica serves; more than one for long means replicas disagree."),
        ("Policy reloads", "timeseries", "ops",
         [(f'sum by (result) (rate(gpu_admission_policy_reload_total[{RATE}]))', "{{result}}")],
         "Reload attempts by result."),
        ("Certificate: days left", "stat", "d",
         [("min((gpu_admission_certificate_expiry_timestamp_seconds - time()) / 86400)", "days")],
         "Days until the serving certificate expires (alert at 14)."),
        ("Usage watch: seconds since last event", "timeseries", "s",
         [("max by (pod) (gpu_admission_watch_last_event_age_seconds)", "{{pod}}"),
          (f'sum by (resource) (rate(gpu_admission_watch_restarts_total[{RATE}]))', "restarts/s {{resource}}")],
         "A growing age means quota decisions use frozen usage."),
        ("Quota checks without live usage", "timeseries", "ops",
         [(f'sum by (policy) (rate(gpu_admission_quota_unavailable_total[{RATE}]))', "{{policy}}")],
         "Quota decisions made by the quotaUnavailable fallback."),
        ("Open TLS connections", "timeseries", "short",
         [("sum by (pod) (gpu_admission_open_connections)", "{{pod}}")],
         "Kept-alive connections from the apiservers (and Prometheus)."),
        ("Log lines dropped", "timeseries", "short",
         [(f'sum by (pod) (increase(gpu_admission_log_lines_dropped_total[{RATE}]))', "{{pod}}")],
         "Decision log lines lost because stdout fell behind: the runbook's log searches miss them."),
        ("Build per replica", "table", "short",
         [("max by (pod, version, revision) (gpu_admission_build_info)", "{{pod}} {{version}} {{revision}}")],
         "Version and source revision of each replica; two during a rollout, one otherwise."),
    ]),
]


def panel(pid, title, kind, unit, queries, description, x, y):
    p = {
        "id": pid,
        "title": title,
        "description": description,
        "type": kind,
        "datasource": {"type": "prometheus", "uid": "${datasource}"},
        "gridPos": {"h": 8, "w": 8, "x": x, "y": y},
        "fieldConfig": {"defaults": {"unit": unit}, "overrides": []},
        "options": {},
        "targets": [
            {"refId": chr(ord("A") + i), "expr": expr, "legendFormat": legend,
             "datasource": {"type": "prometheus", "uid": "${datasource}"},
             **({"instant": True, "format": "table"} if kind in ("table", "bargauge") else {})}
            for i, (expr, legend) in enumerate(queries)
        ],
    }
    return p


def dashboard():
    panels, pid, y = [], 1, 0
    for row, items in ROWS:
        panels.append({"id": pid, "type": "row", "title": row, "collapsed": False,
                       "gridPos": {"h": 1, "w": 24, "x": 0, "y": y}, "panels": []})
        pid, y = pid + 1, y + 1
        for i, item in enumerate(items):
            panels.append(panel(pid, *item, x=(i % 3) * 8, y=y + (i // 3) * 8))
            pid += 1
        y += ((len(items) + 2) // 3) * 8
    return {
        "uid": "gpu-admission",
        "title": "gpu-admission",
        "description": "Admissions, latency, GPU usage and showback, policy and certificate health "
                       "(docs/runbook.md).",
        "tags": ["gpu-admission", "gpu"],
        "schemaVersion": 39,
        "version": 1,
        "editable": True,
        "time": {"from": "now-6h", "to": "now"},
        "refresh": "1m",
        "timezone": "",
        "templating": {"list": [{
            "name": "datasource", "label": "Prometheus", "type": "datasource",
            "query": "prometheus", "current": {}, "hide": 0,
        }]},
        "annotations": {"list": []},
        "panels": panels,
    }


def render():
    return json.dumps(dashboard(), indent=2) + "\n"


if __name__ == "__main__":
    import sys
    if sys.argv[1:] == ["--print"]:  # what deploy/tests compares with the committed file
        sys.stdout.write(render())
    else:
        out = pathlib.Path(__file__).resolve().parents[3] / "deploy/components/monitoring/dashboards/gpu-admission.json"
        out.write_text(render())
        print(f"wrote {out}")
