// A table of the JSON paths a reader keeps, and the SAX filter that builds a document holding
// only them. The parser still visits every byte (so errors, offsets and the depth limit are the
// full parse's), but nothing outside the table becomes a value: no arena space, no member
// lists for the engine's look-ups to walk past. A value whose type is not the one its table
// entry expects is kept whole, so a reader sees exactly what the full document would show it.
#pragma once

#include <rapidjson/document.h>

#include <cstddef>
#include <span>
#include <string_view>

namespace gpua::kube {

struct JsonField;

// What a reader keeps of one value.
struct JsonKeep {
  enum class Kind {
    All,       // the value and everything under it
    Fields,    // an object: only `fields` (any other type: kept whole)
    Elements,  // an array: every element, each kept as `element` says (any other type: whole)
    Choose,    // decided when the value starts, by the filter's chooser (see JsonFieldFilter)
  };
  Kind kind = Kind::All;
  std::span<const JsonField> fields = {};
  const JsonKeep* element = nullptr;
  // The string at this path is recorded for the chooser (the first one; `slot` < kSlots).
  int captureSlot = -1;
};

struct JsonField {
  std::string_view key;
  const JsonKeep* keep;
};

inline constexpr JsonKeep kKeepAll{};
inline constexpr JsonKeep kKeepChosen{JsonKeep::Kind::Choose};

// A table entry that keeps the string at this path and records it for the chooser.
constexpr JsonKeep captured(int slot) {
  return JsonKeep{JsonKeep::Kind::All, {}, nullptr, slot};
}

// What the filter saw at the capture slots before a Choose value started.
struct JsonCaptures {
  static constexpr std::size_t kSlots = 4;
  std::string_view value[kSlots] = {};
  unsigned seen[kSlots] = {};  // values met at the slot's path, strings or not
  bool isString[kSlots] = {};  // whether the first one was a string
};

// Returns the table for a Choose value from what was captured before it.
using JsonChooser = const JsonKeep& (*)(const JsonCaptures& captures);

// The keys of a Fields entry, looked up per member: tables are small, so a linear scan.
inline const JsonKeep* keepOf(const JsonKeep& entry, std::string_view key) {
  for (const JsonField& f : entry.fields)
    if (f.key == key) return f.keep;
  return nullptr;
}

}  // namespace gpua::kube
