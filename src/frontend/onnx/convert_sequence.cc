// ONNX's sequence operators over sequences whose length and positions are known at import: a
// sequence is a Relay tuple of its tensors (each may have its own shape), built and taken apart
// as the graph is converted, so no sequence value reaches run time unless the graph returns one
// (then a tuple). Positions and split sizes must be known at import (constants, or inputs given a
// value): a sequence indexed by run-time data would need a sequence type in the IR.
#include <algorithm>

#include "frontend/onnx/context.h"
#include "relay/op/tensor.h"

namespace tessera::frontend::onnx {
namespace {

using relay::Expr;

// The tensors of sequence input `i`.
std::vector<Expr> elements(const NodeContext& n, size_t i) {
  const Expr seq = n.input(i);
  const auto* tuple = n.typeOf(seq)->as<TupleTypeNode>();
  if (!tuple)
    n.fail("onnx_input", "input " + std::to_string(i) + " must be a sequence but has type " +
                             typeToString(n.typeOf(seq)));
  if (const auto* node = seq->as<relay::TupleNode>()) return node->fields;
  std::vector<Expr> out;
  for (size_t k = 0; k < tuple->fields.size(); ++k)
    out.push_back(relay::makeTupleGetItem(seq, static_cast<int>(k)));
  return out;
}

// A position input (one integer known at import) in [-size, size) (or [-size, size] when
// `orEnd`: insertion may append), normalised to [0, size].
size_t position(const NodeContext& n, size_t input, size_t size, bool orEnd) {
  const std::vector<int64_t> values = n.constantInts(input, "position");
  if (values.size() != 1) n.fail("onnx_input", "the position must hold one value");
  const auto s = static_cast<int64_t>(size);
  const int64_t p = values[0];
  if (p < -s || p > s || (p == s && !orEnd))
    n.fail("onnx_input", "position " + std::to_string(p) + " is outside the sequence of " +
                             std::to_string(size) + " tensors");
  return static_cast<size_t>(p < 0 ? p + s : p);
}

void requireSameDtype(const NodeContext& n, const std::vector<Expr>& seq, const Expr& tensor) {
  if (!seq.empty() && n.dtypeOf(seq[0]) != n.dtypeOf(tensor))
    n.fail("onnx_input", "the sequence holds " + n.dtypeOf(seq[0]).name() + " tensors but the " +
                             "tensor is " + n.dtypeOf(tensor).name());
}

void sequenceConstruct(NodeContext& n) {
  std::vector<Expr> tensors;
  for (size_t i = 0; i < n.numInputs(); ++i) {
    tensors.push_back(n.input(i));
    (void)n.inputType(i);  // a tensor
    requireSameDtype(n, tensors, tensors.back());
  }
  n.setOutput(0, relay::makeTuple(tensors));
}

void sequenceEmpty(NodeContext& n) {
  n.setOutput(0, relay::makeTuple(std::vector<Expr>{}));
}

void sequenceInsert(NodeContext& n) {
  std::vector<Expr> seq = elements(n, 0);
  const Expr tensor = n.input(1);
  (void)n.inputType(1);
  requireSameDtype(n, seq, tensor);
  const size_t at = n.hasInput(2) ? position(n, 2, seq.size(), true) : seq.size();
  seq.insert(seq.begin() + static_cast<std::ptrdiff_t>(at), tensor);
  n.setOutput(0, relay::makeTuple(seq));
}

void sequenceAt(NodeContext& n) {
  const std::vector<Expr> seq = elements(n, 0);
  n.setOutput(0, seq[position(n, 1, seq.size(), false)]);
}

void sequenceErase(NodeContext& n) {
  std::vector<Expr> seq = elements(n, 0);
  if (seq.empty()) n.fail("onnx_input", "cannot erase from an empty sequence");
  const size_t at = n.hasInput(1) ? position(n, 1, seq.size(), false) : seq.size() - 1;
  seq.erase(seq.begin() + static_cast<std::ptrdiff_t>(at));
  n.setOutput(0, relay::makeTuple(seq));
}

void sequenceLength(NodeContext& n) {
  n.setOutput(0, scalarConstant(static_cast<double>(elements(n, 0).size()), DataType::int64()));
}

// concatenate along `axis`, or (new_axis=1) stack along a new one.
void concatFromSequence(NodeContext& n) {
  const std::vector<Expr> seq = elements(n, 0);
  if (seq.empty()) n.fail("onnx_input", "cannot concatenate an empty sequence");
  const bool newAxis = n.attrInt("new_axis", 0) != 0;
  const auto rank = static_cast<int64_t>(n.shapeOf(seq[0]).size());
  const int64_t axis = n.normalizeAxis(n.attrInt("axis", 0), rank + (newAxis ? 1 : 0));
  n.setOutput(0, newAxis ? relay::stack(seq, static_cast<int>(axis))
                         : relay::concatenate(seq, static_cast<int>(axis)));
}

// Without `split`, pieces of one along `axis` (squeezed unless keepdims); a scalar split: pieces
// of that size, the last one shorter; a 1-D split: those sizes, which must add up to the axis.
void splitToSequence(NodeContext& n) {
  const Expr data = n.input(0);
  const std::vector<int64_t> shape = n.inputShape(0);
  const int64_t axis = n.normalizeAxis(n.attrInt("axis", 0), static_cast<int64_t>(shape.size()));
  const int64_t extent = shape[axis];
  std::vector<int64_t> sizes;
  const bool pieces = !n.hasInput(1);
  if (pieces) {
    sizes.assign(static_cast<size_t>(extent), 1);
  } else {
    const std::vector<int64_t> split = n.constantInts(1, "split");
    const bool scalar = n.inputShape(1).empty();
    if (scalar) {
      if (split[0] <= 0) n.fail("onnx_input", "the split size must be positive");
      for (int64_t done = 0; done < extent; done += split[0])
        sizes.push_back(std::min(split[0], extent - done));
    } else {
      sizes = split;
      int64_t total = 0;
      for (int64_t s : sizes) {
        if (s < 0) n.fail("onnx_input", "split sizes must not be negative");
        total += s;
      }
      if (total != extent)
        n.fail("onnx_input", "the split sizes add up to " + std::to_string(total) + " but axis " +
                                 std::to_string(axis) + " has " + std::to_string(extent));
    }
  }
  const bool squeeze = pieces && n.attrInt("keepdims", 1) == 0;
  std::vector<Expr> parts;
  int64_t begin = 0;
  for (int64_t size : sizes) {
    Expr part = relay::stridedSlice(data, {begin}, {begin + size}, {1}, std::vector<int64_t>{axis});
    parts.push_back(squeeze ? relay::squeeze(part, std::vector<int64_t>{axis}) : part);
    begin += size;
  }
  n.setOutput(0, relay::makeTuple(parts));
}

constexpr ConverterRow kRows[] = {
    {"SequenceConstruct", sequenceConstruct, "a tuple of the tensors, at import"},
    {"SequenceEmpty", sequenceEmpty, "an empty tuple"},
    {"SequenceInsert", sequenceInsert, "position known at import (default: append)"},
    {"SequenceAt", sequenceAt, "position known at import"},
    {"SequenceErase", sequenceErase, "position known at import (default: the last)"},
    {"SequenceLength", sequenceLength, "a constant: sequence lengths are known at import"},
    {"ConcatFromSequence", concatFromSequence, "concatenate, or stack with new_axis=1"},
    {"SplitToSequence", splitToSequence,
     "split sizes known at import; no split: pieces of one, squeezed when keepdims=0"},
};

}  // namespace

std::span<const ConverterRow> sequenceConverters() {
  return kRows;
}

}  // namespace tessera::frontend::onnx
