// A JSON value written out with everything a reader decides about it: member order, duplicate
// keys, string bytes (NULs included) and each number's RapidJSON type (Int, Uint, Int64, Uint64,
// Double). Two readers agree on a text when their documents' dumps are equal. Used by the
// scanner's unit tests and its fuzz oracle (fuzz/fuzz_review_reader.cpp).
#pragma once

#include <rapidjson/document.h>

#include <cstdio>
#include <string>

namespace gpua::testing {

inline void typedDumpTo(const rapidjson::Value& v, std::string& out) {
  char number[64];
  switch (v.GetType()) {
    case rapidjson::kNullType:
      out += 'n';
      return;
    case rapidjson::kFalseType:
      out += 'f';
      return;
    case rapidjson::kTrueType:
      out += 't';
      return;
    case rapidjson::kStringType:
      out += 's' + std::to_string(v.GetStringLength()) + ':';
      out.append(v.GetString(), v.GetStringLength());
      return;
    case rapidjson::kNumberType:
      if (v.IsDouble()) {
        std::snprintf(number, sizeof number, "d%.17g", v.GetDouble());
      } else {
        std::snprintf(number, sizeof number, "i%d%d%d%d:%s", v.IsInt(), v.IsUint(), v.IsInt64(),
                      v.IsUint64(),
                      v.IsUint64() ? std::to_string(v.GetUint64()).c_str()
                                   : std::to_string(v.GetInt64()).c_str());
      }
      out += number;
      return;
    case rapidjson::kObjectType:
      out += '{';
      for (auto m = v.MemberBegin(); m != v.MemberEnd(); ++m) {
        typedDumpTo(m->name, out);
        typedDumpTo(m->value, out);
      }
      out += '}';
      return;
    case rapidjson::kArrayType:
      out += '[';
      for (const auto& e : v.GetArray()) typedDumpTo(e, out);
      out += ']';
      return;
  }
}

inline std::string typedDump(const rapidjson::Value& v) {
  std::string out;
  typedDumpTo(v, out);
  return out;
}

}  // namespace gpua::testing
