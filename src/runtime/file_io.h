// Whole-file reads and writes for the files a compiled module is made of (graph.json, vm.json,
// ...): a write goes to a temporary file renamed into place, so a file is written whole or not at
// all.
#pragma once

#include <string>

namespace tessera::runtime {

/// The file's bytes; DiagnosticError (`code`) naming it when it cannot be opened.
std::string readWholeFile(const std::string& path, const std::string& code = "export");
/// Writes `text` to `path` through a temporary file and a rename, removing the temporary file on
/// failure; DiagnosticError (`code`) naming the file.
void writeWholeFile(const std::string& path, const std::string& text,
                    const std::string& code = "export");

}  // namespace tessera::runtime
