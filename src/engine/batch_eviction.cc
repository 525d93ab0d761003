#include <memory>

#include "engine/node_relief.h"
#include "engine/pressure_response.h"

namespace archimedes {
namespace {

class BatchEviction : public PressureResponse {
 public:
  double Relieve(EngineCore& core, NodeId n) override {
    relief_.RelieveBatch(core, n);
    return 1;
  }

 private:
  NodeRelief relief_;
};

}  // namespace

std::unique_ptr<PressureResponse> NewBatchEviction() { return std::make_unique<BatchEviction>(); }

}  // namespace archimedes
