// A policy file's YAML documents, found and sized before any is parsed: splitting is one pass
// over the text, and a document's node count (aliases expanded) comes from yaml-cpp's event
// parse, which never expands an alias, so the cost of both is linear in the bytes.
#pragma once

#include <yaml-cpp/yaml.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace gpua::policy {

// One document: its bytes in the file and the 0-based line of the file it starts on, the offset
// that turns yaml-cpp's marks (counted from the document) into file lines.
struct DocumentSpan {
  std::size_t offset = 0;
  std::size_t length = 0;
  int firstLine = 0;
};

struct DocumentSplit {
  std::vector<DocumentSpan> spans;  // the first `keep` documents
  std::size_t count = 0;            // all of them
};

// Splits at the lines that start a document ("---" alone or followed by a blank), which yaml-cpp
// 0.7's LoadAll cannot be trusted to do (it loops forever on some malformed input). Every such
// line after the first starts a new document, so "---\n---\n" holds two.
DocumentSplit splitDocuments(std::string_view text, std::size_t keep);

struct NodeCount {
  std::uint64_t nodes = 0;          // every alias counted as the nodes it repeats; saturates
  std::optional<YAML::Mark> over;   // the node that took the count past the budget
  std::optional<YAML::Mark> cycle;  // an alias inside the node it repeats: no finite count
  bool aliases = false;             // the document uses aliases at all
};

// Counts the nodes of one document with its aliases expanded. Throws YAML::ParserException on
// the same input and with the same mark as YAML::Load.
NodeCount countNodes(const std::string& document, std::uint64_t budget);

}  // namespace gpua::policy
