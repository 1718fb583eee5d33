// A list whose elements outlive clear(): the request path keeps one Decision per thread and
// decides into it again and again, so the strings of its patch ops, changes and warnings keep
// their capacity and a warm request writes them without allocating. Elements past size() are
// spare, never visible; `next()` hands one out emptied (T::clear()), and writers build into it in
// place instead of moving a freshly allocated temporary in.
//
// Copies copy the visible elements only. clear() keeps at most kKeptSpares elements and drops
// strings over kKeptBytes, so one huge request does not pin its memory for the thread's life.
#pragma once

#include <algorithm>
#include <cstddef>
#include <initializer_list>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace gpua::engine {

// Gives back the memory of `s` when it holds more than `bytes`: what an element's
// releaseIfLarge does for each of its strings (RecycledList::clear calls it).
inline void releaseStringIfLarge(std::string& s, std::size_t bytes) {
  if (s.capacity() > bytes) std::string().swap(s);
}

template <typename T>
class RecycledList {
 public:
  using value_type = T;
  using iterator = typename std::vector<T>::iterator;
  using const_iterator = typename std::vector<T>::const_iterator;
  using size_type = std::size_t;

  static constexpr std::size_t kKeptSpares = 64;

  RecycledList() = default;
  RecycledList(std::initializer_list<T> items) : items_(items), size_(items_.size()) {}
  RecycledList(const RecycledList& other)
      : items_(other.begin(), other.end()), size_(other.size_) {}
  RecycledList& operator=(const RecycledList& other) {
    if (this != &other) assign(other.begin(), other.end());
    return *this;
  }
  RecycledList(RecycledList&& other) noexcept
      : items_(std::move(other.items_)), size_(std::exchange(other.size_, 0)) {}
  RecycledList& operator=(RecycledList&& other) noexcept {
    items_.swap(other.items_);
    std::swap(size_, other.size_);
    other.clear();
    return *this;
  }

  // An element at the end, emptied, its memory kept from an earlier use when there is one. The
  // reference is good until the next call that adds an element.
  T& next() {
    if (size_ < items_.size()) {
      T& item = items_[size_++];
      item.clear();
      return item;
    }
    ++size_;
    return items_.emplace_back();
  }

  // Copies `item` into a kept element (no allocation when its capacity suffices).
  void push_back(const T& item) { next() = item; }
  void push_back(T&& item) { next() = std::move(item); }

  template <typename It>
  void assign(It first, It last) {
    clear();
    for (; first != last; ++first) next() = *first;
  }

  void clear() {
    size_ = 0;
    if (items_.size() > kKeptSpares) items_.resize(kKeptSpares);
    for (auto& item : items_) releaseIfLarge(item);
  }
  // Drops the last visible element (its memory stays as a spare).
  void pop_back() { --size_; }
  // Keeps the first n visible elements (n <= size()).
  void resize(std::size_t n) { size_ = std::min(n, size_); }
  void reserve(std::size_t n) { items_.reserve(n); }

  // Removes the elements `pred` accepts, keeping the order of the rest; removed ones stay spare.
  // Swaps rather than std::stable_partition, which may take a temporary buffer from the heap.
  template <typename Pred>
  void eraseIf(Pred pred) {
    std::size_t kept = 0;
    for (std::size_t i = 0; i < size_; ++i) {
      if (pred(std::as_const(items_[i]))) continue;
      if (i != kept) std::swap(items_[kept], items_[i]);
      ++kept;
    }
    size_ = kept;
  }

  std::size_t size() const { return size_; }
  bool empty() const { return size_ == 0; }
  T& operator[](std::size_t i) { return items_[i]; }
  const T& operator[](std::size_t i) const { return items_[i]; }
  T& front() { return items_.front(); }
  const T& front() const { return items_.front(); }
  T& back() { return items_[size_ - 1]; }
  const T& back() const { return items_[size_ - 1]; }
  iterator begin() { return items_.begin(); }
  iterator end() { return items_.begin() + static_cast<std::ptrdiff_t>(size_); }
  const_iterator begin() const { return items_.begin(); }
  const_iterator end() const { return items_.begin() + static_cast<std::ptrdiff_t>(size_); }

  // Read-only callers take a span: a std::vector and a RecycledList both convert.
  operator std::span<const T>() const { return {items_.data(), size_}; }

  friend bool operator==(const RecycledList& a, const RecycledList& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }
  friend bool operator==(const RecycledList& a, const std::vector<T>& b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

 private:
  static constexpr std::size_t kKeptBytes = 64u << 10;

  static void releaseIfLarge(std::string& s) { releaseStringIfLarge(s, kKeptBytes); }
  template <typename U>
  static void releaseIfLarge(U& item) {
    if constexpr (requires { item.releaseIfLarge(kKeptBytes); }) item.releaseIfLarge(kKeptBytes);
  }

  std::vector<T> items_;
  std::size_t size_ = 0;
};

}  // namespace gpua::engine
