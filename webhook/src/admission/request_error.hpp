// Why an AdmissionReview request could not be answered: a stable id for metrics and a one-line
// message for the caller (and the log).
#pragma once

#include <string>

namespace gpua::admission {

struct RequestError {
  std::string kind;     // "invalid-json", "too-deep", "missing-uid"...
  std::string message;  // one line, names the problem
};

}  // namespace gpua::admission
