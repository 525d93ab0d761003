// The error of every Kubernetes input: what was read (`source`), where in it (a JSON path such as
// `Pod.spec.containers[0].resources.requests.cpu`) and what is wrong.
#ifndef ARCHIMEDES_KUBE_KUBE_ERROR_H_
#define ARCHIMEDES_KUBE_KUBE_ERROR_H_

#include <stdexcept>
#include <string>

namespace archimedes {

class KubeError : public std::invalid_argument {
 public:
  KubeError(std::string path, const std::string& problem)
      : std::invalid_argument((path.empty() ? "" : path + ": ") + problem),
        path_(std::move(path)) {}
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

}  // namespace archimedes

#endif  // ARCHIMEDES_KUBE_KUBE_ERROR_H_
