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

}  // namespace

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
