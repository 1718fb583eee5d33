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
};

int writeFiles(const native::NativeOutput& out, const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) {
    std::fprintf(stderr, "gpu-admission compile: cannot create %s: %s\n", dir.c_str(),
                 ec.message().c_str());
    return 1;
  }
  for (const auto& [name, text] : out.files) {
    const std::string path = (std::filesystem::path(dir) / name).string();
    std::ofstream f(path, std::ios::binary | std::ios::trunc);
    f << text;
    if (!f) {
      std::fprintf(stderr, "gpu-admission compile: cannot write %s\n", path.c_str());
      return 1;
    }
  }
  std::fprintf(stderr, "%zu manifests written to %s\n", out.files.size(), dir.c_str());
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
  const native::NativeOutput out = native::compileNative(*loaded.policy);
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
  if (!o.outputDir.empty()) return writeFiles(out, o.outputDir);
  for (const auto& [name, text] : out.files) std::fwrite(text.data(), 1, text.size(), stdout);
  return 0;
}

int runCompile(int argc, char** argv) {
  CommandLine cl("compile",
                 "usage: gpu-admission compile --to native [--policies PATH]... [-o DIR]\n"
                 "       gpu-admission compile --to native --explain [--policies PATH]...",
                 "Compiles the policy's per-object rules into ValidatingAdmissionPolicies and\n"
                 "their bindings (one per rollout mode: Deny, Warn, Audit), which the apiserver\n"
                 "evaluates itself, so that they hold while the webhook is down.\n",
                 "--explain lists every rule as compiled or not, with why. Without -o the\n"
                 "manifests go to stdout as one YAML stream. See docs/native-backstop.md.\n"
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
  return cl.run(argc, argv, [&o] { return compile(o); });
}

const CommandRegistrar kCompile{
    {"compile", "compile the policy into native admission policies (CEL)", &runCompile}};

}  // namespace
}  // namespace gpua::cli
