// Whole-policy checks for CPU pools, placement style and priority tiers, run by
// resolveDraft() after the core cross-references.
#pragma once

#include "policy/draft.hpp"

namespace gpua::policy {

void resolvePlacementAndTiers(Draft& draft, Diagnostics& errors);

}  // namespace gpua::policy
