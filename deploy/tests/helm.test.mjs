// The Helm chart (deploy/helm/gpu-admission) against the kustomize kit, its one source of truth:
// helm lint and helm template of the chart, every rendered object validated like the kit's, the
// default render equal to the kit's cert-manager overlay, and every value of values.yaml rendered
// changed: the output must change, and must equal the kit with that value's counterpart (a
// component, a setting, a patch) or, where the kit has none, show the value's effect. A value of
// values.yaml without a case here, a component of deploy/components without a value, or a chart
// copy of a kit file that differs from it, fails. helm is the pinned build of
// deploy/tests/helm/build.sh (deploy/tests/run puts it on PATH).
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import { repoRoot, toolsDir, YAML } from "./lib/env.mjs";
import { parseObjects, renderOverlay, renderScratch, renderWebhooks } from "./lib/render.mjs";
import { SchemaValidator } from "./lib/schema.mjs";

const chart = path.join(repoRoot, "deploy/helm/gpu-admission");
const validator = new SchemaValidator(toolsDir);
const tmpDir = (prefix) => fs.mkdtempSync(path.join(os.tmpdir(), prefix));
const id = (o) => `${o.kind}/${o.metadata.namespace ?? ""}/${o.metadata.name}`;
const ids = (objects) => objects.map(id).sort();
const find = (objects, kind, name) => objects.find((o) => o.kind === kind && (!name || o.metadata.name === name));
const podSpec = (objects) => find(objects, "Deployment", "gpu-admission").spec.template.spec;
const certs = path.join(repoRoot, "deploy/overlays/self-signed/certs");
// The provided-certificate cases give helm the self-signed overlay's certificate (git-ignored:
// made here when missing, as lib/render.mjs does for kustomize).
if (!fs.existsSync(path.join(certs, "ca.crt")))
  execFileSync("bash", [path.join(repoRoot, "certs/gen-dev-certs.sh"), certs], { stdio: "ignore" });

