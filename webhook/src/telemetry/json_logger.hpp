// A JSON-lines logger: one object per line, {"time":...,"level":...,"msg":...,<fields>}.
// Fields are typed (strings, integers, doubles, booleans, string lists) and escaped properly, so
// any input yields one valid JSON line. The logger writes what it is given: callers must never
// pass pod environment values, secrets or whole objects (the server logs names, the uid and the
// decision, not the pod).
#pragma once

#include <chrono>
#include <concepts>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <mutex>
#include <span>
#include <string>
#include <string_view>
#include <thread>
#include <variant>
#include <vector>

namespace gpua::telemetry {

enum class LogLevel { Debug, Info, Warn, Error };

const char* logLevelName(LogLevel level);

// One key/value of a log line. Views only: a field lives for the duration of the log() call.
class LogField {
 public:
  LogField(std::string_view key, std::string_view v) : key_(key), value_(v) {}
  LogField(std::string_view key, const char* v) : key_(key), value_(std::string_view(v)) {}
  LogField(std::string_view key, const std::string& v) : key_(key), value_(std::string_view(v)) {}
  // A temporary string would dangle in a field list kept beyond one expression: pass a named
  // string (or a string_view whose owner outlives the log call).
  LogField(std::string_view key, std::string&& v) = delete;
  LogField(std::string_view key, bool v) : key_(key), value_(v) {}
  LogField(std::string_view key, double v) : key_(key), value_(v) {}
  template <std::signed_integral T>
  requires(!std::same_as<T, bool>) LogField(std::string_view key, T v)
      : key_(key), value_(static_cast<int64_t>(v)) {}
  template <std::unsigned_integral T>
  requires(!std::same_as<T, bool>) LogField(std::string_view key, T v)
      : key_(key), value_(static_cast<uint64_t>(v)) {}
  LogField(std::string_view key, const std::vector<std::string>& v)
      : key_(key), value_(std::span<const std::string>(v)) {}
  LogField(std::string_view key, std::vector<std::string>&& v) = delete;  // would dangle
  LogField(std::string_view key, std::nullptr_t) : key_(key), value_(std::monostate{}) {}

  // Appends `,"key":value`.
  void appendTo(std::string& out) const;

 private:
  std::string_view key_;
  std::variant<std::monostate, std::string_view, bool, double, int64_t, uint64_t,
               std::span<const std::string>>
      value_;
};

// How the logger hands lines to the file. The default writes and flushes every line (a crash
// loses nothing, a reader sees a line as soon as log() returns). Buffered: lines collect in
// memory and are written in one call when `maxBytes` is reached, every `interval` (a
// background thread), for every warn or error line, on flush() and on destruction: one
// system call for many lines under load, at most `interval` of info lines at risk on a crash.
struct LogBuffering {
  std::size_t maxBytes = 0;  // 0: write and flush each line
  std::chrono::milliseconds interval{50};
};

class JsonLogger {
 public:
  explicit JsonLogger(std::FILE* out = stdout, LogLevel minLevel = LogLevel::Info,
                      LogBuffering buffering = {});
  ~JsonLogger();
  JsonLogger(const JsonLogger&) = delete;
  JsonLogger& operator=(const JsonLogger&) = delete;

  bool enabled(LogLevel level) const { return level >= minLevel_; }

  // Formats outside the lock (into a per-thread buffer, no allocation once warm), then appends
  // the line under it: lines from several threads never interleave.
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

  // Writes buffered lines and flushes the file (a no-op when nothing is pending).
  void flush();

  // The line log() writes, newline included (public for tests and for callers that batch).
  static std::string formatLine(std::chrono::system_clock::time_point time, LogLevel level,
                                std::string_view message, std::span<const LogField> fields);
  // The same line, appended to `out`.
  static void appendLine(std::string& out, std::chrono::system_clock::time_point time,
                         LogLevel level, std::string_view message,
                         std::span<const LogField> fields);

 private:
  void writeLocked(std::string_view data);  // caller holds mutex_
  void flushLoop();

  std::FILE* out_;
  LogLevel minLevel_;
  LogBuffering buffering_;
  std::mutex mutex_;
  std::string pending_;  // buffered lines, guarded by mutex_
  std::condition_variable wake_;
  bool stop_ = false;
  std::thread flusher_;  // only when buffered
};

}  // namespace gpua::telemetry
