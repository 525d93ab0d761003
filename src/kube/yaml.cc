#include "kube/yaml.h"

#include <yaml.h>

#include <algorithm>
#include <cstdio>
#include <iterator>
#include <map>
#include <new>
#include <optional>
#include <utility>

namespace archimedes {
namespace {

int64_t LineOf(const yaml_mark_t& mark) { return static_cast<int64_t>(mark.line) + 1; }

// libyaml's parser and its current event, both released however the reading ends.
class EventParser {
 public:
  explicit EventParser(std::string_view text) {
    if (yaml_parser_initialize(&parser_) == 0) throw std::bad_alloc();
    yaml_parser_set_input_string(&parser_, reinterpret_cast<const unsigned char*>(text.data()),
                                 text.size());
  }
  EventParser(const EventParser&) = delete;
  EventParser& operator=(const EventParser&) = delete;
  ~EventParser() {
    yaml_event_delete(&event_);
    yaml_parser_delete(&parser_);
  }

  // The next event; false when the text is not YAML (parser() holds why).
  bool Next() {
    yaml_event_delete(&event_);
    return yaml_parser_parse(&parser_, &event_) != 0;
  }
  const yaml_event_t& event() const { return event_; }
  const yaml_parser_t& parser() const { return parser_; }

 private:
  yaml_parser_t parser_{};
  yaml_event_t event_{};
};

}  // namespace

// Builds the documents from the events, a collection at a time: `open_` holds the sequences and
// mappings not yet ended, innermost last, and their children so far wait in `items_` and
// `entries_` (each open collection's after its outer one's), to be moved into the collection
// when it ends, at their exact size.
class YamlTreeBuilder {
 public:
  YamlTreeBuilder(const std::string& source, std::string_view text)
      : source_(source), text_(text), parser_(text) {}

  YamlDocuments Build() {
    while (true) {
      if (!parser_.Next()) FailParse();
      const yaml_event_t& event = parser_.event();
      const int64_t line = LineOf(event.start_mark);
      switch (event.type) {
        case YAML_STREAM_END_EVENT:
          return std::move(out_);
        case YAML_DOCUMENT_END_EVENT:
          anchors_.clear();  // an anchor names a node of its own document only
          break;
        case YAML_SCALAR_EVENT:
          Scalar(event, line);
          break;
        case YAML_SEQUENCE_START_EVENT:
          Open(YamlNode::Kind::kSequence, Anchor(event.data.sequence_start.anchor), line);
          break;
        case YAML_MAPPING_START_EVENT:
          Open(YamlNode::Kind::kMapping, Anchor(event.data.mapping_start.anchor), line);
          break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT:
          Close();
          break;
        case YAML_ALIAS_EVENT:
          Alias(Anchor(event.data.alias.anchor), line);
          break;
        default:  // stream and document starts
          break;
      }
    }
  }

 private:
  struct OpenCollection {
    YamlNode* node;
    std::string anchor;
    size_t first;                                        // its first child in items_ or entries_
    std::optional<std::pair<std::string, int64_t>> key;  // a mapping's key awaiting its value
  };

  static std::string Anchor(const yaml_char_t* name) {
    return name == nullptr ? std::string() : std::string(reinterpret_cast<const char*>(name));
  }

  [[noreturn]] void Fail(int64_t line, const std::string& problem) const {
    throw YamlError(source_, line, problem);
  }

  [[noreturn]] void FailParse() const {
    const yaml_parser_t& p = parser_.parser();
    if (p.error == YAML_MEMORY_ERROR) throw std::bad_alloc();
    const std::string problem = p.problem == nullptr ? "unreadable" : p.problem;
    if (p.error == YAML_READER_ERROR) {
      // The reader names a byte offset, not a line.
      const size_t offset = std::min(p.problem_offset, text_.size());
      const int64_t line = 1 + std::count(text_.begin(), text_.begin() + offset, '\n');
      std::string value;
      if (p.problem_value >= 0) {
        char hex[16];
        std::snprintf(hex, sizeof(hex), " 0x%02X", static_cast<unsigned>(p.problem_value));
        value = hex;
      }
      Fail(line, "invalid text at byte " + std::to_string(offset) + ": " + problem + value);
    }
    std::string context;
    if (p.context != nullptr) {
      context = " (" + std::string(p.context) + " at line " +
                std::to_string(LineOf(p.context_mark)) + ")";
    }
    Fail(LineOf(p.problem_mark), "not valid YAML: " + problem + context);
  }

