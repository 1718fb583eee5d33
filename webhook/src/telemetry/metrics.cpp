#include "telemetry/metrics.hpp"

#include <cmath>
#include <stdexcept>

#include "telemetry/exposition.hpp"

namespace gpua::telemetry {

// ---- Gauge ----

void Gauge::setCallback(std::function<double()> fn) {
  std::lock_guard lock(callbackMutex_);
  callback_ = std::move(fn);
}

double Gauge::value() const {
  {
    std::lock_guard lock(callbackMutex_);
    if (callback_) return callback_();
  }
  return value_.load(std::memory_order_relaxed);
}

// ---- Histogram ----

std::vector<double> latencyBucketsSeconds() {
  return {0.00005, 0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
          0.05,    0.1,    0.25,    0.5,    1,     2.5,    5,     10};
}

Histogram::Histogram(std::vector<double> bounds)
    : bounds_(std::move(bounds)),
      buckets_(std::make_unique<std::atomic<uint64_t>[]>(bounds_.size() + 1)) {
  for (std::size_t i = 0; i < bounds_.size(); ++i) {
    if (!std::isfinite(bounds_[i]) || (i > 0 && bounds_[i] <= bounds_[i - 1]))
      throw std::invalid_argument("histogram bounds must be finite and strictly increasing");
  }
}

void Histogram::observe(double v) {
  // Prometheus buckets are inclusive upper bounds (le).
  const auto it = std::lower_bound(bounds_.begin(), bounds_.end(), v);
  buckets_[static_cast<std::size_t>(it - bounds_.begin())].fetch_add(1, std::memory_order_relaxed);
  sum_.fetch_add(v, std::memory_order_relaxed);
}

Histogram::Snapshot Histogram::snapshot() const {
  Snapshot s;
  s.bounds = bounds_;
  s.cumulative.reserve(bounds_.size() + 1);
  uint64_t running = 0;
  for (std::size_t i = 0; i <= bounds_.size(); ++i) {
    running += buckets_[i].load(std::memory_order_relaxed);
    s.cumulative.push_back(running);
  }
  // Count derives from the buckets so +Inf and _count always agree within one scrape.
  s.count = running;
  s.sum = sum_.load(std::memory_order_relaxed);
  return s;
}

// ---- FamilyBase ----

FamilyBase::FamilyBase(std::string name, std::string help, std::vector<std::string> labelNames)
    : name_(std::move(name)), help_(std::move(help)), labelNames_(std::move(labelNames)) {
  if (!isValidMetricName(name_)) throw std::invalid_argument("invalid metric name: " + name_);
  for (std::size_t i = 0; i < labelNames_.size(); ++i) {
    if (!isValidLabelName(labelNames_[i]))
      throw std::invalid_argument("invalid label name for " + name_ + ": " + labelNames_[i]);
    for (std::size_t j = 0; j < i; ++j)
      if (labelNames_[j] == labelNames_[i])
        throw std::invalid_argument("duplicate label name for " + name_ + ": " + labelNames_[i]);
  }
}

void FamilyBase::render(std::string& out) const {
  out += "# HELP ";
  out += name_;
  out.push_back(' ');
  appendHelp(out, help_);
  out += "\n# TYPE ";
  out += name_;
  out.push_back(' ');
  out += type();
  out.push_back('\n');
  renderSeries(out);
}

void FamilyBase::appendSeriesStart(std::string& out, std::string_view suffix,
                                   const std::vector<std::string>& values,
                                   std::string_view extraName, std::string_view extraValue) const {
  out += name_;
  out += suffix;
  if (!values.empty() || !extraName.empty()) {
    out.push_back('{');
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (i > 0) out.push_back(',');
      out += labelNames_[i];
      out += "=\"";
      appendLabelValue(out, values[i]);
      out.push_back('"');
    }
    if (!extraName.empty()) {
      if (!values.empty()) out.push_back(',');
      out += extraName;
      out += "=\"";
      appendLabelValue(out, extraValue);
      out.push_back('"');
    }
    out.push_back('}');
  }
  out.push_back(' ');
}

