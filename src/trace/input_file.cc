#include "trace/input_file.h"

#include <filesystem>
#include <system_error>

#include "trace/trace_error.h"

namespace archimedes {

std::ifstream OpenInputFile(const std::string& path) {
  std::error_code error;
  const std::filesystem::file_status status = std::filesystem::status(path, error);
  if (status.type() == std::filesystem::file_type::not_found) {
    throw TraceError(path, 0, "no such file");
  }
  if (status.type() == std::filesystem::file_type::directory) {
    throw TraceError(path, 0, "is a folder; a file is expected here");
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) throw TraceError(path, 0, "cannot open the file");
  return in;
}

}  // namespace archimedes