  bool AwaitsKey() const {
    return !open_.empty() && open_.back().node->kind == YamlNode::Kind::kMapping &&
           !open_.back().key.has_value();
  }

  void Scalar(const yaml_event_t& event, int64_t line) {
    const auto& scalar = event.data.scalar;
    std::string text(reinterpret_cast<const char*>(scalar.value), scalar.length);
    std::string anchor = Anchor(scalar.anchor);
    if (AwaitsKey() && anchor.empty()) {  // a key is no node of its own
      open_.back().node->weight += 1 + text.size();
      open_.back().key.emplace(std::move(text), line);
      return;
    }
    YamlNode& node = out_.nodes_.emplace_back();
    node.line = line;
    node.plain = scalar.tag == nullptr && scalar.style == YAML_PLAIN_SCALAR_STYLE;
    node.weight = 1 + text.size();
    node.text = std::move(text);
    Complete(node, anchor, line);
  }

  void Open(YamlNode::Kind kind, std::string anchor, int64_t line) {
    if (open_.size() >= static_cast<size_t>(kMaxYamlDepth)) {
      Fail(line, "nested deeper than " + std::to_string(kMaxYamlDepth) + " levels");
    }
    if (AwaitsKey()) Fail(line, "a mapping key must be a scalar");
    YamlNode& node = out_.nodes_.emplace_back();
    node.kind = kind;
    node.line = line;
    node.weight = 1;
    const size_t first = kind == YamlNode::Kind::kSequence ? items_.size() : entries_.size();
    open_.push_back({&node, std::move(anchor), first, std::nullopt});
  }

  void Close() {
    OpenCollection done = std::move(open_.back());
    open_.pop_back();
    YamlNode& node = *done.node;
    if (node.kind == YamlNode::Kind::kSequence) {
      node.items.assign(
          std::make_move_iterator(items_.begin() + static_cast<std::ptrdiff_t>(done.first)),
          std::make_move_iterator(items_.end()));
      items_.resize(done.first);
    } else {
      node.entries.assign(
          std::make_move_iterator(entries_.begin() + static_cast<std::ptrdiff_t>(done.first)),
          std::make_move_iterator(entries_.end()));
      entries_.resize(done.first);
    }
    Complete(node, done.anchor, node.line);
  }

  void Alias(const std::string& anchor, int64_t line) {
    const auto it = anchors_.find(anchor);
    if (it == anchors_.end()) Fail(line, "alias *" + anchor + " names no anchor before it");
    const YamlNode& node = *it->second;
    aliased_ += node.weight;
    if (aliased_ > text_.size()) {
      Fail(line, "aliases expand past the text's own " + std::to_string(text_.size()) +
                     " bytes (aliases of aliases, a \"billion laughs\"?)");
    }
    if (AwaitsKey() && !node.IsScalar()) Fail(line, "a mapping key must be a scalar");
    Add(node, line);
  }

  void Complete(const YamlNode& node, const std::string& anchor, int64_t line) {
    if (!anchor.empty()) anchors_[anchor] = &node;
    Add(node, line);
  }

  // `node`, which appears at `line`, into the collection open around it.
  void Add(const YamlNode& node, int64_t line) {
    if (open_.empty()) {
      out_.documents_.push_back(&node);
      return;
    }
    OpenCollection& parent = open_.back();
    parent.node->weight += node.weight;
    if (parent.node->kind == YamlNode::Kind::kSequence) {
      items_.push_back(&node);
    } else if (!parent.key.has_value()) {
      parent.key.emplace(node.text, line);
    } else {
      entries_.push_back({std::move(parent.key->first), parent.key->second, &node});
      parent.key.reset();
    }
  }

  const std::string& source_;
  std::string_view text_;
  EventParser parser_;
  YamlDocuments out_;
  std::vector<OpenCollection> open_;
  std::vector<const YamlNode*> items_;
  std::vector<YamlEntry> entries_;
  std::map<std::string, const YamlNode*> anchors_;
  size_t aliased_ = 0;  // the weight aliases have added
};

YamlError::YamlError(std::string source, int64_t line, std::string problem)
    : std::invalid_argument(source + ":" + std::to_string(line) + ": " + problem),
      source_(std::move(source)),
      line_(line),
      problem_(std::move(problem)) {}

bool YamlNode::IsNull() const {
  return kind == Kind::kScalar && plain &&
         (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL");
}

YamlDocuments ParseYaml(const std::string& source, std::string_view text) {
  return YamlTreeBuilder(source, text).Build();
}

}  // namespace archimedes
