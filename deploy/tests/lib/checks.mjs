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

// Every PriorityClass the policy's classes name exists; at most one class is globalDefault, and
// if one is shipped the policy's priorityClasses.globalDefault names it (the policy must know which
// name the Priority plugin writes into pods that chose none).
export function priorityClassProblems(objects, facts) {
  const classes = byKind(objects, "PriorityClass");
  const names = new Set(classes.map((c) => c.metadata.name));
  const problems = facts.priorityClasses
    .filter((n) => !names.has(n))
    .map((n) => `PriorityClass ${n} is named in policies/ but not shipped in deploy/`);
  const defaults = classes.filter((c) => c.globalDefault).map((c) => c.metadata.name);
  if (defaults.length > 1) problems.push(`more than one globalDefault PriorityClass: ${defaults}`);
  if (defaults.length && defaults[0] !== facts.globalDefault)
    problems.push(`globalDefault PriorityClass is ${defaults[0]}, the policy's priorityClasses.globalDefault says ${facts.globalDefault}`);
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

// The match-conditions component's pair: a pod webhook may fail open only as the negation of a
// fail-closed one, i.e. the same webhook but for failurePolicy, its name and one matchCondition
// whose expression is exactly !( the other's ).
export function failOpenPodPairProblems(open, closed) {
  const problems = [];
  const cond = (w, name) => (w.matchConditions ?? []).find((c) => c.name === name);
  const gpu = cond(closed, "gpu-relevant");
  const other = cond(open, "not-gpu-relevant");
  if (!gpu || !other) return [`webhook ${open.name} judges pods but fails open`];
  const strip = (e) => e.replace(/\s+/g, " ").trim();
  if (strip(other.expression) !== strip(`!( ${gpu.expression} )`))
    problems.push(`webhook ${open.name}: matchCondition not-gpu-relevant is not the negation of ${closed.name}'s gpu-relevant`);
  const rest = (w) => JSON.stringify({ ...w, name: "", failurePolicy: "",
    matchConditions: (w.matchConditions ?? []).filter((c) => !["gpu-relevant", "not-gpu-relevant"].includes(c.name)) });
  if (rest(open) !== rest(closed)) problems.push(`webhook ${open.name} differs from ${closed.name} in more than the condition and failurePolicy`);
  return problems;
}

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
      else if (w.rules.some((r) => !(r.resources ?? []).every((x) => x === "pods"))) {
        if (w.rules.some((r) => covers(r, "", "pods"))) problems.push(`webhook ${w.name} mixes pods and workload templates: split the blast radius`);
        if (w.failurePolicy !== "Ignore") problems.push(`webhook ${w.name} mutates templates but fails closed: an outage stalls every rollout`);
      }
    }
  }
  const podHooks = validating.filter((w) => w.rules.some((r) => covers(r, "", "pods")));
  for (const w of validating) {
    const pods = podHooks.includes(w);
    const others = w.rules.some((r) => !(r.resources ?? []).every((x) => x === "pods"));
    if (pods && others) problems.push(`webhook ${w.name} mixes pods and workload templates: split the blast radius`);
    if (pods && w.failurePolicy !== "Fail") {
      const closed = podHooks.find((x) => x.failurePolicy === "Fail");
      problems.push(...(closed ? failOpenPodPairProblems(w, closed) : [`webhook ${w.name} judges pods but fails open`]));
    }
    if (others && w.failurePolicy !== "Ignore")
      problems.push(`webhook ${w.name} validates templates but fails closed: an outage stalls every rollout`);
  }
  if (!podHooks.some((w) => w.failurePolicy === "Fail")) problems.push("no pod webhook fails closed");
  for (const t of facts.templates) {
    const resource = plural(t.kind);
    const hook = validating.find((w) => w.rules.some((r) => covers(r, t.group, resource)));
    if (!hook) problems.push(`no validating webhook covers template kind ${t.group}/${t.kind} (${resource})`);
  }
  return problems;
}

