// gpu-admission version: the build's version and source revision, the same values the server
// exports as gpu_admission_build_info{version,revision}, so a binary, an image and a running
// replica can be matched to a commit.
#include <cstdio>

#include "cli/command_line.hpp"
#include "cli/command_registry.hpp"
#include "telemetry/build_info.hpp"

namespace gpua::cli {

namespace {

int printVersion() {
  std::printf("gpu-admission %.*s (revision %.*s)\n",
              static_cast<int>(telemetry::kBuildVersion.size()), telemetry::kBuildVersion.data(),
              static_cast<int>(telemetry::kBuildRevision.size()), telemetry::kBuildRevision.data());
  return 0;
}

int runVersion(int argc, char** argv) {
  CommandLine cl("version", "usage: gpu-admission version",
                 "Prints \"gpu-admission <version> (revision <git revision>)\". The revision is "
                 "the\ncommit the binary was built from (\"-dirty\" with local changes, "
                 "\"unknown\" when\nbuilt without git and without -DGPUA_REVISION).\n",
                 "");
  return cl.run(argc, argv, &printVersion);
}

const CommandRegistrar kVersion{{"version", "print the version and source revision", &runVersion}};

}  // namespace
}  // namespace gpua::cli
