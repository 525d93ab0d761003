// The profiles file (docs/profiles.md): what `archimedes profile --out` writes and `archimedes
// simulate --profiles` reads, a ProfileSet as JSON.
//
// Reading is strict (trace/json_reader.h): every key of the schema is required but an
// application's `request`, and an unknown key is an error, as are another format or version, bins
// that do not divide a day, a curve of another length, an application whose class does not exist
// and an application given twice. Errors are JsonError naming the file and the JSON path
// (`applications[3].mean.cpu`); TraceError for a file that cannot be read or is not JSON.
#ifndef ARCHIMEDES_TRACE_PROFILE_FILE_H_
#define ARCHIMEDES_TRACE_PROFILE_FILE_H_

#include <string>

#include <nlohmann/json.hpp>

#include "profile/profile.h"
#include "trace/json_reader.h"

namespace archimedes {

ProfileSet ReadProfilesFile(const std::string& path);
// The same, of a document already parsed (a request body): JsonError names `document`'s source.
ProfileSet ReadProfilesJson(const JsonValue& document);

// The file's JSON document (docs/profiles.md), as the service also shows it (GET /v1/profiles).
nlohmann::json ProfilesJson(const ProfileSet& profiles);

// Writes what ReadProfilesFile reads back (floats as their shortest text). Throws TraceError when
// the file cannot be written.
void WriteProfilesFile(const ProfileSet& profiles, const std::string& path);

}  // namespace archimedes

#endif  // ARCHIMEDES_TRACE_PROFILE_FILE_H_
