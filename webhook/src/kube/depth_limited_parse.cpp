#include "kube/depth_limited_parse.hpp"

#include <rapidjson/encodedstream.h>
#include <rapidjson/memorystream.h>
#include <rapidjson/reader.h>

#include "kube/json_field_filter.hpp"
#include "kube/json_scanner.hpp"

namespace gpua::kube {

namespace {

using Ch = char;
using rapidjson::SizeType;

// Forwards SAX events to the document (or a filter in front of it) and stops the parse one level
// past the limit.
template <typename Handler>
class DepthLimiter {
 public:
  DepthLimiter(Handler& doc, std::size_t maxDepth) : doc_(doc), maxDepth_(maxDepth) {}

  bool Null() { return doc_.Null(); }
  bool Bool(bool b) { return doc_.Bool(b); }
  bool Int(int i) { return doc_.Int(i); }
  bool Uint(unsigned u) { return doc_.Uint(u); }
  bool Int64(int64_t i) { return doc_.Int64(i); }
  bool Uint64(uint64_t u) { return doc_.Uint64(u); }
  bool Double(double d) { return doc_.Double(d); }
  bool RawNumber(const Ch* s, SizeType n, bool copy) { return doc_.RawNumber(s, n, copy); }
  bool String(const Ch* s, SizeType n, bool copy) { return doc_.String(s, n, copy); }
  bool Key(const Ch* s, SizeType n, bool copy) { return doc_.Key(s, n, copy); }
  bool StartObject() { return descend() && doc_.StartObject(); }
  bool EndObject(SizeType members) { return ascend() && doc_.EndObject(members); }
  bool StartArray() { return descend() && doc_.StartArray(); }
  bool EndArray(SizeType elements) { return ascend() && doc_.EndArray(elements); }

  bool tooDeep() const { return tooDeep_; }

 private:
  bool descend() {
    if (++depth_ <= maxDepth_) return true;
    tooDeep_ = true;
    return false;
  }
  bool ascend() {
    --depth_;
    return true;
  }

  Handler& doc_;
  std::size_t maxDepth_;
  std::size_t depth_ = 0;
  bool tooDeep_ = false;
};

// Fills `doc` from `stream` through the limiter and `wrap(doc)`, the handler the limiter feeds
// (the document itself, or a filter in front of it); the stream decides in situ or copying.
template <unsigned kFlags, typename Stream, typename Wrap>
DepthLimitedParse parseLimited(Stream& stream, rapidjson::Document& doc, std::size_t maxDepth,
                               Wrap wrap) {
  DepthLimitedParse out;
  auto generate = [&](rapidjson::Document& target) {
    auto&& handler = wrap(target);
    DepthLimiter limiter(handler, maxDepth);
    // Given, not left to the reader: its stack would allocate an allocator object per parse.
    rapidjson::CrtAllocator stackAllocator;
    rapidjson::Reader reader(&stackAllocator);
    out.result = reader.Parse<kFlags>(stream, limiter);
    out.tooDeep = limiter.tooDeep();
    return !out.result.IsError();
  };
  doc.Populate(generate);
  return out;
}

rapidjson::Document& unfiltered(rapidjson::Document& doc) {
  return doc;
}

// The scanner's read of `text` into `doc` through `wrap(doc)`; false (the text as it was) when
// it refused, and RapidJSON's reader is to judge.
template <typename Wrap>
bool scanned(std::string& text, rapidjson::Document& doc, std::size_t maxDepth, Wrap wrap) {
  bool ok = false;
  auto decoded = [&doc](std::size_t bytes) {
    return static_cast<char*>(doc.GetAllocator().Malloc(bytes));
  };
  auto generate = [&](rapidjson::Document& target) {
    auto&& handler = wrap(target);
    char* begin = text.data();
    JsonScanner scanner(begin, begin + text.size(), handler, decoded, maxDepth);
    return ok = scanner.read();
  };
  doc.Populate(generate);
  return ok;
}

// Room for RapidJSON's SSE2 scanning, which reads aligned 16-byte blocks past the NUL.
void reserveSimdSlack(std::string& text) {
  constexpr std::size_t kSimdSlack = 32;
  if (text.capacity() < text.size() + kSimdSlack) text.reserve(text.size() + kSimdSlack);
}

JsonFieldFilter<rapidjson::Document> filterFor(rapidjson::Document& target, const JsonKeep& keep,
                                               JsonChooser chooser) {
  return JsonFieldFilter<rapidjson::Document>(target, keep, chooser);
}

}  // namespace

bool scanInSitu(std::string& text, rapidjson::Document& doc, std::size_t maxDepth) {
  return scanned(text, doc, maxDepth, unfiltered);
}

bool scanInSitu(std::string& text, rapidjson::Document& doc, const JsonKeep& keep,
                JsonChooser chooser, std::size_t maxDepth) {
  return scanned(text, doc, maxDepth,
                 [&](rapidjson::Document& target) { return filterFor(target, keep, chooser); });
}

DepthLimitedParse parseInSituWithDepthLimit(std::string& text, rapidjson::Document& doc,
                                            std::size_t maxDepth, InSituReader reader) {
  if (reader == InSituReader::Scanner && scanInSitu(text, doc, maxDepth)) return {};
  reserveSimdSlack(text);
  rapidjson::InsituStringStream stream(text.data());
  return parseLimited<rapidjson::kParseInsituFlag>(stream, doc, maxDepth, unfiltered);
}

DepthLimitedParse parseInSituWithDepthLimit(std::string& text, rapidjson::Document& doc,
                                            const JsonKeep& keep, JsonChooser chooser,
                                            std::size_t maxDepth, InSituReader reader) {
  if (reader == InSituReader::Scanner && scanInSitu(text, doc, keep, chooser, maxDepth)) return {};
  auto filter = [&](rapidjson::Document& target) { return filterFor(target, keep, chooser); };
  reserveSimdSlack(text);
  rapidjson::InsituStringStream stream(text.data());
  return parseLimited<rapidjson::kParseInsituFlag>(stream, doc, maxDepth, filter);
}

DepthLimitedParse parseWithDepthLimit(std::string_view text, rapidjson::Document& doc,
                                      std::size_t maxDepth) {
  // A memory stream stops at the length, so the reader never scans past the text (no SIMD
  // over-read, no padding needed).
  rapidjson::MemoryStream memory(text.data(), text.size());
  rapidjson::EncodedInputStream<rapidjson::UTF8<>, rapidjson::MemoryStream> stream(memory);
  return parseLimited<rapidjson::kParseDefaultFlags>(stream, doc, maxDepth, unfiltered);
}

}  // namespace gpua::kube
