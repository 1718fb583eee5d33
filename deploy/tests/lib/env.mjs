// Paths and tools shared by the deploy checks (set by deploy/tests/run).
import path from "node:path";
import { createRequire } from "node:module";
import { fileURLToPath } from "node:url";

export const repoRoot =
  process.env.GPUA_REPO_ROOT ?? path.resolve(path.dirname(fileURLToPath(import.meta.url)), "../../..");
export const toolsDir = process.env.GPUA_DEPLOY_TOOLS ?? path.join(repoRoot, "build/deploy-tools");
export const binary = process.env.GPUA_BINARY ?? path.join(repoRoot, "build/release/bin/gpu-admission");

const require = createRequire(path.join(toolsDir, "node_modules", "noop.js"));
export const YAML = require("yaml");
