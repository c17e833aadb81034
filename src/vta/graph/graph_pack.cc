// Graph packing (spec vta.md §8). One bottom-up rewrite tracks, for each rewritten value, whether
// it is held packed — `(N/b, C'/c, H, W, b, c)` for an original NCHW `(N, C, H, W)` whose
// channels were padded to C', or `(N/b, C'/c, b, c)` for a dense layer's rows `(N, C)` — and each
// op either keeps a packed value packed (elementwise ops, broadcasts against packed or packable
// operands, the convolution or dense layer itself) or receives its inputs unpacked. Which
// convolutions pack follows the variant (graph_pack.h); TVM's region is the span of post-order
// positions between the start and the stop call, which is exactly the stretch of TVM's
// A-normal-form let chain between its bitpack_start and bitpack_end annotations.
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

/// A packed value's original extents and its channel count after padding: NCHW (rank 4), packed
/// `(N/b, C'/c, H, W, b, c)`, or a dense layer's NC (rank 2, h = w = 1), packed `(N/b, C'/c, b,
/// c)`.
struct PackedInfo {
  int64_t n = 0, c = 0, h = 0, w = 0;
  int64_t paddedC = 0;
  int rank = 4;

  std::vector<int64_t> original() const {
    return rank == 2 ? std::vector<int64_t>{n, c} : std::vector<int64_t>{n, c, h, w};
  }
  bool sameLayout(const PackedInfo& o) const {
    return original() == o.original() && paddedC == o.paddedC && rank == o.rank;
  }
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
    for (const Expr& node : postOrder(typed->body))
      for (const Expr& child : exprChildren(node)) users_[child.get()].push_back(node.get());
  }

  Expr run(const Expr& body) {
    Expr result = rewriteBottomUp(body, [this](const Expr& node, const std::vector<Expr>& kids) {
      return visit(node, kids);
    });
    // The seed's tool leaves the result packed (its printout shows it); TVM's unpacks at its stop.
    // A packed dense result is unpacked in both: the seed's tool packs no dense.
    const PackedInfo* info = packedInfo(result);
    return seedVariant_ && (!info || info->rank == 4) ? result : unpack(result);
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
  bool packsDense(const CallNode& call, const Expr& node) const;
  bool requantizedToInt8(const ExprNode* node) const;
  Expr packDense(const CallNode& call, const Expr& node, const std::vector<Expr>& children);
  Expr packBroadcast(const CallNode& call, const Expr& node, const std::vector<Expr>& children);
  Expr packedOperand(const Expr& original, const Expr& rewritten, const PackedInfo& like,
                     const CallNode& at);

  int64_t paddedChannels(int64_t n, int64_t c, bool allowPad, const char* what,
                         const CallNode& at) const;
  Expr packData(const Expr& e, const std::vector<int64_t>& nchw, bool allowPad, const CallNode& at);
  Expr packRows(const Expr& e, const std::vector<int64_t>& nc, bool allowPad, const CallNode& at);
  Expr packWeight(const Expr& e, const std::vector<int64_t>& oihw, int64_t paddedO,
                  int64_t paddedI);
  Expr packChannelConstant(const Expr& e, const std::vector<int64_t>& chw, int64_t paddedC);
  Expr packRowConstant(const Expr& e, int64_t c, int64_t paddedC);
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
  std::unordered_map<const ExprNode*, std::vector<const ExprNode*>> users_;  // original graph
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
    const std::vector<int64_t> shape = staticShape(node, call);
    // A region may start at a dense layer's rows (N, K) as well as at NCHW data.
    if (shape.size() == 2 && opt_.packDense)
      return packRows(started, shape, /*allowPad=*/false, call);
    return packData(started, shape, /*allowPad=*/false, call);
  }
  if (name == "nn.conv2d") {
    const TensorTypeNode* out = tensorTypeOf(node);
    const bool packs = seedVariant_ ? out && !out->dtype.isFloat() : inRegion(node.get());
    if (packs) return packConv(call, node, children);
    return unpackedCall();
  }
  if (name == "nn.dense") {
    if (packsDense(call, node)) return packDense(call, node, children);
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
    const bool channelAxis =
        !attrs || attrs->axis == 1 || (info && info->rank == 2 && attrs->axis == -1);
    if (info && info->rank == 2 && channelAxis && bias.size() == 1 && bias[0] == info->c)
      return hold(add(children[1], packRowConstant(children[2], info->c, info->paddedC)), *info);
    if (info && info->rank == 4 && channelAxis && bias.size() == 1 && bias[0] == info->c) {
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
    if (info && info->rank == 4 && attrs && attrs->padWidth.size() == 4 &&
        attrs->padMode == "constant" && !anyPositive(attrs->padWidth[0]) &&
        !anyPositive(attrs->padWidth[1])) {
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

// TVM's graph_pack leaves nn.dense alone; Tessera packs an int32 one (in the region, or anywhere in
// the seed variant) whose result is requantized to int8 — what VTA stores — and leaves the rest
// (a classifier's float logits) to the CPU.
bool GraphPacker::packsDense(const CallNode& call, const Expr& node) const {
  if (!opt_.packDense || !(seedVariant_ || inRegion(node.get()))) return false;
  const TensorTypeNode* out = tensorTypeOf(node);
  const TensorTypeNode* data = tensorTypeOf(call.args[0]);
  const TensorTypeNode* weight = tensorTypeOf(call.args[1]);
  if (!out || !data || !weight || out->dtype != DataType::int32() || data->ndim() != 2 ||
      weight->ndim() != 2 || !requantizedToInt8(node.get()))
    return false;
  if (data->dtype != DataType::int8() || weight->dtype != DataType::int8())
    fail(call, "VTA dense layers are int8 x int8 -> int32, found " + data->dtype.name() + " x " +
                   weight->dtype.name() + " -> int32");
  if (opt_.weightBits != 8)
    fail(call, "weight_bits " + std::to_string(opt_.weightBits) +
                   " needs bit packing, which is not supported (only 8)");
  return true;
}

// Whether the value's only use is a chain of integer element-wise ops (each taking it first)
// ending in a cast to int8: the requantization that closes a VTA kernel.
bool GraphPacker::requantizedToInt8(const ExprNode* node) const {
  for (const ExprNode* cur = node;;) {
    auto it = users_.find(cur);
    if (it == users_.end() || it->second.size() != 1) return false;
    const auto* call = it->second[0]->as<CallNode>();
    if (!call || call->args.empty() || call->args[0].get() != cur) return false;
    const TensorTypeNode* t = call->checkedType ? call->checkedType->as<TensorTypeNode>() : nullptr;
    if (!t || !t->dtype.isInt()) return false;
    if (opName(*call) == "cast" && t->dtype == DataType::int8()) return true;
    if (!isLayoutAgnosticUnary(*call) && !isBroadcastBinary(*call) &&
        opName(*call) != "nn.bias_add")
      return false;
    cur = call;
  }
}

// data (N, K) -> (N/b, K'/c, b, c) (unless packed already), weight (O, K) padded to (O', K') ->
// (O'/c, K'/c, c, c), result (N/b, O'/c, b, c); `units`, when set, becomes O'.
Expr GraphPacker::packDense(const CallNode& call, const Expr& node,
                            const std::vector<Expr>& children) {
  Expr data = children[1];
  const PackedInfo* dataInfo = packedInfo(data);
  if (!dataInfo) {
    data = packRows(data, staticShape(call.args[0], call), /*allowPad=*/true, call);
    dataInfo = packedInfo(data);
  }
  const std::vector<int64_t> ok = staticShape(call.args[1], call);
  const int64_t cf = opt_.cfactor, paddedO = roundUp(ok[0], cf), paddedK = dataInfo->paddedC;
  Expr weight = children[2];
  if (paddedO != ok[0] || paddedK != ok[1])
    weight = padUpper(weight, {paddedO - ok[0], paddedK - ok[1]});
  weight = reshape(weight, {paddedO / cf, cf, paddedK / cf, cf});
  weight = transpose(weight, std::vector<int64_t>{0, 2, 1, 3});
  const auto* attrs = attrsAs<nn::DenseAttrs>(call.attrs.get());
  nn::DenseAttrs packed = attrs ? *attrs : nn::DenseAttrs{};
  if (packed.units) packed.units = paddedO;
  const Expr dense = makeCall(children[0], {data, weight}, makeAttrs(packed), call.span);
  return hold(dense, PackedInfo{dataInfo->n, ok[0], 1, 1, paddedO, 2});
}

// A broadcast (add, multiply, right_shift, ...) with a packed operand stays packed when every
// other operand can be brought to the packed layout and the result has the packed operand's
// shape; otherwise null (the caller unpacks).
Expr GraphPacker::packBroadcast(const CallNode& call, const Expr& node,
                                const std::vector<Expr>& children) {
  const PackedInfo* like =
      packedInfo(children[1]) ? packedInfo(children[1]) : packedInfo(children[2]);
  const std::vector<int64_t> out = staticShape(node, call);
  if (out != like->original()) return nullptr;
  std::vector<Expr> args = {children[0]};
  for (size_t i = 0; i < 2; ++i) {
    const Expr& rewritten = children[i + 1];
    if (const PackedInfo* info = packedInfo(rewritten)) {
      if (!info->sameLayout(*like)) return nullptr;
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
  if (like.rank == 2) {
    // A dense layer's (N, C): per-channel (C) or (1, C) rows, a scalar-like (1, 1), a full tensor.
    if (shape.size() > 2) return nullptr;
    const bool vector = shape.size() == 1;  // already (C): no reshape needed
    if (vector) shape.insert(shape.begin(), 1);
    if (shape[0] == 1 && shape[1] == like.c)
      return packRowConstant(vector ? rewritten : reshape(rewritten, {like.c}), like.c,
                             like.paddedC);
    if (shape[0] == 1 && shape[1] == 1) return reshape(rewritten, {1, 1, 1, 1});
    if (shape[0] == like.n && shape[1] == like.c)
      return packRows(rewritten, shape, /*allowPad=*/true, at);
    return nullptr;
  }
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

// The channel count after padding to whole blocks; the batch must divide by the batch factor, and
// a region's start may not need padding (TVM asserts it).
int64_t GraphPacker::paddedChannels(int64_t n, int64_t c, bool allowPad, const char* what,
                                    const CallNode& at) const {
  if (n % opt_.bfactor != 0)
    fail(at, "batch " + std::to_string(n) + " at " + opName(at) +
                 " is not divisible by the VTA batch factor " + std::to_string(opt_.bfactor));
  const int64_t paddedC = roundUp(c, opt_.cfactor);
  if (paddedC != c && !allowPad)
    fail(at, "packing starts at " + opName(at) + " with " + std::to_string(c) + " " + what +
                 ", not a multiple of the channel block " + std::to_string(opt_.cfactor));
  return paddedC;
}

Expr GraphPacker::packData(const Expr& e, const std::vector<int64_t>& nchw, bool allowPad,
                           const CallNode& at) {
  if (auto it = packedFrom_.find(e.get()); it != packedFrom_.end()) return it->second;
  if (nchw.size() != 4)
    fail(at, "packing needs a 4-D NCHW tensor at " + opName(at) + ", found rank " +
                 std::to_string(nchw.size()));
  const int64_t n = nchw[0], c = nchw[1], h = nchw[2], w = nchw[3];
  const int64_t b = opt_.bfactor, cf = opt_.cfactor;
  const int64_t paddedC = paddedChannels(n, c, allowPad, "channels", at);
  Expr packed = e;
  if (paddedC != c) packed = padUpper(packed, {0, paddedC - c, 0, 0});
  packed = reshape(packed, {n / b, b, paddedC / cf, cf, h, w});
  packed = transpose(packed, std::vector<int64_t>{0, 2, 4, 5, 1, 3});
  packedFrom_[e.get()] = packed;
  return hold(packed, PackedInfo{n, c, h, w, paddedC});
}

Expr GraphPacker::packRows(const Expr& e, const std::vector<int64_t>& nc, bool allowPad,
                           const CallNode& at) {
  if (auto it = packedFrom_.find(e.get()); it != packedFrom_.end()) return it->second;
  if (nc.size() != 2)
    fail(at, "packing a dense layer's data needs a 2-D tensor, found rank " +
                 std::to_string(nc.size()));
  const int64_t n = nc[0], c = nc[1], b = opt_.bfactor, cf = opt_.cfactor;
  const int64_t paddedC = paddedChannels(n, c, allowPad, "features", at);
  Expr packed = e;
  if (paddedC != c) packed = padUpper(packed, {0, paddedC - c});
  packed = reshape(packed, {n / b, b, paddedC / cf, cf});
  packed = transpose(packed, std::vector<int64_t>{0, 2, 1, 3});
  packedFrom_[e.get()] = packed;
  return hold(packed, PackedInfo{n, c, 1, 1, paddedC, 2});
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

// (C) -> padded to C' -> (C'/c, 1, c) -> broadcast to (C'/c, b, c): against packed rows
// (N/b, C'/c, b, c) it aligns from the right, one value per output channel.
Expr GraphPacker::packRowConstant(const Expr& e, int64_t c, int64_t paddedC) {
  const int64_t cf = opt_.cfactor;
  Expr packed = e;
  if (paddedC != c) packed = padUpper(packed, {paddedC - c});
  packed = reshape(packed, {paddedC / cf, 1, cf});
  return broadcastTo(packed, {paddedC / cf, opt_.bfactor, cf});
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

// transpose back to (N/b, b, C'/c, c, H, W) (dense: (N/b, b, C'/c, c)), reshape to NCHW (NC),
// and drop padded channels.
Expr GraphPacker::unpack(const Expr& e) {
  const PackedInfo* info = packedInfo(e);
  if (!info) return e;
  if (auto it = unpacked_.find(e.get()); it != unpacked_.end()) return it->second;
  const bool rows = info->rank == 2;
  Expr out = rows ? transpose(e, std::vector<int64_t>{0, 2, 1, 3})
                  : transpose(e, std::vector<int64_t>{0, 4, 1, 5, 2, 3});
  out = rows ? reshape(out, {info->n, info->paddedC})
             : reshape(out, {info->n, info->paddedC, info->h, info->w});
  if (info->paddedC != info->c)
    out = stridedSlice(out, std::vector<int64_t>(size_t(info->rank), 0), info->original());
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
