#include "server/handler_memory.hpp"

#include <gtest/gtest.h>

#include <boost/asio/associated_allocator.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>

#include <thread>
#include <vector>

namespace gpua::server {
namespace {

TEST(HandlerMemory, ReusesItsSlotsAndSpillsPastThem) {
  HandlerMemory memory;
  std::vector<void*> held;
  for (std::size_t i = 0; i < HandlerMemory::kSlots; ++i) held.push_back(memory.allocate(100));
  EXPECT_EQ(memory.slotsInUse(), HandlerMemory::kSlots);
  void* spilled = memory.allocate(100);  // every slot taken: the heap
  void* large = memory.allocate(HandlerMemory::kSlotBytes + 1);
  memory.deallocate(spilled);
  memory.deallocate(large);
  EXPECT_EQ(memory.slotsInUse(), HandlerMemory::kSlots);
  memory.deallocate(held[1]);
  EXPECT_EQ(memory.slotsInUse(), HandlerMemory::kSlots - 1);
  EXPECT_EQ(memory.allocate(50), held[1]) << "a freed slot is handed out again";
  for (void* p : held) memory.deallocate(p);
  EXPECT_EQ(memory.slotsInUse(), 0u);
}

TEST(HandlerMemory, SlotsAreClaimedOncePerAllocationAcrossThreads) {
  HandlerMemory memory;
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([&memory] {
      for (int i = 0; i < 20000; ++i) {
        auto* p = static_cast<unsigned char*>(memory.allocate(64));
        p[0] = 1;  // two owners of one slot would race here (ASan/TSan) and below
        p[63] = 2;
        memory.deallocate(p);
      }
    });
  for (auto& t : threads) t.join();
  EXPECT_EQ(memory.slotsInUse(), 0u);
}

// Asio finds the allocator of a wrapped handler: an operation started for it takes a slot and
// gives it back before the handler runs.
TEST(HandlerMemory, AsioOperationsOfAWrappedHandlerUseTheSlots) {
  HandlerMemory memory;
  boost::asio::io_context io;
  auto handler = withMemory(&memory, [&memory](boost::system::error_code) {
    EXPECT_EQ(memory.slotsInUse(), 0u) << "the operation's memory is freed before its handler";
  });
  static_assert(std::is_same_v<boost::asio::associated_allocator_t<decltype(handler)>,
                               HandlerAllocator<void>>);
  boost::asio::steady_timer timer(io);
  timer.expires_after(std::chrono::milliseconds(1));
  timer.async_wait(std::move(handler));
  EXPECT_EQ(memory.slotsInUse(), 1u) << "the timer's wait operation lives in a slot";
  io.run();
  EXPECT_EQ(memory.slotsInUse(), 0u);
}

TEST(HandlerMemory, WithoutMemoryTheHeapServes) {
  HandlerAllocator<int> heap(nullptr);
  int* p = heap.allocate(3);
  p[2] = 7;
  heap.deallocate(p, 3);
  EXPECT_TRUE(heap == HandlerAllocator<char>(nullptr));
}

}  // namespace
}  // namespace gpua::server
