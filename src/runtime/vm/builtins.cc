// The builtin table, the helpers the builtins share, and argwhere.
#include "runtime/vm/builtins.h"

#include <map>

#include "runtime/vm/builtin_ops.h"
#include "support/diagnostic.h"

namespace tessera::runtime::vm {

const Builtin* findBuiltin(const std::string& name) {
  static const std::map<std::string, Builtin> table = {
      {"argwhere", builtin::argwhere},
      {"unique", builtin::unique},
      {"vision.all_class_non_max_suppression", builtin::allClassNms},
      {"dyn.topk", builtin::topK},
      {"shape_of", builtin::shapeOf},
      {"scatter_elements", builtin::scatterElements},
      {"dyn.reshape", builtin::dynReshape},
      {"dyn.strided_slice", builtin::dynStridedSlice},
  };
  auto it = table.find(name);
  return it == table.end() ? nullptr : &it->second;
}

namespace builtin {

const NDArray& argAt(const std::vector<NDArray>& args, size_t i, const char* builtin) {
  if (i >= args.size() || !args[i].defined())
    throwDiagnostic("vm_builtin",
                    std::string(builtin) + ": argument " + std::to_string(i) + " is missing");
  return args[i];
}

std::vector<int64_t> attrsOf(const std::vector<NDArray>& args, size_t count, const char* builtin) {
  const NDArray& a = argAt(args, args.empty() ? 0 : args.size() - 1, builtin);
  if (a.dtype() != DataType::int64() || a.ndim() != 1 || a.numel() < static_cast<int64_t>(count))
    throwDiagnostic("vm_builtin", std::string(builtin) + ": the attributes must be " +
                                      std::to_string(count) + " int64 values, got " + a.describe());
  return std::vector<int64_t>(a.as<int64_t>(), a.as<int64_t>() + a.numel());
}

// Two passes over the data: count, then write the coordinates of each non-zero element.
VMValue argwhere(const std::vector<NDArray>& args) {
  const NDArray& x = argAt(args, 0, "argwhere");
  const std::vector<int64_t>& shape = x.shape();
  const auto rank = static_cast<int64_t>(shape.size());
  return withValues(x, [&](const auto& v) {
    int64_t count = 0;
    for (const auto& e : v) count += e != 0 ? 1 : 0;
    NDArray out = NDArray::empty({count, rank}, DataType::int64());
    int64_t* row = out.as<int64_t>();
    std::vector<int64_t> coord(static_cast<size_t>(rank), 0);
    for (const auto& e : v) {
      if (e != 0) row = std::copy(coord.begin(), coord.end(), row);
      // Advance the coordinate odometer, last axis fastest.
      for (int64_t k = rank - 1; k >= 0; --k) {
        if (++coord[k] < shape[k]) break;
        coord[k] = 0;
      }
    }
    return VMValue{out, nullptr};
  });
}

}  // namespace builtin
}  // namespace tessera::runtime::vm
