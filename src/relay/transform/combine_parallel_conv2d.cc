// CombineParallelConv2D (TVM's combine_parallel_conv2d.cc): at least `minNumBranches` compatible
// groups=1 conv2d calls reading the same data become one conv2d over the concatenated weights,
// followed by one strided_slice per branch; elementwise/broadcast followers that match in every
// branch are combined too. Requires InferType (kernel shapes, follower argument shapes).
#include <algorithm>
#include <cstdint>
#include <unordered_map>
#include <unordered_set>

#include "relay/builder.h"
#include "relay/op/nn.h"
#include "relay/op/tensor.h"
#include "relay/op_registry.h"
#include "relay/transform/combine_parallel_util.h"
#include "relay/transform/passes.h"
#include "relay/visit.h"

namespace tessera::relay {
namespace {

const nn::Conv2DAttrs& convAttrs(const CallNode& c) {
  return *attrsAs<nn::Conv2DAttrs>(c.attrs.get());
}

/// The static kernel shape, or nullopt when the weight is untyped or has symbolic dims.
std::optional<std::vector<int64_t>> kernelShape(const CallNode& c) {
  const Type& t = c.args[1]->checkedType;
  const auto* ty = t ? t->as<TensorTypeNode>() : nullptr;
  if (!ty || ty->ndim() != 4) return std::nullopt;
  return staticShape(ty->shape);
}

std::string outLayout(const nn::Conv2DAttrs& a) {
  return a.outLayout.empty() ? a.dataLayout : a.outLayout;
}

/// TVM's IsSupportedOp: grouped convolutions cannot be split by output channel.
bool isSupported(const CallNode& c) {
  const auto& a = convAttrs(c);
  return a.groups == 1 && kernelShape(c) && a.kernelLayout.size() == 4 &&
         a.kernelLayout.find('O') != std::string::npos &&
         outLayout(a).find('C') != std::string::npos;
}

/// TVM's CanOpsBeCombined: equal attrs (channels aside) and equal kernel height and width.
bool compatible(const CallNode& x, const CallNode& y) {
  const auto& a = convAttrs(x);
  const auto& b = convAttrs(y);
  if (a.strides != b.strides || a.padding != b.padding || a.dilation != b.dilation ||
      a.groups != b.groups || a.dataLayout != b.dataLayout || a.kernelLayout != b.kernelLayout ||
      outLayout(a) != outLayout(b) || !(a.outDtype == b.outDtype))
    return false;
  const auto kx = *kernelShape(x);
  const auto ky = *kernelShape(y);
  const size_t h = a.kernelLayout.find('H');
  const size_t w = a.kernelLayout.find('W');
  return h != std::string::npos && w != std::string::npos && kx[h] == ky[h] && kx[w] == ky[w];
}

int64_t outChannels(const CallNode& c) {
  return (*kernelShape(c))[convAttrs(c).kernelLayout.find('O')];
}

using Consumers = std::unordered_map<const ExprNode*, std::vector<const ExprNode*>>;

/// The callers of each node (a node used twice by one call counts twice, as in TVM).
Consumers consumersOf(const std::vector<Expr>& order) {
  Consumers out;
  // Every kind of user counts (a tuple field too), so a branch only grows through sole users.
  for (const Expr& e : order)
    for (const Expr& child : exprChildren(e)) out[child.get()].push_back(e.get());
  return out;
}

/// The conv followed by its chain of single-consumer elementwise/broadcast op calls.
std::vector<const CallNode*> branchOf(const CallNode* conv, const Consumers& consumers) {
  std::vector<const CallNode*> branch{conv};
  while (true) {
    auto it = consumers.find(branch.back());
    if (it == consumers.end() || it->second.size() != 1) return branch;
    const auto* next = it->second.front()->as<CallNode>();
    const auto* op = next ? next->op->as<OpNode>() : nullptr;
    if (!op || !op->def || op->def->pattern > OpPattern::kBroadcast) return branch;
    branch.push_back(next);
  }
}

const TensorTypeNode* tensorType(const Expr& e) {
  const Type& t = e->checkedType;
  return t ? t->as<TensorTypeNode>() : nullptr;
}

bool sameAttrs(const CallNode& a, const CallNode& b) {
  if (!a.attrs || !b.attrs) return !a.attrs && !b.attrs;
  return a.attrs->equals(*b.attrs);
}

size_t parentIndex(const CallNode& call, const CallNode* parent) {
  size_t i = 0;
  while (i < call.args.size() && call.args[i].get() != parent) ++i;
  return i;
}

/// TVM's IsArgCompatible: the argument has the (unbroadcast) channel dim of the branch's output
/// at the rank-aligned position, and agrees with the first branch's argument elsewhere.
bool argCompatible(const CallNode& a, const CallNode& b, size_t index, size_t channelAxis) {
  const TensorTypeNode* ta = tensorType(a.args[index]);
  const TensorTypeNode* tb = tensorType(b.args[index]);
  const auto* oa = a.checkedType ? a.checkedType->as<TensorTypeNode>() : nullptr;
  const auto* ob = b.checkedType ? b.checkedType->as<TensorTypeNode>() : nullptr;
  if (!ta || !tb || !oa || !ob || !(ta->dtype == tb->dtype) || ta->ndim() != tb->ndim())
    return false;
  // The channel position counted from the right, as broadcasting aligns shapes.
  const int argAxis = static_cast<int>(channelAxis) - oa->ndim() + ta->ndim();
  if (argAxis < 0 || !(ta->shape[argAxis] == oa->shape[channelAxis]) ||
      !(tb->shape[argAxis] == ob->shape[channelAxis]))
    return false;
  for (int i = 0; i < ta->ndim(); ++i)
    if (i != argAxis && !(ta->shape[i] == tb->shape[i])) return false;
  return true;
}

/// An argument computed from a branch cannot be moved before the combined op.
bool dependsOnBranches(const Expr& arg, const std::vector<std::vector<const CallNode*>>& branches,
                       size_t depth) {
  std::unordered_set<const ExprNode*> nodes;
  for (const auto& branch : branches)
    for (size_t d = 0; d <= depth; ++d) nodes.insert(branch[d]);
  for (const Expr& e : postOrder(arg))
    if (nodes.count(e.get())) return true;
  return false;
}

/// TVM's CheckLevel: at `depth` every branch has the same op with equal attrs, fed by its
/// parent at the same argument position, with compatible other arguments.
bool levelCombinable(const std::vector<std::vector<const CallNode*>>& branches, size_t depth,
                     size_t channelAxis) {
  const CallNode& first = *branches.front()[depth];
  const size_t parent = parentIndex(first, branches.front()[depth - 1]);
  for (const auto& branch : branches) {
    const CallNode& call = *branch[depth];
    if (call.op.get() != first.op.get() || !sameAttrs(call, first) ||
        call.args.size() != first.args.size() || parentIndex(call, branch[depth - 1]) != parent)
      return false;
    for (size_t i = 0; i < call.args.size(); ++i)
      if (i != parent && (!argCompatible(first, call, i, channelAxis) ||
                          dependsOnBranches(call.args[i], branches, depth)))
        return false;
  }
  return true;
}

/// The depth-`depth` op applied once to `data`, its other arguments concatenated on the channel.
Expr combineFollower(const std::vector<std::vector<const CallNode*>>& branches, size_t depth,
                     const Expr& data, size_t channelAxis) {
  const CallNode& first = *branches.front()[depth];
  const size_t parent = parentIndex(first, branches.front()[depth - 1]);
  const int outRank = first.checkedType->as<TensorTypeNode>()->ndim();
  std::vector<Expr> args;
  for (size_t i = 0; i < first.args.size(); ++i) {
    if (i == parent) {
      args.push_back(data);
      continue;
    }
    std::vector<Expr> parts;
    for (const auto& branch : branches) parts.push_back(branch[depth]->args[i]);
    const int argRank = tensorType(first.args[i])->ndim();
    args.push_back(concatenate(parts, static_cast<int>(channelAxis) - outRank + argRank));
  }
  return makeCall(first.op, args, first.attrs);
}

/// Combines one group: every branch becomes a slice of the combined conv2d.
Expr combineGroup(const Expr& body, const std::vector<const CallNode*>& group) {
  const CallNode& first = *group.front();
  nn::Conv2DAttrs attrs = convAttrs(first);
  const int kernelO = static_cast<int>(attrs.kernelLayout.find('O'));
  const size_t channelAxis = outLayout(attrs).find('C');
  std::vector<Expr> weights;
  int64_t total = 0;
  for (const CallNode* c : group) {
    weights.push_back(c->args[1]);
    total += outChannels(*c);
  }
  attrs.channels = total;
  // The attrs are copied as they are (TVM does not re-normalize padding as the builder would).
  Expr combined = makeCall(opByName("nn.conv2d"), {first.args[0], concatenate(weights, kernelO)},
                           makeAttrs(std::move(attrs)));
  const Consumers consumers = consumersOf(postOrder(body));
  std::vector<std::vector<const CallNode*>> branches;
  size_t shortest = SIZE_MAX;
  for (const CallNode* c : group) {
    branches.push_back(branchOf(c, consumers));
    shortest = std::min(shortest, branches.back().size());
  }
  // Stop at the first depth where the branches differ; deeper ops stay per branch.
  size_t last = 0;
  while (last + 1 < shortest && levelCombinable(branches, last + 1, channelAxis)) {
    ++last;
    combined = combineFollower(branches, last, combined, channelAxis);
  }
  std::unordered_map<const ExprNode*, Expr> slices;
  int64_t offset = 0;
  for (size_t b = 0; b < group.size(); ++b) {
    const int64_t channels = outChannels(*group[b]);
    std::vector<int64_t> begin(channelAxis, 0), end(channelAxis, -1);
    begin.push_back(offset);
    end.push_back(channels);
    offset += channels;
    slices[branches[b][last]] = stridedSlice(
        combined, begin, end, std::vector<int64_t>(begin.size(), 1), std::nullopt, "size");
  }
  return replaceNodes(body, slices);
}

}  // namespace

Function combineParallelConv2d(const Function& fn, int minNumBranches) {
  return combineParallelOps(fn, "nn.conv2d", minNumBranches, isSupported, compatible, combineGroup);
}

Pass combineParallelConv2dPass(int minNumBranches) {
  return makeFunctionPass(PassInfo{"CombineParallelConv2D", 4, {"InferType"}},
                          [minNumBranches](const Function& fn, const IRModule&, PassContext&) {
                            return combineParallelConv2d(fn, minNumBranches);
                          });
}

}  // namespace tessera::relay
