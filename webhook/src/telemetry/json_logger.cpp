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
    : out_(out), minLevel_(minLevel), buffering_(buffering) {
  if (buffering_.maxBytes > 0 && out_ != nullptr) {
    pending_.reserve(buffering_.maxBytes + 4096);
    flusher_ = std::thread([this] { flushLoop(); });
  }
}

JsonLogger::~JsonLogger() {
  if (flusher_.joinable()) {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    wake_.notify_all();
    flusher_.join();
  }
  flush();  // never lose buffered lines on a normal exit
}

void JsonLogger::log(LogLevel level, std::string_view message,
                     std::initializer_list<LogField> fields) {
  if (!enabled(level) || out_ == nullptr) return;
  thread_local std::string line;  // keeps its capacity: no allocation per line once warm
  line.clear();
  appendLine(line, std::chrono::system_clock::now(), level, message,
             std::span<const LogField>(fields.begin(), fields.size()));
  std::lock_guard lock(mutex_);
  if (buffering_.maxBytes == 0) {
    writeLocked(line);  // a crash must not eat the last lines; stdout to a pipe is block-buffered
    return;
  }
  pending_ += line;
  // Warnings and errors are rare and are what an operator looks for after a crash.
  if (pending_.size() >= buffering_.maxBytes || level >= LogLevel::Warn) {
    writeLocked(pending_);
    pending_.clear();
  }
}

void JsonLogger::flush() {
  if (out_ == nullptr) return;
  std::lock_guard lock(mutex_);
  if (pending_.empty()) return;
  writeLocked(pending_);
  pending_.clear();
}

void JsonLogger::writeLocked(std::string_view data) {
  std::fwrite(data.data(), 1, data.size(), out_);
  std::fflush(out_);
}

void JsonLogger::flushLoop() {
  std::unique_lock lock(mutex_);
  while (!stop_) {
    wake_.wait_for(lock, buffering_.interval);
    if (!pending_.empty()) {
      writeLocked(pending_);
      pending_.clear();
    }
  }
}

}  // namespace gpua::telemetry
