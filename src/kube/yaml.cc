#include "kube/yaml.h"

#include <yaml.h>

#include <algorithm>
#include <cstdio>
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

// Builds the documents from the events, a collection at a time: `open_` holds the sequences and
// mappings not yet ended, innermost last.
class TreeBuilder {
 public:
  TreeBuilder(const std::string& source, std::string_view text)
      : source_(source), text_(text), parser_(text) {}

  std::vector<YamlNodePtr> Build() {
    while (true) {
      if (!parser_.Next()) FailParse();
      const yaml_event_t& event = parser_.event();
      const int64_t line = LineOf(event.start_mark);
      switch (event.type) {
        case YAML_STREAM_END_EVENT:
          return std::move(documents_);
        case YAML_DOCUMENT_END_EVENT:
          anchors_.clear();  // an anchor names a node of its own document only
          break;
        case YAML_SCALAR_EVENT: {
          const auto& scalar = event.data.scalar;
          auto node = std::make_shared<YamlNode>();
          node->line = line;
          node->text.assign(reinterpret_cast<const char*>(scalar.value), scalar.length);
          node->plain = scalar.tag == nullptr && scalar.style == YAML_PLAIN_SCALAR_STYLE;
          node->weight = 1 + scalar.length;
          Complete(std::move(node), Anchor(scalar.anchor), line);
          break;
        }
        case YAML_SEQUENCE_START_EVENT:
          Open(YamlNode::Kind::kSequence, Anchor(event.data.sequence_start.anchor), line);
          break;
        case YAML_MAPPING_START_EVENT:
          Open(YamlNode::Kind::kMapping, Anchor(event.data.mapping_start.anchor), line);
          break;
        case YAML_SEQUENCE_END_EVENT:
        case YAML_MAPPING_END_EVENT: {
          OpenCollection done = std::move(open_.back());
          open_.pop_back();
          const int64_t start = done.node->line;
          Complete(std::move(done.node), done.anchor, start);
          break;
        }
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
    std::shared_ptr<YamlNode> node;
    std::string anchor;
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

  void Open(YamlNode::Kind kind, std::string anchor, int64_t line) {
    if (open_.size() >= static_cast<size_t>(kMaxYamlDepth)) {
      Fail(line, "nested deeper than " + std::to_string(kMaxYamlDepth) + " levels");
    }
    if (AwaitsKey()) Fail(line, "a mapping key must be a scalar");
    auto node = std::make_shared<YamlNode>();
    node->kind = kind;
    node->line = line;
    node->weight = 1;
    open_.push_back({std::move(node), std::move(anchor), std::nullopt});
  }

  void Alias(const std::string& anchor, int64_t line) {
    const auto it = anchors_.find(anchor);
    if (it == anchors_.end()) Fail(line, "alias *" + anchor + " names no anchor before it");
    aliased_ += it->second->weight;
    if (aliased_ > text_.size()) {
      Fail(line, "aliases expand past the text's own " + std::to_string(text_.size()) +
                     " bytes (aliases of aliases, a \"billion laughs\"?)");
    }
    if (AwaitsKey() && !it->second->IsScalar()) Fail(line, "a mapping key must be a scalar");
    Add(it->second, line);
  }

  bool AwaitsKey() const {
    return !open_.empty() && open_.back().node->kind == YamlNode::Kind::kMapping &&
           !open_.back().key.has_value();
  }

  void Complete(YamlNodePtr node, const std::string& anchor, int64_t line) {
    if (!anchor.empty()) anchors_[anchor] = node;
    Add(std::move(node), line);
  }

  // `node`, which appears at `line`, into the collection open around it.
  void Add(YamlNodePtr node, int64_t line) {
    if (open_.empty()) {
      documents_.push_back(std::move(node));
      return;
    }
    OpenCollection& parent = open_.back();
    parent.node->weight += node->weight;
    if (parent.node->kind == YamlNode::Kind::kSequence) {
      parent.node->items.push_back(std::move(node));
    } else if (!parent.key.has_value()) {
      parent.key.emplace(node->text, line);
    } else {
      parent.node->entries.push_back(
          {std::move(parent.key->first), parent.key->second, std::move(node)});
      parent.key.reset();
    }
  }

  const std::string& source_;
  std::string_view text_;
  EventParser parser_;
  std::vector<OpenCollection> open_;
  std::map<std::string, YamlNodePtr> anchors_;
  size_t aliased_ = 0;  // the weight aliases have added
  std::vector<YamlNodePtr> documents_;
};

}  // namespace

YamlError::YamlError(std::string source, int64_t line, std::string problem)
    : std::invalid_argument(source + ":" + std::to_string(line) + ": " + problem),
      source_(std::move(source)),
      line_(line),
      problem_(std::move(problem)) {}

bool YamlNode::IsNull() const {
  return kind == Kind::kScalar && plain &&
         (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL");
}

std::vector<YamlNodePtr> ParseYaml(const std::string& source, std::string_view text) {
  return TreeBuilder(source, text).Build();
}

}  // namespace archimedes
