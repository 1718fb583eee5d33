// A small thread-safe Prometheus registry. Updating a metric is a relaxed atomic operation;
// finding a labelled series takes a shared (reader) lock, and only the first use of a new label
// set takes the exclusive lock. Series live as long as the registry, so callers may keep the
// reference returned by with() for fixed label sets and skip the lookup entirely.
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "telemetry/metric_names.hpp"

namespace gpua::telemetry {

// The label value shared by the values a capped label (Family::capLabel) has no room for.
inline constexpr std::string_view kOverflowLabelValue = "_other";

class Counter {
 public:
  // Negative increments are ignored: a counter only goes up.
  void inc(double by = 1.0) {
    if (by > 0) value_.fetch_add(by, std::memory_order_relaxed);
  }
  double value() const { return value_.load(std::memory_order_relaxed); }

 private:
  std::atomic<double> value_{0.0};
};

class Gauge {
 public:
  void set(double v) { value_.store(v, std::memory_order_relaxed); }
  void add(double by) { value_.fetch_add(by, std::memory_order_relaxed); }
  // A function evaluated at render time instead of the stored value (certificate expiry, open
  // connections). It runs on the scraping thread and must be cheap and thread-safe.
  void setCallback(std::function<double()> fn);
  double value() const;

 private:
  std::atomic<double> value_{0.0};
  mutable std::mutex callbackMutex_;
  std::function<double()> callback_;
};

// Upper bounds of the latency histogram buckets: 50 us to 10 s.
std::vector<double> latencyBucketsSeconds();

class Histogram {
 public:
  // `bounds`: finite, strictly increasing upper bounds; +Inf is implicit.
  explicit Histogram(std::vector<double> bounds);
  void observe(double v);

  struct Snapshot {
    std::vector<double> bounds;
    std::vector<uint64_t> cumulative;  // one per bound, then +Inf (== count)
    double sum = 0;
    uint64_t count = 0;
  };
  Snapshot snapshot() const;

 private:
  std::vector<double> bounds_;
  std::unique_ptr<std::atomic<uint64_t>[]> buckets_;  // bounds_.size() + 1 (+Inf)
  std::atomic<double> sum_{0.0};
};

// Orders label-value vectors and lets a lookup use string_views without building a vector.
struct LabelValuesLess {
  using is_transparent = void;
  template <class A, class B>
  bool operator()(const A& a, const B& b) const {
    return std::lexicographical_compare(
        a.begin(), a.end(), b.begin(), b.end(),
        [](std::string_view x, std::string_view y) { return x < y; });
  }
};

class FamilyBase {
 public:
  FamilyBase(std::string name, std::string help, std::vector<std::string> labelNames);
  virtual ~FamilyBase() = default;
  const std::string& name() const { return name_; }
  const std::vector<std::string>& labelNames() const { return labelNames_; }
  virtual const char* type() const = 0;
  // Appends # HELP, # TYPE and every series.
  void render(std::string& out) const;

 protected:
  virtual void renderSeries(std::string& out) const = 0;
  // `name{l1="v1",l2="v2"` (+ `extra` label, e.g. le) `} `: the caller appends the value.
  void appendSeriesStart(std::string& out, std::string_view suffix,
                         const std::vector<std::string>& values, std::string_view extraName = {},
                         std::string_view extraValue = {}) const;
  void checkArity(std::size_t n) const;

 private:
  std::string name_, help_;
  std::vector<std::string> labelNames_;
};

template <class Metric>
class Family : public FamilyBase {
 public:
  template <class... Args>
  Family(std::string name, std::string help, std::vector<std::string> labelNames, Args... args)
      : FamilyBase(std::move(name), std::move(help), std::move(labelNames)),
        factory_([args...] { return std::make_unique<Metric>(args...); }) {}

  // The series for these label values (in labelNames() order); created on first use.
  // Throws std::invalid_argument when the number of values is wrong.
  Metric& with(std::initializer_list<std::string_view> values) {
    return with(std::span<const std::string_view>(values.begin(), values.size()));
  }
  Metric& with(std::span<const std::string_view> values) {
    checkArity(values.size());
    {
      std::shared_lock lock(mutex_);
      if (Metric* m = indexed(values)) return *m;
      if (!caps_.empty()) {  // a value past its label's cap has a series already: the overflow's
        const auto capped = cappedValues(values);
        if (Metric* m = indexed(capped)) return *m;
      }
    }
    std::unique_lock lock(mutex_);
    const auto capped = admitValues(values);
    auto it = series_.find(capped);
    if (it == series_.end()) {
      it =
          series_.emplace(std::vector<std::string>(capped.begin(), capped.end()), factory_()).first;
      index_.emplace(hashOf(capped), it);
    }
    return *it->second;
  }
  // At most `maxValues` distinct values of `label` get series of their own; later ones share
  // the value kOverflowLabelValue, so values taken from requests cannot grow the family without
  // bound. Call before the first with().
  void capLabel(std::string_view label, std::size_t maxValues) {
    const auto& names = labelNames();
    const auto at = std::find(names.begin(), names.end(), label);
    if (at == names.end()) throw std::invalid_argument("no label " + std::string(label));
    const auto index = static_cast<std::size_t>(at - names.begin());
    std::unique_lock lock(mutex_);
    for (auto& cap : caps_)
      if (cap.index == index) return void(cap.maxValues = maxValues);
    caps_.push_back({index, maxValues, {}});
  }
  // The unlabelled series.
  Metric& get() { return with(std::span<const std::string_view>()); }
  // Drops a series (it no longer renders); references to it from with() must not be used after.
  void remove(std::initializer_list<std::string_view> values) {
    checkArity(values.size());
    std::unique_lock lock(mutex_);
    const std::span<const std::string_view> key(values.begin(), values.size());
    const auto it = series_.find(key);
    if (it == series_.end()) return;
    for (auto [at, end] = index_.equal_range(hashOf(key)); at != end; ++at)
      if (at->second == it) {
        index_.erase(at);
        break;
      }
    series_.erase(it);
  }

