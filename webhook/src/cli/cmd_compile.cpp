// gpu-admission compile --to native: writes the policy's per-object half as the apiserver's own
// admission objects (docs/native-backstop.md), or with --explain says rule by rule what is and
// is not compiled, and why.
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "cli/command_line.hpp"
#include "cli/command_registry.hpp"
#include "native/compile.hpp"
#include "policy/loader.hpp"

namespace gpua::cli {

namespace {

struct Options {
  std::vector<std::string> policies;
  std::string to;
  std::string outputDir;
  bool explain = false;
  bool staticManifests = false;
};

// The apiserver reads static manifests from the directories an AdmissionConfiguration names,
// by absolute path: written beside them, for --admission-control-config-file.
std::string admissionConfiguration(const std::filesystem::path& dir) {
  const std::string abs = std::filesystem::absolute(dir).lexically_normal().string();
  return "# For kube-apiserver --admission-control-config-file (docs/native-backstop.md).\n"
         "apiVersion: apiserver.config.k8s.io/v1\n"
         "kind: AdmissionConfiguration\n"
         "plugins:\n"
         "- name: ValidatingAdmissionPolicy\n"
         "  configuration:\n"
         "    apiVersion: apiserver.config.k8s.io/v1\n"
         "    kind: ValidatingAdmissionPolicyConfiguration\n"
         "    staticManifestsDir: \"" +
         abs + "/validating\"\n" +
         "- name: MutatingAdmissionPolicy\n"
         "  configuration:\n"
         "    apiVersion: apiserver.config.k8s.io/v1\n"
         "    kind: MutatingAdmissionPolicyConfiguration\n"
         "    staticManifestsDir: \"" +
         abs + "/mutating\"\n";
}

int writeFiles(std::vector<std::pair<std::string, std::string>> files, const std::string& dir) {
  for (const auto& [name, text] : files) {
    const std::filesystem::path file = std::filesystem::path(dir) / name;
    std::error_code ec;
    if (std::filesystem::create_directories(file.parent_path(), ec); ec) {
      std::fprintf(stderr, "gpu-admission compile: cannot create %s: %s\n",
                   file.parent_path().c_str(), ec.message().c_str());
      return 1;
    }
    const std::string path = file.string();
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f) {
      std::fprintf(stderr, "gpu-admission compile: cannot write %s\n", path.c_str());
      return 1;
    }
  }
  std::fprintf(stderr, "%zu manifests written to %s\n", files.size(), dir.c_str());
  return 0;
}

int compile(Options& o) {
  if (o.to != "native") throw UsageError("--to: the only target is 'native', not '" + o.to + "'");
  if (o.policies.empty()) o.policies.emplace_back("policies");
  const auto loaded = policy::loadPolicyPaths(o.policies);
  if (!loaded.ok()) {
    for (const auto& d : loaded.errors) std::fprintf(stderr, "%s\n", d.format().c_str());
    return 1;
  }
  if (o.staticManifests && (o.outputDir.empty() || o.explain))
    throw UsageError("--static writes two directories: it needs -o DIR (and no --explain)");
  const native::NativeOutput out = native::compileNative(
      *loaded.policy, o.staticManifests ? native::Form::Static : native::Form::Api);
  if (o.explain) {
    const std::string text = native::reportText(out, "");
    std::fwrite(text.data(), 1, text.size(), stdout);
    return 0;
  }
  if (out.files.empty()) {
    std::fprintf(stderr, "gpu-admission compile: nothing to compile:\n%s",
                 native::reportText(out, "  ").c_str());
    return 1;
  }
  if (o.staticManifests) {
    auto files = out.files;
    files.emplace_back("admission-configuration.yaml", admissionConfiguration(o.outputDir));
    return writeFiles(std::move(files), o.outputDir);
  }
  if (!o.outputDir.empty()) return writeFiles(out.files, o.outputDir);
  for (const auto& [name, text] : out.files) {
    std::fputs("---\n", stdout);  // one YAML document per object
    std::fwrite(text.data(), 1, text.size(), stdout);
  }
  return 0;
}

int runCompile(int argc, char** argv) {
  CommandLine cl("compile",
                 "usage: gpu-admission compile --to native [--policies PATH]... [-o DIR]\n"
                 "       gpu-admission compile --to native --static [--policies PATH]... -o DIR\n"
                 "       gpu-admission compile --to native --explain [--policies PATH]...",
                 "Compiles the policy's per-object rules into ValidatingAdmissionPolicies and\n"
                 "their bindings (one per rollout mode: Deny, Warn, Audit) and its per-pod\n"
                 "mutations into MutatingAdmissionPolicies, which the apiserver evaluates\n"
                 "itself, so that they hold while the webhook is down.\n",
                 "--explain lists every rule as compiled or not, with why. Without -o the\n"
                 "manifests go to stdout as one YAML stream. --static writes them as static\n"
                 "manifests (names ending .static.k8s.io) into DIR/validating and\n"
                 "DIR/mutating, with DIR/admission-configuration.yaml for the apiserver's\n"
                 "--admission-control-config-file. See docs/native-backstop.md.\n"
                 "Exit status: 0 written, 1 policy errors or nothing to compile, 2 bad usage.\n");
  Options o;
  CLI::App& app = cl.app();
  app.add_option("--policies", o.policies, "policy files or directories (default: policies)")
      ->type_name("PATH")
      ->allow_extra_args(false)
      ->multi_option_policy(CLI::MultiOptionPolicy::TakeAll);
  cl.require(app.add_option("--to", o.to, "the target: native")->type_name("TARGET"));
  app.add_option("-o,--output-dir", o.outputDir, "write one file per object into DIR")
      ->type_name("DIR");
  app.add_flag("--explain", o.explain, "list every rule as compiled or not, with why");
  app.add_flag("--static", o.staticManifests,
               "static manifests for the apiserver's staticManifestsDir (KEP-5793)");
  return cl.run(argc, argv, [&o] { return compile(o); });
}

const CommandRegistrar kCompile{
    {"compile", "compile the policy into native admission policies (CEL)", &runCompile}};

}  // namespace
}  // namespace gpua::cli
