#include "engine/core/patch_op.hpp"

#include "engine/core/json_util.hpp"

namespace gpua::engine {

std::string escapePointerToken(std::string_view token) {
  std::string out;
  out.reserve(token.size() + 4);
  appendPointerToken(out, token);
  return out;
}

void appendPointerToken(std::string& out, std::string_view token) {
  // Runs without '~' or '/' (nearly every token) go out in one append.
  std::size_t run = 0;
  for (std::size_t i = 0; i < token.size(); ++i) {
    if (token[i] != '~' && token[i] != '/') continue;
    out.append(token.substr(run, i - run)).append(token[i] == '~' ? "~0" : "~1");
    run = i + 1;
  }
  out.append(token.substr(run));
}

namespace {

const char* opName(PatchOp::Kind k) {
  switch (k) {
    case PatchOp::Kind::Add:
      return "add";
    case PatchOp::Kind::Remove:
      return "remove";
    case PatchOp::Kind::Replace:
      return "replace";
  }
  return "add";
}

}  // namespace

std::string serializePatch(const Patch& patch) {
  std::string out;
  appendPatch(out, patch);
  return out;
}

void appendPatch(std::string& out, const Patch& patch) {
  std::size_t size = out.size() + 2;
  for (const auto& op : patch) size += op.path.size() + op.valueJson.size() + 40;
  out.reserve(size);
  out += '[';
  bool first = true;
  for (const auto& op : patch) {
    if (!first) out += ',';
    first = false;
    out += "{\"op\":\"";
    out += opName(op.kind);
    out += "\",\"path\":";
    json::appendQuoted(out, op.path);
    if (op.kind != PatchOp::Kind::Remove) {
      out += ",\"value\":";
      // An empty value would make the array invalid JSON; null is the honest stand-in.
      out += op.valueJson.empty() ? std::string_view("null") : std::string_view(op.valueJson);
    }
    out += '}';
  }
  out += ']';
}

}  // namespace gpua::engine
