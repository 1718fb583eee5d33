// The edge every policy author's command shares: parse the arguments, answer --help, run the
// command, and turn a bad command line or a bad input file into one line on stderr and exit 2.
#pragma once

#include <string_view>

#include "cli/support_args.hpp"

namespace gpua::cli {

int runParsedCommand(std::string_view name, const char* usage, Args& args, int argc, char** argv,
                     int (*body)(const Args&));

}  // namespace gpua::cli
