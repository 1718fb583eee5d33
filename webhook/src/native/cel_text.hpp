// CEL source text for the compiled admission policies: literals, and the policy's selectors
// (label selectors, namespace selectors, namespace exemptions) as CEL over the variables every
// compiled policy declares (variables.nsName, variables.nsLabels). One place writes CEL syntax,
// so escaping is decided once.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "kube/label_selector.hpp"
#include "policy/namespace_exemption.hpp"
#include "policy/namespace_selector.hpp"
#include "policy/node_requirement.hpp"

namespace gpua::native::cel {

// "text" as a CEL double-quoted string literal (backslash, quote and control bytes escaped).
std::string str(std::string_view text);

// ["a", "b"]
std::string strList(const std::vector<std::string>& items);

// `a && b && ...` of the non-empty parts, parenthesized; "true" when there are none.
std::string allOf(const std::vector<std::string>& parts);
// `a || b || ...`; "false" when there are none.
std::string anyOf(const std::vector<std::string>& parts);

// Kubernetes' label selector semantics over the string map `labels` (a CEL expression).
std::string labelSelector(const kube::LabelSelector& selector, std::string_view labels);

// A policy namespace selector: the listed names (if any) AND the label selector, over
// variables.nsName and variables.nsLabels.
std::string namespaceSelector(const policy::NamespaceSelector& selector);

// A CEL regex literal for the integers Go's strconv.ParseInt(s, 10, 64) reads, which Kubernetes
// uses for Gt and Lt: checked before CEL's int(), which would fail the whole expression.
inline constexpr const char* kNodeIntegerPattern = "'^[+-]?[0-9]+$'";

// A node whose label of `r`'s key has the value `v` (a CEL string expression) satisfies `r`
// (policy::requirementMatches for a present key; Gt and Lt parse as Go's strconv.ParseInt).
std::string nodeValueMatches(const policy::NodeRequirementRef& r, std::string_view v);

// spec.exempt.namespaces: a listed name OR matching labels.
std::string namespaceExemption(const policy::NamespaceExemption& exemption);

// engine::normalizeImage() of the CEL string `image` (an identifier): Docker Hub's short names
// written in full.
std::string normalizedImage(std::string_view image);

// engine::imageMatchesAny() of the CEL string `image` (an identifier) against the policy's
// patterns (an exact reference, or a prefix ending in '*'), both sides normalised.
std::string imageMatchesAny(std::string_view image, const std::vector<std::string>& patterns);

// `(size(x) > max ? x.substring(0, max) + "..." : x)`: engine::text::oneLine's cut for the
// ASCII names Kubernetes allows in object names and label values.
std::string cut(std::string_view expr, std::size_t max);

// The first non-empty string of the CEL list(string) `list`, else "".
std::string firstNonEmpty(std::string_view list);

// The CEL list(string) `list` of distinct strings in byte order (CEL's string `<`, as Go's JSON
// encoder orders a map's keys), when it has at most `bound` items (a longer one is left as it
// is, to bound the cost). CEL has no sort before Kubernetes 1.34: each position takes the item
// with that many smaller ones.
std::string sortedStrings(std::string_view list, std::size_t bound);

// Kubernetes does not enable cel-go's cel.bind (ext.Bindings): the compiler writes
// `cel.bind(x, init, body)`, which reads as what it means, and lowers every one (nested ones
// too) to `[init].map(x, body)[0]`, the same binding with the libraries Kubernetes has.
// String literals are left alone.
std::string lowerBinds(std::string_view expr);

}  // namespace gpua::native::cel
