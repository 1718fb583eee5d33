// kustomize renders every overlay, in its two steps (deploy/overlays/<name>: everything but the
// webhook registrations; deploy/webhooks/<name>: the same plus the registrations); every object
// validates against its schema with unknown fields rejected; deploy/ agrees with the policy it
// ships (priority classes, exempt namespaces, template kinds, the ConfigMap's bytes) and with the
// operating rules (RBAC, --threads). The last tests break a manifest, a policy fact and the
// ConfigMap on purpose and require the checks to fail. install.test.mjs holds the checks of a
// first install's safety (issue 21).
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { describe, test } from "node:test";
import * as checks from "./lib/checks.mjs";
import { binary, repoRoot, toolsDir } from "./lib/env.mjs";
import { policyFiles, readPolicy, renderedPolicy } from "./lib/policy.mjs";
import { overlays, renderOverlay, renderScratch, renderWebhooks } from "./lib/render.mjs";
import { SchemaValidator } from "./lib/schema.mjs";

const policyDir = path.join(repoRoot, "policies");
const firstInstallDir = path.join(repoRoot, "deploy/base/policy");
const facts = readPolicy(policyDir);
const validator = new SchemaValidator(toolsDir);
const none = (problems) => assert.deepEqual(problems, []);
const hookKinds = ["MutatingWebhookConfiguration", "ValidatingWebhookConfiguration"];

// The example policy as a platform team adopts it: cert-manager, the example policy and the
// global default priority class (both opt-ins), step two.
const [examplePolicy] = renderScratch({
  "install/kustomization.yaml": "resources: [@KIT@/deploy/overlays/cert-manager]\n" +
    "components: [@KIT@/deploy/components/example-policy, @KIT@/deploy/components/default-priority]\n" +
    "transformers: [@KIT@/deploy/references]\n",
  "webhooks/kustomization.yaml": "resources: [../install]\ncomponents: [@KIT@/deploy/components/webhooks/cert-manager]\n",
}, ["webhooks"]);

