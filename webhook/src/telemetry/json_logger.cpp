#include "telemetry/json_logger.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstring>

#include "telemetry/json_text.hpp"

namespace gpua::telemetry {

namespace {

// Grows `out` by n bytes and returns where they start, for writing them in place.
char* appendRoom(std::string& out, std::size_t n) {
  const std::size_t at = out.size();
  out.resize(at + n);
  return out.data() + at;
}

template <class T>
void appendChars(std::string& out, T value) {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, res.ptr);
}

// A value longer than the limit is cut at a character boundary and says how long it was: a
// field can come from a request (a 3 MB uid was logged verbatim), and a line must stay a line.
void appendBoundedString(std::string& out, std::string_view s) {
  if (s.size() <= kMaxLogValueBytes) return appendJsonString(out, s);
  std::size_t cut = kMaxLogValueBytes;
  while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
  std::string shown(s.substr(0, cut));
  shown += "...(" + std::to_string(s.size()) + " bytes)";
  appendJsonString(out, shown);
}

struct ValueWriter {
  std::string& out;
  void operator()(std::monostate) const { out += "null"; }
  void operator()(std::string_view s) const { appendBoundedString(out, s); }
  void operator()(bool b) const { out += b ? "true" : "false"; }
  void operator()(double d) const {
    if (std::isfinite(d))
      appendChars(out, d);
    else
      out += "null";  // JSON has no NaN or infinity
  }
  void operator()(int64_t i) const { appendChars(out, i); }
  void operator()(uint64_t u) const { appendChars(out, u); }
  void operator()(std::span<const std::string> list) const {
    out.push_back('[');
    const std::size_t shown = std::min(list.size(), kMaxLogListItems);
    for (std::size_t i = 0; i < shown; ++i) {
      if (i > 0) out.push_back(',');
      appendBoundedString(out, list[i]);
    }
    if (shown < list.size()) {
      out += ",";
      appendJsonString(out, "...(" + std::to_string(list.size()) + " items)");
    }
    out.push_back(']');
  }
};

// The room a number is given on the plain path: std::to_chars writes at most 20 characters
// for a 64-bit integer ("-9223372036854775808") and 24 for a double's shortest round-trip form
// ("-2.2250738585072014e-308").
constexpr std::size_t kNumberRoom = 32;

// What appendBoundedString writes as it is, between quotes.
bool plainValue(std::string_view s) {
  return s.size() <= kMaxLogValueBytes && isPlainJsonText(s);
}

char* put(char* w, std::string_view s) {
  if (!s.empty()) std::memcpy(w, s.data(), s.size());  // an empty view's data() may be null
  return w + s.size();
}

char* putQuoted(char* w, std::string_view s) {
  *w++ = '"';
  w = put(w, s);
  *w++ = '"';
  return w;
}

// A value's room on the plain path (0: it needs the escaping path), as ValueWriter writes it.
struct PlainRoom {
  std::size_t operator()(std::monostate) const { return 4; }
  std::size_t operator()(std::string_view s) const { return plainValue(s) ? s.size() + 2 : 0; }
  std::size_t operator()(bool) const { return 5; }
  std::size_t operator()(double) const { return kNumberRoom; }
  std::size_t operator()(int64_t) const { return kNumberRoom; }
  std::size_t operator()(uint64_t) const { return kNumberRoom; }
  std::size_t operator()(std::span<const std::string> list) const {
    if (list.size() > kMaxLogListItems) return 0;  // says "...(N items)": the escaping path
    std::size_t room = 2 + list.size();            // brackets and commas
    for (const auto& s : list) {
      if (!plainValue(s)) return 0;
      room += s.size() + 2;
    }
    return room;
  }
};

// ValueWriter's bytes for a value PlainRoom gave room, written through a pointer.
struct PlainWriter {
  char* w;
  char* operator()(std::monostate) const { return put(w, "null"); }
  char* operator()(std::string_view s) const { return putQuoted(w, s); }
  char* operator()(bool b) const { return put(w, b ? "true" : "false"); }
  char* operator()(double d) const {
    if (!std::isfinite(d)) return put(w, "null");
    return std::to_chars(w, w + kNumberRoom, d).ptr;
  }
  char* operator()(int64_t i) const { return std::to_chars(w, w + kNumberRoom, i).ptr; }
  char* operator()(uint64_t u) const { return std::to_chars(w, w + kNumberRoom, u).ptr; }
  char* operator()(std::span<const std::string> list) const {
    char* p = w;
    *p++ = '[';
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (i > 0) *p++ = ',';
      p = putQuoted(p, list[i]);
    }
    *p++ = ']';
    return p;
  }
};

