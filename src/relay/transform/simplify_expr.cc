// SimplifyExpr (TVM's simplify_expr.cc, the subset listed in the spec §4.13): a table of small
// algebraic rules — merge reshape and transpose chains, drop no-op reshapes, transposes, casts and
// pads. Requires InferType: the rules compare static shapes and dtypes. With the config key
// "relay.SimplifyExpr.trace" set, each rule that fires is printed.
#include <iostream>
#include <numeric>
#include <optional>

#include "relay/builder.h"
#include "relay/transform/passes.h"
#include "relay/type_infer.h"
#include "relay/visit.h"

namespace tessera::relay {
namespace {

const CallNode* callTo(const Expr& e, std::initializer_list<const char*> names) {
  const auto* call = e ? e->as<CallNode>() : nullptr;
  const auto* op = call ? call->op->as<OpNode>() : nullptr;
  if (!op) return nullptr;
  for (const char* n : names)
    if (op->name == n) return call;
  return nullptr;
}

const TensorTypeNode* tensorOf(const Expr& e) {
  return e && e->checkedType ? e->checkedType->as<TensorTypeNode>() : nullptr;
}

std::optional<std::vector<int64_t>> staticShapeOf(const Expr& e) {
  const TensorTypeNode* t = tensorOf(e);
  return t ? staticShape(t->shape) : std::nullopt;
}

/// A transpose's permutation with None and negative axes resolved.
std::vector<int64_t> permutation(const CallNode& call, int ndim) {
  const auto& axes = attrsAs<TransposeAttrs>(call.attrs.get())->axes;
  std::vector<int64_t> perm(ndim);
  if (!axes) {
    for (int i = 0; i < ndim; ++i) perm[i] = ndim - 1 - i;
    return perm;
  }
  for (int i = 0; i < ndim; ++i) perm[i] = (*axes)[i] < 0 ? (*axes)[i] + ndim : (*axes)[i];
  return perm;
}

bool isIdentity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

/// A rule sees the typed original call (`node`, `orig`) and its rebuilt form (whose arguments are
/// already simplified, untyped); it returns the replacement, or null when it does not apply.
struct Rule {
  const char* name;
  Expr (*apply)(const Expr& node, const CallNode& orig, const CallNode& rebuilt);
};

Expr reshapeChain(const Expr& node, const CallNode& orig, const CallNode& rebuilt) {
  const CallNode* inner = callTo(rebuilt.args[0], {"reshape", "expand_dims", "squeeze"});
  auto shape = staticShapeOf(node);
  if (!callTo(node, {"reshape"}) || !inner || !shape) return nullptr;
  // Only the final shape matters, so every reshape-like layer underneath is peeled off.
  Expr source = inner->args[0];
  while (const CallNode* deeper = callTo(source, {"reshape", "expand_dims", "squeeze"}))
    source = deeper->args[0];
  return reshape(source, *shape);
}

Expr noopReshape(const Expr& node, const CallNode& orig, const CallNode& rebuilt) {
  if (!callTo(node, {"reshape", "expand_dims", "squeeze"})) return nullptr;
  auto in = staticShapeOf(orig.args[0]);
  auto out = staticShapeOf(node);
  return in && out && *in == *out ? rebuilt.args[0] : nullptr;
}

Expr transposeChain(const Expr& node, const CallNode& orig, const CallNode& rebuilt) {
  const CallNode* inner = callTo(rebuilt.args[0], {"transpose"});
  const TensorTypeNode* t = tensorOf(node);
  if (!callTo(node, {"transpose"}) || !inner || !t) return nullptr;
  const std::vector<int64_t> outer = permutation(orig, t->ndim());
  const std::vector<int64_t> first = permutation(*inner, t->ndim());
  std::vector<int64_t> composed(outer.size());
  // Output axis i reads axis outer[i] of the inner result, which is axis first[outer[i]] of x.
  for (size_t i = 0; i < outer.size(); ++i) composed[i] = first[outer[i]];
  if (isIdentity(composed)) return inner->args[0];
  return transpose(inner->args[0], composed);
}

Expr noopTranspose(const Expr& node, const CallNode& orig, const CallNode& rebuilt) {
  const TensorTypeNode* t = tensorOf(node);
  if (!callTo(node, {"transpose"}) || !t) return nullptr;
  return isIdentity(permutation(orig, t->ndim())) ? rebuilt.args[0] : nullptr;
}

Expr noopCast(const Expr& node, const CallNode& orig, const CallNode& rebuilt) {
  const TensorTypeNode* in = tensorOf(orig.args[0]);
  if (!callTo(node, {"cast"}) || !in) return nullptr;
  return attrsAs<CastAttrs>(orig.attrs.get())->dtype == in->dtype ? rebuilt.args[0] : nullptr;
}

Expr noopPad(const Expr& node, const CallNode& orig, const CallNode& rebuilt) {
  if (!callTo(node, {"nn.pad"})) return nullptr;
  for (const auto& widths : attrsAs<nn::PadAttrs>(orig.attrs.get())->padWidth)
    for (int64_t w : widths)
      if (w != 0) return nullptr;
  return rebuilt.args[0];
}

const std::vector<Rule>& rules() {
  static const std::vector<Rule> table = {
      {"reshape_chain", reshapeChain},
      {"noop_reshape", noopReshape},
      {"transpose_chain", transposeChain},
      {"noop_transpose", noopTranspose},
      {"noop_cast", noopCast},
      {"noop_pad", noopPad},
  };
  return table;
}

}  // namespace

Expr simplifyExpr(const Expr& e, std::ostream* trace) {
  return rewriteBottomUp(e, [&](const Expr& node, const std::vector<Expr>& kids) {
    Expr rebuilt = withChildren(node, kids);
    const auto* orig = node->as<CallNode>();
    // Every rule rewrites a call of its first argument; nullary calls (zeros, ones) have none.
    if (!orig || orig->args.empty()) return rebuilt;
    for (const Rule& rule : rules()) {
      Expr result = rule.apply(node, *orig, *rebuilt->as<CallNode>());
      if (!result) continue;
      if (trace)
        *trace << "SimplifyExpr: " << rule.name << " fired on " << exprSummary(node) << "\n";
      return result;
    }
    return rebuilt;
  });
}

Pass simplifyExprPass() {
  return makeFunctionPass(PassInfo{"SimplifyExpr", 0, {"InferType"}}, [](const Function& fn,
                                                                         const IRModule&,
                                                                         PassContext& ctx) {
    const Function typed = fn->body->checkedType ? fn : exprAs<FunctionNode>(inferExprTypes(fn));
    const bool traced = ctx.config.count("relay.SimplifyExpr.trace") != 0;
    std::ostream* out = ctx.printStream ? ctx.printStream : &std::cerr;
    return exprAs<FunctionNode>(simplifyExpr(typed, traced ? out : nullptr));
  });
}

}  // namespace tessera::relay
