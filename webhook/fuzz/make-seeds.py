#!/usr/bin/env python3
"""Regenerates the committed seed corpora under webhook/fuzz/corpus/ (run from anywhere).

review/   AdmissionReview v1 requests around the example pods of policy-tests/pods (copies of
          the real-world corpus, see policy-tests/pods/README.md) and a few pods from
          ../shared/corpus/pods when it exists, in several namespaces and operations.
policy/   the shipped policies/*.yaml and policy-tests fixtures.
quantity/ every row of the quantity reference table (webhook/tests/engine/pod/quantity_reference.hpp).
watch/    watch streams and list pages in the API server's wire format (one JSON object per
          line, as the client reads them), built from the example pods and namespaces, and the
          node lists of policy-tests/nodes (GPU Operator / GPU Feature Discovery labels, MIG
          layouts, taints, cordons) with node watch events and pods bound to those nodes.
dra/      the DRA objects of policy-tests/fixtures/dra with pods that claim them (templates,
          shared and allocated claims, firstAvailable, All, a missing template, a NIC).
"""
import json
import pathlib
import re

here = pathlib.Path(__file__).resolve().parent
repo = here.parent.parent
out = here / "corpus"

# A few real-world pods straight from the shared corpus (Apache-2.0 upstreams, see
# webhook/fuzz/corpus/SOURCES.md), when the corpus is there.
SHARED = ["01-nvdp-readme-gpu-pod.json", "13-kf-pytorchjob-nccl-master.json",
          "21-ray-sd-worker-1gpu.json", "45-gpuop-plugin-validator-gpu-initcontainer.json",
          "59-kyverno-gpu-zero-quantity.json"]


def write(sub, name, text):
    d = out / sub
    d.mkdir(parents=True, exist_ok=True)
    (d / name).write_text(text)


def pods():
    found = {}
    for p in sorted((repo / "policy-tests" / "pods").glob("*.json")):
        found[p.stem] = json.loads(p.read_text())
    shared = repo.parent / "shared" / "corpus" / "pods"
    for name in SHARED:
        p = shared / name
        if p.exists():
            found["shared-" + p.stem] = json.loads(p.read_text())
    return found


def review(pod, namespace, operation="CREATE", uid="fuzz-uid"):
    return {
        "apiVersion": "admission.k8s.io/v1",
        "kind": "AdmissionReview",
        "request": {
            "uid": uid,
            "kind": {"group": "", "version": "v1", "kind": "Pod"},
            "resource": {"group": "", "version": "v1", "resource": "pods"},
            "namespace": namespace,
            "operation": operation,
            "userInfo": {"username": "system:serviceaccount:ci:deployer"},
            "object": pod,
            "dryRun": False,
        },
    }


def main():
    dra_seeds()
    all_pods = pods()
    for i, (name, pod) in enumerate(all_pods.items()):
        ns = ["team-a", "ml-prod", "default"][i % 3]
        write("review", name + ".json", json.dumps(review(pod, ns), separators=(",", ":")))
    first = next(iter(all_pods.values()))
    write("review", "update-op.json", json.dumps(review(first, "team-a", "UPDATE")))
    for p in sorted((repo / "policies").glob("*.yaml")):
        write("policy", p.name, p.read_text())
    for p in sorted((repo / "policy-tests" / "fixtures").rglob("*.yaml")):
        write("policy", "fixture-" + p.name, p.read_text())
    table = (repo / "webhook" / "tests" / "engine" / "pod" / "quantity_reference.hpp").read_text()
    for i, text in enumerate(re.findall(r'^\s*\{"((?:[^"\\]|\\.)*)", ', table, re.M)):
        write("quantity", "row-%02d" % i, text)
    namespaces = [{"apiVersion": "v1", "kind": "Namespace",
                   "metadata": {"name": n, "resourceVersion": str(10 + i), "labels": l}}
                  for i, (n, l) in enumerate([("team-a", {"env": "dev", "team": "vision"}),
                                              ("ml-prod", {"env": "prod"})])]
    items = []
    for i, (name, pod) in enumerate(all_pods.items()):
        pod = json.loads(json.dumps(pod))
        meta = pod.setdefault("metadata", {})
        meta.setdefault("name", name)
        meta["namespace"] = ["team-a", "ml-prod"][i % 2]
        meta["uid"] = "uid-%d" % i
        meta["resourceVersion"] = str(100 + i)
        if i % 3 == 0:
            pod["spec"]["nodeName"] = "gpu-node-%d" % i
        items.append(pod)
    line = lambda o: json.dumps(o, separators=(",", ":"))
    write("watch", "pod-list.jsonl",
          line({"apiVersion": "v1", "kind": "PodList",
                "metadata": {"resourceVersion": "500", "continue": ""}, "items": items[:6]}) + "\n")
    write("watch", "namespace-list.jsonl",
          line({"apiVersion": "v1", "kind": "NamespaceList",
                "metadata": {"resourceVersion": "20"}, "items": namespaces}) + "\n")
    events = [line({"type": "ADDED", "object": p}) for p in items[:8]]
    done = json.loads(json.dumps(items[0]))
    done["status"] = {"phase": "Succeeded"}
    events.append(line({"type": "MODIFIED", "object": done}))
    events.append(line({"type": "DELETED", "object": items[1]}))
    events.append(line({"type": "BOOKMARK",
                        "object": {"kind": "Pod", "metadata": {"resourceVersion": "900"}}}))
    write("watch", "pod-events.jsonl", "\n".join(events) + "\n")
    write("watch", "namespace-events.jsonl",
          "\n".join(line({"type": t, "object": n})
                    for t, n in [("ADDED", namespaces[0]), ("MODIFIED", namespaces[1]),
                                 ("DELETED", namespaces[0])]) + "\n")
    write("watch", "expired.jsonl",
          line({"type": "ERROR", "object": {"kind": "Status", "apiVersion": "v1",
                                            "status": "Failure", "reason": "Expired",
                                            "message": "too old resource version: 1 (50)",
                                            "code": 410}}) + "\n")
    node_seeds(items, line)


