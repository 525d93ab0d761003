// The datacenter aggregates (Alibaba 2018 days, Google 2019 and Azure 2019 weeks): the input is
// the one CSV of a folder of each layout.
#include <filesystem>

#include "fuzz/fuzz_input.h"
#include "trace/datacenter_aggregates.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace fs = std::filesystem;
  const fs::path root = fs::path(archimedes::fuzz::WriteInput(data, size, "aggregate.csv"));
  const fs::path dir = root.string() + ".d";
  for (const char* folder : {"day_1", "week1"}) {
    fs::create_directories(dir / folder);
    fs::copy_file(root, dir / folder / "aggregate.csv", fs::copy_options::overwrite_existing);
  }
  ARCHIMEDES_FUZZ_EXPECT_ERRORS(archimedes::ReadAlibaba2018Aggregate(dir.string()));
  ARCHIMEDES_FUZZ_EXPECT_ERRORS(archimedes::ReadGoogle2019Aggregate(dir.string()));
  ARCHIMEDES_FUZZ_EXPECT_ERRORS(archimedes::ReadAzure2019Aggregate(dir.string()));
  return 0;
}
