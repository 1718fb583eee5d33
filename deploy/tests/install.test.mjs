// A first install that cannot hurt the cluster (issue 21): each describe block is one point of
// the issue, checked on the kit as kustomize renders it, on the two kustomizations of
// docs/install.md's "Your overlay" rendered as written, with the real binary (review, lint) and the
// real certificate script. Each block ends with the check failing on a deliberately broken input.
// make live-test checks the install order, the opt-out guard and the match conditions on a real
// apiserver (testcluster/live/install_test.go).
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import * as checks from "./lib/checks.mjs";
import { binary, repoRoot, toolsDir, YAML } from "./lib/env.mjs";
import { readPolicy, renderedPolicy } from "./lib/policy.mjs";
import { configMapDir, overlays, renderError, renderOverlay, renderScratch, renderWebhooks } from "./lib/render.mjs";
import { SchemaValidator } from "./lib/schema.mjs";

const none = (problems) => assert.deepEqual(problems, []);
const read = (f) => fs.readFileSync(path.join(repoRoot, f), "utf8");
const installDoc = read("docs/install.md");
const validator = new SchemaValidator(toolsDir);
const isHook = (o) => o.kind === "MutatingWebhookConfiguration" || o.kind === "ValidatingWebhookConfiguration";
const find = (objects, kind, name) => objects.find((o) => o.kind === kind && (!name || o.metadata.name === name));
const deploymentOf = (objects) => find(objects, "Deployment", "gpu-admission");
const podSpec = (objects) => deploymentOf(objects).spec.template.spec;
const container = (objects) => podSpec(objects).containers.find((c) => c.name === "gpu-admission");
const tmpDir = (prefix) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));
const id = (o) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`;

// The fenced blocks of docs/install.md whose first line names a file (`# clusters/prod/...`), as
// scratch files: the doc's paths to the repository (../../../deploy) become the scratch tree's.
function documentedOverlay() {
  const files = {};
  for (const m of installDoc.matchAll(/```yaml\n# (clusters\/[^\n]+\/kustomization\.yaml)\n([\s\S]*?)```/g))
    files[m[1]] = m[2].replaceAll("../../../deploy/", "@KIT@/deploy/");
  return files;
}
// Rendered on first use, so that a kit that cannot render them fails the tests that need them,
// one by one, instead of the whole file.
const lazy = (make) => { let v; return () => (v ??= make()); };
const docFiles = documentedOverlay();
const docRenders = lazy(() => renderScratch(docFiles, ["clusters/prod/install", "clusters/prod/webhooks"]));
const docInstall = () => docRenders()[0];
const docWebhooks = () => docRenders()[1];

