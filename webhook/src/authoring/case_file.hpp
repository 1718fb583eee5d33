// Reading a case file (policy-tests/*.yaml). A case file is parsed strictly: an unknown key is
// an error naming the case and the key, so a typo never turns an expectation into a silently
// skipped one.
#pragma once

#include <string>

#include "authoring/test_case.hpp"

namespace gpua::authoring {

// Throws InputError naming the file, the case and the problem.
CaseFile loadCaseFile(const std::string& path);

}  // namespace gpua::authoring
