// Memory for the asynchronous operations of one connection's requests. Asio recycles one block
// per thread for each purpose, but a request keeps several operations in flight at once
// (Beast's read, the TLS layer's, the socket's wait, the write), so most of them went to the
// heap on every request. A handler wrapped by withMemory() gives the operations started for it
// (and those its composed operations start: Beast and Asio ask the outermost handler) memory
// from a few fixed slots of its connection, reused request after request; a larger operation,
// or one more than the slots hold, falls back to the heap.
//
// Slots are claimed atomically: an operation may end on one I/O thread while the connection's
// strand starts the next on another. The memory must outlive every operation that uses it:
// the connection owns it, and its handlers hold the connection (Asio frees an operation's
// memory before it runs or destroys the handler).
#pragma once

#include <array>
#include <atomic>
#include <cstddef>
#include <new>
#include <utility>

namespace gpua::server {

class HandlerMemory {
 public:
  static constexpr std::size_t kSlotBytes = 1024;
  static constexpr std::size_t kSlots = 4;

  HandlerMemory() = default;
  HandlerMemory(const HandlerMemory&) = delete;
  HandlerMemory& operator=(const HandlerMemory&) = delete;

  void* allocate(std::size_t bytes) {
    if (bytes <= kSlotBytes)
      for (auto& slot : slots_) {
        bool free = false;
        if (slot.used.compare_exchange_strong(free, true, std::memory_order_acquire))
          return slot.bytes;
      }
    return ::operator new(bytes);
  }

  void deallocate(void* p) {
    for (auto& slot : slots_)
      if (p == slot.bytes) {
        slot.used.store(false, std::memory_order_release);
        return;
      }
    ::operator delete(p);
  }

  // Slots in use now (tests: every operation gave its memory back).
  std::size_t slotsInUse() const {
    std::size_t n = 0;
    for (const auto& slot : slots_) n += slot.used.load(std::memory_order_acquire) ? 1 : 0;
    return n;
  }

 private:
  struct Slot {
    alignas(std::max_align_t) unsigned char bytes[kSlotBytes];
    std::atomic<bool> used{false};
  };
  std::array<Slot, kSlots> slots_;
};

// A standard allocator over a HandlerMemory; without one (null), the heap.
template <typename T>
class HandlerAllocator {
 public:
  using value_type = T;

  explicit HandlerAllocator(HandlerMemory* memory) noexcept : memory_(memory) {}
  template <typename U>
  HandlerAllocator(const HandlerAllocator<U>& other) noexcept  // NOLINT: rebinding
      : memory_(other.memory()) {}

  T* allocate(std::size_t n) {
    const std::size_t bytes = n * sizeof(T);
    return static_cast<T*>(memory_ != nullptr ? memory_->allocate(bytes) : ::operator new(bytes));
  }
  void deallocate(T* p, std::size_t) noexcept {
    if (memory_ != nullptr) return memory_->deallocate(p);
    ::operator delete(p);
  }

  HandlerMemory* memory() const noexcept { return memory_; }
  template <typename U>
  bool operator==(const HandlerAllocator<U>& other) const noexcept {
    return memory_ == other.memory();
  }

 private:
  HandlerMemory* memory_;
};

// A completion handler whose operations take their memory from `memory` (Asio finds the
// allocator through allocator_type / get_allocator()).
template <typename Handler>
class MemoryBoundHandler {
 public:
  using allocator_type = HandlerAllocator<void>;

  MemoryBoundHandler(HandlerMemory* memory, Handler handler)
      : memory_(memory), handler_(std::move(handler)) {}

  allocator_type get_allocator() const noexcept { return allocator_type(memory_); }

  template <typename... Args>
  void operator()(Args&&... args) {
    handler_(std::forward<Args>(args)...);
  }

 private:
  HandlerMemory* memory_;
  Handler handler_;
};

template <typename Handler>
MemoryBoundHandler<Handler> withMemory(HandlerMemory* memory, Handler handler) {
  return MemoryBoundHandler<Handler>(memory, std::move(handler));
}

}  // namespace gpua::server
