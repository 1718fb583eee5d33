// kustomize renders every overlay; every object validates against its schema with unknown fields
// rejected; deploy/ agrees with policies/ (priority classes, exempt namespaces, template kinds,
// the ConfigMap's bytes) and with the operating rules (RBAC, --threads). The last tests break a
// manifest, a policy fact and the ConfigMap on purpose and require the checks to fail.
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import * as checks from "./lib/checks.mjs";
import { binary, repoRoot, toolsDir } from "./lib/env.mjs";
import { policyFiles, readPolicy } from "./lib/policy.mjs";
import { overlays, parseObjects, renderOverlay, renderText } from "./lib/render.mjs";
import { SchemaValidator } from "./lib/schema.mjs";

const policyDir = path.join(repoRoot, "policies");
const facts = readPolicy(policyDir);
const validator = new SchemaValidator(toolsDir);
const none = (problems) => assert.deepEqual(problems, []);

describe("every overlay", () => {
  const rendered = Object.fromEntries(overlays.map((o) => [o, renderOverlay(o)]));
  validator.prepare(Object.values(rendered).flat());

  for (const overlay of overlays) {
    const objects = rendered[overlay];
    test(`${overlay}: renders with kubectl kustomize`, () => {
      assert.ok(objects.length > 10, `only ${objects.length} objects`);
      for (const kind of ["Namespace", "Deployment", "Service", "PodDisruptionBudget",
        "ResourceQuota", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "ConfigMap", "PriorityClass",
        "MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"])
        assert.ok(objects.some((o) => o.kind === kind), `no ${kind}`);
    });
    test(`${overlay}: ships no NetworkPolicy (opt-in: deploy/components/network-policy)`, () =>
      assert.deepEqual(objects.filter((o) => o.kind === "NetworkPolicy").map((o) => o.metadata.name), []));
    test(`${overlay}: every object validates against its schema, unknown fields rejected`, async () => {
      const problems = [];
      for (const o of objects) problems.push(...(await validator.problems(o)));
      none(problems);
    });
    test(`${overlay}: every PriorityClass the policy names is shipped`, () => none(checks.priorityClassProblems(objects, facts)));
    test(`${overlay}: webhooks exclude every exempt namespace, cover every template kind, split the blast radius`, () =>
      none(checks.webhookProblems(objects, facts)));
    test(`${overlay}: the policies ConfigMap holds exactly the bytes of policies/`, () =>
      none(checks.policyConfigMapProblems(objects, policyDir)));
    test(`${overlay}: RBAC is list/watch of pods, namespaces and nodes only`, () => none(checks.rbacProblems(objects)));
    test(`${overlay}: --threads matches the CPU request`, () => none(checks.threadProblems(objects)));
    test(`${overlay}: every webhook has a CA (caBundle or cainjector)`, () => {
      for (const cfg of objects.filter((o) => o.kind.endsWith("WebhookConfiguration"))) {
        const injected = cfg.metadata.annotations?.["cert-manager.io/inject-ca-from"];
        for (const w of cfg.webhooks) assert.ok(injected || w.clientConfig.caBundle, `${w.name} has no CA`);
      }
    });
  }

  test("cert-manager: the Certificate's Secret is the one the Deployment mounts, with the Service's DNS name", () => {
    const objects = rendered["cert-manager"];
    const cert = objects.find((o) => o.kind === "Certificate" && o.metadata.name === "gpu-admission-tls");
    assert.ok(cert);
    assert.ok(cert.spec.dnsNames.includes("gpu-admission.gpu-admission.svc"));
    const deploy = objects.find((o) => o.kind === "Deployment");
    assert.ok(deploy.spec.template.spec.volumes.some((v) => v.secret?.secretName === cert.spec.secretName));
  });

  test("the Deployment passes only flags `gpu-admission serve` knows (the image's entrypoint is serve)", () => {
    const help = execFileSync(binary, ["serve", "--help"], { encoding: "utf8" });
    const known = new Set([...help.matchAll(/^\s+(--[a-z][a-z0-9-]*)/gm)].map((m) => m[1]));
    assert.ok(known.has("--policies") && known.has("--threads"), help);
    for (const overlay of overlays) {
      const deploy = rendered[overlay].find((o) => o.kind === "Deployment");
      const c = deploy.spec.template.spec.containers[0];
      assert.equal(c.command, undefined, "the image's entrypoint runs serve");
      assert.notEqual(c.args[0], "serve", "the entrypoint already says serve");
      for (const a of c.args.filter((x) => x.startsWith("--")))
        assert.ok(known.has(a.split("=")[0]), `${overlay}: serve has no flag ${a}`);
    }
  });

  test("the policy that the ConfigMap ships loads (gpu-admission lint), without reading policies/Kustomization", () => {
    const out = execFileSync(binary, ["lint", "policies"], { cwd: repoRoot, encoding: "utf8" });
    assert.match(out, new RegExp(`OK \\(${policyFiles(policyDir).length} files,`));
  });
});

