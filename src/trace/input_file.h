// Opening a file the command reads. Every reader of src/trace opens its input here, so a missing
// file, a folder given where a file belongs and an unreadable file each get one clear TraceError
// naming the path, never a bare "read error" at the first line.
#ifndef ARCHIMEDES_TRACE_INPUT_FILE_H_
#define ARCHIMEDES_TRACE_INPUT_FILE_H_

#include <fstream>
#include <string>

namespace archimedes {

std::ifstream OpenInputFile(const std::string& path);

}  // namespace archimedes

#endif  // ARCHIMEDES_TRACE_INPUT_FILE_H_
