// The Dockerfile's runtime stage installs a Debian package for every shared library the built
// binary links (ldd, then dpkg -S), so a new dependency cannot break the image unnoticed. No base
// image can be pulled on this machine, so this checks the Dockerfile against the binary built
// here, on the same Debian 12 as the image's build stage.
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { binary, repoRoot } from "./lib/env.mjs";

// Packages named by `apt-get install` in the Dockerfile's last stage.
export function runtimePackages(dockerfile) {
  const stages = dockerfile.replace(/\\\n/g, " ").split(/^FROM\s/m);
  const last = stages[stages.length - 1];
  const packages = new Set();
  for (const m of last.matchAll(/apt-get\s+install\s+([^&;\n]*)/g))
    for (const word of m[1].trim().split(/\s+/)) if (word && !word.startsWith("-")) packages.add(word);
  return packages;
}

// The resolved paths of every library ldd reports.
export function linkedLibraries(file) {
  const out = execFileSync("ldd", [file], { encoding: "utf8" });
  return [...out.matchAll(/(?:=>\s*)?(\/\S+)\s+\(0x/g)].map((m) => m[1]);
}

// The Debian package that owns a library (Debian 12 merges /lib into /usr/lib, and dpkg knows
// each file under one of the two names).
export function owningPackage(lib) {
  const candidates = new Set([lib, fs.realpathSync(lib)]);
  for (const c of [...candidates]) {
    if (c.startsWith("/usr/lib/")) candidates.add(c.slice(4));
    else if (c.startsWith("/lib")) candidates.add(`/usr${c}`);
  }
  for (const c of candidates) {
    const r = spawnSync("dpkg", ["-S", c], { encoding: "utf8" });
    if (r.status === 0) return r.stdout.split(":")[0].trim();
  }
  return null;
}

export function missingPackages(libraries, packages) {
  const problems = [];
  for (const lib of libraries) {
    const pkg = owningPackage(lib);
    if (!pkg) problems.push(`${lib}: no Debian package owns it`);
    else if (!packages.has(pkg)) problems.push(`${lib} comes from ${pkg}, which the runtime stage does not install`);
  }
  return problems;
}

describe("container image", () => {
  const dockerfile = fs.readFileSync(path.join(repoRoot, "Dockerfile"), "utf8");

  test("the runtime stage installs a package for every library the binary links", () => {
    const libs = linkedLibraries(binary);
    assert.ok(libs.some((l) => l.includes("libyaml-cpp")), `ldd found: ${libs}`);
    assert.deepEqual(missingPackages(libs, runtimePackages(dockerfile)), []);
  });

  test("runtime stage: debian:12-slim, uid 65532, entrypoint gpu-admission serve, stripped binary", () => {
    const last = dockerfile.split(/^FROM\s/m).pop();
    assert.match(last, /^debian:12-slim\b/);
    assert.match(last, /^USER 65532:65532$/m);
    assert.match(last, /^ENTRYPOINT \["\/usr\/local\/bin\/gpu-admission", "serve"\]$/m);
    assert.match(dockerfile, /strip --strip-all/);
    assert.match(dockerfile, /^FROM debian:12 AS build$/m);
  });

  test("a library the runtime stage lacks is reported (deliberate breakage)", () => {
    const libs = linkedLibraries(binary);
    const without = runtimePackages(dockerfile.replace(/libyaml-cpp\S*/g, ""));
    const problems = missingPackages(libs, without);
    assert.ok(problems.some((p) => p.includes("libyaml-cpp")), problems.join("\n"));
  });
});
