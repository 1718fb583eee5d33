// The one error type of the authoring library's inputs: a file that cannot be read or parsed, a
// case file that does not hold, a policy that does not load. Commands catch it at their edge and
// print what() as one line.
#pragma once

#include <stdexcept>

namespace gpua::authoring {

// what() names the file and, when known, line:column: "pod.yaml:3:7: illegal map value".
class InputError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace gpua::authoring
