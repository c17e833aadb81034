// CombineParallelDense (TVM's combine_parallel_dense.cc, default to_batch=True): at least
// `minNumBranches` nn.dense calls reading the same data with identical input/weight shapes and
// dtypes become one nn.batch_matmul over stacked inputs and weights, then split + squeeze per
// branch. Requires InferType. Followers are not combined; to_batch=False is not implemented.
#include <unordered_map>

#include "relay/builder.h"
#include "relay/op/nn.h"
#include "relay/op/tensor.h"
#include "relay/transform/combine_parallel_util.h"
#include "relay/transform/passes.h"

namespace tessera::relay {
namespace {

const TensorTypeNode* tensorType(const Expr& e) {
  const Type& t = e->checkedType;
  return t ? t->as<TensorTypeNode>() : nullptr;
}

/// Stacking needs every argument typed as a tensor.
bool isSupported(const CallNode& c) {
  return tensorType(c.args[0]) && tensorType(c.args[1]);
}

/// TVM's ParallelDenseToBatchCombiner::CanOpsBeCombined: equal out_dtype and, argument by
/// argument, equal shapes and dtypes (stack needs them).
bool compatible(const CallNode& x, const CallNode& y) {
  if (!(attrsAs<nn::DenseAttrs>(x.attrs.get())->outDtype ==
        attrsAs<nn::DenseAttrs>(y.attrs.get())->outDtype))
    return false;
  for (size_t i = 0; i < 2; ++i) {
    const TensorTypeNode* a = tensorType(x.args[i]);
    const TensorTypeNode* b = tensorType(y.args[i]);
    if (!(a->shape == b->shape) || !(a->dtype == b->dtype)) return false;
  }
  return true;
}

/// Combines one group: branch i becomes squeeze(split(batch_matmul(...), B)[i], axis=[0]).
Expr combineGroup(const Expr& body, const std::vector<const CallNode*>& group) {
  std::vector<Expr> inputs, weights;
  for (const CallNode* c : group) {
    inputs.push_back(c->args[0]);
    weights.push_back(c->args[1]);
  }
  const DataType outDtype = attrsAs<nn::DenseAttrs>(group.front()->attrs.get())->outDtype;
  const Expr combined = nn::batchMatmul(stack(inputs, 0), stack(weights, 0), outDtype, false, true);
  const Expr parts = split(combined, static_cast<int64_t>(group.size()), 0);
  std::unordered_map<const ExprNode*, Expr> outputs;
  for (size_t i = 0; i < group.size(); ++i)
    outputs[group[i]] = squeeze(tupleGetItem(parts, static_cast<int>(i)), std::vector<int64_t>{0});
  return replaceNodes(body, outputs);
}

}  // namespace

Function combineParallelDense(const Function& fn, int minNumBranches) {
  return combineParallelOps(fn, "nn.dense", minNumBranches, isSupported, compatible, combineGroup);
}

Pass combineParallelDensePass(int minNumBranches) {
  return makeFunctionPass(PassInfo{"CombineParallelDense", 4, {"InferType"}},
                          [minNumBranches](const Function& fn, const IRModule&, PassContext&) {
                            return combineParallelDense(fn, minNumBranches);
                          });
}

}  // namespace tessera::relay