// helm with the chart and values (a values file, so types stay as written), in a namespace;
// `files` are --set-file pairs. Returns { status, stdout, stderr }.
function helm(args, values = {}, files = {}) {
  const dir = tmpDir("gpua-helm-");
  try {
    const valuesFile = path.join(dir, "values.yaml");
    fs.writeFileSync(valuesFile, YAML.stringify(values));
    const setFile = Object.entries(files).flatMap(([k, f]) => ["--set-file", `${k}=${f}`]);
    return spawnSync("helm", [...args, chart, "-f", valuesFile, ...setFile], { encoding: "utf8" });
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
function template(values = {}, { namespace = "gpu-admission", files = {} } = {}) {
  const r = helm(["template", "gpu-admission", "-n", namespace], values, files);
  assert.equal(r.status, 0, `helm template: ${r.stderr}`);
  return parseObjects(r.stdout);
}
// helm template's error for values it must refuse.
function templateError(values, files = {}, namespace = "gpu-admission") {
  const r = helm(["template", "gpu-admission", "-n", namespace], values, files);
  assert.notEqual(r.status, 0, `helm template accepted ${JSON.stringify(values)}`);
  return r.stderr;
}

// Objects in a comparable form: sorted by kind, namespace and name, base64 unwrapped (kustomize
// wraps what it encodes at 70 columns; the apiserver ignores the newlines).
function normalise(objects) {
  const unwrap = (s) => (typeof s === "string" ? s.replace(/\s/g, "") : s);
  return structuredClone(objects)
    .map((o) => {
      if (o.kind === "Secret") for (const k of Object.keys(o.data ?? {})) o.data[k] = unwrap(o.data[k]);
      for (const w of o.webhooks ?? []) if (w.clientConfig?.caBundle) w.clientConfig.caBundle = unwrap(w.clientConfig.caBundle);
      return o;
    })
    .sort((a, b) => id(a).localeCompare(id(b)));
}
// Equal, with the first differing object named (deepEqual's diff of whole lists is unreadable).
function assertSame(actual, expected, what) {
  const [a, e] = [normalise(actual), normalise(expected)];
  assert.deepEqual(ids(a), ids(e), `${what}: the objects differ`);
  for (let i = 0; i < a.length; i++) assert.deepEqual(a[i], e[i], `${what}: ${id(a[i])} differs`);
}

// The kit with a value's counterpart: step one is the overlay `base` plus `install` (kustomization
// lines: components, patches, settings...), step two adds the webhooks component of the
// certificate kind plus `webhooks` lines. `files` are more scratch files (@KIT@: the repository).
function kit({ base = "cert-manager", install = "", webhooks = "", step = 1, files = {} } = {}) {
  const certKind = base === "self-signed" ? "self-signed" : "cert-manager";
  const tree = {
    ...files,
    "install/kustomization.yaml": `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources: [@KIT@/deploy/overlays/${base}]
${install}
transformers: [@KIT@/deploy/references]
`,
    "webhooks/kustomization.yaml": `apiVersion: kustomize.config.k8s.io/v1beta1
kind: Kustomization
resources: [../install]
components:
- @KIT@/deploy/components/webhooks/${certKind}
${webhooks}
`,
  };
  return renderScratch(tree, [step === 1 ? "install" : "webhooks"])[0];
}
const settings = (literals) => `configMapGenerator:
- name: gpu-admission-settings
  behavior: merge
  literals: ${JSON.stringify(literals)}
`;
const deploymentPatch = (ops) => `patches:
- target: {group: apps, kind: Deployment, name: gpu-admission}
  patch: |-
${ops.map((op) => `    - ${JSON.stringify(op)}`).join("\n")}
`;
const providedFiles = {
  "certificate.provided.caCrt": path.join(certs, "ca.crt"),
  "certificate.provided.tlsCrt": path.join(certs, "server.crt"),
  "certificate.provided.tlsKey": path.join(certs, "server.key"),
};
const on = { webhooks: { enabled: true } };
const observeExempt = ["kube-system", "gpu-operator", "nvidia-gpu-operator", "cert-manager"];
const exampleExempt = YAML.parse(fs.readFileSync(path.join(repoRoot, "policies/00-cluster.yaml"), "utf8")).spec.exempt.namespaces.names;
const policyFiles = Object.fromEntries(fs.readdirSync(path.join(repoRoot, "policies")).filter((f) => f.endsWith(".yaml"))
  .map((f) => [f, fs.readFileSync(path.join(repoRoot, "policies", f), "utf8")]));
const otherExempt = ["kube-system", "argocd", "gpu-operator"];
// The observe policy with another exempt list, as a platform team would ship it in kustomize: its
// copy in the ConfigMap (behavior: replace) and the exempt source the webhooks read (a patch).
const exemptCounterpart = {
  files: {
    "install/policy/00-observe.yaml": fs
      .readFileSync(path.join(repoRoot, "deploy/base/policy/00-observe.yaml"), "utf8")
      .replace(/^( {6}names: )\[[^\]]*\]$/m, `$1[${otherExempt.join(", ")}]`),
  },
  install: `configMapGenerator:
- name: gpu-admission-policies
  behavior: replace
  files: [policy/00-observe.yaml]
patches:
- target: {group: gpu-admission.io, kind: GpuPolicy}
  patch: |-
    - {op: replace, path: /spec/exempt/namespaces/names, value: ${JSON.stringify(otherExempt)}}
`,
};

// One case per value (or values that only mean something together). `values`: the chart's values;
// `namespace`, `files`: helm's; `kit`: the counterpart (kit() options), or `check`: the effect,
// where the kit has no counterpart. `covers`: the values.yaml keys the case tests.
const cases = [
  { covers: ["webhooks.enabled"], values: on, kit: { step: 2 } },
  { covers: ["webhooks.failurePolicy"], values: { webhooks: { enabled: true, failurePolicy: "Ignore" } },
    kit: { step: 2, webhooks: `patches:
- target: {kind: ValidatingWebhookConfiguration, name: gpu-admission}
  patch: '[{"op": "replace", "path": "/webhooks/0/failurePolicy", "value": "Ignore"}]'` } },
  { covers: ["webhooks.matchConditions"], values: { webhooks: { enabled: true, matchConditions: true } },
    kit: { step: 2, webhooks: "- @KIT@/deploy/components/match-conditions" } },
  { covers: ["webhooks.templateMutation"], values: { webhooks: { enabled: true, templateMutation: true } },
    kit: { step: 2, webhooks: "- @KIT@/deploy/components/template-mutation" } },
  { covers: ["webhooks.templateMutation"], name: "webhooks.templateMutation with matchConditions, provided certificate, another namespace",
    namespace: "ml-platform", files: providedFiles,
    values: { webhooks: { enabled: true, templateMutation: true, matchConditions: true }, certificate: { mode: "provided" } },
    kit: { base: "self-signed", step: 2, install: "namespace: ml-platform",
      webhooks: "- @KIT@/deploy/components/match-conditions\n- @KIT@/deploy/components/template-mutation" } },
  { covers: ["exemptNamespaces"], values: { exemptNamespaces: otherExempt }, kit: exemptCounterpart },
  { covers: ["exemptNamespaces"], name: "exemptNamespaces, webhooks",
    values: { ...on, exemptNamespaces: otherExempt }, kit: { ...exemptCounterpart, step: 2 } },
  { covers: ["policy.source"], values: { ...on, policy: { source: "example" }, exemptNamespaces: exampleExempt },
    kit: { step: 2, install: "components: [@KIT@/deploy/components/example-policy]" } },
  { covers: ["policy.source", "policy.files"], name: "policy.files: your own policy (policies/ as a platform team's)",
    values: { policy: { source: "files", files: policyFiles }, exemptNamespaces: exampleExempt },
    kit: { install: "components: [@KIT@/policies]" } },
  { covers: ["defaultPriorityClass"], values: { defaultPriorityClass: true },
    kit: { install: "components: [@KIT@/deploy/components/default-priority]" } },
  { covers: ["namespace.create"], values: { namespace: { create: false } },
    check: (objects) => assertSame(objects, template().filter((o) => o.kind !== "Namespace"), "namespace.create false") },
  { covers: ["certificate.mode", "certificate.provided.caCrt", "certificate.provided.tlsCrt", "certificate.provided.tlsKey"],
    values: { certificate: { mode: "provided" } }, files: providedFiles, kit: { base: "self-signed" } },
  { covers: ["certificate.mode"], name: "certificate.mode provided, webhooks",
    values: { ...on, certificate: { mode: "provided" } }, files: providedFiles, kit: { base: "self-signed", step: 2 } },
  { covers: ["image.repository", "image.tag"], values: { image: { repository: "registry.example.com/platform/gpu-admission", tag: "0.3.1" } },
    kit: { install: `images:
- {name: registry.example.com/gpu-admission, newName: registry.example.com/platform/gpu-admission, newTag: 0.3.1}` } },
  { covers: ["image.pullPolicy"], values: { image: { pullPolicy: "Always" } },
    kit: { install: deploymentPatch([{ op: "replace", path: "/spec/template/spec/containers/0/imagePullPolicy", value: "Always" }]) } },
  { covers: ["imagePullSecrets"], values: { imagePullSecrets: [{ name: "registry-credentials" }] },
    kit: { install: deploymentPatch([{ op: "add", path: "/spec/template/spec/imagePullSecrets", value: [{ name: "registry-credentials" }] }]) } },
  { covers: ["replicas"], values: { replicas: 3 }, kit: { install: "replicas: [{name: gpu-admission, count: 3}]" } },
  { covers: ["port"], values: { port: 443 }, kit: { install: settings(["port=443"]) } },
  { covers: ["hostNetwork"], values: { hostNetwork: true }, kit: { install: "components: [@KIT@/deploy/components/host-network]" } },
  { covers: ["hostNetwork", "port"], name: "hostNetwork, port 9443", values: { hostNetwork: true, port: 9443 },
    kit: { install: `components: [@KIT@/deploy/components/host-network]\n${settings(["port=9443"])}` } },
  { covers: ["nodeSelector"], values: { nodeSelector: { "node-role.example.com/platform": "true" } },
    kit: { install: deploymentPatch([{ op: "add", path: "/spec/template/spec/nodeSelector", value: { "node-role.example.com/platform": "true" } }]) } },
  { covers: ["tolerations"], values: { tolerations: [{ key: "node-role.example.com/platform", operator: "Exists", effect: "NoSchedule" }] },
    kit: { install: deploymentPatch([{ op: "add", path: "/spec/template/spec/tolerations/-", value: { key: "node-role.example.com/platform", operator: "Exists", effect: "NoSchedule" } }]) } },
  { covers: ["affinity"], values: { affinity: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "pool", operator: "In", values: ["system"] }] }] } } } },
    kit: { install: deploymentPatch([{ op: "add", path: "/spec/template/spec/affinity", value: { nodeAffinity: { requiredDuringSchedulingIgnoredDuringExecution: { nodeSelectorTerms: [{ matchExpressions: [{ key: "pool", operator: "In", values: ["system"] }] }] } } } }]) } },
  { covers: ["networkPolicy.enabled"], values: { networkPolicy: { enabled: true } },
    kit: { install: "components: [@KIT@/deploy/components/network-policy]" } },
  { covers: ["networkPolicy.enabled", "port"], name: "networkPolicy.enabled, port 9443", values: { networkPolicy: { enabled: true }, port: 9443 },
    kit: { install: `components: [@KIT@/deploy/components/network-policy]\n${settings(["port=9443"])}` } },
  { covers: ["networkPolicy.controlPlaneCIDR", "networkPolicy.monitoringNamespace"],
    values: { networkPolicy: { enabled: true, controlPlaneCIDR: "172.16.0.0/28", monitoringNamespace: "observability" } },
    kit: { install: `components: [@KIT@/deploy/components/network-policy]
patches:
- target: {kind: NetworkPolicy, name: gpu-admission}
  patch: |-
    - {op: replace, path: /spec/ingress/0/from/0/ipBlock/cidr, value: 172.16.0.0/28}
    - {op: replace, path: /spec/ingress/1/from/0/namespaceSelector/matchLabels/kubernetes.io~1metadata.name, value: observability}` } },
  { covers: ["monitoring.enabled"], values: { monitoring: { enabled: true } }, kit: { base: "monitoring" } },
  { covers: ["monitoring.prometheusRelease", "monitoring.runbookBase"],
    values: { monitoring: { enabled: true, prometheusRelease: "monitoring", runbookBase: "https://wiki.example.com/gpu-admission/runbook.md" } },
    kit: { base: "monitoring", install: settings(["prometheusRelease=monitoring", "runbookBase=https://wiki.example.com/gpu-admission/runbook.md"]) } },
  { covers: [], name: "the release's namespace", namespace: "ml-platform", values: {}, kit: { install: "namespace: ml-platform" } },
  { covers: [], name: "the release's namespace, webhooks and monitoring", namespace: "ml-platform",
    values: { ...on, monitoring: { enabled: true } }, kit: { base: "monitoring", step: 2, install: "namespace: ml-platform" } },
  { covers: [], name: "the release's namespace, provided certificate", namespace: "ml-platform",
    values: { ...on, certificate: { mode: "provided" } }, files: providedFiles, kit: { base: "self-signed", step: 2, install: "namespace: ml-platform" } },
];

