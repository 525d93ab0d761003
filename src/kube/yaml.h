// YAML read with libyaml's event parser into a small tree whose nodes keep their line. Memory stays
// a small multiple of the text's size whatever the text (about 100 bytes a value): nesting deeper
// than kMaxYamlDepth is refused, an alias points at its anchor's node instead of copying it, and
// the values and scalar bytes that aliases stand for may not exceed the text's own size (so
// "billion laughs" is refused). Mapping keys must be scalars. libyaml refuses text that is not
// UTF-8 (or UTF-16 with a byte order mark), so every scalar and key is UTF-8. Every problem is a
// YamlError naming the source and the line.
#ifndef ARCHIMEDES_KUBE_YAML_H_
#define ARCHIMEDES_KUBE_YAML_H_

#include <cstddef>
#include <cstdint>
#include <deque>
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

struct YamlEntry {
  std::string key;
  int64_t line;  // the key's
  const YamlNode* value;
};

struct YamlNode {
  enum class Kind : uint8_t { kScalar, kSequence, kMapping };

  // An empty document or value reads as the empty plain scalar.
  bool IsScalar() const { return kind == Kind::kScalar; }
  // A plain scalar YAML reads as null: empty, `~`, `null`, `Null`, `NULL`.
  bool IsNull() const;

  Kind kind = Kind::kScalar;
  bool plain = false;  // a scalar neither quoted nor tagged: its text decides its type
  int64_t line = 0;    // where it starts, from 1
  // How many values and scalar bytes it stands for, aliases expanded: a walk over it costs this.
  size_t weight = 0;
  std::string text;                    // a scalar's
  std::vector<const YamlNode*> items;  // a sequence's (an alias: its anchor's node)
  std::vector<YamlEntry> entries;      // a mapping's, in the text's order (a repeated key too)
};

// The documents of a text, in order, and the nodes they hold, which live as long as it does.
class YamlDocuments {
 public:
  YamlDocuments() = default;
  // A move keeps the nodes where they are; a copy's would point into the original.
  YamlDocuments(YamlDocuments&&) = default;
  YamlDocuments& operator=(YamlDocuments&&) = default;
  YamlDocuments(const YamlDocuments&) = delete;
  YamlDocuments& operator=(const YamlDocuments&) = delete;

  size_t size() const { return documents_.size(); }
  bool empty() const { return documents_.empty(); }
  const YamlNode& operator[](size_t i) const { return *documents_[i]; }

 private:
  friend class YamlTreeBuilder;
  std::deque<YamlNode> nodes_;  // never moved once made: nodes point at one another
  std::vector<const YamlNode*> documents_;
};

// None for a text of comments or blanks. Throws YamlError.
YamlDocuments ParseYaml(const std::string& source, std::string_view text);

}  // namespace archimedes

#endif  // ARCHIMEDES_KUBE_YAML_H_
