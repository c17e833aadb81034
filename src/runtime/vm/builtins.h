// The VM's builtins: the kernels of ops whose output extents come from the data (argwhere,
// unique, all-class non-maximum suppression, dyn.topk) or whose values are shapes (shape_of). A
// `call_builtin` instruction passes them its tensors; each allocates its results, and the VM binds
// their `?` dims with `match_shape`. They are runtime code, so an executable that uses them still
// runs without the compiler; the reference interpreter's kernels (relay/op/) are the separate
// oracle they are tested against.
#pragma once

#include <string>
#include <vector>

#include "runtime/vm/vm.h"

namespace tessera::runtime::vm {

/// The builtin named `name` ("argwhere", "unique", "vision.all_class_non_max_suppression",
/// "dyn.topk", "shape_of"), or nullptr.
const Builtin* findBuiltin(const std::string& name);

}  // namespace tessera::runtime::vm
