// A compiled graph model as the graph executor runs it: the kernels, the description and the
// parameters — what `tessera compile` writes to a directory (kernels.so, graph.json, params.npz)
// and what a program linking only the runtime loads back.
#pragma once

#include <map>
#include <string>

#include "runtime/graph_executor/graph_description.h"
#include "runtime/module.h"
#include "runtime/ndarray.h"

namespace tessera::runtime {

struct GraphModel {
  Module lib;  ///< not loaded when the graph calls no kernel
  GraphDescription graph;
  std::map<std::string, NDArray> params;  ///< by the names in graph.params
};

/// The file names inside a model directory.
inline constexpr const char* kModelLibraryFile = "kernels.so";
inline constexpr const char* kModelGraphFile = "graph.json";
inline constexpr const char* kModelParamsFile = "params.npz";

/// Opens a directory written by `tessera compile` (driver::exportBuilt), in any process.
/// DiagnosticError (codes "export", "graph_json", "codegen_load") naming the file that is missing
/// or malformed, or the parameter that does not match graph.json.
GraphModel loadGraphModel(const std::string& dir);
/// Whether `path` is a directory holding a graph.json.
bool isGraphModelDirectory(const std::string& path);

}  // namespace tessera::runtime
