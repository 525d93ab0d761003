// YAML read with libyaml's event parser into a small tree whose nodes keep their line. Memory stays
// a small multiple of the text's size whatever the text: nesting deeper than kMaxYamlDepth is
// refused, an alias shares its anchor's node instead of copying it, and the values and scalar
// bytes that aliases stand for may not exceed the text's own size (so "billion laughs" is
// refused). Mapping keys must be scalars. libyaml refuses text that is not UTF-8 (or UTF-16 with
// a byte order mark), so every scalar and key is UTF-8. Every problem is a YamlError naming the
// source and the line.
#ifndef ARCHIMEDES_KUBE_YAML_H_
#define ARCHIMEDES_KUBE_YAML_H_

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace archimedes {

inline constexpr int kMaxYamlDepth = 64;

class YamlError : public std::invalid_argument {
 public:
  // "SOURCE:LINE: PROBLEM".
  YamlError(std::string source, int64_t line, std::string problem);
  const std::string& source() const { return source_; }
  int64_t line() const { return line_; }
  const std::string& problem() const { return problem_; }

 private:
  std::string source_;
  int64_t line_;
  std::string problem_;
};

struct YamlNode;
// Shared: every alias of an anchor points at the anchor's node.
using YamlNodePtr = std::shared_ptr<const YamlNode>;

struct YamlEntry {
  std::string key;
  int64_t line;  // the key's
  YamlNodePtr value;
};

struct YamlNode {
  enum class Kind : uint8_t { kScalar, kSequence, kMapping };

  // An empty document or value reads as the empty plain scalar.
  bool IsScalar() const { return kind == Kind::kScalar; }
  // A plain scalar YAML reads as null: empty, `~`, `null`, `Null`, `NULL`.
  bool IsNull() const;

  Kind kind = Kind::kScalar;
  int64_t line = 0;                // where it starts, from 1
  std::string text;                // a scalar's
  bool plain = false;              // a scalar neither quoted nor tagged: its text decides its type
  std::vector<YamlNodePtr> items;  // a sequence's
  std::vector<YamlEntry> entries;  // a mapping's, in the text's order (a repeated key too)
  // How many values and scalar bytes it stands for, aliases expanded: a walk over it costs this.
  size_t weight = 0;
};

// The documents of `text` in order; none for a text of comments or blanks. Throws YamlError.
std::vector<YamlNodePtr> ParseYaml(const std::string& source, std::string_view text);

}  // namespace archimedes

#endif  // ARCHIMEDES_KUBE_YAML_H_
