// The checks that tie deploy/ to policies/ and to the operating rules. Each takes
// rendered objects (and the policy's facts) and returns a list of problems, so the tests can
// prove every check fails on a deliberately broken input.
import fs from "node:fs";
import path from "node:path";
import { policyFiles } from "./policy.mjs";

const byKind = (objects, kind) => objects.filter((o) => o.kind === kind);
const webhookConfigs = (objects) =>
  objects.filter((o) => o.kind === "MutatingWebhookConfiguration" || o.kind === "ValidatingWebhookConfiguration");

// The lower-case plural of a kind, as CRDs name their resources (PyTorchJob -> pytorchjobs).
export function plural(kind) {
  const k = kind.toLowerCase();
  if (/(s|x|ch|sh)$/.test(k)) return `${k}es`;
  if (/[^aeiou]y$/.test(k)) return `${k.slice(0, -1)}ies`;
  return `${k}s`;
}

// Every PriorityClass the policy names exists; the policy's globalDefault is the one class
// marked globalDefault.
export function priorityClassProblems(objects, facts) {
  const classes = byKind(objects, "PriorityClass");
  const names = new Set(classes.map((c) => c.metadata.name));
  const problems = facts.priorityClasses
    .filter((n) => !names.has(n))
    .map((n) => `PriorityClass ${n} is named in policies/ but not shipped in deploy/`);
  const defaults = classes.filter((c) => c.globalDefault).map((c) => c.metadata.name);
  if (defaults.length > 1) problems.push(`more than one globalDefault PriorityClass: ${defaults}`);
  if (facts.globalDefault && defaults.length && defaults[0] !== facts.globalDefault)
    problems.push(`globalDefault PriorityClass is ${defaults[0]}, the policy says ${facts.globalDefault}`);
  // The policy's priorityTiers describe the shipped classes to review and to preemption checks:
  // a tier that disagrees with its class tells users a preemption story the cluster does not run.
  for (const t of facts.tiers ?? []) {
    const c = classes.find((x) => x.metadata.name === t.name);
    if (!c) continue;  // a tier for a class the cluster has from elsewhere
    const policy = c.preemptionPolicy ?? "PreemptLowerPriority";
    if (c.value !== t.value || policy !== t.preemptionPolicy)
      problems.push(`priority tier ${t.name} says value ${t.value}, ${t.preemptionPolicy}; the shipped PriorityClass has ${c.value}, ${policy}`);
  }
  return problems;
}

function excludedNamespaces(webhook) {
  const out = new Set();
  for (const e of webhook.namespaceSelector?.matchExpressions ?? [])
    if (e.key === "kubernetes.io/metadata.name" && e.operator === "NotIn") e.values.forEach((v) => out.add(v));
  return out;
}

const covers = (rule, group, resource) =>
  (rule.apiGroups ?? []).some((g) => g === group || g === "*") &&
  (rule.resources ?? []).some((r) => r === resource || r === "*") &&
  (rule.operations ?? []).some((op) => op === "CREATE" || op === "*");

// Every webhook excludes every exempt namespace; the template webhook covers every template
// kind; the blast radius is split: pods fail closed, templates fail open, never in one webhook.
export function webhookProblems(objects, facts) {
  const problems = [];
  const configs = webhookConfigs(objects);
  if (configs.length === 0) return ["no webhook configurations rendered"];
  const validating = [];
  for (const cfg of configs) {
    for (const w of cfg.webhooks ?? []) {
      const excluded = excludedNamespaces(w);
      for (const ns of facts.exempt)
        if (!excluded.has(ns)) problems.push(`webhook ${w.name} does not exclude exempt namespace ${ns}`);
      if (!(w.timeoutSeconds >= 1 && w.timeoutSeconds <= 10))
        problems.push(`webhook ${w.name}: timeoutSeconds ${w.timeoutSeconds} is not an explicit 1..10`);
      if (cfg.kind === "ValidatingWebhookConfiguration") validating.push(w);
    }
  }
  for (const w of validating) {
    const pods = w.rules.some((r) => covers(r, "", "pods"));
    const others = w.rules.some((r) => !(r.resources ?? []).every((x) => x === "pods"));
    if (pods && others) problems.push(`webhook ${w.name} mixes pods and workload templates: split the blast radius`);
    if (pods && w.failurePolicy !== "Fail") problems.push(`webhook ${w.name} judges pods but fails open`);
    if (others && w.failurePolicy !== "Ignore")
      problems.push(`webhook ${w.name} validates templates but fails closed: an outage stalls every rollout`);
  }
  for (const t of facts.templates) {
    const resource = plural(t.kind);
    const hook = validating.find((w) => w.rules.some((r) => covers(r, t.group, resource)));
    if (!hook) problems.push(`no validating webhook covers template kind ${t.group}/${t.kind} (${resource})`);
  }
  return problems;
}