def node_seeds(items, line):
    """Node lists and node watch events, and a stream where pods land on the listed nodes."""
    lists = {}
    for p in sorted((repo / "policy-tests" / "nodes").glob("*.json")):
        nodes = json.loads(p.read_text())["items"]
        for i, n in enumerate(nodes):
            n["metadata"]["resourceVersion"] = str(1000 + i)
        lists[p.stem] = nodes
        write("watch", "node-list-" + p.stem + ".jsonl",
              line({"apiVersion": "v1", "kind": "NodeList",
                    "metadata": {"resourceVersion": "2000"}, "items": nodes}) + "\n")
    nodes = lists["cluster-with-2g"]
    mig = next(n for n in nodes if "nvidia.com/mig-2g.20gb" in n["status"]["allocatable"])
    cordoned = json.loads(json.dumps(mig))
    cordoned["spec"]["unschedulable"] = True
    cordoned["spec"]["taints"].append({"key": "node.kubernetes.io/unschedulable",
                                       "effect": "NoSchedule"})
    not_ready = json.loads(json.dumps(mig))
    not_ready["status"]["conditions"] = [{"type": "Ready", "status": "Unknown",
                                          "reason": "NodeStatusUnknown"}]
    relayout = json.loads(json.dumps(mig))  # MIG re-partitioned: the old profiles go to "0"
    relayout["metadata"]["labels"]["nvidia.com/mig.config"] = "all-1g.10gb"
    relayout["status"]["allocatable"].update({"nvidia.com/mig-1g.10gb": "56",
                                              "nvidia.com/mig-2g.20gb": "0",
                                              "nvidia.com/mig-3g.40gb": "0"})
    write("watch", "node-events.jsonl",
          "\n".join(line({"type": t, "object": n})
                    for t, n in [("ADDED", mig), ("MODIFIED", cordoned), ("MODIFIED", not_ready),
                                 ("MODIFIED", relayout), ("DELETED", mig)]) + "\n")
    names = [n["metadata"]["name"] for n in nodes if n["metadata"]["name"] != "cpu-0"]
    bound = []
    for i, pod in enumerate(items[:6]):
        pod = json.loads(json.dumps(pod))
        pod["spec"]["nodeName"] = names[i % len(names)]
        pod["status"] = {"phase": "Running", "conditions": [
            {"type": "PodScheduled", "status": "True",
             "lastTransitionTime": "2026-03-01T10:00:%02dZ" % (10 + i)}]}
        pod["metadata"]["creationTimestamp"] = "2026-03-01T10:00:00Z"
        bound.append(pod)
    pending = json.loads(json.dumps(items[6]))
    pending["spec"].pop("nodeName", None)
    pending["metadata"]["creationTimestamp"] = "2026-03-01T09:59:00Z"
    pending["status"] = {"phase": "Pending", "conditions": [
        {"type": "PodScheduled", "status": "False", "reason": "Unschedulable",
         "message": "0/8 nodes are available: 8 Insufficient nvidia.com/gpu."}]}
    failed = json.loads(json.dumps(bound[0]))
    failed["status"] = {"phase": "Failed", "reason": "UnexpectedAdmissionError"}
    stream = [line({"apiVersion": "v1", "kind": "NodeList",
                    "metadata": {"resourceVersion": "2000"}, "items": nodes}),
              line({"apiVersion": "v1", "kind": "PodList",
                    "metadata": {"resourceVersion": "2001"}, "items": bound[:3]})]
    stream += [line({"type": "ADDED", "object": p}) for p in bound[3:] + [pending]]
    stream += [line({"type": "MODIFIED", "object": cordoned}),
               line({"type": "MODIFIED", "object": failed}),
               line({"type": "DELETED", "object": bound[1]}),
               line({"type": "BOOKMARK",
                     "object": {"kind": "Node", "metadata": {"resourceVersion": "2100"}}})]
    write("watch", "nodes-and-bound-pods.jsonl", "\n".join(stream) + "\n")


def dra_seeds():
    """DRA objects and pods claiming them, one `kubectl get ... -o json` List per seed."""
    objects = json.loads((repo / "policy-tests" / "fixtures" / "dra" / "objects.json").read_text())
    def pod(name, source, key, labels=None):
        return {"apiVersion": "v1", "kind": "Pod",
                "metadata": {"name": name, "namespace": "ml", "labels": labels or {}},
                "spec": {"containers": [{"name": "c", "image": "busybox",
                                         "resources": {"claims": [{"name": "g"}]}}],
                         "resourceClaims": [{"name": "g", key: source}]}}
    pods = [pod("t", "two-gpus", "resourceClaimTemplateName"),
            pod("a", "all-gpus", "resourceClaimTemplateName", {"gpu-admission.io/class": "training"}),
            pod("n", "nic", "resourceClaimTemplateName"),
            pod("m", "missing", "resourceClaimTemplateName"),
            pod("s", "shared-gpu", "resourceClaimName")]
    write("dra", "objects.json", json.dumps(objects, separators=(",", ":")))
    write("dra", "objects-and-pods.json", json.dumps(
        {"kind": "List", "items": objects["items"] + pods}, separators=(",", ":")))
    for i, p in enumerate(pods):
        write("dra", "pod-%d.json" % i, json.dumps(
            {"kind": "List", "items": objects["items"][:9] + [p]}, separators=(",", ":")))


if __name__ == "__main__":
    main()
