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
  const facts = { exempt: [], priorityClasses: [], globalDefault: null, templates: [], tiers: [] };
  for (const f of policyFiles(dir)) {
    for (const doc of YAML.parseAllDocuments(fs.readFileSync(path.join(dir, f), "utf8"))) {
      const spec = doc.toJS()?.spec ?? {};
      facts.exempt.push(...(spec.exempt?.namespaces ?? []));
      for (const c of spec.classes ?? []) {
        if (c.priorityClassName) facts.priorityClasses.push(c.priorityClassName);
        facts.priorityClasses.push(...(c.allowedPriorityClasses ?? []));
      }
      if (spec.priorityClasses?.globalDefault) {
        facts.globalDefault = spec.priorityClasses.globalDefault;
        facts.priorityClasses.push(facts.globalDefault);
      }
      for (const t of spec.templates ?? []) facts.templates.push({ group: t.apiGroup ?? "", kind: t.kind });
      for (const t of spec.priorityTiers ?? [])
        facts.tiers.push({ name: t.name, value: t.value, preemptionPolicy: t.preemptionPolicy ?? "PreemptLowerPriority" });
    }
  }
  facts.priorityClasses = [...new Set(facts.priorityClasses)];
  return facts;
}
