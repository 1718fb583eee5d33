// The Dockerfile's runtime stage installs a Debian package for every shared library the built
// binary links (ldd, then dpkg -S), so a new dependency cannot break the image unnoticed: this
// checks the Dockerfile against the binary built here, on the same Debian 12 as the image's
// build stage, with no image built. The image itself is built and run by make image-test
// (deploy/image/test).
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { binary, repoRoot } from "./lib/env.mjs";

// The stages of a Dockerfile, each the text from its FROM line on (without "FROM ").
export function stages(dockerfile) {
  return dockerfile.replace(/\\\n/g, " ").split(/^FROM\s/m).slice(1);
}

// The stage the two targets share (`FROM debian:12-slim AS runtime`).
export function runtimeStage(dockerfile) {
  const s = stages(dockerfile).find((t) => /^\S+\s+AS\s+runtime\s*$/m.test(t.split("\n")[0]));
  assert.ok(s, "the Dockerfile has no stage named runtime");
  return s;
}

// Packages named by `apt-get install` in the runtime stage.
export function runtimePackages(dockerfile) {
  const packages = new Set();
  for (const m of runtimeStage(dockerfile).matchAll(/apt-get\s+install\s+([^&;\n]*)/g))
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
    const runtime = runtimeStage(dockerfile);
    assert.match(runtime, /^debian:12-slim AS runtime$/m);
    assert.match(runtime, /^USER 65532:65532$/m);
    assert.match(runtime, /^ENTRYPOINT \["\/usr\/local\/bin\/gpu-admission", "serve"\]$/m);
    assert.match(dockerfile, /strip --strip-all/);
    assert.match(dockerfile, /^FROM debian:12 AS build$/m);
  });

  test("two targets on the runtime stage: the build stage's binary by default, a prebuilt one by --target", () => {
    const all = stages(dockerfile);
    // The default target is the last stage: what registries get.
    assert.equal(all.at(-1).trim(), "runtime\nCOPY --from=build /gpu-admission /usr/local/bin/gpu-admission");
    // deploy/image/build-local.sh builds --target prebuilt from a context of the stripped binary.
    const prebuilt = all.find((t) => t.startsWith("runtime AS prebuilt\n"));
    assert.ok(prebuilt, "no `FROM runtime AS prebuilt` stage");
    assert.match(prebuilt, /^COPY gpu-admission \/usr\/local\/bin\/gpu-admission$/m);
    assert.doesNotMatch(prebuilt, /--from=build/);
  });

  test("a library the runtime stage lacks is reported (deliberate breakage)", () => {
    const libs = linkedLibraries(binary);
    const without = runtimePackages(dockerfile.replace(/libyaml-cpp\S*/g, ""));
    const problems = missingPackages(libs, without);
    assert.ok(problems.some((p) => p.includes("libyaml-cpp")), problems.join("\n"));
  });
});
