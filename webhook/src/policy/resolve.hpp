// Checks and resolution that need the whole merged policy: duplicate names across files,
// references between sections, and each class's resolved GPU resource.
#pragma once

#include "policy/draft.hpp"

namespace gpua::policy {

// Fills the loader-resolved fields of draft.set; reports every problem into `errors`.
void resolveDraft(Draft& draft, Diagnostics& errors);

}  // namespace gpua::policy
