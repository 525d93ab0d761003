#include "trace/requests_csv.h"

#include <array>
#include <functional>
#include <map>
#include <string>

#include "model/limits.h"
#include "model/quantity.h"
#include "trace/csv_reader.h"

namespace archimedes {

std::vector<AppRequests> ReadRequestsFile(const std::string& path) {
  CsvReader csv(path);
  if (!csv.Next()) {
    csv.Fail("empty file; expected the header app,cpu,memory,disk,network[,replicas]");
  }
  static constexpr std::array<const char*, 6> kHeader = {"app",  "cpu",     "memory",
                                                         "disk", "network", "replicas"};
  const bool with_replicas = csv.size() == 6;
  bool header = csv.size() == 5 || with_replicas;
  for (int i = 0; header && i < csv.size(); ++i) header = csv.field(i) == kHeader[i];
  if (!header) csv.Fail("expected the header app,cpu,memory,disk,network[,replicas]");
  std::vector<AppRequests> rows;
  std::map<std::string, int64_t, std::less<>> lines;  // app → its line
  while (csv.Next()) {
    csv.ExpectFields(with_replicas ? 6 : 5);
    AppRequests row;
    row.app = csv.field(0);
    if (row.app.empty()) csv.Fail("column app is empty");
    if (const auto [first, added] = lines.emplace(row.app, csv.line()); !added) {
      csv.Fail("app \"" + row.app + "\" is listed twice (first on line " +
               std::to_string(first->second) + ")");
    }
    for (int d = 0; d < 4; ++d) {
      std::string_view text = csv.field(1 + d);
      try {
        row.request[d] = static_cast<double>(ParseResourceAmount(static_cast<Dim>(d), text));
      } catch (const QuantityError& e) {
        csv.Fail(std::string("column ") + kHeader[1 + d] + ": " + e.what());
      }
    }
    if (with_replicas) row.replicas = static_cast<int>(csv.Int(5, "replicas", 0, kMaxReplicas));
    rows.push_back(std::move(row));
  }
  return rows;
}

}  // namespace archimedes
