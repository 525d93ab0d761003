# Writes OUTPUT, a C++ file that defines EmbeddedUiFiles() (server/ui_assets.h): the bytes of
# each of FILES (a ,-separated list of paths under BASE_DIR), named by its path relative to it.
# The dashboard's page and scripts stay real files in the tree, edited and linted as such; the
# binary carries them, so `serve` needs no files beside it and the page no network.
#   cmake -DBASE_DIR= -DFILES= -DOUTPUT= -P embed_files.cmake
cmake_minimum_required(VERSION 3.22)
set(arrays "")
set(entries "")
set(index 0)
string(REPLACE "," ";" files "${FILES}")
foreach(file ${files})
  file(READ "${BASE_DIR}/${file}" hex HEX)
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "'\\\\x\\1'," bytes "${hex}")
  string(APPEND arrays "constexpr char kFile${index}[] = {\n    ${bytes}};\n")
  string(APPEND entries "      EmbeddedFile{\"${file}\", std::string_view(kFile${index}, sizeof kFile${index})},\n")
  math(EXPR index "${index} + 1")
endforeach()
set(text "// Written by cmake/embed_files.cmake from src/server/ui/: do not edit.\n")
string(APPEND text "#include \"server/ui_assets.h\"\n\nnamespace archimedes {\nnamespace {\n\n")
string(APPEND text "${arrays}\n}  // namespace\n\n")
string(APPEND text "std::span<const EmbeddedFile> EmbeddedUiFiles() {\n")
string(APPEND text "  static constexpr EmbeddedFile kFiles[] = {\n${entries}  };\n  return kFiles;\n}\n\n")
string(APPEND text "}  // namespace archimedes\n")
include("${CMAKE_CURRENT_LIST_DIR}/write_if_changed.cmake")
write_if_changed("${OUTPUT}" "${text}")
