// Applies an RFC 6902 patch (add/remove/replace) to a document with the strictness of the
// apiserver's evanphx/json-patch v4: `add` into a missing parent fails, `remove`/`replace` of a
// missing member fails, "-" appends to an array, ops apply in order. The CLI, the policy-test
// runner and the tests use it to prove that a patch the engine emits would apply.
#pragma once

#include <rapidjson/document.h>

#include <optional>
#include <string>

#include "engine/core/patch_op.hpp"

namespace gpua::engine {

// nullopt on success; otherwise a one-line error naming the failing op. On error, `doc` holds
// the ops applied before the failing one (callers treat the document as spoiled).
std::optional<std::string> applyPatch(rapidjson::Document& doc, const Patch& patch);

}  // namespace gpua::engine
