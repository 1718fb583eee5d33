#include "telemetry/async_line_writer.hpp"

#include "telemetry/metrics.hpp"

namespace gpua::telemetry {

AsyncLineWriter::AsyncLineWriter(std::FILE* out, AsyncWriterOptions options)
    : out_(out), options_(std::move(options)) {
  if (options_.wakeBytes > options_.queueBytes) options_.wakeBytes = options_.queueBytes;
  // Both buffers at their bound from the start: appending never reallocates, memory stays at
  // 2 x queueBytes at most, and pages are only resident once a burst has touched them.
  queue_.reserve(options_.queueBytes);
  writing_.reserve(options_.queueBytes);
  thread_ = std::thread([this] { run(); });
}

AsyncLineWriter::~AsyncLineWriter() {
  {
    std::lock_guard lock(queueMutex_);
    stop_ = true;
  }
  wake_.notify_one();
  thread_.join();
  drain();  // lines queued after the thread's last drain
}

bool AsyncLineWriter::push(std::string_view lines, bool urgent) {
  bool wake = false;
  {
    std::lock_guard lock(queueMutex_);
    if (queue_.size() + lines.size() > options_.queueBytes) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      if (options_.dropped) options_.dropped->inc();
      return false;
    }
    queue_.append(lines);
    // Notify only when crossing the threshold: a futex wake per line would cost more than the
    // write it saves.
    if (!wakeRequested_ && (urgent || queue_.size() >= options_.wakeBytes))
      wake = wakeRequested_ = true;
  }
  if (wake) wake_.notify_one();
  return true;
}

void AsyncLineWriter::flush() {
  drain();
}

void AsyncLineWriter::drain() {
  std::lock_guard writeLock(writeMutex_);
  {
    std::lock_guard lock(queueMutex_);
    queue_.swap(writing_);  // the empty buffer keeps its capacity: no allocation when warm
    wakeRequested_ = false;
  }
  if (!writing_.empty()) {
    std::fwrite(writing_.data(), 1, writing_.size(), out_);
    writing_.clear();
  }
  if (const uint64_t lost = dropped(); lost != reported_ && options_.dropNotice) {
    const std::string notice = options_.dropNotice(lost - reported_);
    std::fwrite(notice.data(), 1, notice.size(), out_);
  }
  reported_ = dropped();
  std::fflush(out_);
}

void AsyncLineWriter::run() {
  std::unique_lock lock(queueMutex_);
  while (!stop_) {
    wake_.wait_for(lock, options_.interval, [this] { return stop_ || wakeRequested_; });
    lock.unlock();
    drain();  // cheap when idle: a swap of two empty strings and an fflush with nothing to do
    lock.lock();
  }
}

}  // namespace gpua::telemetry
