#include "trace/requests_csv.h"

#include "model/limits.h"
#include "model/quantity.h"
#include "trace/csv_reader.h"

namespace archimedes {

std::vector<AppRequests> ReadRequestsFile(const std::string& path) {
  CsvReader csv(path);
  if (!csv.Next()) {
    csv.Fail("empty file; expected the header app,cpu,memory,disk,network[,replicas]");
  }
  const bool with_replicas = csv.size() == 6;
  if (csv.size() < 5 || csv.size() > 6 || csv.field(0) != "app" || csv.field(1) != "cpu") {
    csv.Fail("expected the header app,cpu,memory,disk,network[,replicas]");
  }
  static constexpr std::array<const char*, 4> kColumns = {"cpu", "memory", "disk", "network"};
  std::vector<AppRequests> rows;
  while (csv.Next()) {
    csv.ExpectFields(with_replicas ? 6 : 5);
    AppRequests row;
    row.app = csv.field(0);
    for (int d = 0; d < 4; ++d) {
      std::string_view text = csv.field(1 + d);
      try {
        row.request[d] = static_cast<double>(ParseResourceAmount(static_cast<Dim>(d), text));
      } catch (const QuantityError& e) {
        csv.Fail(std::string("column ") + kColumns[d] + ": " + e.what());
      }
    }
    if (with_replicas) row.replicas = static_cast<int>(csv.Int(5, "replicas", 0, kMaxReplicas));
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace archimedes
