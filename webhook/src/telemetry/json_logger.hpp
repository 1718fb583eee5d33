// A JSON-lines logger: one object per line, {"time":...,"level":...,"msg":...,<fields>}.
// Fields are typed (strings, integers, doubles, booleans, string lists) and escaped properly, so
// any input yields one valid JSON line. The logger writes what it is given: callers must never
// pass pod environment values, secrets or whole objects (the server logs names, the uid and the
// decision, not the pod).
#pragma once

#include <chrono>
#include <concepts>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "telemetry/async_line_writer.hpp"
#include "telemetry/log_level.hpp"

namespace gpua::telemetry {

class Counter;

// Bounds of one field: a longer string value is cut (at a UTF-8 character boundary) and ends
// "...(N bytes)"; a longer list ends with "...(N items)".
inline constexpr std::size_t kMaxLogValueBytes = 4096;
inline constexpr std::size_t kMaxLogListItems = 64;

// A field's key: a literal of printable ASCII without quotes or backslashes, checked when the
// program compiles (a key that would need escaping does not compile), so a line writes its keys
// as they are.
class LogKey {
 public:
  consteval LogKey(const char* key) : key_(key) {  // NOLINT: implicit from a literal
    for (const char c : key_)
      if (c < 0x20 || c > 0x7e || c == '"' || c == '\\') throw "a log key must be plain ASCII";
  }
  std::string_view view() const { return key_; }

 private:
  std::string_view key_;
};

// One key/value of a log line. Views only: a field lives for the duration of the log() call.
class LogField {
 public:
  LogField(LogKey key, std::string_view v) : key_(key), value_(v) {}
  LogField(LogKey key, const char* v) : key_(key), value_(std::string_view(v)) {}
  LogField(LogKey key, const std::string& v) : key_(key), value_(std::string_view(v)) {}
  // A temporary string would dangle in a field list kept beyond one expression: pass a named
  // string (or a string_view whose owner outlives the log call).
  LogField(LogKey key, std::string&& v) = delete;
  LogField(LogKey key, bool v) : key_(key), value_(v) {}
  LogField(LogKey key, double v) : key_(key), value_(v) {}
  template <std::signed_integral T>
  requires(!std::same_as<T, bool>) LogField(LogKey key, T v)
      : key_(key), value_(static_cast<int64_t>(v)) {}
  template <std::unsigned_integral T>
  requires(!std::same_as<T, bool>) LogField(LogKey key, T v)
      : key_(key), value_(static_cast<uint64_t>(v)) {}
  LogField(LogKey key, const std::vector<std::string>& v)
      : key_(key), value_(std::span<const std::string>(v)) {}
  LogField(LogKey key, std::vector<std::string>&& v) = delete;  // would dangle
  LogField(LogKey key, std::span<const std::string> v) : key_(key), value_(v) {}
  LogField(LogKey key, std::nullptr_t) : key_(key), value_(std::monostate{}) {}

  // Appends `,"key":value`.
  void appendTo(std::string& out) const;

  // The room `,"key":value` takes when it can be written without escaping or cutting anything
  // (every string in it plain and within the bounds); 0 when it cannot. A number is given the
  // room of its longest form.
  std::size_t plainRoom() const;
  // Writes `,"key":value` at w, which has plainRoom() bytes (not 0); returns the end.
  char* writePlain(char* w) const;

 private:
  LogKey key_;
  std::variant<std::monostate, std::string_view, bool, double, int64_t, uint64_t,
               std::span<const std::string>>
      value_;
};

// How the logger hands lines to the file. The default writes and flushes every line on the
// calling thread (a crash loses nothing, a reader sees a line as soon as log() returns: the
// CLI and tests). Asynchronous (`queueBytes` > 0): lines go through an AsyncLineWriter, so
// logging never waits for the file, a full queue drops and counts lines, and the queue is
// written on a timer, at once for warnings and errors, on flush() and on destruction.
struct LogBuffering {
  std::size_t queueBytes = 0;  // 0: write and flush each line on the calling thread
  std::size_t wakeBytes = std::size_t{64} << 10;
  std::chrono::milliseconds interval{100};
  Counter* dropped = nullptr;  // gpu_admission_log_lines_dropped_total (may be null)
};

class JsonLogger {
 public:
  explicit JsonLogger(std::FILE* out = stdout, LogLevel minLevel = LogLevel::Info,
                      LogBuffering buffering = {});
  ~JsonLogger();
  JsonLogger(const JsonLogger&) = delete;
  JsonLogger& operator=(const JsonLogger&) = delete;

  bool enabled(LogLevel level) const { return level >= minLevel_; }

  // Formats into a per-thread buffer (no allocation once warm), then hands the whole line on
  // under a lock: lines from several threads never interleave.
  void log(LogLevel level, std::string_view message, std::initializer_list<LogField> fields = {});
  void debug(std::string_view m, std::initializer_list<LogField> f = {}) {
    log(LogLevel::Debug, m, f);
  }
  void info(std::string_view m, std::initializer_list<LogField> f = {}) {
    log(LogLevel::Info, m, f);
  }
  void warn(std::string_view m, std::initializer_list<LogField> f = {}) {
    log(LogLevel::Warn, m, f);
  }
  void error(std::string_view m, std::initializer_list<LogField> f = {}) {
    log(LogLevel::Error, m, f);
  }

  // Writes queued lines and flushes the file (a no-op when nothing is pending).
  void flush();

  // Lines dropped because the queue was full (always 0 when not asynchronous).
  uint64_t droppedLines() const { return writer_ ? writer_->dropped() : 0; }

  // The line log() writes, newline included (public for tests and for callers that batch).
  static std::string formatLine(std::chrono::system_clock::time_point time, LogLevel level,
                                std::string_view message, std::span<const LogField> fields);
  // The same line, appended to `out`.
  static void appendLine(std::string& out, std::chrono::system_clock::time_point time,
                         LogLevel level, std::string_view message,
                         std::span<const LogField> fields);

 private:
  std::FILE* out_;
  LogLevel minLevel_;
  std::mutex mutex_;                         // synchronous mode: one line at a time
  std::unique_ptr<AsyncLineWriter> writer_;  // asynchronous mode
};

}  // namespace gpua::telemetry
