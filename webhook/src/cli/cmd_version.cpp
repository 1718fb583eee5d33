// gpu-admission version: the build's version and source revision, the same values the server
// exports as gpu_admission_build_info{version,revision}, so a binary, an image and a running
// replica can be matched to a commit.
#include <cstdio>
#include <string_view>

#include "cli/command_registry.hpp"
#include "telemetry/build_info.hpp"

namespace gpua::cli {

namespace {

int runVersion(int argc, char** argv) {
  const std::string_view arg = argc > 1 ? argv[1] : "";
  if (arg == "--help" || arg == "-h") {
    std::printf(
        "usage: gpu-admission version\n\n"
        "Prints \"gpu-admission <version> (revision <git revision>)\". The revision is the\n"
        "commit the binary was built from (\"-dirty\" with local changes, \"unknown\" when\n"
        "built without git and without -DGPUA_REVISION).\n");
    return 0;
  }
  if (argc > 1) {
    std::fprintf(stderr, "gpu-admission version: unexpected argument '%s'\n", argv[1]);
    return 2;
  }
  std::printf("gpu-admission %.*s (revision %.*s)\n",
              static_cast<int>(telemetry::kBuildVersion.size()), telemetry::kBuildVersion.data(),
              static_cast<int>(telemetry::kBuildRevision.size()), telemetry::kBuildRevision.data());
  return 0;
}

const CommandRegistrar kVersion{{"version", "print the version and source revision", &runVersion}};

}  // namespace
}  // namespace gpua::cli
