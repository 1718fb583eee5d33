// Polling for tests of things that settle on their own schedule (watches, reloads, metrics,
// background writers): one spelling of "wait until it holds".
#pragma once

#include <chrono>
#include <thread>

namespace gpua::testing {

// Polls `pred` until it holds or `timeout` passes, then gives it one last try.
template <class Pred>
bool eventually(Pred pred, std::chrono::milliseconds timeout = std::chrono::seconds(10),
                std::chrono::milliseconds step = std::chrono::milliseconds(10)) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  while (std::chrono::steady_clock::now() < deadline) {
    if (pred()) return true;
    std::this_thread::sleep_for(step);
  }
  return pred();
}

}  // namespace gpua::testing
