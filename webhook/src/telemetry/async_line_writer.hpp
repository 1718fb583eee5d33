// Hands lines to a file from a background thread, so the threads that log never wait for the
// file. A container's stdout is a pipe read by the container runtime; when that reader falls
// behind, write(2) blocks, and a logger that writes on the request thread would stall
// admissions with it. Here the request thread only copies its line into a bounded in-memory
// queue; a line that does not fit is dropped and counted instead of waited for.
//
// The queue is written when `wakeBytes` are waiting, at once for an urgent line (a warning or
// an error), at least every `interval`, on flush() and on destruction: nothing queued is lost
// on a normal exit (SIGTERM ends `serve` through its destructors).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>

namespace gpua::telemetry {

class Counter;

struct AsyncWriterOptions {
  // Bound on the bytes waiting to be written; a line that would pass it is dropped.
  std::size_t queueBytes = std::size_t{4} << 20;
  // Wake the writer once this many bytes wait (one write(2) for many lines under load).
  std::size_t wakeBytes = std::size_t{64} << 10;
  // The longest a line waits when traffic is light.
  std::chrono::milliseconds interval{100};
  // Counts dropped lines (may be null). Incremented on the thread whose line was dropped.
  Counter* dropped = nullptr;
  // Formats the line that reports `n` lines dropped since the last report, written by the
  // writer after the lines that did fit (may be empty: no report).
  std::function<std::string(uint64_t n)> dropNotice;
};

class AsyncLineWriter {
 public:
  AsyncLineWriter(std::FILE* out, AsyncWriterOptions options);
  ~AsyncLineWriter();  // writes everything queued, then stops the thread
  AsyncLineWriter(const AsyncLineWriter&) = delete;
  AsyncLineWriter& operator=(const AsyncLineWriter&) = delete;

  // Queues whole lines (newline included). Never waits for the file: returns false when the
  // queue is full and the lines were dropped. `urgent` wakes the writer at once.
  bool push(std::string_view lines, bool urgent);

  // Writes everything queued so far on the calling thread; returns once it is in the file.
  void flush();

  // Lines dropped since construction.
  uint64_t dropped() const { return dropped_.load(std::memory_order_relaxed); }

 private:
  void run();
  void drain();  // moves the queue out under the lock, writes it outside

  std::FILE* out_;
  AsyncWriterOptions options_;

  std::mutex queueMutex_;  // guards queue_, wake_, stop_; held only to append or swap
  std::string queue_;
  bool wakeRequested_ = false;
  bool stop_ = false;
  std::condition_variable wake_;

  std::mutex writeMutex_;  // one drain at a time, so lines reach the file in queue order
  std::string writing_;    // guarded by writeMutex_; keeps its capacity
  std::atomic<uint64_t> dropped_{0};
  uint64_t reported_ = 0;  // guarded by writeMutex_

  std::thread thread_;
};

}  // namespace gpua::telemetry