void FamilyBase::checkArity(std::size_t n) const {
  if (n != labelNames_.size())
    throw std::invalid_argument(name_ + " takes " + std::to_string(labelNames_.size()) +
                                " label values, got " + std::to_string(n));
}

// ---- families ----

void CounterFamily::renderSeries(std::string& out) const {
  forEach([&](const std::vector<std::string>& values, const Counter& c) {
    appendSeriesStart(out, "", values);
    appendNumber(out, c.value());
    out.push_back('\n');
  });
}

void GaugeFamily::renderSeries(std::string& out) const {
  forEach([&](const std::vector<std::string>& values, const Gauge& g) {
    appendSeriesStart(out, "", values);
    appendNumber(out, g.value());
    out.push_back('\n');
  });
}

HistogramFamily::HistogramFamily(std::string name, std::string help,
                                 std::vector<std::string> labelNames, std::vector<double> bounds)
    : Family(std::move(name), std::move(help), std::move(labelNames), bounds) {
  Histogram probe(std::move(bounds));  // invalid bounds fail at registration, not first use
}

void HistogramFamily::renderSeries(std::string& out) const {
  forEach([&](const std::vector<std::string>& values, const Histogram& h) {
    const Histogram::Snapshot s = h.snapshot();
    std::string le;
    for (std::size_t i = 0; i <= s.bounds.size(); ++i) {
      le.clear();
      if (i < s.bounds.size())
        appendNumber(le, s.bounds[i]);
      else
        le = "+Inf";
      appendSeriesStart(out, "_bucket", values, "le", le);
      appendNumber(out, static_cast<double>(s.cumulative[i]));
      out.push_back('\n');
    }
    appendSeriesStart(out, "_sum", values);
    appendNumber(out, s.sum);
    out.push_back('\n');
    appendSeriesStart(out, "_count", values);
    appendNumber(out, static_cast<double>(s.count));
    out.push_back('\n');
  });
}

// ---- Registry ----

namespace {

std::vector<std::string> toStrings(std::span<const std::string_view> labels) {
  return {labels.begin(), labels.end()};
}

}  // namespace

template <class F, class... Args>
F& Registry::add(std::string name, std::string help, std::vector<std::string> labels,
                 Args&&... args) {
  std::lock_guard lock(mutex_);
  for (const auto& f : families_) {
    if (f->name() != name) continue;
    auto* same = dynamic_cast<F*>(f.get());
    if (same == nullptr || same->labelNames() != labels)
      throw std::logic_error("metric " + name + " registered twice with different type or labels");
    return *same;
  }
  auto family = std::make_unique<F>(std::move(name), std::move(help), std::move(labels),
                                    std::forward<Args>(args)...);
  F& ref = *family;
  families_.push_back(std::move(family));
  return ref;
}

CounterFamily& Registry::counter(std::string name, std::string help,
                                 std::vector<std::string> labels) {
  return add<CounterFamily>(std::move(name), std::move(help), std::move(labels));
}

GaugeFamily& Registry::gauge(std::string name, std::string help, std::vector<std::string> labels) {
  return add<GaugeFamily>(std::move(name), std::move(help), std::move(labels));
}

HistogramFamily& Registry::histogram(std::string name, std::string help,
                                     std::vector<std::string> labels, std::vector<double> bounds) {
  return add<HistogramFamily>(std::move(name), std::move(help), std::move(labels),
                              std::move(bounds));
}

CounterFamily& Registry::counter(const MetricDef& d) {
  return counter(std::string(d.name), std::string(d.help), toStrings(d.labels));
}

GaugeFamily& Registry::gauge(const MetricDef& d) {
  return gauge(std::string(d.name), std::string(d.help), toStrings(d.labels));
}

HistogramFamily& Registry::histogram(const MetricDef& d, std::vector<double> bounds) {
  return histogram(std::string(d.name), std::string(d.help), toStrings(d.labels),
                   std::move(bounds));
}

std::string Registry::render() const {
  std::string out;
  out.reserve(4096);
  std::lock_guard lock(mutex_);
  for (const auto& f : families_) f->render(out);
  return out;
}

}  // namespace gpua::telemetry
