// What the shipped policy (policies/*.yaml) says that the manifests must agree with. Reads the
// YAML directly: the facts needed here are plain keys, and the loader's own strictness is
// checked by `gpu-admission lint` in the same test run.
import fs from "node:fs";
import path from "node:path";
import { repoRoot, YAML } from "./env.mjs";

// The files the policy loader reads from a directory: *.yaml and *.yml directly inside it.
export function policyFiles(dir = path.join(repoRoot, "policies")) {
  return fs
    .readdirSync(dir)
    .filter((f) => /\.ya?ml$/.test(f) && fs.statSync(path.join(dir, f)).isFile())
    .sort();
}

export function readPolicy(dir = path.join(repoRoot, "policies")) {
  return readPolicyTexts(policyFiles(dir).map((f) => fs.readFileSync(path.join(dir, f), "utf8")));
}

// The same facts from the files' texts, in load order (e.g. the data of a rendered ConfigMap).
export function readPolicyTexts(texts) {
  const facts = { exempt: [], exemptLabels: {}, priorityClasses: [], globalDefault: null, templates: [], tiers: [], rollout: [] };
  for (const text of texts) {
    for (const doc of YAML.parseAllDocuments(text)) {
      const spec = doc.toJS()?.spec ?? {};
      const ns = spec.exempt?.namespaces;
      // Two spellings (docs/policy-reference.md, namespace selectors): a list of names, or a
      // mapping whose names and labels are alternatives for exempt.
      if (Array.isArray(ns)) facts.exempt.push(...ns);
      else if (ns) {
        facts.exempt.push(...(ns.names ?? []));
        Object.assign(facts.exemptLabels, ns.matchLabels ?? {});
      }
      for (const c of spec.classes ?? []) {
        if (c.priorityClassName) facts.priorityClasses.push(c.priorityClassName);
        facts.priorityClasses.push(...(c.allowedPriorityClasses ?? []));
      }
      if (spec.priorityClasses?.globalDefault) facts.globalDefault = spec.priorityClasses.globalDefault;
      for (const t of spec.templates ?? []) facts.templates.push({ group: t.apiGroup ?? "", kind: t.kind });
      for (const t of spec.priorityTiers ?? [])
        facts.tiers.push({ name: t.name, value: t.value, preemptionPolicy: t.preemptionPolicy ?? "PreemptLowerPriority" });
      facts.rollout.push(...(spec.rollout ?? []));
    }
  }
  facts.priorityClasses = [...new Set(facts.priorityClasses)];
  return facts;
}

// The policy a render ships: the facts of its policies ConfigMap, in the loader's file order.
export function renderedPolicy(objects) {
  const cm = objects.find((o) => o.kind === "ConfigMap" && o.metadata.name.startsWith("gpu-admission-policies"));
  if (!cm) throw new Error("no gpu-admission-policies ConfigMap rendered");
  return readPolicyTexts(Object.keys(cm.data ?? {}).sort().map((k) => cm.data[k]));
}
