// Findings that do not refuse a policy but say that part of it does nothing the author may think
// it does: `gpu-admission lint` prints them as warnings (the policy still loads and serves).
#pragma once

#include "policy/draft.hpp"
#include "policy/yaml_reader.hpp"

namespace gpua::policy {

// Effects in require mode on a class whose pods (or some of them) require mode never judges:
// require judges GPU pods, so a class's pods without GPUs that it places (gpus.request:
// forbidden, or cpuPools) get their placement, tolerations, priority and runtime class written.
void warnUnjudgedRequireEffects(const Draft& draft, Diagnostics& warnings);

}  // namespace gpua::policy
