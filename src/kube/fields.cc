#include "kube/fields.h"

namespace archimedes {
namespace {

bool EqualFold(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i) {
    char x = a[i], y = b[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (y >= 'A' && y <= 'Z') y = static_cast<char>(y - 'A' + 'a');
    if (x != y) return false;
  }
  return true;
}

}  // namespace

void Field::Expect(bool ok, const char* what) const {
  if (!ok) Fail(std::string("expected ") + what + ", got " + value_->dump());
}

void Field::Fail(const std::string& problem) const { throw KubeError(path_, problem); }

Field Field::Get(std::string_view key) const {
  const std::string path = path_ + "." + std::string(key);
  if (!present()) return {nullptr, path};
  Expect(value_->is_object(), "an object");
  auto it = value_->find(key);
  return {it == value_->end() ? nullptr : &*it, path};
}

Field Field::GetFolded(std::string_view key) const {
  const std::string path = path_ + "." + std::string(key);
  if (!present()) return {nullptr, path};
  Expect(value_->is_object(), "an object");
  if (auto it = value_->find(key); it != value_->end()) return {&*it, path};
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    if (EqualFold(it.key(), key)) return {&*it, path};
  }
  return {nullptr, path};
}

std::vector<Field> Field::Items() const {
  std::vector<Field> items;
  if (!present()) return items;
  Expect(value_->is_array(), "an array");
  items.reserve(value_->size());
  for (size_t i = 0; i < value_->size(); ++i) {
    items.emplace_back(&(*value_)[i], path_ + "[" + std::to_string(i) + "]");
  }
  return items;
}

std::string Field::String(const std::string& fallback) const {
  if (!present()) return fallback;
  Expect(value_->is_string(), "a string");
  return value_->get<std::string>();
}

int64_t Field::Int(int64_t fallback) const {
  if (!present()) return fallback;
  Expect(value_->is_number_integer(), "an integer");
  return value_->get<int64_t>();
}

bool Field::Bool(bool fallback) const {
  if (!present()) return fallback;
  Expect(value_->is_boolean(), "true or false");
  return value_->get<bool>();
}

std::map<std::string, std::string> Field::StringMap() const {
  std::map<std::string, std::string> out;
  if (!present()) return out;
  Expect(value_->is_object(), "an object of strings");
  for (auto it = value_->begin(); it != value_->end(); ++it) {
    out[it.key()] = Field(&*it, path_ + "." + it.key()).String();
  }
  return out;
}

std::vector<std::string> Field::Strings() const {
  std::vector<std::string> out;
  for (const Field& f : Items()) out.push_back(f.String());
  return out;
}

nlohmann::json ParseJson(const std::string& source, std::string_view text) {
  // nlohmann's parser recurses once per level: refuse deep nesting before it sees the text.
  size_t depth = 0;
  bool in_string = false;
  for (size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (in_string) {
      if (c == '\\') {
        ++i;
      } else if (c == '"') {
        in_string = false;
      }
    } else if (c == '"') {
      in_string = true;
    } else if (c == '{' || c == '[') {
      if (++depth > kMaxKubeJsonDepth) {
        throw KubeError(source, "nested deeper than " + std::to_string(kMaxKubeJsonDepth) +
                                    " levels at byte " + std::to_string(i));
      }
    } else if ((c == '}' || c == ']') && depth > 0) {
      --depth;
    }
  }
  try {
    return nlohmann::json::parse(text.begin(), text.end(), nullptr, true, false);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann's own words, without its "[json.exception...] parse error at ..." prefix.
    std::string detail = e.what();
    const size_t start = detail.find(": ", detail.find("parse error"));
    if (start != std::string::npos) detail = detail.substr(start + 2);
    throw KubeError(source, "not valid JSON at byte " + std::to_string(e.byte) + ": " + detail);
  } catch (const nlohmann::json::out_of_range& e) {
    // A number too large for a double; nlohmann does not say where it is.
    const std::string detail = e.what();
    throw KubeError(source, "not valid JSON: " + detail.substr(detail.find(']') + 2));
  }
}

}  // namespace archimedes