describe("the network-policy component", () => {
  // An overlay of a platform team's: cert-manager plus the opt-in component, as docs/install.md
  // shows it. Rendered from a scratch kustomization inside the repository (kustomize loads
  // relative paths only).
  const dir = fs.mkdtempSync(path.join(repoRoot, "build", "np-overlay-"));
  fs.writeFileSync(path.join(dir, "kustomization.yaml"),
    "apiVersion: kustomize.config.k8s.io/v1beta1\nkind: Kustomization\n" +
    "resources: [../../deploy/overlays/cert-manager]\n" +
    "components: [../../deploy/components/network-policy]\n");
  const objects = parseObjects(renderText(dir));
  fs.rmSync(dir, { recursive: true, force: true });
  validator.prepare(objects);
  const policies = objects.filter((o) => o.kind === "NetworkPolicy");

  test("adds exactly one NetworkPolicy, in the webhook's namespace, selecting its pods", () => {
    assert.equal(policies.length, 1);
    const deployment = objects.find((o) => o.kind === "Deployment");
    assert.equal(policies[0].metadata.namespace, deployment.metadata.namespace);
    for (const [k, v] of Object.entries(policies[0].spec.podSelector.matchLabels))
      assert.equal(deployment.spec.template.metadata.labels[k], v, `podSelector ${k}=${v}`);
  });
  test("admits the serving port and validates against its schema", async () => {
    const target = objects.find((o) => o.kind === "Service").spec.ports[0].targetPort;
    const container = objects.find((o) => o.kind === "Deployment").spec.template.spec.containers[0];
    const port = container.ports.find((p) => p.name === target || p.containerPort === target).containerPort;
    for (const rule of policies[0].spec.ingress)
      assert.ok(rule.ports.some((p) => p.port === port), `ingress rule without port ${port}`);
    none(await validator.problems(policies[0]));
  });
});

