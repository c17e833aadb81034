// Graph packing (spec vta.md §8). One bottom-up rewrite tracks, for each rewritten value, whether
// it is held packed — `(N/b, C'/c, H, W, b, c)` for an original NCHW `(N, C, H, W)` whose
// channels were padded to C' — and each op either keeps a packed value packed (elementwise ops,
// broadcasts against packed or packable operands, the convolution itself) or receives its inputs
// unpacked. Which convolutions pack follows the variant (graph_pack.h); TVM's region is the span
// of post-order positions between the start and the stop call, which is exactly the stretch of
// TVM's A-normal-form let chain between its bitpack_start and bitpack_end annotations.
#include "vta/graph/graph_pack.h"

#include <unordered_map>

#include "relay/builder.h"
#include "relay/op/nn.h"
#include "relay/op/tensor.h"
#include "relay/op_registry.h"
#include "relay/type_infer.h"
#include "relay/visit.h"
#include "support/diagnostic.h"

namespace tessera::vta {

std::string GraphPackOptions::dataLayout() const {
  return "NCHW" + std::to_string(bfactor) + "n" + std::to_string(cfactor) + "c";
}

std::string GraphPackOptions::kernelLayout() const {
  return "OIHW" + std::to_string(cfactor) + "o" + std::to_string(cfactor) + "i";
}

namespace {

using namespace relay;

/// A packed value's original NCHW extents and its channel count after padding.
struct PackedInfo {
  int64_t n = 0, c = 0, h = 0, w = 0;
  int64_t paddedC = 0;
};

int64_t roundUp(int64_t v, int64_t factor) {
  return (v + factor - 1) / factor * factor;
}

const TensorTypeNode* tensorTypeOf(const Expr& e) {
  return e->checkedType ? e->checkedType->as<TensorTypeNode>() : nullptr;
}

const std::string& opName(const CallNode& call) {
  static const std::string kNone;
  const auto* op = call.op->as<OpNode>();
  return op ? op->name : kNone;
}

[[noreturn]] void fail(const CallNode& call, const std::string& message) {
  throwDiagnostic("graph_pack", message, call.span, opName(call));
}

/// The static extents of `e`'s tensor type, or an error at `at`.
std::vector<int64_t> staticShape(const Expr& e, const CallNode& at) {
  const TensorTypeNode* type = tensorTypeOf(e);
  if (!type) fail(at, "an operand of " + opName(at) + " is not a tensor");
  std::vector<int64_t> dims;
  for (const Dim& d : type->shape) {
    if (!d.isConst())
      fail(at, "graph packing needs static shapes, found " + shapeToString(type->shape) + " at " +
                   opName(at));
    dims.push_back(d.value());
  }
  return dims;
}

/// nn.pad with zeros (an int32 `0`, as TVM's graph_pack writes it) on the upper sides given.
Expr padUpper(Expr e, const std::vector<int64_t>& after) {
  nn::PadAttrs attrs;
  for (int64_t a : after) attrs.padWidth.push_back({0, a});
  return nn::pad(std::move(e), scalar(0, DataType::int32()), attrs);
}

bool anyPositive(const std::vector<int64_t>& v) {
  for (int64_t x : v)
    if (x > 0) return true;
  return false;
}

/// Ops that compute element by element and keep their operand's shape, so a packed operand
/// stays packed. The annotations are opaque to fusion but are identities here.
bool isLayoutAgnosticUnary(const CallNode& call) {
  const std::string& name = opName(call);
  if (name == "annotation.stop_fusion" || name == "annotation.cast_hint") return true;
  const OpDef* def = OpRegistry::global().find(name);
  return def && def->pattern == OpPattern::kElemWise && call.args.size() == 1;
}

bool isBroadcastBinary(const CallNode& call) {
  const OpDef* def = OpRegistry::global().find(opName(call));
  return def && def->pattern == OpPattern::kBroadcast && call.args.size() == 2;
}

class GraphPacker {
 public:
  GraphPacker(const GraphPackOptions& options, const Function& typed)
      : opt_(options), seedVariant_(!options.hasRegion()) {
    if (!seedVariant_) findRegion(typed->body);
  }

  Expr run(const Expr& body) {
    Expr result = rewriteBottomUp(body, [this](const Expr& node, const std::vector<Expr>& kids) {
      return visit(node, kids);
    });
    // The seed's tool leaves the result packed (its printout shows it); TVM's unpacks at its stop.
    return seedVariant_ ? result : unpack(result);
  }

