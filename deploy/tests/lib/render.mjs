// Renders a kustomization with the real `kubectl kustomize` and parses the objects.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { repoRoot, YAML } from "./env.mjs";

export const overlays = ["cert-manager", "self-signed", "monitoring"];

// The self-signed overlay reads certs/ (git-ignored): make dev certificates there if missing.
function ensureSelfSignedCerts(dir) {
  const certs = path.join(dir, "certs");
  if (fs.existsSync(path.join(certs, "ca.crt"))) return;
  execFileSync("bash", [path.join(repoRoot, "certs/gen-dev-certs.sh"), certs], { stdio: "ignore" });
}

export function renderText(dir) {
  if (fs.existsSync(path.join(dir, "certs")) || dir.endsWith("self-signed")) ensureSelfSignedCerts(dir);
  return execFileSync("kubectl", ["kustomize", dir], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] });
}

export function parseObjects(text) {
  return YAML.parseAllDocuments(text)
    .map((d) => {
      if (d.errors.length) throw new Error(`YAML: ${d.errors[0].message}`);
      return d.toJS();
    })
    .filter(Boolean);
}

const cache = new Map();
export function renderOverlay(name) {
  if (!cache.has(name))
    cache.set(name, parseObjects(renderText(path.join(repoRoot, "deploy/overlays", name))));
  return cache.get(name);
}
