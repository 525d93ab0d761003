// Kubernetes objects as a user hands them over: one JSON object, or YAML with one or more
// documents separated by `---` (as `kubectl apply -f` reads them), each possibly a List
// (`kind: List`, `PodList`, `NodeList`, ...) whose `items` are the objects. YAML becomes JSON as
// sigs.k8s.io/yaml converts it: plain scalars `true`/`false`, `null`/`~`/empty and numbers keep
// their type, quoted or tagged scalars are strings. YAML is read by kube/yaml.h, which bounds its
// nesting and what its aliases expand to, so any text, from the network too, is safe to read.
#ifndef ARCHIMEDES_KUBE_DOCUMENTS_H_
#define ARCHIMEDES_KUBE_DOCUMENTS_H_

#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace archimedes {

// Every document of `text` (JSON when it starts with '{' or '['), Lists not expanded; empty
// documents skipped. Throws KubeError naming `source` (and the line of a YAML error).
std::vector<nlohmann::json> ParseDocuments(const std::string& source, std::string_view text);

// The objects of `docs`, the items of every List in their place.
std::vector<nlohmann::json> ExpandLists(std::vector<nlohmann::json> docs);

}  // namespace archimedes

#endif  // ARCHIMEDES_KUBE_DOCUMENTS_H_
