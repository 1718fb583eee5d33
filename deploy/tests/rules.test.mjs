// The PrometheusRule: promtool check rules, promtool test rules (alerts.test.yaml), and the
// conventions on-call relies on: every alert has a `for:`, a severity and a runbook link to an
// existing section of docs/runbook.md, and is both fired and kept silent by a unit test. The
// last tests break a rule on purpose and require the checks to fail.
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";
import { describe, test } from "node:test";
import { repoRoot, YAML } from "./lib/env.mjs";

const ruleFile = path.join(repoRoot, "deploy/components/monitoring/prometheusrule.yaml");
const testFile = path.join(repoRoot, "deploy/tests/alerts.test.yaml");
const runbook = path.join(repoRoot, "docs/runbook.md");
const work = path.join(repoRoot, "build/deploy-checks");

const loadGroups = () => YAML.parse(fs.readFileSync(ruleFile, "utf8")).spec.groups;

// promtool reads plain rule files: write the PrometheusRule's groups (and the test file next to
// them, since rule_files are relative to it) into a scratch directory.
function promtool(groups, testText, dir) {
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, "gpu-admission.rules.yaml"), YAML.stringify({ groups }));
  fs.writeFileSync(path.join(dir, "alerts.test.yaml"), testText);
  const run = (...args) => spawnSync("promtool", args, { cwd: dir, encoding: "utf8" });
  return { check: run("check", "rules", "gpu-admission.rules.yaml"), test: run("test", "rules", "alerts.test.yaml") };
}

// GitHub's heading anchors: lower case, punctuation dropped, spaces to dashes.
export function anchors(markdown) {
  return new Set(
    [...markdown.matchAll(/^#{1,6}\s+(.+)$/gm)].map((m) =>
      m[1].trim().toLowerCase().replace(/[^\w\- ]/g, "").replace(/ /g, "-")));
}

export function conventionProblems(groups, testText, runbookText) {
  const problems = [];
  const sections = anchors(runbookText);
  const tests = YAML.parse(testText).tests ?? [];
  const expectations = tests.flatMap((t) => t.alert_rule_test ?? []);
  for (const rule of groups.flatMap((g) => g.rules).filter((r) => r.alert)) {
    const a = rule.alert;
    if (!rule.for) problems.push(`${a}: no for:`);
    if (!["critical", "warning", "info"].includes(rule.labels?.severity)) problems.push(`${a}: severity must be critical, warning or info`);
    const url = rule.annotations?.runbook_url ?? "";
    const m = url.match(/\/docs\/runbook\.md#([\w-]+)$/);
    if (!m) problems.push(`${a}: runbook_url must link a section of docs/runbook.md`);
    else if (!sections.has(m[1])) problems.push(`${a}: docs/runbook.md has no section #${m[1]}`);
    const mine = expectations.filter((e) => e.alertname === a);
    if (!mine.some((e) => (e.exp_alerts ?? []).length > 0)) problems.push(`${a}: no unit test fires it`);
    if (!mine.some((e) => (e.exp_alerts ?? []).length === 0)) problems.push(`${a}: no unit test keeps it silent`);
  }
  return problems;
}

describe("alert rules", () => {
  const groups = loadGroups();
  const testText = fs.readFileSync(testFile, "utf8");

  test("promtool check rules and promtool test rules pass", () => {
    const { check, test } = promtool(groups, testText, path.join(work, "rules"));
    assert.equal(check.status, 0, check.stdout + check.stderr);
    assert.equal(test.status, 0, test.stdout + test.stderr);
    assert.match(test.stdout, /SUCCESS/);
  });

  test("every alert has for:, a severity, a runbook section, and a firing and a silent unit test", () => {
    assert.deepEqual(conventionProblems(groups, testText, fs.readFileSync(runbook, "utf8")), []);
  });
});

describe("the rule checks fail on deliberate breakage", () => {
  const testText = fs.readFileSync(testFile, "utf8");

  test("a rule with a PromQL syntax error fails promtool check rules", () => {
    const groups = loadGroups();
    groups[0].rules[0].expr = "absent(up{job=\"gpu-admission\"} == )";
    const { check } = promtool(groups, testText, path.join(work, "broken-syntax"));
    assert.notEqual(check.status, 0);
  });

  test("a rule whose threshold no longer fires on its failure fails promtool test rules", () => {
    const groups = loadGroups();
    const rule = groups.flatMap((g) => g.rules).find((r) => r.alert === "GpuAdmissionPolicyReloadFailing");
    rule.expr = "gpu_admission_policy_last_reload_success == 2";
    const { check, test } = promtool(groups, testText, path.join(work, "broken-threshold"));
    assert.equal(check.status, 0, check.stderr);
    assert.notEqual(test.status, 0);
    assert.match(test.stdout + test.stderr, /GpuAdmissionPolicyReloadFailing/);
  });

  test("an alert without for:, severity, runbook section or tests breaks the conventions", () => {
    const groups = loadGroups();
    groups[0].rules.push({ alert: "GpuAdmissionNew", expr: "vector(1)", annotations: { runbook_url: "https://x/docs/runbook.md#nope" } });
    const problems = conventionProblems(groups, testText, fs.readFileSync(runbook, "utf8"));
    for (const want of ["no for:", "severity", "no section #nope", "no unit test fires it", "no unit test keeps it silent"])
      assert.ok(problems.some((p) => p.startsWith("GpuAdmissionNew") && p.includes(want)), `${want}: ${problems.join("\n")}`);
  });
});
