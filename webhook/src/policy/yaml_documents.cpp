#include "policy/yaml_documents.hpp"

#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <limits>
#include <sstream>

namespace gpua::policy {

namespace {

constexpr std::uint64_t kUnbounded = std::numeric_limits<std::uint64_t>::max();

// True for a line that starts a YAML document: "---" alone or followed by a blank.
bool startsDocument(std::string_view line) {
  return line.substr(0, 3) == "---" &&
         (line.size() == 3 || line[3] == ' ' || line[3] == '\t' || line[3] == '\r');
}

std::uint64_t saturatingAdd(std::uint64_t a, std::uint64_t b) {
  return b > kUnbounded - a ? kUnbounded : a + b;
}

// Sizes every node from the parser's events: a scalar or null is one node, a sequence or
// mapping one plus its contents, and an alias the size of the node its anchor names, which is
// complete before the alias unless the alias sits inside it. Anchors are numbered from 1 in
// the order the parser meets them, so their sizes fit a vector.
class NodeCounter final : public YAML::EventHandler {
 public:
  explicit NodeCounter(std::uint64_t budget) : budget_(budget) {}
  const NodeCount& result() const { return count_; }

  void OnDocumentStart(const YAML::Mark&) override {}
  void OnDocumentEnd() override {}
  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override { leaf(mark, anchor); }
  void OnScalar(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                const std::string&) override {
    leaf(mark, anchor);
  }
  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override;
  void OnSequenceStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnSequenceEnd() override { close(); }
  void OnMapStart(const YAML::Mark& mark, const std::string&, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    open(mark, anchor);
  }
  void OnMapEnd() override { close(); }

 private:
  struct Open {
    YAML::anchor_t anchor;
    std::uint64_t nodes;
  };

  // `nodes` more nodes of the document, met at `mark`: the first mark past the budget is kept.
  void seen(const YAML::Mark& mark, std::uint64_t nodes) {
    count_.nodes = saturatingAdd(count_.nodes, nodes);
    if (count_.nodes > budget_ && !count_.over) count_.over = mark;
  }
  void addToParent(std::uint64_t nodes) {
    if (!open_.empty()) open_.back().nodes = saturatingAdd(open_.back().nodes, nodes);
  }
  void define(YAML::anchor_t anchor, std::uint64_t nodes) {
    if (anchor == YAML::NullAnchor) return;
    if (anchor >= sizes_.size()) sizes_.resize(anchor + 1, 0);
    sizes_[anchor] = nodes;
  }
  void leaf(const YAML::Mark& mark, YAML::anchor_t anchor) {
    seen(mark, 1);
    define(anchor, 1);
    addToParent(1);
  }
  void open(const YAML::Mark& mark, YAML::anchor_t anchor) {
    seen(mark, 1);
    open_.push_back({anchor, 1});
  }
  void close() {
    const Open done = open_.back();
    open_.pop_back();
    define(done.anchor, done.nodes);
    addToParent(done.nodes);
  }

  std::uint64_t budget_;
  NodeCount count_;
  std::vector<Open> open_;            // the sequences and mappings not yet ended
  std::vector<std::uint64_t> sizes_;  // by anchor; 0 while its node is still open
};

void NodeCounter::OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) {
  count_.aliases = true;
  // The parser refuses an alias to an unknown anchor, so a size of 0 is a node still open:
  // the alias repeats a node that contains it, which has no finite expansion.
  std::uint64_t nodes = anchor < sizes_.size() ? sizes_[anchor] : 0;
  if (nodes == 0) {
    if (!count_.cycle) count_.cycle = mark;
    nodes = kUnbounded;
  }
  seen(mark, nodes);
  addToParent(nodes);
}

}  // namespace

DocumentSplit splitDocuments(std::string_view text, std::size_t keep) {
  DocumentSplit split;
  auto add = [&](std::size_t start, std::size_t end, std::size_t line) {
    if (split.spans.size() < keep)
      split.spans.push_back({start, end - start, static_cast<int>(line)});
    ++split.count;
  };
  std::size_t start = 0, startLine = 0, line = 0;
  for (std::size_t pos = 0; pos < text.size(); ++line) {
    const std::size_t eol = std::min(text.find('\n', pos), text.size());
    if (pos > 0 && startsDocument(text.substr(pos, eol - pos))) {
      add(start, pos, startLine);
      start = pos;
      startLine = line;
    }
    pos = eol + 1;
  }
  add(start, text.size(), startLine);  // the last document, or the only one of an empty file
  return split;
}

NodeCount countNodes(const std::string& document, std::uint64_t budget) {
  std::istringstream in(document);
  YAML::Parser parser(in);
  NodeCounter counter(budget);
  parser.HandleNextDocument(counter);
  return counter.result();
}

}  // namespace gpua::policy
