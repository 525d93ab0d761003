#include "trace/output_file.h"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <stdexcept>
#include <vector>

#include "trace/trace_error.h"

namespace archimedes {
namespace {

namespace fs = std::filesystem;

[[noreturn]] void FailWithErrno(const std::string& path, const std::string& what) {
  throw TraceError(path, 0, what + ": " + std::strerror(errno));
}

// Creates an empty temporary file beside `path` and returns its name.
std::string CreateTemporaryBeside(const std::string& path) {
  std::error_code error;
  if (fs::is_directory(path, error)) throw TraceError(path, 0, "is a folder, not a file");
  std::string pattern = path + ".tmp-XXXXXX";
  std::vector<char> name(pattern.begin(), pattern.end());
  name.push_back('\0');
  const int fd = mkstemp(name.data());
  if (fd < 0) FailWithErrno(path, "cannot create a file in its folder");
  // mkstemp makes the file private; the output gets the permissions of any file the user creates.
  const mode_t mask = umask(0);
  umask(mask);
  fchmod(fd, 0666 & ~mask);
  close(fd);
  return name.data();
}

void RenameOver(const std::string& temporary, const std::string& path) {
  if (std::rename(temporary.c_str(), path.c_str()) != 0) {
    const int saved = errno;
    std::remove(temporary.c_str());
    errno = saved;
    FailWithErrno(path, "cannot replace the file");
  }
}

// Throws std::logic_error at the first number that is not finite.
bool AllFinite(const nlohmann::json& value) {
  if (value.is_number_float()) return std::isfinite(value.get<double>());
  if (value.is_structured()) {
    for (const nlohmann::json& member : value) {
      if (!AllFinite(member)) return false;
    }
  }
  return true;
}

// Names the first number that is not finite by its JSON path. Paths are built only on the way to
// it: building one per value would cost more than the check.
void RequireFinite(const nlohmann::json& value, const std::string& path) {
  if (AllFinite(value)) return;
  if (value.is_number_float()) {
    throw std::logic_error("internal error: the output's " + (path.empty() ? "value" : path) +
                           " is " + (std::isnan(value.get<double>()) ? "NaN" : "infinite"));
  }
  if (value.is_object()) {
    for (const auto& [key, member] : value.items()) {
      RequireFinite(member, path.empty() ? key : path + "." + key);
    }
  } else {
    for (size_t i = 0; i < value.size(); ++i) {
      RequireFinite(value[i], path + "[" + std::to_string(i) + "]");
    }
  }
}

}  // namespace

void CheckWritable(const std::string& path) {
  const std::string temporary = CreateTemporaryBeside(path);
  std::remove(temporary.c_str());
}

void WriteFileAtomically(const std::string& path, std::string_view text) {
  AtomicOutputFile file(path);
  file.Write(text);
  file.Commit();
}

std::string FormatJsonDocument(const nlohmann::json& document, int indent) {
  RequireFinite(document, "");
  return document.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

std::string FormatJsonValue(const nlohmann::json& value, const std::string& path) {
  RequireFinite(value, path);
  return value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
}

void WriteJsonFile(const std::string& path, const nlohmann::json& document, int indent) {
  WriteFileAtomically(path, FormatJsonDocument(document, indent));
}

AtomicOutputFile::AtomicOutputFile(std::string path)
    : path_(std::move(path)),
      temporary_(CreateTemporaryBeside(path_)),
      out_(temporary_, std::ios::binary | std::ios::trunc) {
  if (!out_) {
    std::remove(temporary_.c_str());
    throw TraceError(path_, 0, "cannot open a temporary file beside it");
  }
}

AtomicOutputFile::~AtomicOutputFile() {
  if (!committed_) std::remove(temporary_.c_str());
}

void AtomicOutputFile::Write(std::string_view text) {
  out_.write(text.data(), static_cast<std::streamsize>(text.size()));
  if (!out_) throw TraceError(path_, 0, "cannot write (disk full?)");
}

void AtomicOutputFile::Commit() {
  out_.close();
  if (!out_) throw TraceError(path_, 0, "cannot write (disk full?)");
  RenameOver(temporary_, path_);
  committed_ = true;
}

}  // namespace archimedes