 private:
  void findRegion(const Expr& body);
  bool inRegion(const ExprNode* node) const {
    auto it = position_.find(node);
    return it != position_.end() && it->second > startPos_ && it->second < stopPos_;
  }
  Expr visit(const Expr& node, const std::vector<Expr>& children);
  Expr visitCall(const CallNode& call, const Expr& node, const std::vector<Expr>& children);
  Expr packConv(const CallNode& call, const Expr& node, const std::vector<Expr>& children);
  Expr packBroadcast(const CallNode& call, const Expr& node, const std::vector<Expr>& children);
  Expr packedOperand(const Expr& original, const Expr& rewritten, const PackedInfo& like,
                     const CallNode& at);

  Expr packData(const Expr& e, const std::vector<int64_t>& nchw, bool allowPad, const CallNode& at);
  Expr packWeight(const Expr& e, const std::vector<int64_t>& oihw, int64_t paddedO,
                  int64_t paddedI);
  Expr packChannelConstant(const Expr& e, const std::vector<int64_t>& chw, int64_t paddedC);
  Expr unpack(const Expr& e);
  Expr hold(Expr e, PackedInfo info) {
    packed_[e.get()] = {e, info};
    return e;
  }
  const PackedInfo* packedInfo(const Expr& e) const {
    auto it = packed_.find(e.get());
    return it == packed_.end() ? nullptr : &it->second.info;
  }

  struct Held {
    Expr keepAlive;  // pins the node so its address is not reused while it is a key
    PackedInfo info;
  };