 protected:
  template <class Fn>
  void forEach(Fn&& fn) const {
    std::shared_lock lock(mutex_);
    for (const auto& [values, metric] : series_) fn(values, *metric);
  }

 private:
  struct LabelCap {
    std::size_t index;
    std::size_t maxValues;
    std::set<std::string, std::less<>> seen;
  };

  // `values` with every capped label that is not among its admitted values replaced by the
  // overflow value (under either lock).
  std::vector<std::string_view> cappedValues(std::span<const std::string_view> values) const {
    std::vector<std::string_view> out(values.begin(), values.end());
    for (const auto& cap : caps_)
      if (!cap.seen.contains(out[cap.index])) out[cap.index] = kOverflowLabelValue;
    return out;
  }
  // The same, admitting new values while their label has room (under the exclusive lock).
  std::vector<std::string_view> admitValues(std::span<const std::string_view> values) {
    for (auto& cap : caps_)
      if (cap.seen.size() < cap.maxValues) cap.seen.emplace(values[cap.index]);
    return cappedValues(values);
  }

  using Series = std::map<std::vector<std::string>, std::unique_ptr<Metric>, LabelValuesLess>;

  // with() runs on every request: a series is found by the hash of its label values (the
  // ordered map, kept for rendering in order, compares label by label, a memcmp each).
  template <class Values>
  static std::size_t hashOf(const Values& values) {
    std::size_t h = values.size();
    for (const std::string_view v : values)
      h = h * 0x9E3779B97F4A7C15ULL + std::hash<std::string_view>{}(v);
    return h;
  }
  // The series with exactly these values, or null (under either lock).
  Metric* indexed(std::span<const std::string_view> values) const {
    for (auto [at, end] = index_.equal_range(hashOf(values)); at != end; ++at) {
      const auto& key = at->second->first;
      if (std::equal(key.begin(), key.end(), values.begin(), values.end(),
                     [](const std::string& a, std::string_view b) { return a == b; }))
        return at->second->second.get();
    }
    return nullptr;
  }

  std::function<std::unique_ptr<Metric>()> factory_;
  mutable std::shared_mutex mutex_;
  Series series_;
  std::unordered_multimap<std::size_t, typename Series::iterator> index_;  // by hashOf(values)
  std::vector<LabelCap> caps_;
};

class CounterFamily : public Family<Counter> {
 public:
  using Family::Family;
  const char* type() const override { return "counter"; }

 protected:
  void renderSeries(std::string& out) const override;
};

class GaugeFamily : public Family<Gauge> {
 public:
  using Family::Family;
  const char* type() const override { return "gauge"; }

 protected:
  void renderSeries(std::string& out) const override;
};

class HistogramFamily : public Family<Histogram> {
 public:
  HistogramFamily(std::string name, std::string help, std::vector<std::string> labelNames,
                  std::vector<double> bounds);
  const char* type() const override { return "histogram"; }

 protected:
  void renderSeries(std::string& out) const override;
};

class Registry {
 public:
  // Registering a name again returns the existing family when type and labels agree, and
  // throws std::logic_error otherwise. Invalid names throw std::invalid_argument.
  CounterFamily& counter(std::string name, std::string help, std::vector<std::string> labels = {});
  GaugeFamily& gauge(std::string name, std::string help, std::vector<std::string> labels = {});
  HistogramFamily& histogram(std::string name, std::string help,
                             std::vector<std::string> labels = {},
                             std::vector<double> bounds = latencyBucketsSeconds());

  CounterFamily& counter(const MetricDef& def);
  GaugeFamily& gauge(const MetricDef& def);
  HistogramFamily& histogram(const MetricDef& def,
                             std::vector<double> bounds = latencyBucketsSeconds());

  // Text exposition format 0.0.4 (serve with kExpositionContentType), families in
  // registration order, series sorted by label values.
  std::string render() const;

 private:
  template <class F, class... Args>
  F& add(std::string name, std::string help, std::vector<std::string> labels, Args&&... args);

  mutable std::mutex mutex_;
  std::vector<std::unique_ptr<FamilyBase>> families_;
};

}  // namespace gpua::telemetry
