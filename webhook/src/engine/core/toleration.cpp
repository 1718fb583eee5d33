#include "engine/core/toleration.hpp"

namespace gpua::engine {

bool toleratesTaint(const TolerationView& tol, const policy::Taint& taint) {
  if (!tol.effect.empty() && tol.effect != taint.effect) return false;
  if (tol.key.empty()) return tol.op == "Exists";
  if (tol.key != taint.key) return false;
  if (tol.op == "Exists") return true;
  return (tol.op.empty() || tol.op == "Equal") && tol.value == taint.value;
}

}  // namespace gpua::engine
