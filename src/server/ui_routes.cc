// /ui: the live dashboard (docs/api.md). The page and its assets are the files of src/server/ui/,
// embedded in the binary (server/ui_assets.h); the page is a client of the JSON API, which it
// polls, so the routes here only hand out fixed bytes with their content type.
#include <string>
#include <string_view>

#include "server/router.h"
#include "server/ui_assets.h"

namespace archimedes {
namespace {

std::string ContentTypeOf(std::string_view name) {
  const auto ends_with = [name](std::string_view suffix) { return name.ends_with(suffix); };
  if (ends_with(".html")) return "text/html; charset=utf-8";
  if (ends_with(".js")) return "text/javascript; charset=utf-8";
  if (ends_with(".css")) return "text/css; charset=utf-8";
  if (ends_with(".svg")) return "image/svg+xml";
  return "application/octet-stream";
}

}  // namespace

void AddUiRoutes(Router& router, ApiContext&) {
  for (const EmbeddedFile& file : EmbeddedUiFiles()) {
    const std::string type = ContentTypeOf(file.name);
    if (file.name == "index.html") {
      router.Asset("/ui", type, file.bytes);
      router.Asset("/ui/", type, file.bytes);
    } else {
      router.Asset("/ui/" + std::string(file.name), type, file.bytes);
    }
  }
}

}  // namespace archimedes