  const GraphPackOptions& opt_;
  const bool seedVariant_;
  std::unordered_map<const ExprNode*, size_t> position_;  // post-order index of original nodes
  size_t startPos_ = 0, stopPos_ = 0;
  const ExprNode* start_ = nullptr;
  const ExprNode* stop_ = nullptr;
  std::unordered_map<const ExprNode*, Held> packed_;
  std::unordered_map<const ExprNode*, Expr> unpacked_;    // packed value -> its unpacking
  std::unordered_map<const ExprNode*, Expr> packedFrom_;  // unpacked value -> its packing
};

// The start is the first call of startName (or the call at startNameIdx); the stop is the first
// call of stopName after it (or the one at stopNameIdx). Indices count calls, and constants too
// under countMeta, in post order: TVM's operator index over its let chain.
void GraphPacker::findRegion(const Expr& body) {
  const std::vector<Expr> order = postOrder(body);
  int64_t index = -1;
  for (size_t pos = 0; pos < order.size(); ++pos) {
    const ExprNode* node = order[pos].get();
    position_[node] = pos;
    const auto* call = node->as<CallNode>();
    if (call || (opt_.countMeta && node->as<ConstantNode>())) ++index;
    if (!call) continue;
    const std::string& name = opName(*call);
    const bool startHere =
        opt_.startNameIdx ? index == *opt_.startNameIdx : opt_.startName && name == *opt_.startName;
    if (!start_ && startHere) {
      start_ = node;
      startPos_ = pos;
      continue;
    }
    const bool stopHere =
        opt_.stopNameIdx ? index == *opt_.stopNameIdx : opt_.stopName && name == *opt_.stopName;
    if (start_ && !stop_ && stopHere) {
      stop_ = node;
      stopPos_ = pos;
    }
  }
  auto describe = [](const std::optional<std::string>& name, const std::optional<int64_t>& idx) {
    return idx ? "operator index " + std::to_string(*idx) : "a call of '" + name.value_or("") + "'";
  };
  if (!start_)
    throwDiagnostic("graph_pack", "the function has no " +
                                      describe(opt_.startName, opt_.startNameIdx) +
                                      " to start packing at");
  if (!stop_)
    throwDiagnostic("graph_pack", "the function has no " +
                                      describe(opt_.stopName, opt_.stopNameIdx) +
                                      " after the start of packing to stop at");
}

Expr GraphPacker::visit(const Expr& node, const std::vector<Expr>& children) {
  if (const auto* call = node->as<CallNode>()) return visitCall(*call, node, children);
  // Tuples, projections, lets and the rest see original layouts.
  std::vector<Expr> restored;
  for (const Expr& child : children) restored.push_back(unpack(child));
  return withChildren(node, restored);
}

Expr GraphPacker::visitCall(const CallNode& call, const Expr& node,
                            const std::vector<Expr>& children) {
  const std::string& name = opName(call);
  auto unpackedCall = [&] {
    std::vector<Expr> restored;
    for (const Expr& child : children) restored.push_back(unpack(child));
    return withChildren(node, restored);
  };
  if (node.get() == stop_) return unpackedCall();
  if (node.get() == start_) {
    Expr started = unpackedCall();
    return packData(started, staticShape(node, call), /*allowPad=*/false, call);
  }
  if (name == "nn.conv2d") {
    const TensorTypeNode* out = tensorTypeOf(node);
    const bool packs = seedVariant_ ? out && !out->dtype.isFloat() : inRegion(node.get());
    if (packs) return packConv(call, node, children);
    return unpackedCall();
  }
  const bool anyPacked = [&] {
    for (size_t i = 1; i < children.size(); ++i)
      if (packedInfo(children[i])) return true;
    return false;
  }();
  if (!anyPacked) return withChildren(node, children);
  if (isLayoutAgnosticUnary(call)) {
    const PackedInfo info = *packedInfo(children[1]);
    return hold(withChildren(node, children), info);
  }
  if (name == "nn.bias_add") {
    const auto* attrs = attrsAs<nn::BiasAddAttrs>(call.attrs.get());
    const PackedInfo* info = packedInfo(children[1]);
    const std::vector<int64_t> bias = staticShape(call.args[1], call);
    if (info && (!attrs || attrs->axis == 1) && bias.size() == 1 && bias[0] == info->c) {
      // TVM's rewrite: bias_add becomes add of the packed (C, 1, 1) constant.
      Expr chw = reshape(children[2], {info->c, 1, 1});
      return hold(add(children[1], packChannelConstant(chw, {info->c, 1, 1}, info->paddedC)),
                  *info);
    }
    return unpackedCall();
  }
  if (name == "nn.pad") {
    const auto* attrs = attrsAs<nn::PadAttrs>(call.attrs.get());
    const PackedInfo* info = packedInfo(children[1]);
    if (info && attrs && attrs->padWidth.size() == 4 && attrs->padMode == "constant" &&
        !anyPositive(attrs->padWidth[0]) && !anyPositive(attrs->padWidth[1])) {
      nn::PadAttrs packedAttrs = *attrs;
      packedAttrs.padWidth.push_back({0, 0});
      packedAttrs.padWidth.push_back({0, 0});
      const std::vector<int64_t> out = staticShape(node, call);
      PackedInfo padded = *info;
      padded.h = out[2];
      padded.w = out[3];
      return hold(nn::pad(children[1], children[2], packedAttrs), padded);
    }
    return unpackedCall();
  }
  if (isBroadcastBinary(call))
    if (Expr e = packBroadcast(call, node, children)) return e;
  return unpackedCall();
}

Expr GraphPacker::packConv(const CallNode& call, const Expr& node,
                           const std::vector<Expr>& children) {
  const auto* attrs = attrsAs<nn::Conv2DAttrs>(call.attrs.get());
  const TensorTypeNode* dataType = tensorTypeOf(call.args[0]);
  const TensorTypeNode* weightType = tensorTypeOf(call.args[1]);
  if (!attrs || !dataType || !weightType) fail(call, "nn.conv2d is not typed");
  if (attrs->dataLayout != "NCHW" || attrs->kernelLayout != "OIHW")
    fail(call, "nn.conv2d must be NCHW/OIHW to be packed, found data_layout=\"" +
                   attrs->dataLayout + "\" kernel_layout=\"" + attrs->kernelLayout + "\"");
  if (attrs->groups != 1)
    fail(call, "grouped nn.conv2d (groups=" + std::to_string(attrs->groups) +
                   ") cannot be packed for VTA");
  for (int64_t d : attrs->dilation)
    if (d != 1) fail(call, "VTA convolutions need dilation 1, found " + std::to_string(d));
  const TensorTypeNode* outType = tensorTypeOf(node);
  auto isInt = [](const TensorTypeNode* t, int bits) {
    return t && t->dtype.isInt() && t->dtype.bits() == bits;
  };
  if (!isInt(dataType, 8) || !isInt(weightType, 8) || !isInt(outType, 32))
    fail(call, "VTA convolutions are int8 x int8 -> int32, found " + dataType->dtype.name() +
                   " x " + weightType->dtype.name() + " -> " +
                   (outType ? outType->dtype.name() : std::string("?")));
  if (opt_.weightBits != 8)
    fail(call, "weight_bits " + std::to_string(opt_.weightBits) +
                   " needs bit packing, which is not supported (only 8)");

  Expr data = children[1];
  const PackedInfo* dataInfo = packedInfo(data);
  if (!dataInfo) {
    data = packData(data, staticShape(call.args[0], call), /*allowPad=*/true, call);
    dataInfo = packedInfo(data);
  }
  const std::vector<int64_t> oihw = staticShape(call.args[1], call);
  const int64_t paddedO = roundUp(oihw[0], opt_.cfactor);
  Expr weight = packWeight(children[2], oihw, paddedO, dataInfo->paddedC);

  nn::Conv2DAttrs packed = *attrs;
  packed.dataLayout = opt_.dataLayout();
  packed.kernelLayout = opt_.kernelLayout();
  packed.channels = paddedO;
  Expr conv = makeCall(children[0], {data, weight}, makeAttrs(packed), call.span);
  const std::vector<int64_t> out = staticShape(node, call);
  return hold(conv, PackedInfo{out[0], out[1], out[2], out[3], paddedO});
}

// A broadcast (add, multiply, right_shift, ...) with a packed operand stays packed when every
// other operand can be brought to the packed layout and the result has the packed operand's
// shape; otherwise null (the caller unpacks).
Expr GraphPacker::packBroadcast(const CallNode& call, const Expr& node,
                                const std::vector<Expr>& children) {
  const PackedInfo* like =
      packedInfo(children[1]) ? packedInfo(children[1]) : packedInfo(children[2]);
  const std::vector<int64_t> out = staticShape(node, call);
  if (out != std::vector<int64_t>{like->n, like->c, like->h, like->w}) return nullptr;
  std::vector<Expr> args = {children[0]};
  for (size_t i = 0; i < 2; ++i) {
    const Expr& rewritten = children[i + 1];
    if (const PackedInfo* info = packedInfo(rewritten)) {
      if (info->n != like->n || info->c != like->c || info->h != like->h || info->w != like->w ||
          info->paddedC != like->paddedC)
        return nullptr;
      args.push_back(rewritten);
      continue;
    }
    Expr operand = packedOperand(call.args[i], rewritten, *like, call);
    if (!operand) return nullptr;
    args.push_back(operand);
  }
  return hold(makeCall(args[0], {args[1], args[2]}, call.attrs, call.span), *like);
}

// An unpacked broadcast operand in the packed layout of `like`: a scalar as it is; a per-channel
// constant (C, H', W') — or the same with unit leading axes — channel-packed; an operand that
// broadcasts over channels reshaped to 6-D unit axes; a full NCHW tensor data-packed.
Expr GraphPacker::packedOperand(const Expr& original, const Expr& rewritten, const PackedInfo& like,
                                const CallNode& at) {
  std::vector<int64_t> shape = staticShape(original, at);
  if (shape.empty()) return rewritten;
  if (shape.size() > 4) return nullptr;
  const bool channelMajor = shape.size() == 3;  // already (C, H', W'): no reshape needed
  while (shape.size() < 4) shape.insert(shape.begin(), 1);
  const int64_t n = shape[0], c = shape[1], h = shape[2], w = shape[3];
  if ((h != 1 && h != like.h) || (w != 1 && w != like.w)) return nullptr;
  if (n == like.n && c == like.c && (n != 1 || (h == like.h && w == like.w)))
    return packData(rewritten, shape, /*allowPad=*/true, at);
  if (n != 1) return nullptr;
  if (c == 1) return reshape(rewritten, {1, 1, h, w, 1, 1});
  if (c != like.c) return nullptr;
  const Expr chw = channelMajor ? rewritten : reshape(rewritten, {c, h, w});
  return packChannelConstant(chw, {c, h, w}, like.paddedC);
}

Expr GraphPacker::packData(const Expr& e, const std::vector<int64_t>& nchw, bool allowPad,
                           const CallNode& at) {
  if (auto it = packedFrom_.find(e.get()); it != packedFrom_.end()) return it->second;
  if (nchw.size() != 4)
    fail(at, "packing needs a 4-D NCHW tensor at " + opName(at) + ", found rank " +
                 std::to_string(nchw.size()));
  const int64_t n = nchw[0], c = nchw[1], h = nchw[2], w = nchw[3];
  const int64_t b = opt_.bfactor, cf = opt_.cfactor;
  if (n % b != 0)
    fail(at, "batch " + std::to_string(n) + " at " + opName(at) +
                 " is not divisible by the VTA batch factor " + std::to_string(b));
  const int64_t paddedC = roundUp(c, cf);
  if (paddedC != c && !allowPad)
    fail(at, "packing starts at " + opName(at) + " with " + std::to_string(c) +
                 " channels, not a multiple of the channel block " + std::to_string(cf));
  Expr packed = e;
  if (paddedC != c) packed = padUpper(packed, {0, paddedC - c, 0, 0});
  packed = reshape(packed, {n / b, b, paddedC / cf, cf, h, w});
  packed = transpose(packed, std::vector<int64_t>{0, 2, 4, 5, 1, 3});
  packedFrom_[e.get()] = packed;
  return hold(packed, PackedInfo{n, c, h, w, paddedC});
}

Expr GraphPacker::packWeight(const Expr& e, const std::vector<int64_t>& oihw, int64_t paddedO,
                             int64_t paddedI) {
  const int64_t cf = opt_.cfactor;
  Expr packed = e;
  const std::vector<int64_t> pad = {paddedO - oihw[0], paddedI - oihw[1], 0, 0};
  if (anyPositive(pad)) packed = padUpper(packed, pad);
  packed = reshape(packed, {paddedO / cf, cf, paddedI / cf, cf, oihw[2], oihw[3]});
  return transpose(packed, std::vector<int64_t>{0, 2, 4, 5, 1, 3});
}

Expr GraphPacker::packChannelConstant(const Expr& e, const std::vector<int64_t>& chw,
                                      int64_t paddedC) {
  const int64_t cf = opt_.cfactor;
  Expr packed = e;
  if (paddedC != chw[0]) packed = padUpper(packed, {paddedC - chw[0], 0, 0});
  packed = reshape(packed, {paddedC / cf, cf, chw[1], chw[2], 1});
  packed = transpose(packed, std::vector<int64_t>{0, 2, 3, 4, 1});
  return broadcastTo(packed, {paddedC / cf, chw[1], chw[2], opt_.bfactor, cf});
}

// transpose back to (N/b, b, C'/c, c, H, W), reshape to NCHW, and drop padded channels.
Expr GraphPacker::unpack(const Expr& e) {
  const PackedInfo* info = packedInfo(e);
  if (!info) return e;
  if (auto it = unpacked_.find(e.get()); it != unpacked_.end()) return it->second;
  Expr out = transpose(e, std::vector<int64_t>{0, 4, 1, 5, 2, 3});
  out = reshape(out, {info->n, info->paddedC, info->h, info->w});
  if (info->paddedC != info->c)
    out = stridedSlice(out, {0, 0, 0, 0}, {info->n, info->c, info->h, info->w});
  unpacked_[e.get()] = out;
  return out;
}

}  // namespace

Function graphPack(const Function& fn, const GraphPackOptions& options) {
  if (options.bfactor <= 0 || options.cfactor <= 0)
    throwDiagnostic("graph_pack", "bfactor and cfactor must be positive");
  if ((options.startName || options.startNameIdx) != (options.stopName || options.stopNameIdx))
    throwDiagnostic("graph_pack", "a packing region needs both a start and a stop");
  // Drop the declared result type: packing changes it (the seed variant returns packed data).
  const Function untyped = makeFunction(fn->params, fn->body, nullptr, fn->attrs, fn->span);
  const auto typed = exprAs<FunctionNode>(inferExprTypes(untyped));
  GraphPacker packer(options, typed);
  const Expr body = packer.run(typed->body);
  return exprAs<FunctionNode>(
      inferExprTypes(makeFunction(typed->params, body, nullptr, typed->attrs, typed->span)));
}

IRModule graphPackModule(const IRModule& module, const GraphPackOptions& options) {
  IRModule packed = module;
  packed.add("main", graphPack(module.main(), options));
  return inferTypes(packed);
}

}  // namespace tessera::vta