// Every leaf of values.yaml, as dotted paths (lists and empty maps are leaves).
function leaves(value, prefix = "") {
  if (value === null || typeof value !== "object" || Array.isArray(value) || Object.keys(value).length === 0) return [prefix];
  return Object.entries(value).flatMap(([k, v]) => leaves(v, prefix ? `${prefix}.${k}` : k));
}
const valuesFile = YAML.parse(fs.readFileSync(path.join(chart, "values.yaml"), "utf8"));

const lazy = (make) => { let v; return () => (v ??= make()); };
const defaults = lazy(() => template());

describe("helm chart: lint, template, schemas", () => {
  test("helm is the pinned build", () => {
    const pinned = fs.readFileSync(path.join(repoRoot, "deploy/tests/helm/go.mod"), "utf8").match(/helm\.sh\/helm\/v4 (v[0-9.]+)/)[1];
    assert.match(execFileSync("helm", ["version", "--template", "{{.Version}}"], { encoding: "utf8" }), new RegExp(`^${pinned.replaceAll(".", "\\.")}`));
  });

  for (const [what, values, files] of [
    ["defaults", {}, {}],
    ["everything on, cert-manager", { ...on, webhooks: { enabled: true, matchConditions: true, templateMutation: true }, monitoring: { enabled: true }, networkPolicy: { enabled: true }, policy: { source: "example" }, defaultPriorityClass: true }, {}],
    ["everything on, provided certificate, hostNetwork", { webhooks: { enabled: true, templateMutation: true }, certificate: { mode: "provided" }, hostNetwork: true, monitoring: { enabled: true } }, providedFiles],
  ]) {
    test(`helm lint --strict: ${what}`, () => {
      const r = helm(["lint", "--strict", "-n", "gpu-admission"], values, files);
      assert.equal(r.status, 0, `${r.stdout}${r.stderr}`);
      assert.match(r.stdout, /1 chart\(s\) linted, 0 chart\(s\) failed/);
    });
    test(`every rendered object validates against its schema, unknown fields rejected: ${what}`, async () => {
      const objects = template(values, { files });
      assert.ok(objects.length > 10, "helm template rendered almost nothing");
      validator.prepare(objects);
      const problems = [];
      for (const o of objects) problems.push(...(await validator.problems(o)).map((p) => `${id(o)}: ${p}`));
      assert.deepEqual(problems, []);
    });
  }

  test("helm package: the packaged chart renders what the directory renders", () => {
    const dir = tmpDir("gpua-helm-package-");
    try {
      execFileSync("helm", ["package", chart, "-d", dir], { encoding: "utf8" });
      const [tgz] = fs.readdirSync(dir);
      const values = { ...on, monitoring: { enabled: true }, policy: { source: "example" }, webhooks: { enabled: true, matchConditions: true } };
      const packaged = execFileSync("helm", ["template", "gpu-admission", path.join(dir, tgz), "-n", "gpu-admission",
        "--set", "webhooks.enabled=true,webhooks.matchConditions=true,monitoring.enabled=true,policy.source=example"], { encoding: "utf8" });
      assertSame(parseObjects(packaged), template(values), "packaged vs directory");
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("the validation catches a broken render (a typo'd field in the Deployment)", async () => {
    const objects = structuredClone(defaults());
    podSpec(objects).containers[0].readinesProbe = {};
    validator.prepare(objects);
    assert.notDeepEqual(await validator.problems(find(objects, "Deployment")), []);
  });
});

describe("helm chart: the defaults are the kit's cert-manager overlay", () => {
  test("default values render deploy/overlays/cert-manager, object for object", () => {
    assertSame(defaults(), renderOverlay("cert-manager"), "defaults vs deploy/overlays/cert-manager");
  });
  test("webhooks.enabled renders deploy/webhooks/cert-manager (step two)", () => {
    assertSame(template(on), renderWebhooks("cert-manager"), "webhooks.enabled vs deploy/webhooks/cert-manager");
  });
  test("no webhook registration without webhooks.enabled (the install's step one)", () => {
    assert.deepEqual(defaults().filter((o) => /WebhookConfiguration$|AdmissionPolicy/.test(o.kind)).map(id), []);
  });
  test("nothing Helm-specific and no Helm hooks: helm uninstall removes everything helm install made", () => {
    const all = template({ ...on, monitoring: { enabled: true }, networkPolicy: { enabled: true }, policy: { source: "example" }, defaultPriorityClass: true });
    const helmish = all.filter((o) => Object.keys({ ...o.metadata.annotations, ...o.metadata.labels }).some((k) => /helm\.sh|managed-by/.test(k)));
    assert.deepEqual(helmish.map(id), []);
  });
  test("the comparison sees a difference (a chart default changed)", () => {
    assert.throws(() => assertSame(template({ replicas: 3 }), renderOverlay("cert-manager"), "replicas 3"));
  });
});

describe("helm chart: every value against its kustomize counterpart", () => {
  for (const c of cases) {
    const name = c.name ?? c.covers.join(", ");
    test(name, () => {
      const objects = template(c.values, { namespace: c.namespace, files: c.files });
      const baseline = c.values.webhooks?.enabled && !c.covers.includes("webhooks.enabled") ? template(on) : defaults();
      assert.throws(() => assertSame(objects, baseline, "unchanged"), `${name}: the output did not change`);
      if (c.check) c.check(objects);
      else assertSame(objects, kit(c.kit), `${name}: chart vs kit`);
    });
  }

  test("every value of values.yaml has a case", () => {
    const tested = new Set(cases.flatMap((c) => c.covers));
    assert.deepEqual(leaves(valuesFile).filter((k) => !tested.has(k)), []);
    assert.deepEqual([...tested].filter((k) => !leaves(valuesFile).includes(k)), [], "a case covers a value values.yaml does not have");
  });

  test("every component of deploy/components is the counterpart of a chart value", () => {
    const used = new Set();
    for (const c of cases.filter((c) => c.kit)) {
      const k = { base: "cert-manager", step: 1, install: "", webhooks: "", ...c.kit };
      for (const m of `${k.install}\n${k.webhooks}`.matchAll(/deploy\/components\/([\w-]+)/g)) used.add(m[1]);
      if (k.base === "monitoring") used.add("monitoring");
      if (k.step === 2) used.add(`webhooks/${k.base === "self-signed" ? "self-signed" : "cert-manager"}`);
    }
    const components = fs.readdirSync(path.join(repoRoot, "deploy/components")).flatMap((d) =>
      d === "webhooks" ? fs.readdirSync(path.join(repoRoot, "deploy/components/webhooks")).filter((w) => w !== "base").map((w) => `webhooks/${w}`) : [d]);
    assert.deepEqual(components.filter((c) => !used.has(c)), []);
  });

  test("every overlay of deploy/overlays is the counterpart of a chart value", () => {
    const bases = new Set(cases.map((c) => c.kit?.base ?? "cert-manager"));
    assert.deepEqual(fs.readdirSync(path.join(repoRoot, "deploy/overlays")).filter((o) => !bases.has(o)), []);
  });
});

describe("helm chart: docs/install.md's Helm section", () => {
  const doc = fs.readFileSync(path.join(repoRoot, "docs/install.md"), "utf8");
  const section = doc.slice(doc.indexOf("\n## Helm\n"), doc.indexOf("\n## ", doc.indexOf("\n## Helm\n") + 1));

  test("its values table lists every value of values.yaml, and no other", () => {
    const table = [...section.matchAll(/^\| `([\w.]+)` \|/gm)].map((m) => m[1]).sort();
    assert.deepEqual(table, leaves(valuesFile).sort());
  });

  test("its kubectl label command gives a namespace of your own the kit's Namespace labels", () => {
    const cmd = section.match(/kubectl label namespace gpu-admission ([^`]*?)\n```/)[1].replace(/\\\n/g, " ");
    const labels = Object.fromEntries(cmd.trim().split(/\s+/).map((kv) => kv.split("=")));
    const { "app.kubernetes.io/name": _, ...kit } = find(renderOverlay("cert-manager"), "Namespace").metadata.labels;
    assert.deepEqual(labels, kit);
  });

  test("its helm commands use flags this helm has", () => {
    const commands = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap((m) => m[1].replace(/\\\n/g, " ").split("\n"))
      .flatMap((line) => [...line.matchAll(/helm (install|upgrade|uninstall|template) [^&]*/g)]);
    assert.ok(commands.length >= 2, "no helm command found in the Helm section");
    // A flag helm does not know is "unknown flag" whatever follows it (deprecated ones, hidden
    // from --help, such as Helm 3's --atomic, are known).
    const knows = (verb, flag) => !/unknown flag/.test(spawnSync("helm", [verb, `--${flag}`, "--help"], { encoding: "utf8" }).stderr);
    for (const [text, verb] of commands)
      for (const flag of [...text.matchAll(/ --([\w-]+)/g)].map((m) => m[1])) assert.ok(knows(verb, flag), `helm ${verb} has no --${flag}`);
    for (const flag of [...section.matchAll(/`--([\w-]+)/g)].map((m) => m[1])) assert.ok(knows("install", flag), `helm install has no --${flag}`);
    assert.ok(!knows("install", "no-such-flag"), "the flag check accepts any flag");
  });
});

describe("helm chart: the kit's files it carries", () => {
  test("files/ is deploy/helm/sync-files.sh's copy of the kit, byte for byte", () => {
    const dir = tmpDir("gpua-helm-files-");
    try {
      execFileSync("bash", [path.join(repoRoot, "deploy/helm/sync-files.sh"), dir]);
      const list = (root) => fs.readdirSync(root, { recursive: true }).filter((f) => fs.statSync(path.join(root, f)).isFile()).sort();
      const chartFiles = path.join(chart, "files");
      assert.deepEqual(list(chartFiles), list(dir), "run deploy/helm/sync-files.sh");
      for (const f of list(dir))
        assert.ok(fs.readFileSync(path.join(dir, f)).equals(fs.readFileSync(path.join(chartFiles, f))), `files/${f} differs from the kit: run deploy/helm/sync-files.sh`);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe("helm chart: bad values get a clear error", () => {
  const refused = [
    [{ replica: 3 }, /additional properties 'replica' not allowed|replica/],
    [{ webhooks: { enable: true } }, /enable/],
    [{ port: "8443" }, /port/],
    [{ port: 70000 }, /port/],
    [{ replicas: 1 }, /replicas/],
    [{ replicas: 6 }, /replicas/],
    [{ webhooks: { failurePolicy: "fail" } }, /failurePolicy/],
    [{ webhooks: { templateMutation: 1 } }, /templateMutation/],
    [{ policy: { source: "mine" } }, /source/],
    [{ policy: { source: "files" } }, /files/],
    [{ policy: { files: policyFiles } }, /source/],
    [{ policy: { source: "files", files: { "00-cluster.json": "x" } } }, /00-cluster\.json/],
    [{ policy: { source: "files", files: { "10-pools.yaml": policyFiles["10-pools.yaml"] } } }, /exactly one file must hold spec\.exempt/],
    [{ policy: { source: "files", files: { "00-cluster.yaml": policyFiles["00-cluster.yaml"].replace(/names: \[([^\]]*)\]/, (_, l) => `names:\n${l.split(", ").map((n) => `      - ${n}`).join("\n")}`) } } },
      /00-cluster\.yaml: could not write exemptNamespaces/],
    [{ exemptNamespaces: [] }, /exemptNamespaces/],
    [{ exemptNamespaces: ["Kube_System"] }, /exemptNamespaces/],
    [{ certificate: { mode: "self-signed" } }, /mode/],
    [{ certificate: { mode: "provided" } }, /caCrt|provided/],
    [{ certificate: { mode: "provided", provided: { caCrt: "not a pem", tlsCrt: "x", tlsKey: "y" } } }, /caCrt/],
    [{ hostNetwork: true, port: 443 }, /port/],
    [{ hostNetwork: true, port: 10250 }, /port/],
    [{ image: { tag: 1.0 } }, /tag/],
    [{ imagePullSecrets: ["registry-credentials"] }, /imagePullSecrets/],
    [{ tolerations: [{ key: "a", operator: "Exist" }] }, /operator/],
    [{ nodeSelector: { pool: true } }, /nodeSelector/],
    [{ networkPolicy: { controlPlaneCIDR: "10.0.0.0" } }, /controlPlaneCIDR/],
    [{ monitoring: { runbookBase: "wiki/runbook.md#x" } }, /runbookBase/],
  ];
  for (const [values, message] of refused)
    test(`refused, naming the value: ${JSON.stringify(values)}`, () => {
      assert.match(templateError(values), message);
    });

  test("the chart refuses to take over a namespace of the cluster's own (helm install without -n)", () => {
    for (const ns of ["default", "kube-system"])
      assert.match(templateError({}, {}, ns), new RegExp(`namespace.create would relabel namespace "${ns}"`));
    assert.equal(template({ namespace: { create: false } }, { namespace: "default" }).filter((o) => o.kind === "Namespace").length, 0);
  });
  test("a provided certificate missing one file names it", () => {
    const { "certificate.provided.tlsKey": _, ...two } = providedFiles;
    assert.match(templateError({ certificate: { mode: "provided" } }, two), /tlsKey/);
  });
  test("the values that are refused are accepted when right (the refusals are not blanket)", () => {
    template({ port: 443, replicas: 5, exemptNamespaces: ["kube-system"], hostNetwork: false, networkPolicy: { controlPlaneCIDR: "fd00::/8" } });
    template({ hostNetwork: true, port: 9443 });
  });
});
