// Renders kustomizations with the real `kubectl kustomize` and parses the objects.
import { execFileSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { repoRoot, YAML } from "./env.mjs";

// The kit's installs: step one is deploy/overlays/<name> (everything but the webhook
// registrations), step two deploy/webhooks/<name> (the same plus the registrations).
export const overlays = ["cert-manager", "self-signed", "monitoring"];

// The self-signed overlay reads certs/ (git-ignored): make dev certificates there if missing.
function ensureSelfSignedCerts(dir) {
  const certs = path.join(dir, "certs");
  if (fs.existsSync(path.join(certs, "ca.crt"))) return;
  execFileSync("bash", [path.join(repoRoot, "certs/gen-dev-certs.sh"), certs], { stdio: "ignore" });
}

export function renderText(dir) {
  ensureSelfSignedCerts(path.join(repoRoot, "deploy/overlays/self-signed"));
  if (fs.existsSync(path.join(dir, "certs"))) ensureSelfSignedCerts(dir);
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
function cached(dir) {
  if (!cache.has(dir)) cache.set(dir, parseObjects(renderText(dir)));
  return cache.get(dir);
}
// Step one of an overlay, and step two.
export const renderOverlay = (name) => cached(path.join(repoRoot, "deploy/overlays", name));
export const renderWebhooks = (name) => cached(path.join(repoRoot, "deploy/webhooks", name));

// A platform team's kustomizations, written into a scratch directory inside the repository
// (kustomize loads other kustomizations by relative path only). `files` maps a path relative to
// the scratch root to its text; in the text, @KIT@ stands for the relative path from that file's
// directory to the repository root. Returns the scratch root; render its directories with
// renderText, and remove it with fs.rmSync when done.
export function scratch(files) {
  fs.mkdirSync(path.join(repoRoot, "build"), { recursive: true });
  const root = fs.mkdtempSync(path.join(repoRoot, "build", "kit-"));
  for (const [rel, text] of Object.entries(files)) {
    const file = path.join(root, rel);
    fs.mkdirSync(path.dirname(file), { recursive: true });
    const kit = path.relative(path.dirname(file), repoRoot) || ".";
    fs.writeFileSync(file, text.replaceAll("@KIT@", kit));
  }
  return root;
}

// Renders each directory of a scratch tree (relative paths), then removes the tree.
export function renderScratch(files, dirs) {
  const root = scratch(files);
  try {
    return dirs.map((d) => parseObjects(renderText(path.join(root, d))));
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

// Like renderScratch for one directory, but returns kustomize's error text instead of throwing
// (for the tests of what a bad input says).
export function renderError(files, dir) {
  const root = scratch(files);
  try {
    renderText(path.join(root, dir));
    return null;
  } catch (e) {
    return String(e.stderr ?? e.message);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
}

// The files of a rendered ConfigMap, written into a new temporary directory (for the binary).
export function configMapDir(cm, dir) {
  fs.mkdirSync(dir, { recursive: true });
  for (const [k, v] of Object.entries(cm.data ?? {})) fs.writeFileSync(path.join(dir, k), v);
  return dir;
}