// deploy/components/template-mutation's webhook against the install it joins: a copy of the pod
// mutating webhook (namespaceSelector, clientConfig but its path) for exactly the resources of
// validate-templates, on CREATE and UPDATE, fail-open, short timeout, never reinvoked, no pod
// conditions. Returns [] when the render has no mutate-templates webhook only if `expected` is false.
export function templateMutationProblems(objects, expected = true) {
  const mwc = objects.find((o) => o.kind === "MutatingWebhookConfiguration");
  const vwc = objects.find((o) => o.kind === "ValidatingWebhookConfiguration");
  if (!mwc || !vwc) return ["no webhook configurations rendered"];
  const hook = (cfg, name) => (cfg.webhooks ?? []).find((w) => w.name === name);
  const tm = hook(mwc, "mutate-templates.gpu-admission.io");
  if (!tm) return expected ? ["no webhook mutate-templates.gpu-admission.io in the MutatingWebhookConfiguration"] : [];
  if (!expected) return ["mutate-templates.gpu-admission.io is registered without the component"];
  const pods = hook(mwc, "mutate.gpu-admission.io");
  const templates = hook(vwc, "validate-templates.gpu-admission.io");
  if (!pods || !templates) return ["mutate.gpu-admission.io or validate-templates.gpu-admission.io is missing"];
  const problems = [];
  const same = (what, a, b) => {
    if (JSON.stringify(a) !== JSON.stringify(b)) problems.push(`mutate-templates ${what} ${JSON.stringify(a)}, the pod webhook's ${JSON.stringify(b)}`);
  };
  same("namespaceSelector", tm.namespaceSelector, pods.namespaceSelector);
  same("clientConfig", { ...tm.clientConfig, service: { ...tm.clientConfig?.service, path: "" } },
    { ...pods.clientConfig, service: { ...pods.clientConfig?.service, path: "" } });
  const want = { failurePolicy: "Ignore", timeoutSeconds: 3, reinvocationPolicy: "Never", sideEffects: "None",
    matchPolicy: "Equivalent", path: "/mutate", admissionReviewVersions: JSON.stringify(["v1"]) };
  const got = { ...tm, path: tm.clientConfig?.service?.path ?? tm.clientConfig?.url?.replace(/^https:\/\/[^/]+/, ""),
    admissionReviewVersions: JSON.stringify(tm.admissionReviewVersions) };
  for (const [k, v] of Object.entries(want)) if (got[k] !== v) problems.push(`mutate-templates ${k} is ${got[k]}, want ${v}`);
  if ((tm.matchConditions ?? []).length) problems.push(`mutate-templates has matchConditions ${tm.matchConditions.map((c) => c.name)}: workloads need none`);
  // Resource by resource: what validate-templates checks, mutate-templates mutates on CREATE and
  // UPDATE, with the same API versions, and nothing more (no pods: they have their own webhook).
  const entries = (w) => w.rules.flatMap((r) => r.apiGroups.flatMap((g) => r.resources.map((res) =>
    ({ key: `${g}/${res}`, versions: JSON.stringify(r.apiVersions), ops: [...r.operations].sort().join(","), scope: r.scope }))));
  const mine = new Map(entries(tm).map((e) => [e.key, e]));
  for (const e of entries(templates)) {
    const m = mine.get(e.key);
    if (!m) problems.push(`mutate-templates does not cover ${e.key}, which validate-templates checks`);
    else {
      if (m.ops !== "CREATE,UPDATE") problems.push(`mutate-templates ${e.key}: operations ${m.ops}, want CREATE,UPDATE`);
      if (m.versions !== e.versions || m.scope !== e.scope) problems.push(`mutate-templates ${e.key}: apiVersions ${m.versions} ${m.scope}, validate-templates has ${e.versions} ${e.scope}`);
    }
  }
  const theirs = new Set(entries(templates).map((e) => e.key));
  for (const k of mine.keys()) if (!theirs.has(k)) problems.push(`mutate-templates covers ${k}, which validate-templates does not check`);
  return problems;
}

