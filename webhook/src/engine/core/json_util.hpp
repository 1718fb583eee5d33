// The engine's JSON vocabulary: kube's tolerant readers (a wrong type reads as absent), plus the
// writer used to serialize patch values.
#pragma once

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <cstring>
#include <string>
#include <string_view>

#include "kube/json.hpp"
#include "kube/json_special.hpp"

namespace gpua::engine::json {

using Value = rapidjson::Value;
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

// The readers are kube's (kube/json.hpp), shared with the admission codec, the cluster decoders
// and the CLI.
using kube::json::arrayMember;
using kube::json::member;
using kube::json::objectMember;
using kube::json::stringMember;
using kube::json::view;

inline void writeString(Writer& w, std::string_view s) {
  w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
}

// A RapidJSON output stream that appends to a std::string, so values and string literals are
// written straight into the text being built (no intermediate StringBuffer and copy). The writer
// puts one character at a time, and std::string::push_back checks its capacity each time: the
// characters gather in a small buffer of the stream's own and reach `out` in one append when it
// fills and whenever the writer finishes a whole value (RapidJSON flushes then), so `out` holds
// the text whenever the writer is between values.
struct StringAppender {
  using Ch = char;
  static constexpr std::size_t kBytes = 256;

  explicit StringAppender(std::string& target) : out(target) {}

  std::string& out;
  char buffer[kBytes];
  std::size_t used = 0;
  bool checked = false;  // the reserved room exceeds the buffer: every put checks

  void Put(char c) {
    if (used == kBytes) Flush();
    buffer[used++] = c;
  }
  void Flush() {
    out.append(buffer, used);
    used = 0;
  }
};

// RapidJSON's writer reserves room for a token and then puts its characters unchecked; found by
// argument-dependent lookup, these make that true for StringAppender.
inline void PutReserve(StringAppender& s, std::size_t count) {
  if (s.used + count > StringAppender::kBytes) s.Flush();
  s.checked = count > StringAppender::kBytes;
}
inline void PutUnsafe(StringAppender& s, char c) {
  if (s.checked) return s.Put(c);
  s.buffer[s.used++] = c;
}

}  // namespace gpua::engine::json

// The engine's writer writes a string's plain runs (no '"', '\\' or control byte: exactly the
// bytes RapidJSON's escape table passes through) 16 bytes a step, in one copy, where RapidJSON's
// own loop tests and puts them one by one; the byte that needs escaping is left to its loop.
template <>
inline bool rapidjson::Writer<
    gpua::engine::json::StringAppender, rapidjson::UTF8<>, rapidjson::UTF8<>,
    rapidjson::MemoryPoolAllocator<>>::ScanWriteUnescapedString(rapidjson::StringStream& is,
                                                                size_t length) {
  const char* const begin = is.src_;
  const char* const end = is.head_ + length;
  const char* const stop = gpua::kube::findJsonSpecial(begin, end);
  const auto n = static_cast<std::size_t>(stop - begin);
  gpua::engine::json::StringAppender& out = *os_;
  if (out.checked) {  // WriteString reserved more than the buffer: straight to the text
    out.Flush();
    out.out.append(begin, n);
  } else {
    std::memcpy(out.buffer + out.used, begin, n);
    out.used += n;
  }
  is.src_ = stop;
  return stop < end;
}

namespace gpua::engine::json {

// Memory for a writer's nesting stack, on the C++ stack: RapidJSON's default allocates the stack
// on the heap for every writer that opens an object or array (16 bytes a level; deeper than the
// bytes here spills to the heap).
struct WriterStackMemory {
  static constexpr std::size_t kLevels = 16;
  alignas(16) char bytes[kLevels * 16 + 64];
  rapidjson::MemoryPoolAllocator<> allocator{bytes, sizeof bytes};
};

// The writer the engine builds JSON values with: appends to a std::string, its nesting stack in
// the object (no allocation of its own).
class AppendWriter : private WriterStackMemory,
                     public rapidjson::Writer<StringAppender, rapidjson::UTF8<>, rapidjson::UTF8<>,
                                              rapidjson::MemoryPoolAllocator<>> {
 public:
  explicit AppendWriter(std::string& out)
      : Writer(stream_, &allocator, WriterStackMemory::kLevels), stream_{out} {}
  ~AppendWriter() { stream_.Flush(); }  // what a value left unfinished has written so far
  AppendWriter(const AppendWriter&) = delete;
  AppendWriter& operator=(const AppendWriter&) = delete;

 private:
  StringAppender stream_;  // used by the writer only when something is written
};

// Serializes `v` as compact JSON text.
std::string serialize(const Value& v);

// A JSON string literal for `s`, quotes included.
std::string quoteString(std::string_view s);

// The same two, appended to `out` (byte-identical to the returning forms).
void appendSerialized(std::string& out, const Value& v);
void appendQuoted(std::string& out, std::string_view s);
// The inside of that literal, without the quotes: escaping is per character, so a literal can be
// written from parts ('"', appendEscaped(a), appendEscaped(b), '"') with no joined copy.
void appendEscaped(std::string& out, std::string_view s);

}  // namespace gpua::engine::json