// `gpu-admission review -o json` of a pod or workload under the policy a render ships.
function review(objects, file, namespace = "ml-team") {
  const cm = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name.startsWith("gpu-admission-policies"));
  const dir = configMapDir(cm, tmpDir("gpua-policy-"));
  try {
    const r = spawnSync(binary, ["review", "-p", dir, "-f", path.join(repoRoot, file), "-n", namespace,
      "--namespace-labels", "team=vision,env=staging", "-o", "json"], { encoding: "utf8" });
    assert.ok(r.status === 0 || r.status === 1, `review ${file}: exit ${r.status}: ${r.stderr}`);
    return { status: r.status, ...JSON.parse(r.stdout) };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
// Pods of the report and their like (real dumps in policy-tests/pods): a Kubeflow training
// pod, a JupyterHub notebook, an ODH notebook, a KServe predictor, a MIG pod, a plain CPU pod.
const samplePods = ["kf-pytorchjob-master.json", "jupyterhub-singleuser.yaml", "odh-notebook-real-pod-dump.json",
  "kserve-predictor.json", "mig-mixed-2g10gb.json", "nginx-nodeselector.json", "deployment-inference.yaml"]
  .map((f) => `policy-tests/pods/${f}`);
const namespaceOf = (file) => {
  const text = read(file);
  const doc = file.endsWith(".json") ? JSON.parse(text) : YAML.parse(text);
  return doc.metadata?.namespace ?? "ml-team";
};

// Problems of a policy a first install may ship: every rollout rule observe, and review of the
// sample pods changes nothing (no patch, no warning, admitted).
function firstInstallProblems(objects) {
  const problems = [];
  const facts = renderedPolicy(objects);
  if (facts.rollout.length === 0) problems.push("no rollout rule: every namespace is in enforce mode");
  for (const r of facts.rollout) if (r.mode !== "observe") problems.push(`a rollout rule in mode ${r.mode}`);
  for (const file of samplePods) {
    const d = review(objects, file, namespaceOf(file));
    if (!d.allowed) problems.push(`${file}: denied (${d.status?.message ?? d.reason})`);
    if ((d.patch ?? []).length) problems.push(`${file}: mutated (${d.patch.length} patch ops)`);
    if ((d.warnings ?? []).length) problems.push(`${file}: warned (${d.warnings[0]})`);
  }
  return problems;
}

describe("1. a first install changes nothing: observe by default, the example policy an opt-in", () => {
  for (const overlay of overlays) {
    test(`${overlay}: the policy shipped only observes, and changes none of the sample pods`, () =>
      none(firstInstallProblems(renderWebhooks(overlay))));
    test(`${overlay}: no PriorityClass, so none becomes the cluster's global default`, () =>
      assert.deepEqual(renderWebhooks(overlay).filter((o) => o.kind === "PriorityClass").map((o) => o.metadata.name), []));
  }

  test("observe still records: review reports the unclassified GPU pod a policy would refuse", () => {
    const d = review(renderWebhooks("cert-manager"), "policy-tests/pods/kf-pytorchjob-master.json", "kubeflow");
    assert.equal(d.mode, "observe");
    assert.equal(d.auditAnnotations?.["violation-rules"], "unclassified-gpu-pod");
  });

  test("the example policy is an opt-in component (policies/, with its PriorityClasses)", () => {
    const [objects] = renderScratch({ "o/kustomization.yaml":
      "resources: [@KIT@/deploy/overlays/self-signed]\ncomponents: [@KIT@/deploy/components/example-policy]\ntransformers: [@KIT@/deploy/references]\n" }, ["o"]);
    none(checks.policyConfigMapProblems(objects, path.join(repoRoot, "policies")));
    const facts = readPolicy();
    none(checks.priorityClassProblems(objects, { ...facts, globalDefault: null }));
    // It mutates: which is why it is not the default.
    assert.ok(firstInstallProblems(objects).some((p) => p.includes("mutated")));
  });

  test("docs/install.md's first install goes observe, pools and classes, warn, enforce", () => {
    const section = installDoc.slice(installDoc.indexOf("## First install"), installDoc.indexOf("## Your overlay"));
    const at = ["**Observe.**", "**Write your pools and classes**", "**Warn**", "**Enforce**"].map((w) => section.indexOf(w));
    assert.ok(at.every((i) => i >= 0), `missing a stage: ${at}`);
    assert.deepEqual([...at].sort((a, b) => a - b), at, "stages out of order");
  });

  test("the check fails on a policy that mutates, warns or enforces", () => {
    const objects = structuredClone(renderWebhooks("cert-manager"));
    const cm = objects.find((o) => o.kind === "ConfigMap");
    cm.data = Object.fromEntries(fs.readdirSync(path.join(repoRoot, "policies")).filter((f) => f.endsWith(".yaml"))
      .map((f) => [f, read(`policies/${f}`)]));
    const problems = firstInstallProblems(objects);
    for (const want of ["mode enforce", "mode warn", "mutated", "warned"])
      assert.ok(problems.some((p) => p.includes(want)), `${want}: ${problems.join("\n")}`);
  });
});

describe("2. the webhook registrations come last, once a replica is Ready", () => {
  const steps = [...overlays.map((o) => [o, () => renderOverlay(o), () => renderWebhooks(o)]), ["docs/install.md's overlay", docInstall, docWebhooks]];
  for (const [name, stepOne, stepTwo] of steps) {
    test(`${name}: step one registers no webhook`, () =>
      assert.deepEqual(stepOne().filter((o) => isHook(o) || o.kind.startsWith("ValidatingAdmissionPolicy")).map(id), []));
    test(`${name}: step two is step one plus the registrations and their guard, nothing else changed`, () => {
      const one = stepOne(), two = stepTwo();
      const before = new Map(one.map((o) => [id(o), o]));
      const added = two.filter((o) => !before.has(id(o)));
      assert.deepEqual(added.map((o) => o.kind).sort(), ["ClusterRole", "MutatingWebhookConfiguration",
        "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding", "ValidatingWebhookConfiguration"]);
      for (const o of two.filter((x) => before.has(id(x)))) assert.deepEqual(o, before.get(id(o)), id(o));
      assert.equal(two.length - added.length, one.length, "step two dropped an object of step one");
    });
  }

  // Every documented install runs the three commands in order, joined by && so a failed apply or
  // a replica that never gets Ready stops it before the webhooks.
  const oneLiner = /kubectl apply -k (\S+) &&\s*\n\s*kubectl -n (\S+) rollout status deployment\/gpu-admission --timeout=\S+ &&\s*\n\s*kubectl apply -k (\S+)/g;
  const documented = (text) => [...text.matchAll(oneLiner)].map((m) => [m[1], m[3]]);
  test("docs/install.md and every overlay's header install in two steps with the wait between", () => {
    const doc = documented(installDoc);
    assert.ok(doc.some(([a, b]) => a === "deploy/overlays/cert-manager" && b === "deploy/webhooks/cert-manager"), JSON.stringify(doc));
    assert.ok(doc.some(([a, b]) => a === "clusters/prod/install" && b === "clusters/prod/webhooks"), JSON.stringify(doc));
    for (const o of overlays) {
      for (const file of [`deploy/overlays/${o}/kustomization.yaml`, `deploy/webhooks/${o}/kustomization.yaml`]) {
        const pairs = documented(read(file).replace(/^# ?/gm, ""));
        assert.deepEqual(pairs, [[`deploy/overlays/${o}`, `deploy/webhooks/${o}`]], file);
      }
    }
    assert.match(read("README.md"), new RegExp(oneLiner.source));
  });

  test("the check fails on a step one with a webhook, and on a one-liner without the wait", () => {
    const broken = [...renderOverlay("cert-manager"), ...renderWebhooks("cert-manager").filter(isHook)];
    assert.notDeepEqual(broken.filter(isHook), []);
    assert.deepEqual(documented("kubectl apply -k deploy/overlays/cert-manager\nkubectl apply -k deploy/webhooks/cert-manager\n"), []);
  });
});

describe("4. the port in one place, host networking for custom CNIs, the firewall rule documented", () => {
  const at443 = lazy(() => renderScratch({ "o/kustomization.yaml":
    "resources: [@KIT@/deploy/overlays/monitoring]\ncomponents: [@KIT@/deploy/components/network-policy]\n" +
    "configMapGenerator: [{name: gpu-admission-settings, behavior: merge, literals: [port=443]}]\n" +
    "transformers: [@KIT@/deploy/references]\n" }, ["o"])[0]);

  // Every place the serving port appears agrees with `port`.
  function portProblems(objects, port) {
    const problems = [];
    const c = container(objects);
    const https = c.ports.find((p) => p.name === "https");
    if (https?.containerPort !== port) problems.push(`containerPort ${https?.containerPort}`);
    const listen = c.env?.find((e) => e.name === "GPU_ADMISSION_LISTEN")?.value;
    if (listen !== `0.0.0.0:${port}`) problems.push(`GPU_ADMISSION_LISTEN ${listen}`);
    if ((c.args ?? []).includes("--listen")) problems.push("--listen in args overrides GPU_ADMISSION_LISTEN");
    const svc = find(objects, "Service", "gpu-admission").spec.ports[0];
    if (svc.port !== 443 || svc.targetPort !== "https") problems.push(`Service ${svc.port} -> ${svc.targetPort}`);
    for (const probe of [c.readinessProbe, c.livenessProbe])
      if (probe.httpGet.port !== "https") problems.push(`probe on port ${probe.httpGet.port}`);
    for (const np of objects.filter((o) => o.kind === "NetworkPolicy"))
      for (const rule of np.spec.ingress) for (const p of rule.ports) if (p.port !== port) problems.push(`NetworkPolicy port ${p.port}`);
    const sysctl = (podSpec(objects).securityContext.sysctls ?? []).find((s) => s.name === "net.ipv4.ip_unprivileged_port_start");
    if (port < 1024 && !podSpec(objects).hostNetwork && sysctl?.value !== "0") problems.push("a port below 1024 without ip_unprivileged_port_start 0");
    const stray = YAML.stringify(objects).match(/\b8443\b/g);
    if (port !== 8443 && stray) problems.push(`8443 still rendered ${stray.length} times`);
    return problems;
  }

  test("port=443 (GKE private clusters) reaches the container, --listen, the NetworkPolicy; nothing says 8443", () =>
    none(portProblems(at443(), 443)));
  test("the defaults and docs/install.md's overlay (port=9443) agree everywhere", () => {
    for (const o of overlays) none(portProblems(renderWebhooks(o), 8443));
    none(portProblems(docWebhooks(), 9443));
  });
  test("schema-valid at 443", async () => {
    validator.prepare(at443());
    const problems = [];
    for (const o of at443()) problems.push(...(await validator.problems(o)));
    none(problems);
  });

  test("host-network: the node's network, no network sysctl, privileged Pod Security, one replica at a time", async () => {
    const [objects] = renderScratch({ "o/kustomization.yaml":
      "resources: [@KIT@/deploy/overlays/cert-manager]\ncomponents: [@KIT@/deploy/components/host-network]\n" +
      "configMapGenerator: [{name: gpu-admission-settings, behavior: merge, literals: [port=9443]}]\n" +
      "transformers: [@KIT@/deploy/references]\n" }, ["o"]);
    const spec = podSpec(objects);
    assert.equal(spec.hostNetwork, true);
    assert.equal(spec.dnsPolicy, "ClusterFirstWithHostNet");
    assert.equal(spec.securityContext.sysctls, undefined);
    assert.equal(find(objects, "Namespace").metadata.labels["pod-security.kubernetes.io/enforce"], "privileged");
    assert.deepEqual(deploymentOf(objects).spec.strategy.rollingUpdate, { maxSurge: 0, maxUnavailable: 1 });
    none(portProblems(objects, 9443));
    assert.notEqual(container(objects).ports[0].containerPort, 10250);
    validator.prepare(objects);
    for (const o of objects) none(await validator.problems(o));
  });

  test("docs/install.md documents GKE private clusters (port 443 or the firewall rule) and EKS custom CNIs", () => {
    assert.match(installDoc, /### GKE private clusters[\s\S]*port=443[\s\S]*gcloud compute firewall-rules create[^\n]*\n[^\n]*--allow tcp:8443/);
    assert.match(installDoc, /### EKS with a custom CNI[\s\S]*deploy\/components\/host-network[\s\S]*10250[\s\S]*authorize-security-group-ingress/);
  });

  test("the check fails when a reference keeps the old port", () => {
    const broken = structuredClone(at443());
    container(broken).env.find((e) => e.name === "GPU_ADMISSION_LISTEN").value = "0.0.0.0:8443";
    const problems = portProblems(broken, 443);
    assert.ok(problems.some((p) => p.includes("GPU_ADMISSION_LISTEN")) && problems.some((p) => p.includes("8443 still")), problems.join("\n"));
  });
});

describe("5. blast radius: one exempt list, cert-manager and OpenShift's GPU Operator left alone, opt-in match conditions", () => {
  for (const o of overlays) {
    test(`${o}: every webhook excludes exactly the policy's exempt names, plus the namespace, kube-system${o === "self-signed" ? "" : " and cert-manager"}`, () => {
      const objects = renderWebhooks(o);
      none(checks.exemptSourceProblems(objects, renderedPolicy(objects), "gpu-admission", o === "self-signed" ? [] : ["cert-manager"]));
    });
  }

  test("both shipped policies exempt nvidia-gpu-operator (OpenShift) and gpu-operator", () => {
    for (const facts of [renderedPolicy(renderWebhooks("cert-manager")), readPolicy()])
      for (const ns of ["kube-system", "gpu-operator", "nvidia-gpu-operator"]) assert.ok(facts.exempt.includes(ns), ns);
  });

  // A policy of the platform team's own, with another exempt list: the webhooks follow it.
  const ownPolicy = (exempt) => ({
    "policy/Kustomization": `apiVersion: kustomize.config.k8s.io/v1alpha1
kind: Component
configMapGenerator:
- {name: gpu-admission-policies, behavior: replace, files: [00-cluster.yaml]}
resources: [00-cluster.yaml]
patches:
- target: {group: gpu-admission.io, kind: GpuPolicy, name: first-install}
  patch: |-
    $patch: delete
    apiVersion: gpu-admission.io/v1
    kind: GpuPolicy
    metadata: {name: first-install}
- target: {group: gpu-admission.io, kind: GpuPolicy}
  patch: |-
    - {op: add, path: /metadata/annotations, value: {config.kubernetes.io/local-config: "true"}}
`,
    "policy/00-cluster.yaml": `apiVersion: gpu-admission.io/v1\nkind: GpuPolicy\nmetadata: {name: ours}\nspec:\n  exempt:\n    namespaces: ${exempt}\n  rollout: [{mode: observe}]\n`,
    "install/kustomization.yaml": "resources: [@KIT@/deploy/overlays/cert-manager]\ncomponents: [../policy]\ntransformers: [@KIT@/deploy/references]\n",
    "webhooks/kustomization.yaml": "resources: [../install]\ncomponents: [@KIT@/deploy/components/webhooks/cert-manager]\n",
  });
  test("a policy's own exempt list reaches every webhook (one source)", () => {
    const [objects] = renderScratch(ownPolicy("{names: [kube-system, argocd, calico-system]}"), ["webhooks"]);
    const facts = renderedPolicy(objects);
    assert.deepEqual(facts.exempt, ["kube-system", "argocd", "calico-system"]);
    none(checks.exemptSourceProblems(objects, facts, "gpu-admission", ["cert-manager"]));
  });
  // kustomize's own words, which docs/install.md quotes so that whoever meets them finds why.
  test("an exempt list without names: stops the render before anything is applied, with the error docs/install.md explains", () => {
    const plain = renderError(ownPolicy("[kube-system, argocd]"), "webhooks") ?? "";
    assert.match(plain, /error looking up replacement source: wrong node kind: expected MappingNode but got SequenceNode/);
    const labelsOnly = renderError(ownPolicy("{matchLabels: {gpu-admission.io/webhook: disabled}}"), "webhooks") ?? "";
    assert.match(labelsOnly, /spec\.exempt\.namespaces\.names/);
    for (const quoted of ["wrong node kind: expected MappingNode but got SequenceNode", "spec.exempt.namespaces.names"])
      assert.ok(installDoc.includes(quoted), `docs/install.md does not quote: ${quoted}`);
  });

  test("match-conditions: the pod webhook fails closed only for GPU-facing pods, a negated copy takes the rest fail-open", () => {
    const [objects] = renderScratch({ ...docFiles,
      "clusters/prod/webhooks/kustomization.yaml": docFiles["clusters/prod/webhooks/kustomization.yaml"]
        .replace("# - @KIT@/deploy/components/match-conditions", "- @KIT@/deploy/components/match-conditions") }, ["clusters/prod/webhooks"]);
    const vwc = find(objects, "ValidatingWebhookConfiguration");
    assert.deepEqual(vwc.webhooks.map((w) => [w.name, w.failurePolicy]), [["validate-pods.gpu-admission.io", "Fail"],
      ["validate-other-pods.gpu-admission.io", "Ignore"], ["validate-templates.gpu-admission.io", "Ignore"]]);
    none(checks.failOpenPodPairProblems(vwc.webhooks[1], vwc.webhooks[0]));
    none(checks.webhookProblems(objects, renderedPolicy(objects)));
    const expr = vwc.webhooks[0].matchConditions.find((c) => c.name === "gpu-relevant").expression;
    for (const what of ["nvidia.com/", "resourceClaims", "claims", "gpu-admission.io/", "nodeSelector", "tolerations",
      "nodeAffinity", "NVIDIA_VISIBLE_DEVICES", "initContainers", "runtimeClassName"])
      assert.ok(expr.includes(what), `the condition does not look at ${what}`);
    // And the breakage: a negation that drifted, or a copy that judges other resources.
    const drifted = structuredClone(vwc.webhooks);
    drifted[1].matchConditions.find((c) => c.name === "not-gpu-relevant").expression = `!(${expr.replace("nvidia.com/", "amd.com/")})`;
    assert.ok(checks.failOpenPodPairProblems(drifted[1], drifted[0]).some((p) => p.includes("not the negation")));
    drifted[1].rules = [...drifted[1].rules, { apiGroups: ["apps"], apiVersions: ["v1"], operations: ["CREATE"], resources: ["deployments"] }];
    assert.ok(checks.failOpenPodPairProblems(drifted[1], drifted[0]).some((p) => p.includes("differs")));
  });

  test("the check fails on a webhook list that drifted from the policy or forgets cert-manager", () => {
    const broken = structuredClone(renderWebhooks("cert-manager"));
    const vwc = find(broken, "ValidatingWebhookConfiguration");
    vwc.webhooks[0].namespaceSelector.matchExpressions[0].values.pop();
    vwc.webhooks[1].namespaceSelector.matchExpressions[1].values = ["gpu-admission", "kube-system"];
    const problems = checks.exemptSourceProblems(broken, renderedPolicy(broken), "gpu-admission", ["cert-manager"]);
    assert.ok(problems.some((p) => p.includes("validate-pods") && p.includes("the policy exempts")), problems.join("\n"));
    assert.ok(problems.some((p) => p.includes("validate-templates") && p.includes("cert-manager")), problems.join("\n"));
  });
});

describe("6. monitoring: kube-prometheus-stack's release label and the runbook's address, each in one place", () => {
  const sections = (objects) => find(objects, "PrometheusRule").spec.groups.flatMap((g) => g.rules).filter((r) => r.alert);
  function monitoringProblems(objects, release, base) {
    const problems = [];
    for (const kind of ["ServiceMonitor", "PrometheusRule"]) {
      const o = find(objects, kind, "gpu-admission");
      if (o?.metadata.labels?.release !== release) problems.push(`${kind} label release=${o?.metadata.labels?.release}, want ${release}`);
    }
    for (const r of sections(objects)) {
      const url = r.annotations?.runbook_url ?? "";
      if (!url.startsWith(`${base}#`)) problems.push(`${r.alert}: runbook_url ${url}`);
    }
    return problems;
  }
  test("the monitoring overlay's defaults: release=kube-prometheus-stack, the repository's runbook", () =>
    none(monitoringProblems(renderWebhooks("monitoring"), "kube-prometheus-stack",
      "https://git.example.com/platform/gpu-admission/-/blob/main/docs/runbook.md")));
  test("docs/install.md's overlay sets both once; every alert keeps its section", () => {
    none(monitoringProblems(docWebhooks(), "monitoring", "https://wiki.example.com/gpu-admission/runbook.md"));
    const before = sections(renderWebhooks("monitoring")).map((r) => r.annotations.runbook_url.split("#")[1]);
    assert.deepEqual(sections(docWebhooks()).map((r) => r.annotations.runbook_url.split("#")[1]), before);
  });
  test("docs/install.md explains kube-prometheus-stack's selector and the annotations dropped", () => {
    assert.match(installDoc, /### kube-prometheus-stack[\s\S]*release: <its Helm release name>[\s\S]*prometheusRelease[\s\S]*runbookBase[\s\S]*prometheus\.io/);
  });
  test("the pods carry no prometheus.io scrape annotations (they would scrape beside the ServiceMonitor)", () => {
    for (const o of overlays)
      assert.deepEqual(Object.keys(deploymentOf(renderWebhooks(o)).spec.template.metadata.annotations ?? {}).filter((k) => k.startsWith("prometheus.io/")), []);
  });
  test("the check fails on an unlabelled ServiceMonitor and a stale link", () => {
    const broken = structuredClone(docWebhooks());
    delete find(broken, "ServiceMonitor").metadata.labels.release;
    sections(broken)[0].annotations.runbook_url = "https://git.example.com/x/docs/runbook.md#gpuadmissiondown";
    const problems = monitoringProblems(broken, "monitoring", "https://wiki.example.com/gpu-admission/runbook.md");
    assert.equal(problems.length, 2, problems.join("\n"));
  });
});

describe("7. `namespace:` in an overlay drives every reference", () => {
  const ns = "platform-gpu-admission";
  // Every reference to the namespace, in a step two render.
  function namespaceProblems(objects, namespace, { certManager = true, monitoring = true } = {}) {
    const problems = [];
    const expect = (what, got, want) => { if (got !== want) problems.push(`${what}: ${got}, want ${want}`); };
    expect("Namespace", find(objects, "Namespace")?.metadata.name, namespace);
    const clusterScoped = new Set(["Namespace", "ClusterRole", "ClusterRoleBinding", "PriorityClass", "MutatingWebhookConfiguration",
      "ValidatingWebhookConfiguration", "ValidatingAdmissionPolicy", "ValidatingAdmissionPolicyBinding"]);
    for (const o of objects.filter((x) => !clusterScoped.has(x.kind))) expect(`${id(o)} namespace`, o.metadata.namespace, namespace);
    for (const b of objects.filter((o) => o.kind === "ClusterRoleBinding"))
      for (const s of b.subjects ?? []) if (s.kind === "ServiceAccount") expect(`${b.metadata.name} subject`, s.namespace, namespace);
    for (const cfg of objects.filter(isHook)) {
      for (const w of cfg.webhooks) {
        expect(`${w.name} service`, w.clientConfig.service.namespace, namespace);
        if (!w.namespaceSelector.matchExpressions[1].values.includes(namespace)) problems.push(`${w.name} does not exclude ${namespace}`);
      }
      if (certManager) expect(`${cfg.kind} inject-ca-from`, cfg.metadata.annotations?.["cert-manager.io/inject-ca-from"], `${namespace}/gpu-admission-tls`);
    }
    if (certManager) {
      const cert = find(objects, "Certificate", "gpu-admission-tls");
      expect("Certificate dnsNames", JSON.stringify(cert.spec.dnsNames),
        JSON.stringify([`gpu-admission.${namespace}.svc`, `gpu-admission.${namespace}.svc.cluster.local`]));
    }
    const c = container(objects);
    const dns = c.args[c.args.indexOf("--service-dns-name") + 1];
    const fromPod = c.env.find((e) => e.name === "POD_NAMESPACE")?.valueFrom?.fieldRef?.fieldPath;
    if (!(dns === `gpu-admission.${namespace}.svc` || (dns === "gpu-admission.$(POD_NAMESPACE).svc" && fromPod === "metadata.namespace")))
      problems.push(`--service-dns-name ${dns}`);
    if (monitoring) {
      const sm = find(objects, "ServiceMonitor", "gpu-admission");
      expect("ServiceMonitor serverName", sm.spec.endpoints[0].tlsConfig.serverName, `gpu-admission.${namespace}.svc`);
      if (sm.spec.namespaceSelector) expect("ServiceMonitor namespaceSelector", JSON.stringify(sm.spec.namespaceSelector.matchNames), JSON.stringify([namespace]));
      for (const r of find(objects, "PrometheusRule").spec.groups.flatMap((g) => g.rules))
        for (const m of String(r.expr).matchAll(/namespace="([^"]*)"/g)) expect(`${r.alert ?? r.record} selector`, m[1], namespace);
    }
    // The policy exempts the webhook's namespace: by name, or by a label the Namespace carries.
    const facts = renderedPolicy(objects);
    const labels = find(objects, "Namespace")?.metadata.labels ?? {};
    const byLabel = Object.keys(facts.exemptLabels).length > 0 && Object.entries(facts.exemptLabels).every(([k, v]) => labels[k] === v);
    if (!facts.exempt.includes(namespace) && !byLabel) problems.push(`the policy does not exempt ${namespace}`);
    // Nothing else still names the default namespace where a namespace belongs.
    const text = YAML.stringify(objects.filter((o) => o.kind !== "ConfigMap"));
    for (const stale of [/gpu-admission\.gpu-admission\.svc/, /(?<![\w-])gpu-admission\/gpu-admission-tls/, /namespace="gpu-admission"/, /namespace: gpu-admission$/m])
      if (namespace !== "gpu-admission" && stale.test(text)) problems.push(`still rendered: ${stale.source}`);
    return problems;
  }

  test("docs/install.md's overlay (cert-manager, monitoring, NetworkPolicy) in another namespace", () =>
    none(namespaceProblems(docWebhooks(), ns)));
  test("the self-signed overlay in another namespace, and the certificate script for it", () => {
    const [objects] = renderScratch({
      "install/kustomization.yaml": `namespace: ${ns}\nresources: [@KIT@/deploy/overlays/self-signed]\ntransformers: [@KIT@/deploy/references]\n`,
      "webhooks/kustomization.yaml": "resources: [../install]\ncomponents: [@KIT@/deploy/components/webhooks/self-signed]\n",
    }, ["webhooks"]);
    none(namespaceProblems(objects, ns, { certManager: false, monitoring: false }));
    const dir = tmpDir("gpua-ns-certs-");
    try {
      execFileSync("bash", [path.join(repoRoot, "certs/gen-dev-certs.sh"), dir], { env: { ...process.env, NAMESPACE: ns }, stdio: "pipe" });
      const san = execFileSync("openssl", ["x509", "-in", path.join(dir, "server.crt"), "-noout", "-ext", "subjectAltName"], { encoding: "utf8" });
      assert.match(san, new RegExp(`DNS:gpu-admission\\.${ns}\\.svc\\b`));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
  test("the defaults name gpu-admission everywhere", () => {
    for (const o of overlays)
      none(namespaceProblems(renderWebhooks(o), "gpu-admission", { certManager: o !== "self-signed", monitoring: o === "monitoring" })
      );
  });
  test("the check fails when the overlay forgets deploy/references (the references kustomize cannot follow)", () => {
    const files = { ...docFiles, "clusters/prod/install/kustomization.yaml":
      docFiles["clusters/prod/install/kustomization.yaml"].replace(/transformers:\n- [^\n]+\n/, "") };
    const [objects] = renderScratch(files, ["clusters/prod/webhooks"]);
    const problems = namespaceProblems(objects, ns);
    for (const want of ["Certificate dnsNames", "ServiceMonitor serverName", "selector"])
      assert.ok(problems.some((p) => p.includes(want)), `${want}: ${problems.join("\n")}`);
  });
});

describe("8. renewing the self-signed certificate keeps the CA, or stages the new one beside the old", () => {
  const script = path.join(repoRoot, "certs/gen-dev-certs.sh");
  const gen = (dir, ...args) => spawnSync("bash", [script, ...args, dir], { encoding: "utf8" });
  const fingerprint = (file) => execFileSync("openssl", ["x509", "-in", file, "-noout", "-fingerprint", "-sha256"], { encoding: "utf8" });
  const verifies = (ca, cert) => spawnSync("openssl", ["verify", "-CAfile", ca, cert], { encoding: "utf8" }).status === 0;
  const certsIn = (file) => (fs.readFileSync(file, "utf8").match(/BEGIN CERTIFICATE/g) ?? []).length;

  test("a second run renews the server certificate with the same CA: the old one still verifies against the new caBundle", () => {
    const dir = tmpDir("gpua-renew-");
    try {
      assert.equal(gen(dir).status, 0);
      const ca = fingerprint(path.join(dir, "ca.crt"));
      fs.copyFileSync(path.join(dir, "server.crt"), path.join(dir, "old.crt"));
      const r = gen(dir);
      assert.equal(r.status, 0, r.stderr);
      assert.match(r.stderr, /renewed the server certificate with the CA already in/);
      assert.equal(fingerprint(path.join(dir, "ca.crt")), ca);
      assert.notEqual(fingerprint(path.join(dir, "server.crt")), fingerprint(path.join(dir, "old.crt")));
      assert.ok(verifies(path.join(dir, "ca.crt"), path.join(dir, "old.crt")), "the certificate the pods still serve");
      assert.ok(verifies(path.join(dir, "ca.crt"), path.join(dir, "server.crt")), "the renewed certificate");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("--new-ca puts the new CA and the old one in ca.crt; both certificates verify; the next renewal drops the old CA", () => {
    const dir = tmpDir("gpua-newca-");
    try {
      assert.equal(gen(dir).status, 0);
      const oldCa = fingerprint(path.join(dir, "ca.crt"));
      fs.copyFileSync(path.join(dir, "server.crt"), path.join(dir, "old.crt"));
      const r = gen(dir, "--new-ca");
      assert.equal(r.status, 0, r.stderr);
      assert.equal(certsIn(path.join(dir, "ca.crt")), 2);
      assert.notEqual(fingerprint(path.join(dir, "ca.crt")), oldCa, "the new CA comes first");
      assert.ok(verifies(path.join(dir, "ca.crt"), path.join(dir, "old.crt")));
      assert.ok(verifies(path.join(dir, "ca.crt"), path.join(dir, "server.crt")));
      assert.equal(gen(dir).status, 0);
      assert.equal(certsIn(path.join(dir, "ca.crt")), 1);
      assert.ok(!verifies(path.join(dir, "ca.crt"), path.join(dir, "old.crt")));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the self-signed step two puts both staged CAs into caBundle", () => {
    const files = { "o/kustomization.yaml": read("deploy/overlays/self-signed/kustomization.yaml").replaceAll("../../", "@KIT@/deploy/"),
      "w/kustomization.yaml": "resources: [../o]\ncomponents: [@KIT@/deploy/components/webhooks/self-signed]\n" };
    const dir = tmpDir("gpua-bundle-");
    try {
      assert.equal(gen(dir).status, 0);
      assert.equal(gen(dir, "--new-ca").status, 0);
      for (const f of ["ca.crt", "server.crt", "server.key"]) files[`o/certs/${f}`] = fs.readFileSync(path.join(dir, f), "utf8");
      const [objects] = renderScratch(files, ["w"]);
      for (const w of find(objects, "ValidatingWebhookConfiguration").webhooks)
        assert.equal(Buffer.from(w.clientConfig.caBundle.replace(/\s/g, ""), "base64").toString().match(/BEGIN CERTIFICATE/g).length, 2);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("bad inputs are refused with what to do: a CA without its key, a key of another CA, an unknown option, a bad namespace", () => {
    const dir = tmpDir("gpua-badca-");
    const other = tmpDir("gpua-otherca-");
    try {
      assert.equal(gen(dir).status, 0);
      assert.equal(gen(other).status, 0);
      fs.copyFileSync(path.join(other, "ca.key"), path.join(dir, "ca.key"));
      assert.match(gen(dir).stderr, /ca\.key is not the key of the first certificate .* run with --new-ca/);
      fs.rmSync(path.join(dir, "ca.key"));
      const r = gen(dir);
      assert.equal(r.status, 1);
      assert.match(r.stderr, /has ca\.crt but no ca\.key: .*--new-ca/);
      assert.equal(gen(dir, "--renew").status, 2);
      const bad = spawnSync("bash", [script, other], { encoding: "utf8", env: { ...process.env, NAMESPACE: "Not_A_Label" } });
      assert.match(bad.stderr, /NAMESPACE 'Not_A_Label' is not a DNS label/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
      fs.rmSync(other, { recursive: true, force: true });
    }
  });
});

describe("9. the smaller ones: global default opt-in, replicas on two nodes, the opt-out label guarded, scheduling knobs", () => {
  test("default-priority is an opt-in component, and agrees with the policy's globalDefault", () => {
    for (const o of overlays) assert.ok(!renderWebhooks(o).some((x) => x.kind === "PriorityClass" && x.globalDefault));
    const [objects] = renderScratch({ "o/kustomization.yaml": "resources: [@KIT@/deploy/overlays/cert-manager]\n" +
      "components: [@KIT@/deploy/components/example-policy, @KIT@/deploy/components/default-priority]\n" }, ["o"]);
    const facts = readPolicy();
    none(checks.priorityClassProblems(objects, facts));
    assert.ok(checks.priorityClassProblems(objects, { ...facts, globalDefault: "cluster-default" }).some((p) => p.includes("globalDefault")));
  });

  // Replicas on different nodes when there are nodes (a required spread or anti-affinity, or 3
  // replicas), and replaced soon after their node dies.
  function availabilityProblems(objects) {
    const problems = [];
    const d = deploymentOf(objects);
    const spec = d.spec.template.spec;
    const required = (spec.topologySpreadConstraints ?? []).some((c) => c.topologyKey === "kubernetes.io/hostname" &&
      c.whenUnsatisfiable === "DoNotSchedule" && c.maxSkew === 1) ||
      (spec.affinity?.podAntiAffinity?.requiredDuringSchedulingIgnoredDuringExecution ?? []).some((t) => t.topologyKey === "kubernetes.io/hostname");
    if (!required && d.spec.replicas < 3) problems.push("two replicas may share a node (no required spread or anti-affinity)");
    for (const key of ["node.kubernetes.io/not-ready", "node.kubernetes.io/unreachable"]) {
      const t = (spec.tolerations ?? []).find((x) => x.key === key && x.effect === "NoExecute");
      if (!t || !(t.tolerationSeconds <= 60)) problems.push(`${key}: tolerated for ${t?.tolerationSeconds ?? 300} s`);
    }
    return problems;
  }
  test("the replicas are required on different nodes and replaced 30 s after their node stops answering", () => {
    for (const o of overlays) none(availabilityProblems(renderWebhooks(o)));
    const spread = podSpec(renderOverlay("cert-manager")).topologySpreadConstraints.find((c) => c.topologyKey === "kubernetes.io/hostname");
    assert.equal(spread.nodeTaintsPolicy, "Honor", "GPU and control-plane nodes it does not tolerate must not count");
  });
  test("the scheduling knobs of docs/install.md (pull secret, node selector, a toleration) keep the short tolerations", () => {
    const spec = podSpec(docInstall());
    assert.deepEqual(spec.imagePullSecrets, [{ name: "registry-credentials" }]);
    assert.deepEqual(spec.nodeSelector, { "node-role.example.com/platform": "true" });
    assert.ok(spec.tolerations.some((t) => t.key === "node-role.example.com/platform"));
    none(availabilityProblems(docInstall()));
  });

  test("the opt-out label is guarded: a ValidatingAdmissionPolicy on namespaces, Deny, for the label the webhooks skip", () => {
    const objects = renderWebhooks("cert-manager");
    const vap = find(objects, "ValidatingAdmissionPolicy", "gpu-admission-opt-out");
    const binding = find(objects, "ValidatingAdmissionPolicyBinding");
    assert.ok(vap && binding);
    assert.equal(binding.spec.policyName, vap.metadata.name);
    assert.deepEqual(binding.spec.validationActions, ["Deny"]);
    assert.deepEqual(vap.spec.matchConstraints.resourceRules[0].resources, ["namespaces"]);
    assert.deepEqual(vap.spec.matchConstraints.resourceRules[0].operations.sort(), ["CREATE", "UPDATE"]);
    const label = vap.spec.variables.find((v) => v.name === "label").expression.replace(/'/g, "");
    for (const w of objects.filter(isHook).flatMap((c) => c.webhooks))
      assert.ok(w.namespaceSelector.matchExpressions.some((e) => e.key === label && e.values.includes("disabled")), w.name);
    assert.deepEqual(renderedPolicy(objects).exemptLabels, { [label]: "disabled" });
    const grant = find(objects, "ClusterRole", "gpu-admission:opt-out");
    assert.match(vap.spec.validations[0].expression, /authorizer\.group\('gpu-admission\.io'\)\.resource\('namespaces'\)\.subresource\('opt-out'\)/);
    assert.deepEqual(grant.rules, [{ apiGroups: ["gpu-admission.io"], resources: ["namespaces/opt-out"], verbs: ["update"] }]);
    assert.ok(!objects.some((o) => o.kind.endsWith("Binding") && o.roleRef?.name === grant.metadata.name), "the kit binds the grant to nobody");
  });

  test("the check fails on two replicas that may share a node, or the default 5 minute toleration", () => {
    const broken = structuredClone(renderWebhooks("cert-manager"));
    const spec = podSpec(broken);
    spec.topologySpreadConstraints = spec.topologySpreadConstraints.filter((c) => c.topologyKey !== "kubernetes.io/hostname");
    spec.tolerations = [];
    assert.equal(availabilityProblems(broken).length, 3);
  });
});

describe("the template-mutation component: a fail-open copy of the pod mutating webhook for workloads", () => {
  const TM = "- @KIT@/deploy/components/template-mutation";
  const mwcOf = (objects) => find(objects, "MutatingWebhookConfiguration");
  const hook = (objects, name) => mwcOf(objects).webhooks.find((w) => w.name === name);
  // docs/install.md's two kustomizations (monitoring, NetworkPolicy, namespace platform-gpu-admission)
  // with the commented component lines switched on.
  const docWith = (...components) => {
    let text = docFiles["clusters/prod/webhooks/kustomization.yaml"];
    for (const c of components) {
      assert.ok(text.includes(`# - @KIT@/deploy/components/${c}`), `docs/install.md's step two has no commented ${c} line`);
      text = text.replace(`# - @KIT@/deploy/components/${c}`, `- @KIT@/deploy/components/${c}`);
    }
    return renderScratch({ ...docFiles, "clusters/prod/webhooks/kustomization.yaml": text }, ["clusters/prod/webhooks"])[0];
  };
  const docTM = lazy(() => docWith("template-mutation"));
  // deploy/webhooks/cert-manager plus the component.
  const defaultTM = lazy(() => renderScratch({ "w/kustomization.yaml": `resources: [@KIT@/deploy/webhooks/cert-manager]\ncomponents:\n${TM}\n` }, ["w"])[0]);

  test("docs/install.md's step two with it: the webhook is registered, fail-open, CREATE and UPDATE, every template resource", async () => {
    const objects = docTM();
    assert.deepEqual(mwcOf(objects).webhooks.map((w) => [w.name, w.failurePolicy]),
      [["mutate.gpu-admission.io", "Ignore"], ["mutate-templates.gpu-admission.io", "Ignore"]]);
    none(checks.templateMutationProblems(objects));
    none(checks.webhookProblems(objects, renderedPolicy(objects)));
    none(checks.exemptSourceProblems(objects, renderedPolicy(objects), "platform-gpu-admission", ["cert-manager"]));
    validator.prepare(objects);
    assert.deepEqual(await validator.problems(mwcOf(objects)), []);
  });

  test("in another namespace: its Service namespace and namespaceSelector are the pod webhook's (cert-manager, and self-signed with its caBundle)", () => {
    const ns = "platform-gpu-admission";
    const [selfSigned] = renderScratch({
      "install/kustomization.yaml": `namespace: ${ns}\nresources: [@KIT@/deploy/overlays/self-signed]\ntransformers: [@KIT@/deploy/references]\n`,
      "webhooks/kustomization.yaml": `resources: [../install]\ncomponents:\n- @KIT@/deploy/components/webhooks/self-signed\n${TM}\n`,
    }, ["webhooks"]);
    for (const [what, objects] of [["cert-manager", docTM()], ["self-signed", selfSigned]]) {
      const [pods, tm] = [hook(objects, "mutate.gpu-admission.io"), hook(objects, "mutate-templates.gpu-admission.io")];
      assert.equal(tm.clientConfig.service.namespace, ns, what);
      assert.deepEqual(tm.namespaceSelector, pods.namespaceSelector, what);
      assert.ok(tm.namespaceSelector.matchExpressions[1].values.includes(ns), `${what}: does not exclude ${ns}`);
      none(checks.templateMutationProblems(objects));
    }
    const [pods, tm] = [hook(selfSigned, "mutate.gpu-admission.io"), hook(selfSigned, "mutate-templates.gpu-admission.io")];
    assert.ok(tm.clientConfig.caBundle && tm.clientConfig.caBundle === pods.clientConfig.caBundle, "self-signed: the caBundle was not copied");
    assert.equal(mwcOf(docTM()).metadata.annotations["cert-manager.io/inject-ca-from"], `${ns}/gpu-admission-tls`);
  });

  test("it adds that one webhook and nothing else, alone or with match-conditions", () => {
    const without = renderWebhooks("cert-manager");
    const strip = (objects) => objects.map((o) => o.kind !== "MutatingWebhookConfiguration" ? o
      : { ...o, webhooks: o.webhooks.filter((w) => w.name !== "mutate-templates.gpu-admission.io") });
    none(checks.templateMutationProblems(defaultTM()));
    assert.deepEqual(strip(defaultTM()), without);
    const both = docWith("match-conditions", "template-mutation");
    assert.deepEqual(find(both, "ValidatingWebhookConfiguration").webhooks.map((w) => w.name),
      ["validate-pods.gpu-admission.io", "validate-other-pods.gpu-admission.io", "validate-templates.gpu-admission.io"]);
    none(checks.templateMutationProblems(both));
    none(checks.webhookProblems(both, renderedPolicy(both)));
    none(checks.templateMutationProblems(without, false));
  });

  test("it covers every template kind of the example policy (spec.templates) on CREATE and UPDATE", () => {
    const [objects] = renderScratch({
      "install/kustomization.yaml": "resources: [@KIT@/deploy/overlays/cert-manager]\ncomponents: [@KIT@/deploy/components/example-policy]\ntransformers: [@KIT@/deploy/references]\n",
      "webhooks/kustomization.yaml": `resources: [../install]\ncomponents:\n- @KIT@/deploy/components/webhooks/cert-manager\n${TM}\n`,
    }, ["webhooks"]);
    const facts = renderedPolicy(objects);
    assert.ok(facts.templates.length > 0, "the example policy declares no template kinds");
    const tm = hook(objects, "mutate-templates.gpu-admission.io");
    for (const t of facts.templates)
      for (const op of ["CREATE", "UPDATE"])
        assert.ok(tm.rules.some((r) => r.apiGroups.includes(t.group) && r.resources.includes(checks.plural(t.kind)) && r.operations.includes(op)),
          `${t.group}/${t.kind} ${op}`);
    none(checks.templateMutationProblems(objects));
  });

  test("listed before the certificate's webhooks component, the render stops instead of registering nothing", () => {
    const error = renderError({
      "w/kustomization.yaml": `resources: [@KIT@/deploy/overlays/cert-manager]\ncomponents:\n${TM}\n- @KIT@/deploy/components/webhooks/cert-manager\n`,
    }, "w") ?? "";
    assert.match(error, /nothing selected by MutatingWebhookConfiguration.*gpu-admission/);
    assert.match(read("deploy/components/template-mutation/kustomization.yaml"), /nothing selected by\s*(#\s*)?MutatingWebhookConfiguration/);
  });

  test("docs/install.md lists it as a step-two component that only registers the webhook", () => {
    assert.match(installDoc, /\| `deploy\/components\/template-mutation` \| 2 \|/);
    assert.match(installDoc, /spec\.mutateTemplates/);
  });

  test("the check fails on a copy that fails closed, forgets UPDATE or a resource, drifts from the pod webhook's selector, keeps the pod conditions", () => {
    const problemsWith = (edit) => {
      const objects = structuredClone(defaultTM());
      edit(objects.find((o) => o.kind === "MutatingWebhookConfiguration").webhooks.find((w) => w.name === "mutate-templates.gpu-admission.io"));
      return [...checks.templateMutationProblems(objects), ...checks.webhookProblems(objects, renderedPolicy(objects))];
    };
    const expect = (edit, pattern) => {
      const problems = problemsWith(edit);
      assert.ok(problems.some((p) => pattern.test(p)), `${pattern}: ${problems.join("\n")}`);
    };
    expect((w) => { w.failurePolicy = "Fail"; }, /fails closed/);
    expect((w) => { w.rules[0].operations = ["CREATE"]; }, /apps\/deployments: operations CREATE, want CREATE,UPDATE/);
    expect((w) => { w.rules[4].resources.pop(); }, /does not cover ray\.io\/rayservices/);
    expect((w) => { w.rules.push({ apiGroups: [""], apiVersions: ["v1"], operations: ["CREATE", "UPDATE"], resources: ["pods"], scope: "Namespaced" }); }, /mixes pods/);
    expect((w) => { w.namespaceSelector.matchExpressions[1].values.pop(); }, /namespaceSelector/);
    expect((w) => { w.clientConfig.service.namespace = "elsewhere"; }, /clientConfig/);
    expect((w) => { w.matchConditions = [{ name: "skip-kubelet-mirror-pods", expression: "true" }]; }, /matchConditions/);
    expect((w) => { w.reinvocationPolicy = "IfNeeded"; }, /reinvocationPolicy/);
    expect((w) => { w.clientConfig.service.path = "/validate"; }, /path/);
    assert.ok(checks.templateMutationProblems(renderWebhooks("cert-manager")).some((p) => p.includes("no webhook mutate-templates")));
  });
});