// The line after `"msg":` in one piece when nothing in it needs escaping or cutting (a
// decision's line, nearly always): its room is taken once and filled through a pointer, not
// appended value by value. False (and `out` untouched) when something does.
bool appendPlainRest(std::string& out, std::string_view message, std::span<const LogField> fields) {
  if (!isPlainJsonText(message)) return false;
  std::size_t room = message.size() + 2 + 2;  // quoted, then "}\n"
  for (const auto& f : fields) {
    const std::size_t n = f.plainRoom();
    if (n == 0) return false;
    room += n;
  }
  const std::size_t at = out.size();
  out.resize(at + room);
  char* w = putQuoted(out.data() + at, message);
  for (const auto& f : fields) w = f.writePlain(w);
  *w++ = '}';
  *w++ = '\n';
  out.resize(static_cast<std::size_t>(w - out.data()));
  return true;
}

}  // namespace

std::size_t LogField::plainRoom() const {
  const std::size_t value = std::visit(PlainRoom{}, value_);
  return value == 0 ? 0 : key_.view().size() + 4 + value;
}

char* LogField::writePlain(char* w) const {
  *w++ = ',';
  w = putQuoted(w, key_.view());
  *w++ = ':';
  return std::visit(PlainWriter{w}, value_);
}

void LogField::appendTo(std::string& out) const {
  // The key needs no escaping (LogKey checked it when the program compiled).
  const std::string_view key = key_.view();
  char* w = appendRoom(out, key.size() + 4);
  *w++ = ',';
  *w++ = '"';
  std::memcpy(w, key.data(), key.size());
  w += key.size();
  *w++ = '"';
  *w = ':';
  std::visit(ValueWriter{out}, value_);
}

void JsonLogger::appendLine(std::string& out, std::chrono::system_clock::time_point time,
                            LogLevel level, std::string_view message,
                            std::span<const LogField> fields) {
  out += "{\"time\":\"";
  appendRfc3339Micros(out, time);
  out += "\",\"level\":\"";
  out += logLevelName(level);
  out += "\",\"msg\":";
  if (appendPlainRest(out, message, fields)) return;
  appendJsonString(out, message);
  for (const auto& f : fields) f.appendTo(out);
  out += "}\n";
}

std::string JsonLogger::formatLine(std::chrono::system_clock::time_point time, LogLevel level,
                                   std::string_view message, std::span<const LogField> fields) {
  std::string line;
  line.reserve(128 + message.size() + fields.size() * 32);
  appendLine(line, time, level, message, fields);
  return line;
}

JsonLogger::JsonLogger(std::FILE* out, LogLevel minLevel, LogBuffering buffering)
    : out_(out), minLevel_(minLevel) {
  if (buffering.queueBytes == 0 || out_ == nullptr) return;
  AsyncWriterOptions options{
      buffering.queueBytes, buffering.wakeBytes, buffering.interval, buffering.dropped, {}};
  // Said in the log itself, so a reader of the log knows it has gaps and how large.
  options.dropNotice = [](uint64_t n) {
    const LogField fields[] = {{"dropped", n}};
    return formatLine(std::chrono::system_clock::now(), LogLevel::Warn,
                      "log lines dropped: the log queue was full", fields);
  };
  writer_ = std::make_unique<AsyncLineWriter>(out_, std::move(options));
}

JsonLogger::~JsonLogger() {
  writer_.reset();  // writes every queued line
  flush();
}

void JsonLogger::log(LogLevel level, std::string_view message,
                     std::initializer_list<LogField> fields) {
  if (!enabled(level) || out_ == nullptr) return;
  thread_local std::string line;  // keeps its capacity: no allocation per line once warm
  line.clear();
  appendLine(line, std::chrono::system_clock::now(), level, message,
             std::span<const LogField>(fields.begin(), fields.size()));
  if (writer_) {
    // Warnings and errors are rare and are what an operator looks for: written at once.
    writer_->push(line, level >= LogLevel::Warn);
    return;
  }
  std::lock_guard lock(mutex_);
  std::fwrite(line.data(), 1, line.size(), out_);
  std::fflush(out_);  // a crash must not eat the last lines; stdout to a pipe is block-buffered
}

void JsonLogger::flush() {
  if (out_ == nullptr) return;
  if (writer_) return writer_->flush();
  std::lock_guard lock(mutex_);
  std::fflush(out_);
}

}  // namespace gpua::telemetry
