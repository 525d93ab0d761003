// The dashboard's files (src/server/ui/: its page, style and script), carried in the binary:
// cmake/embed_files.cmake writes EmbeddedUiFiles() from them at build time, so `serve` at /ui
// needs no file beside it and the page needs no network.
#ifndef ARCHIMEDES_SERVER_UI_ASSETS_H_
#define ARCHIMEDES_SERVER_UI_ASSETS_H_

#include <span>
#include <string_view>

namespace archimedes {

struct EmbeddedFile {
  std::string_view name;  // its path under src/server/ui/: "dashboard.js"
  std::string_view bytes;
};

std::span<const EmbeddedFile> EmbeddedUiFiles();

}  // namespace archimedes

#endif  // ARCHIMEDES_SERVER_UI_ASSETS_H_