describe("every overlay", () => {
  const steps = Object.fromEntries(overlays.flatMap((o) => [[o, renderOverlay(o)], [`${o} + webhooks`, renderWebhooks(o)]]));
  validator.prepare([...Object.values(steps).flat(), ...examplePolicy]);

  for (const overlay of overlays) {
    for (const [step, objects] of [["step one", steps[overlay]], ["step two", steps[`${overlay} + webhooks`]]]) {
      const name = `${overlay} (${step})`;
      test(`${name}: renders with kubectl kustomize`, () => {
        assert.ok(objects.length >= 10, `only ${objects.length} objects`);
        for (const kind of ["Namespace", "Deployment", "Service", "PodDisruptionBudget",
          "ResourceQuota", "ServiceAccount", "ClusterRole", "ClusterRoleBinding", "ConfigMap"])
          assert.ok(objects.some((o) => o.kind === kind), `no ${kind}`);
        for (const kind of [...hookKinds, "ValidatingAdmissionPolicy"])
          assert.equal(objects.some((o) => o.kind === kind), step === "step two", `${kind} in ${step}`);
      });
      test(`${name}: ships no NetworkPolicy (opt-in: deploy/components/network-policy)`, () =>
        assert.deepEqual(objects.filter((o) => o.kind === "NetworkPolicy").map((o) => o.metadata.name), []));
      test(`${name}: every object validates against its schema, unknown fields rejected`, async () => {
        const problems = [];
        for (const o of objects) problems.push(...(await validator.problems(o)));
        none(problems);
      });
      test(`${name}: the policies ConfigMap holds exactly the bytes of deploy/base/policy`, () =>
        none(checks.policyConfigMapProblems(objects, firstInstallDir)));
      test(`${name}: RBAC is list/watch of pods, namespaces, nodes and the DRA objects, get/update of the reservation ConfigMap only`, () => none(checks.rbacProblems(objects)));
      test(`${name}: --threads matches the CPU request`, () => none(checks.threadProblems(objects)));
    }
    const objects = steps[`${overlay} + webhooks`];
    test(`${overlay}: only the pod validating webhook has side effects (quota reservations), none on dry runs`, () =>
      none(checks.sideEffectProblems(objects)));
    test(`${overlay}: webhooks exclude every exempt namespace, cover every template kind, split the blast radius`, () =>
      none(checks.webhookProblems(objects, renderedPolicy(objects))));
    test(`${overlay}: every webhook has a CA (caBundle or cainjector)`, () => {
      for (const cfg of objects.filter((o) => o.kind.endsWith("WebhookConfiguration"))) {
        const injected = cfg.metadata.annotations?.["cert-manager.io/inject-ca-from"];
        for (const w of cfg.webhooks) assert.ok(injected || w.clientConfig.caBundle, `${w.name} has no CA`);
      }
    });
  }

  test("the example policy: ConfigMap = policies/, its PriorityClasses and tiers, webhooks from its exempt list", async () => {
    none(checks.policyConfigMapProblems(examplePolicy, policyDir));
    none(checks.priorityClassProblems(examplePolicy, facts));
    none(checks.webhookProblems(examplePolicy, facts));
    none(checks.exemptSourceProblems(examplePolicy, facts, "gpu-admission", ["cert-manager"]));
    const problems = [];
    for (const o of examplePolicy) problems.push(...(await validator.problems(o)));
    none(problems);
  });

  test("cert-manager: the Certificate's Secret is the one the Deployment mounts, with the Service's DNS name", () => {
    const objects = renderOverlay("cert-manager");
    const cert = objects.find((o) => o.kind === "Certificate" && o.metadata.name === "gpu-admission-tls");
    assert.ok(cert);
    assert.ok(cert.spec.dnsNames.includes("gpu-admission.gpu-admission.svc"));
    const deploy = objects.find((o) => o.kind === "Deployment");
    assert.ok(deploy.spec.template.spec.volumes.some((v) => v.secret?.secretName === cert.spec.secretName));
  });

  test("the Deployment passes only flags `gpu-admission serve` knows (the image's entrypoint is serve)", () => {
    const help = execFileSync(binary, ["serve", "--help"], { encoding: "utf8" });
    const known = new Set([...help.matchAll(/^\s+(--[a-z][a-z0-9-]*)/gm)].map((m) => m[1]));
    const knownEnv = new Set([...help.matchAll(/env: (GPU_ADMISSION_[A-Z_]+)/g)].map((m) => m[1]));
    assert.ok(known.has("--policies") && known.has("--threads") && knownEnv.has("GPU_ADMISSION_LISTEN"), help);
    for (const overlay of overlays) {
      const deploy = renderOverlay(overlay).find((o) => o.kind === "Deployment");
      const c = deploy.spec.template.spec.containers[0];
      assert.equal(c.command, undefined, "the image's entrypoint runs serve");
      assert.notEqual(c.args[0], "serve", "the entrypoint already says serve");
      for (const a of c.args.filter((x) => x.startsWith("--")))
        assert.ok(known.has(a.split("=")[0]), `${overlay}: serve has no flag ${a}`);
      for (const e of (c.env ?? []).filter((x) => x.name.startsWith("GPU_ADMISSION_")))
        assert.ok(knownEnv.has(e.name), `${overlay}: serve reads no ${e.name}`);
    }
  });

  test("the policies the kit ships load (gpu-admission lint), without reading a Kustomization", () => {
    for (const dir of ["policies", "deploy/base/policy"]) {
      const out = execFileSync(binary, ["lint", dir], { cwd: repoRoot, encoding: "utf8" });
      assert.match(out, new RegExp(`OK \\(${policyFiles(path.join(repoRoot, dir)).length} files?,`));
    }
  });
});

describe("the network-policy component", () => {
  // An overlay of a platform team's: cert-manager plus the opt-in component, as docs/install.md
  // shows it.
  const [objects] = renderScratch({
    "o/kustomization.yaml": "resources: [@KIT@/deploy/overlays/cert-manager]\n" +
      "components: [@KIT@/deploy/components/network-policy]\ntransformers: [@KIT@/deploy/references]\n",
  }, ["o"]);
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
  const objects = examplePolicy;
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
    const role = broken.find((o) => o.kind === "Role" && o.metadata.name === "gpu-admission:quota-reservations");
    role.rules[0].verbs.push("create");
    delete role.rules[0].resourceNames;
    const rbac = checks.rbacProblems(broken);
    assert.ok(rbac.some((p) => p.includes("verbs")) && rbac.some((p) => p.includes("resourceNames")), rbac.join("\n"));
    broken.find((o) => o.kind === "ConfigMap" && o.metadata.name === checks.reservationConfigMap).data = { x: "{}" };
    assert.ok(checks.rbacProblems(broken).some((p) => p.includes("ships data")));
    vwc.webhooks[0].sideEffects = "None";
    assert.ok(checks.sideEffectProblems(broken).some((p) => p.includes("want NoneOnDryRun")));
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
