// The SAX handler between RapidJSON's reader and a document that forwards only the values a
// JsonKeep table keeps (kube/json_field_table.hpp). Dropped subtrees are counted, never built.
#pragma once

#include <rapidjson/document.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kube/depth_limited_parse.hpp"
#include "kube/json_field_table.hpp"

namespace gpua::kube {

template <typename Handler>
class JsonFieldFilter {
 public:
  using Ch = char;
  using SizeType = rapidjson::SizeType;

  JsonFieldFilter(Handler& out, const JsonKeep& root, JsonChooser chooser)
      : out_(out), root_(root), chooser_(chooser) {}

  bool Null() {
    return scalar(nullptr, [&] { return out_.Null(); });
  }
  bool Bool(bool b) {
    return scalar(nullptr, [&] { return out_.Bool(b); });
  }
  bool Int(int i) {
    return scalar(nullptr, [&] { return out_.Int(i); });
  }
  bool Uint(unsigned u) {
    return scalar(nullptr, [&] { return out_.Uint(u); });
  }
  bool Int64(int64_t i) {
    return scalar(nullptr, [&] { return out_.Int64(i); });
  }
  bool Uint64(uint64_t u) {
    return scalar(nullptr, [&] { return out_.Uint64(u); });
  }
  bool Double(double d) {
    return scalar(nullptr, [&] { return out_.Double(d); });
  }
  bool RawNumber(const Ch* s, SizeType n, bool copy) {
    return scalar(nullptr, [&] { return out_.RawNumber(s, n, copy); });
  }
  bool String(const Ch* s, SizeType n, bool copy) {
    const std::string_view text(s, n);
    return scalar(&text, [&] { return out_.String(s, n, copy); });
  }

  bool Key(const Ch* s, SizeType n, bool copy) {
    if (skip_ > 0) return true;
    if (pass_ > 0) return out_.Key(s, n, copy);
    Frame& f = frames_[top_ - 1];
    f.pending = keepOf(*f.entry, std::string_view(s, n));
    return f.pending == nullptr || out_.Key(s, n, copy);
  }

  // For a reader that can skip (kube/json_scanner.hpp): the value about to start is dropped, so
  // it need not be built, decoded or sent here at all.
  bool dropsNextValue() {
    if (skip_ > 0) return true;
    return pass_ == 0 && entryOfNextValue() == nullptr;
  }

  bool StartObject() {
    return start(JsonKeep::Kind::Fields, [&] { return out_.StartObject(); });
  }
  bool StartArray() {
    return start(JsonKeep::Kind::Elements, [&] { return out_.StartArray(); });
  }
  bool EndObject(SizeType members) {
    return end(members, [&](SizeType n) { return out_.EndObject(n); });
  }
  bool EndArray(SizeType elements) {
    return end(elements, [&](SizeType n) { return out_.EndArray(n); });
  }

 private:
  // An object or array whose members the table filters.
  struct Frame {
    const JsonKeep* entry = nullptr;
    const JsonKeep* pending = nullptr;  // the entry of the member whose key came last
    SizeType kept = 0;                  // members or elements forwarded
  };

  // The entry of the value about to start, Choose resolved; nullptr drops it.
  const JsonKeep* entryOfNextValue() {
    const JsonKeep* e = &root_;
    if (top_ > 0) {
      const Frame& f = frames_[top_ - 1];
      e = f.entry->kind == JsonKeep::Kind::Fields ? f.pending : f.entry->element;
    }
    if (e != nullptr && e->kind == JsonKeep::Kind::Choose) e = &chooser_(captures_);
    return e;
  }

  void capture(const JsonKeep& e, const std::string_view* text) {
    if (e.captureSlot < 0) return;
    const auto slot = static_cast<std::size_t>(e.captureSlot);
    if (captures_.seen[slot]++ > 0) return;
    captures_.isString[slot] = text != nullptr;
    if (text != nullptr) captures_.value[slot] = *text;
  }

  // Forwards a kept value and counts it as a member or element of the open container.
  template <typename Forward>
  bool keep(const JsonKeep& e, const std::string_view* text, Forward forward) {
    capture(e, text);
    if (top_ > 0) ++frames_[top_ - 1].kept;
    return forward();
  }

  template <typename Forward>
  bool scalar(const std::string_view* text, Forward forward) {
    if (skip_ > 0) return true;
    if (pass_ > 0) return forward();
    const JsonKeep* e = entryOfNextValue();
    return e == nullptr || keep(*e, text, forward);
  }

  template <typename Forward>
  bool start(JsonKeep::Kind filtered, Forward forward) {
    if (skip_ > 0) return ++skip_, true;
    if (pass_ > 0) return ++pass_, forward();
    const JsonKeep* e = entryOfNextValue();
    if (e == nullptr) return skip_ = 1, true;
    if (!keep(*e, nullptr, forward)) return false;
    // A type the entry does not filter, or no room for another frame, is kept whole.
    if (e->kind != filtered || top_ == frames_.size()) return ++pass_, true;
    frames_[top_++] = Frame{e};
    return true;
  }

  template <typename Forward>
  bool end(SizeType count, Forward forward) {
    if (skip_ > 0) return --skip_, true;
    if (pass_ > 0) return --pass_, forward(count);
    return forward(frames_[--top_].kept);
  }

  Handler& out_;
  const JsonKeep& root_;
  JsonChooser chooser_;
  JsonCaptures captures_;
  std::array<Frame, kMaxJsonDepth + 1> frames_{};
  std::size_t top_ = 0;
  std::size_t pass_ = 0;  // open containers inside a value kept whole
  std::size_t skip_ = 0;  // open containers inside a dropped value
};

}  // namespace gpua::kube