// One source each: every webhook's first name exclusion is exactly the policy's exempt names
// (copied by kustomize), the second holds the webhook's own namespace and kube-system (and what
// else the install depends on: `also`), and every webhook skips the opt-out label the policy's
// exempt labels name.
export function exemptSourceProblems(objects, facts, namespace, also = []) {
  const problems = [];
  for (const cfg of webhookConfigs(objects)) {
    for (const w of cfg.webhooks ?? []) {
      const names = (w.namespaceSelector?.matchExpressions ?? [])
        .filter((e) => e.key === "kubernetes.io/metadata.name" && e.operator === "NotIn");
      if (names.length !== 2) {
        problems.push(`webhook ${w.name}: expected two name exclusions (policy, install), found ${names.length}`);
        continue;
      }
      if (JSON.stringify(names[0].values) !== JSON.stringify(facts.exempt))
        problems.push(`webhook ${w.name} excludes ${JSON.stringify(names[0].values)}, the policy exempts ${JSON.stringify(facts.exempt)}`);
      for (const ns of [namespace, "kube-system", ...also])
        if (!names[1].values.includes(ns)) problems.push(`webhook ${w.name} does not exclude ${ns}, which the install depends on`);
      for (const [k, v] of Object.entries(facts.exemptLabels ?? {})) {
        const skips = (w.namespaceSelector?.matchExpressions ?? []).some((e) => e.key === k && e.operator === "NotIn" && e.values.includes(v));
        if (!skips) problems.push(`webhook ${w.name} does not skip namespaces labelled ${k}=${v}, which the policy exempts`);
      }
    }
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

// What the webhook's ServiceAccount may list and watch cluster-wide, per API group: pods,
// namespaces and nodes, and the DRA objects pods' claims resolve against.
const kReadable = {
  "": ["pods", "namespaces", "nodes"],
  "resource.k8s.io": ["deviceclasses", "resourceclaims", "resourceclaimtemplates", "resourceslices"],
};

// The webhook's ServiceAccount is bound to one ClusterRole: list and watch of exactly kReadable
// (no get: the server never reads a single object), and nothing else; and
// to one Role in its own namespace: get and update of exactly the quota reservation ConfigMap
// (by name; no create, no list: the install ships the object), which the install ships there.
export const reservationConfigMap = "gpu-admission-quota-reservations";
export function rbacProblems(objects) {
  const sa = objects.find((o) => o.kind === "ServiceAccount" && o.metadata.name === "gpu-admission");
  if (!sa) return ["no ServiceAccount gpu-admission"];
  const bindings = objects.filter((o) => (o.kind === "ClusterRoleBinding" || o.kind === "RoleBinding") &&
    (o.subjects ?? []).some((s) => s.kind === "ServiceAccount" && s.name === sa.metadata.name && s.namespace === sa.metadata.namespace));
  const roleOf = (b) => objects.find((o) => o.kind === b.roleRef.kind && o.metadata.name === b.roleRef.name &&
    (o.kind === "ClusterRole" || o.metadata.namespace === b.metadata.namespace));
  const clusterRoles = bindings.filter((b) => b.kind === "ClusterRoleBinding").map(roleOf);
  const roles = bindings.filter((b) => b.kind === "RoleBinding").map(roleOf);
  if (clusterRoles.length !== 1 || !clusterRoles[0]) return [`expected the ServiceAccount bound to exactly one shipped ClusterRole, found ${clusterRoles.length}`];
  if (roles.length !== 1 || !roles[0]) return [`expected the ServiceAccount bound to exactly one shipped Role (quota reservations), found ${roles.length}`];
  return [...clusterRoleProblems(clusterRoles[0]), ...reservationRoleProblems(roles[0], sa, objects)];
}

function clusterRoleProblems(role) {
  const problems = [];
  const granted = new Set();
  for (const r of role.rules ?? []) {
    if ((r.apiGroups ?? []).length !== 1 || !(r.apiGroups[0] in kReadable)) {
      problems.push(`rule grants apiGroups ${JSON.stringify(r.apiGroups)}`);
      continue;
    }
    const group = r.apiGroups[0];
    if (r.resourceNames || r.nonResourceURLs) problems.push("rule with resourceNames/nonResourceURLs");
    for (const v of r.verbs ?? [])
      if (!["list", "watch"].includes(v)) problems.push(`rule grants verb ${v}`);
    for (const res of r.resources ?? []) {
      if (!kReadable[group].includes(res)) problems.push(`rule grants resource ${res}`);
      for (const v of r.verbs ?? []) granted.add(`${group}/${res}:${v}`);
    }
  }
  for (const [group, resources] of Object.entries(kReadable))
    for (const res of resources)
      for (const v of ["list", "watch"])
        if (!granted.has(`${group}/${res}:${v}`)) problems.push(`missing ${v} on ${group ? group + "/" : ""}${res}`);
  return problems;
}

function reservationRoleProblems(role, sa, objects) {
  const problems = [];
  if (role.metadata.namespace !== sa.metadata.namespace)
    problems.push(`Role ${role.metadata.name} is in namespace ${role.metadata.namespace}, the webhook runs in ${sa.metadata.namespace}`);
  const rules = role.rules ?? [];
  if (rules.length !== 1) return [...problems, `Role ${role.metadata.name} has ${rules.length} rules, want one`];
  const [r] = rules;
  const want = { apiGroups: [""], resources: ["configmaps"], resourceNames: [reservationConfigMap], verbs: ["get", "update"] };
  for (const [k, v] of Object.entries(want))
    if (JSON.stringify([...(r[k] ?? [])].sort()) !== JSON.stringify(v))
      problems.push(`Role ${role.metadata.name} grants ${k} ${JSON.stringify(r[k])}, want ${JSON.stringify(v)}`);
  const cm = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name === reservationConfigMap);
  if (!cm) problems.push(`no ConfigMap ${reservationConfigMap}: the Role grants no create, so the install must ship it`);
  else if (cm.metadata.namespace !== sa.metadata.namespace) problems.push(`ConfigMap ${reservationConfigMap} is not in the webhook's namespace`);
  else if (cm.data) problems.push(`ConfigMap ${reservationConfigMap} ships data: a re-apply would overwrite live reservations`);
  return problems;
}

// The pod validating webhooks (validate-pods and the match-conditions component's copy) reserve
// quota usage, a side effect skipped on dry runs: sideEffects NoneOnDryRun; the others have none.
const podValidators = ["validate-pods.gpu-admission.io", "validate-other-pods.gpu-admission.io"];
export function sideEffectProblems(objects) {
  const problems = [];
  for (const cfg of webhookConfigs(objects))
    for (const w of cfg.webhooks ?? []) {
      const want = podValidators.includes(w.name) ? "NoneOnDryRun" : "None";
      if (w.sideEffects !== want) problems.push(`webhook ${w.name}: sideEffects ${w.sideEffects}, want ${want}`);
    }
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
