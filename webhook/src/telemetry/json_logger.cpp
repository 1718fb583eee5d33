#include "telemetry/json_logger.hpp"

#include <charconv>
#include <cmath>

#include "telemetry/json_text.hpp"

namespace gpua::telemetry {

const char* logLevelName(LogLevel level) {
  switch (level) {
    case LogLevel::Debug:
      return "debug";
    case LogLevel::Info:
      return "info";
    case LogLevel::Warn:
      return "warn";
    case LogLevel::Error:
      return "error";
  }
  return "info";
}

namespace {

template <class T>
void appendChars(std::string& out, T value) {
  char buf[32];
  const auto res = std::to_chars(buf, buf + sizeof buf, value);
  out.append(buf, res.ptr);
}

struct ValueWriter {
  std::string& out;
  void operator()(std::monostate) const { out += "null"; }
  void operator()(std::string_view s) const { appendJsonString(out, s); }
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
    for (std::size_t i = 0; i < list.size(); ++i) {
      if (i > 0) out.push_back(',');
      appendJsonString(out, list[i]);
    }
    out.push_back(']');
  }
};

}  // namespace

void LogField::appendTo(std::string& out) const {
  out.push_back(',');
  appendJsonString(out, key_);
  out.push_back(':');
  std::visit(ValueWriter{out}, value_);
}

std::string JsonLogger::formatLine(std::chrono::system_clock::time_point time, LogLevel level,
                                   std::string_view message, std::span<const LogField> fields) {
  std::string line;
  line.reserve(128 + message.size() + fields.size() * 32);
  line += "{\"time\":\"";
  line += formatRfc3339Micros(time);
  line += "\",\"level\":\"";
  line += logLevelName(level);
  line += "\",\"msg\":";
  appendJsonString(line, message);
  for (const auto& f : fields) f.appendTo(line);
  line += "}\n";
  return line;
}

void JsonLogger::log(LogLevel level, std::string_view message,
                     std::initializer_list<LogField> fields) {
  if (!enabled(level) || out_ == nullptr) return;
  const std::string line = formatLine(std::chrono::system_clock::now(), level, message,
                                      std::span<const LogField>(fields.begin(), fields.size()));
  std::lock_guard lock(mutex_);
  std::fwrite(line.data(), 1, line.size(), out_);
  std::fflush(out_);  // a crash must not eat the last lines; stdout to a pipe is block-buffered
}

}  // namespace gpua::telemetry