// The rendered policies ConfigMap holds exactly the files of policies/, byte for byte, and the
// Deployment mounts that ConfigMap.
export function policyConfigMapProblems(objects, policyDir) {
  const maps = byKind(objects, "ConfigMap").filter((c) => c.metadata.name.startsWith("gpu-admission-policies"));
  if (maps.length !== 1) return [`expected one gpu-admission-policies ConfigMap, found ${maps.length}`];
  const [cm] = maps;
  const problems = [];
  const files = policyFiles(policyDir);
  const keys = Object.keys(cm.data ?? {}).sort();
  for (const f of files)
    if (!keys.includes(f)) problems.push(`policies/${f} is missing from the ConfigMap: add it to policies/Kustomization`);
  for (const k of keys) {
    if (!files.includes(k)) problems.push(`ConfigMap key ${k} is not a file of policies/`);
    else if (cm.data[k] !== fs.readFileSync(path.join(policyDir, k), "utf8"))
      problems.push(`ConfigMap key ${k} differs from policies/${k}`);
  }
  if (cm.binaryData) problems.push("the policies ConfigMap has binaryData");
  const mounted = byKind(objects, "Deployment").flatMap((d) =>
    (d.spec.template.spec.volumes ?? []).map((v) => v.configMap?.name).filter(Boolean));
  if (!mounted.includes(cm.metadata.name)) problems.push(`no Deployment mounts ConfigMap ${cm.metadata.name}`);
  return problems;
}

// List and watch of exactly pods, namespaces and nodes (no get: the server never reads a
// single object), and no other role.
export function rbacProblems(objects) {
  const roles = objects.filter((o) => o.kind === "ClusterRole" || o.kind === "Role");
  if (roles.length !== 1) return [`expected exactly one (Cluster)Role, found ${roles.length}`];
  const problems = [];
  const rules = roles[0].rules ?? [];
  const granted = new Set();
  for (const r of rules) {
    if (JSON.stringify(r.apiGroups) !== '[""]') problems.push(`rule grants apiGroups ${JSON.stringify(r.apiGroups)}`);
    if (r.resourceNames || r.nonResourceURLs) problems.push("rule with resourceNames/nonResourceURLs");
    for (const v of r.verbs ?? [])
      if (!["list", "watch"].includes(v)) problems.push(`rule grants verb ${v}`);
    for (const res of r.resources ?? []) {
      if (!["pods", "namespaces", "nodes"].includes(res)) problems.push(`rule grants resource ${res}`);
      for (const v of r.verbs ?? []) granted.add(`${res}:${v}`);
    }
  }
  for (const res of ["pods", "namespaces", "nodes"])
    for (const v of ["list", "watch"])
      if (!granted.has(`${res}:${v}`)) problems.push(`missing ${v} on ${res}`);
  return problems;
}

// CPU quantity in cores ("1", "2", "500m" -> 0.5).
export function cpuCores(q) {
  const s = String(q);
  return s.endsWith("m") ? Number(s.slice(0, -1)) / 1000 : Number(s);
}

// --threads equals the container's CPU request in whole cores.
export function threadProblems(objects) {
  const problems = [];
  for (const d of byKind(objects, "Deployment")) {
    for (const c of d.spec.template.spec.containers) {
      const args = [...(c.command ?? []), ...(c.args ?? [])];
      const i = args.findIndex((a) => a === "--threads" || a.startsWith("--threads="));
      if (i < 0) {
        problems.push(`${d.metadata.name}/${c.name}: no --threads`);
        continue;
      }
      const threads = Number(args[i].includes("=") ? args[i].split("=")[1] : args[i + 1]);
      const cores = cpuCores(c.resources?.requests?.cpu ?? 0);
      if (threads !== cores) problems.push(`${d.metadata.name}/${c.name}: --threads ${threads} but requests.cpu ${cores} cores`);
    }
  }
  return problems;
}
