// A Kubernetes ResourceList ({"cpu": "500m", "memory": "4Gi", "nvidia.com/gpu": "2"}) as the
// resource vector (model/resources.h). cpu → millicores, memory → bytes, nvidia.com/gpu,
// amd.com/gpu and gpu → GPUs; the names Archimedes does not schedule (ephemeral-storage, pods,
// hugepages-*, other extended resources) are skipped. A quantity is a string in the grammar of
// k8s.io/apimachinery's ParseQuantity (model/quantity.h); as that package's JSON decoder, a
// string with surrounding spaces and an unquoted JSON number are accepted too. Negative amounts
// and amounts beyond model/limits.h are a KubeError naming the field.
#ifndef ARCHIMEDES_KUBE_RESOURCE_LIST_H_
#define ARCHIMEDES_KUBE_RESOURCE_LIST_H_

#include <optional>
#include <string_view>

#include "kube/fields.h"
#include "model/resources.h"

namespace archimedes {

// The dimension a Kubernetes resource name stands for, or nullopt for one Archimedes skips.
std::optional<Dim> KubeResourceDim(std::string_view name);

Resources DecodeResourceList(const Field& list);

}  // namespace archimedes

#endif  // ARCHIMEDES_KUBE_RESOURCE_LIST_H_