describe("the checks fail on deliberate breakage", () => {
  const objects = renderOverlay("cert-manager");
  const clone = () => structuredClone(objects);

  test("a broken manifest: an unknown field and a wrong type", async () => {
    const broken = clone();
    const deploy = broken.find((o) => o.kind === "Deployment");
    deploy.spec.template.spec.containers[0].readinesProbe = deploy.spec.template.spec.containers[0].readinessProbe;
    const pdb = broken.find((o) => o.kind === "PodDisruptionBudget");
    pdb.spec.selector.matchLabels = "app";
    const problems = [...(await validator.problems(deploy)), ...(await validator.problems(pdb))];
    assert.ok(problems.some((p) => p.includes("unknown field spec.template.spec.containers[0].readinesProbe")), problems.join("\n"));
    assert.ok(problems.some((p) => p.includes("PodDisruptionBudget") && p.includes("matchLabels")), problems.join("\n"));
  });

  test("policy/deploy drift: a new exempt namespace, template kind and priority class", () => {
    const drifted = structuredClone(facts);
    drifted.exempt.push("nvidia-network-operator");
    drifted.templates.push({ group: "kubeflow.org", kind: "JAXJob" });
    drifted.priorityClasses.push("gpu-research");
    const webhook = checks.webhookProblems(objects, drifted);
    assert.ok(webhook.some((p) => p.includes("nvidia-network-operator")), webhook.join("\n"));
    assert.ok(webhook.some((p) => p.includes("JAXJob (jaxjobs)")), webhook.join("\n"));
    const classes = checks.priorityClassProblems(objects, drifted);
    assert.ok(classes.some((p) => p.includes("gpu-research")), classes.join("\n"));
  });

  test("policy/deploy drift: a priority tier whose value or preemption differs from its class", () => {
    const drifted = structuredClone(facts);
    const training = drifted.tiers.find((t) => t.name === "gpu-training");
    assert.ok(training, "the shipped policy has a gpu-training tier");
    training.preemptionPolicy = "PreemptLowerPriority";
    const problems = checks.priorityClassProblems(objects, drifted);
    assert.ok(problems.some((p) => p.includes("priority tier gpu-training")), problems.join("\n"));
  });

  test("policy/deploy drift: a policy file not in the ConfigMap, or different bytes", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpua-policies-"));
    try {
      for (const f of policyFiles(policyDir)) fs.copyFileSync(path.join(policyDir, f), path.join(dir, f));
      none(checks.policyConfigMapProblems(objects, dir));
      fs.writeFileSync(path.join(dir, "50-new.yaml"), "apiVersion: gpu-admission.io/v1\n");
      fs.appendFileSync(path.join(dir, policyFiles(policyDir)[0]), "# edited\n");
      const problems = checks.policyConfigMapProblems(objects, dir);
      assert.ok(problems.some((p) => p.includes("50-new.yaml is missing")), problems.join("\n"));
      assert.ok(problems.some((p) => p.includes("differs")), problems.join("\n"));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test("a pod webhook that fails open, a template webhook that fails closed, extra RBAC, wrong --threads", () => {
    const broken = clone();
    const vwc = broken.find((o) => o.kind === "ValidatingWebhookConfiguration");
    vwc.webhooks.forEach((w) => (w.failurePolicy = w.failurePolicy === "Fail" ? "Ignore" : "Fail"));
    const webhook = checks.webhookProblems(broken, facts);
    assert.ok(webhook.some((p) => p.includes("judges pods but fails open")), webhook.join("\n"));
    assert.ok(webhook.some((p) => p.includes("fails closed")), webhook.join("\n"));
    broken.find((o) => o.kind === "ClusterRole").rules.push({ apiGroups: [""], resources: ["secrets"], verbs: ["get"] });
    assert.ok(checks.rbacProblems(broken).some((p) => p.includes("secrets")));
    broken.find((o) => o.kind === "Deployment").spec.template.spec.containers[0].resources.requests.cpu = "2";
    assert.ok(checks.threadProblems(broken).some((p) => p.includes("--threads 1 but requests.cpu 2")));
  });
});

describe("the Grafana dashboard", () => {
  const file = path.join(repoRoot, "deploy/components/monitoring/dashboards/gpu-admission.json");

  test("is what deploy/tests/tools/dashboard.py writes (edit the script, then run it)", () => {
    const generated = execFileSync("python3", [path.join(repoRoot, "deploy/tests/tools/dashboard.py"), "--print"], { encoding: "utf8" });
    assert.equal(fs.readFileSync(file, "utf8"), generated);
  });

  test("ships in the monitoring overlay as the sidecar's ConfigMap, byte for byte", () => {
    const cm = renderOverlay("monitoring").find((o) => o.kind === "ConfigMap" && o.metadata.name === "gpu-admission-dashboard");
    assert.ok(cm, "no gpu-admission-dashboard ConfigMap");
    assert.equal(cm.metadata.labels?.grafana_dashboard, "1");
    assert.equal(cm.data["gpu-admission.json"], fs.readFileSync(file, "utf8"));
  });

  test("every panel has a query and a description", () => {
    const panels = JSON.parse(fs.readFileSync(file, "utf8")).panels.filter((p) => p.type !== "row");
    assert.ok(panels.length >= 15);
    for (const p of panels) {
      assert.ok(p.targets?.length > 0 && p.targets.every((t) => t.expr), `${p.title}: no query`);
      assert.ok(p.description, `${p.title}: no description`);
    }
  });
});

describe("the docs", () => {
  const read = (f) => fs.readFileSync(path.join(repoRoot, f), "utf8");

  test("the README links every operations document", () => {
    const readme = read("README.md");
    for (const doc of ["install", "runbook", "upgrade", "access", "decisions", "policy-authoring", "cluster"])
      assert.ok(readme.includes(`(docs/${doc}.md)`), `README does not link docs/${doc}.md`);
  });

  test("the cluster diagram's source is in the repository (Mermaid)", () => {
    assert.match(read("docs/cluster.md"), /```mermaid\nflowchart/);
  });

  test("the pre-commit hook passes on the shipped policy and fails on a broken one", () => {
    const hook = path.join(repoRoot, "docs/examples/pre-commit");
    const env = { ...process.env, GPUA_FORCE: "1", GPU_ADMISSION: binary };
    execFileSync(hook, [], { cwd: repoRoot, env, stdio: "pipe" });
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "gpua-hook-"));
    try {
      for (const f of policyFiles(policyDir)) fs.copyFileSync(path.join(policyDir, f), path.join(dir, f));
      fs.appendFileSync(path.join(dir, policyFiles(policyDir)[0]), "  bogusKey: 1\n");
      assert.throws(() => execFileSync(hook, [], { cwd: repoRoot, env: { ...env, GPUA_POLICIES: dir }, stdio: "pipe" }));
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
