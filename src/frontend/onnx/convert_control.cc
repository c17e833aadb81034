// ONNX's control flow (If, Loop, Scan), whose bodies are subgraph attributes converted in nested
// scopes. If becomes a Relay `if` (or only its taken branch when the condition is a constant).
// Scan, and Loop over constants, are unrolled at import; a Loop over run-time data becomes a
// recursive function (runtime_loop.h) that runs compiled on the VM.
#include <algorithm>

#include "frontend/onnx/context.h"
#include "frontend/onnx/runtime_loop.h"
#include "relay/op/tensor.h"
#include "relay/type_infer.h"
#include "support/diagnostic.h"

namespace tessera::frontend::onnx {
namespace {

using relay::Expr;

// Each iteration re-converts the body (its nodes once more); a longer loop is rejected rather
// than built, as for the unrolled recurrent layers.
constexpr int64_t kMaxIterations = 4096;

// A condition as ONNX gives it (a bool tensor of one element), when it is known at import.
std::optional<bool> knownCondition(const NodeContext& n, const Expr& e, const std::string& what) {
  if (n.dtypeOf(e) != DataType::boolType())
    n.fail("onnx_input", what + " must be a bool tensor but has type " + typeToString(n.typeOf(e)));
  if (extentProduct(n.shapeOf(e), 0, n.shapeOf(e).size()) != 1)
    n.fail("onnx_input", what + " must hold one value but has shape " + typeToString(n.typeOf(e)));
  std::optional<NDArray> value = n.knownValue(e);
  if (!value) return std::nullopt;
  return value->getInt(0) != 0;
}

std::string typesOf(const NodeContext& n, const std::vector<Expr>& values) {
  std::string out;
  for (const Expr& v : values) out += (out.empty() ? "" : ", ") + typeToString(n.typeOf(v));
  return "(" + out + ")";
}

bool sameTypes(const NodeContext& n, const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (!typeEqual(n.typeOf(a[k]), n.typeOf(b[k]))) return false;
  return true;
}

// Branch values a Relay `if` can hold: of equal types, or differing only where one branch has a
// `?` extent (an empty constant against a data-dependent count gives `?`).
bool joinable(const NodeContext& n, const std::vector<Expr>& a, const std::vector<Expr>& b) {
  if (a.size() != b.size()) return false;
  for (size_t k = 0; k < a.size(); ++k)
    if (!relay::joinBranchTypes(n.typeOf(a[k]), n.typeOf(b[k]))) return false;
  return true;
}

void setOutputs(NodeContext& n, const std::vector<Expr>& values) {
  if (n.numOutputs() > values.size())
    n.fail("onnx_output", "the node declares " + std::to_string(n.numOutputs()) +
                              " outputs but its subgraph computes " +
                              std::to_string(values.size()));
  for (size_t k = 0; k < n.numOutputs(); ++k) n.setOutput(k, values[k]);
}

// --- If ------------------------------------------------------------------------------------------

// A constant condition imports only the taken branch (the other may not even convert: exporters
// guard shape-dependent code this way). Otherwise both branches become a Relay `if` when their
// outputs agree in type, or differ only where one has a `?` extent (the `if` is then `?` there),
// the forms Relay can type. A condition known from a specialised input
// keeps the `if` when it can, so the module still follows the input at run time; when the other
// branch does not convert or differs in type, the taken one alone is kept and the module is
// specialised to that value.
void ifOp(NodeContext& n) {
  const ::onnx::GraphProto& thenGraph = n.attrGraph("then_branch");
  const ::onnx::GraphProto& elseGraph = n.attrGraph("else_branch");
  auto convert = [&](bool which) {
    return which ? n.convertSubgraph(thenGraph, {}, "then_branch")
                 : n.convertSubgraph(elseGraph, {}, "else_branch");
  };
  Expr cond = n.input(0);
  const std::optional<bool> known = knownCondition(n, cond, "the condition");
  if (known && cond->kind == relay::ExprKind::kConstant) {
    setOutputs(n, convert(*known));
    return;
  }
  std::vector<Expr> thenOut, elseOut;
  if (known) {
    const std::vector<Expr> taken = convert(*known);
    std::optional<std::vector<Expr>> other;
    try {
      other = convert(!*known);
    } catch (const DiagnosticError&) {
    }
    if (!other || !sameTypes(n, taken, *other)) {
      setOutputs(n, taken);
      return;
    }
    thenOut = *known ? taken : *other;
    elseOut = *known ? *other : taken;
  } else {
    thenOut = convert(true);
    elseOut = convert(false);
  }
  if (!joinable(n, thenOut, elseOut))
    n.fail("onnx_dynamic",
           "the branches compute different types, then_branch " + typesOf(n, thenOut) +
               " and else_branch " + typesOf(n, elseOut) +
               ", which a Relay if cannot hold; the condition depends on run-time data (give its "
               "value at import, tessera run --input, to keep only the taken branch)");
  if (thenOut.empty()) n.fail("onnx_subgraph", "the branches compute no outputs");
  // Relay's `if` takes a bool scalar; ONNX allows any one-element shape.
  if (!n.shapeOf(cond).empty()) cond = relay::reshape(cond, {});
  if (thenOut.size() == 1) {
    setOutputs(n, {relay::makeIf(cond, thenOut[0], elseOut[0])});
    return;
  }
  Expr both = relay::makeIf(cond, relay::makeTuple(thenOut), relay::makeTuple(elseOut));
  std::vector<Expr> outputs;
  for (size_t k = 0; k < thenOut.size(); ++k)
    outputs.push_back(relay::makeTupleGetItem(both, static_cast<int>(k)));
  setOutputs(n, outputs);
}

// --- scan outputs (Loop, Scan) -------------------------------------------------------------------

// One scan output collected over the iterations: every iteration must give it one type, since the
// values are stacked along a new axis (loop-carried values, in contrast, may change shape).
struct ScanOutput {
  std::vector<Expr> values;
  Type type;
};

void collect(const NodeContext& n, ScanOutput& out, const Expr& value, size_t k,
             int64_t iteration) {
  Type t = n.typeOf(value);
  if (!out.type) out.type = t;
  if (!typeEqual(out.type, t))
    n.fail("onnx_loop", "scan output " + std::to_string(k) + " is " + typeToString(out.type) +
                            " in the first iteration but " + typeToString(t) + " in iteration " +
                            std::to_string(iteration) +
                            "; scan outputs must keep one shape to be stacked");
}

Expr emptyStack(const NodeContext& n, const Type& perIteration) {
  const auto* tensor = perIteration->as<TensorTypeNode>();
  if (!tensor) n.fail("onnx_loop", "scan outputs must be tensors");
  std::vector<int64_t> shape = *staticShape(tensor->shape);
  shape.insert(shape.begin(), 0);
  return relay::makeConstant(NDArray::empty(shape, tensor->dtype));
}

// --- Loop ----------------------------------------------------------------------------------------

bool isConstant(const NodeContext& n, size_t input) {
  const auto* c = n.input(input)->as<relay::ConstantNode>();
  return c && c->hasData();
}

// for (i = 0; i < M && cond; ++i) { cond, v..., scan... = body(i, cond, v...) }. Without the cond
// input the body's condition output is ignored (the ONNX spec's "for loop" form), so it need not be
// known; without M the condition must turn false. Constant M and conditions unroll at import (at
// most kMaxIterations); a loop over run-time data becomes a recursive function the VM runs
// (runtime_loop.h), unless it has scan outputs, whose shape would depend on the trip count: those
// unroll on values given at import (tessera run --input) or are refused.
void loop(NodeContext& n) {
  const ::onnx::GraphProto& body = n.attrGraph("body");
  if (n.numInputs() < 2)
    n.fail("onnx_input", "Loop needs the inputs M and cond (either may be '')");
  const size_t carried = n.numInputs() - 2;
  if (body.output_size() < static_cast<int>(carried + 1))
    n.fail("onnx_subgraph", "the body must compute the condition and the " +
                                std::to_string(carried) + " loop-carried values but computes " +
                                std::to_string(body.output_size()) + " outputs");
  const size_t scans = static_cast<size_t>(body.output_size()) - 1 - carried;
  if (n.numOutputs() > carried + scans)
    n.fail("onnx_output", "the node declares " + std::to_string(n.numOutputs()) +
                              " outputs but the loop has " + std::to_string(carried + scans));
  const bool hasCond = n.hasInput(1);
  if (!n.hasInput(0) && !hasCond)
    n.fail("onnx_loop",
           "the loop has neither a trip count M nor a condition cond, so it never ends (the "
           "body's condition output is ignored then)");
  const bool runTimeInputs = (n.hasInput(0) && !isConstant(n, 0)) || (hasCond && !isConstant(n, 1));
  if (runTimeInputs && scans == 0) {
    // Values given at import (specialised inputs) still unroll when the loop's values change
    // type, which a function cannot express.
    try {
      convertRuntimeLoop(n, body, carried, scans);
      return;
    } catch (const DiagnosticError& e) {
      if (e.diagnostic().code != "onnx_loop") throw;
    }
  }

  std::optional<int64_t> tripCount;
  if (n.hasInput(0)) {
    // Known only at run time: the scan outputs are refused there, or the value types differ.
    if (!n.constantInput(0)) return convertRuntimeLoop(n, body, carried, scans);
    const std::vector<int64_t> m = n.constantInts(0, "trip count M");
    if (m.size() != 1) n.fail("onnx_input", "the trip count M must hold one value");
    tripCount = m[0];
  }
  bool keepGoing = true;
  if (hasCond) {
    std::optional<bool> c = knownCondition(n, n.input(1), "the condition cond");
    if (!c) return convertRuntimeLoop(n, body, carried, scans);
    keepGoing = *c;
  }
  if (tripCount && *tripCount > kMaxIterations && scans == 0)
    return convertRuntimeLoop(n, body, carried, scans);

  std::vector<Expr> state;
  for (size_t k = 0; k < carried; ++k) state.push_back(n.input(k + 2));
  std::vector<ScanOutput> scanned(scans);
  const Expr trueConstant = scalarConstant(1, DataType::boolType());
  auto runBody = [&](int64_t i) {
    std::vector<Expr> inputs{scalarConstant(static_cast<double>(i), DataType::int64()),
                             trueConstant};
    inputs.insert(inputs.end(), state.begin(), state.end());
    return n.convertSubgraph(body, inputs, "body (iteration " + std::to_string(i) + ")");
  };
  int64_t i = 0;
  for (; keepGoing && (!tripCount || i < *tripCount); ++i) {
    if (i == kMaxIterations)
      n.fail("onnx_loop", "the loop runs more than " + std::to_string(kMaxIterations) +
                              " iterations, the most unrolled at import, and " +
                              (scans > 0 ? "has scan outputs (without them it would run as a "
                                           "function on the VM)"
                                         : "its condition, known at import, never turns false"));
    const std::vector<Expr> out = runBody(i);
    if (hasCond) {
      std::optional<bool> c = knownCondition(
          n, out[0], "the body's condition output (iteration " + std::to_string(i) + ")");
      // Decided at run time: the whole loop becomes a function (or is refused with scans).
      if (!c) return convertRuntimeLoop(n, body, carried, scans);
      keepGoing = *c;
    }
    for (size_t k = 0; k < carried; ++k) {
      if (n.dtypeOf(out[1 + k]) != n.dtypeOf(state[k]))
        n.fail("onnx_loop", "loop-carried value " + std::to_string(k) + " changes type from " +
                                typeToString(n.typeOf(state[k])) + " to " +
                                typeToString(n.typeOf(out[1 + k])) + " in iteration " +
                                std::to_string(i));
      state[k] = out[1 + k];
    }
    for (size_t k = 0; k < scans; ++k) {
      collect(n, scanned[k], out[1 + carried + k], k, i);
      scanned[k].values.push_back(out[1 + carried + k]);
    }
  }

  std::vector<Expr> outputs = state;
  // With no iteration the scan outputs are empty, but their element shape is still the body's:
  // one conversion of the body, whose values are discarded, gives it.
  std::vector<Expr> trial;
  if (i == 0 && scans > 0) trial = runBody(0);
  for (size_t k = 0; k < scans; ++k)
    outputs.push_back(i == 0 ? emptyStack(n, n.typeOf(trial[1 + carried + k]))
                             : relay::stack(scanned[k].values, 0));
  setOutputs(n, outputs);
}

// --- Scan ----------------------------------------------------------------------------------------

// Per-input or per-output attribute lists (axes, directions), defaulting to zeros.
std::vector<int64_t> listAttr(const NodeContext& n, const std::string& name, size_t count) {
  std::vector<int64_t> values = n.attrInts(name).value_or(std::vector<int64_t>(count, 0));
  if (values.size() != count)
    n.fail("onnx_attr", "attribute '" + name + "' must have " + std::to_string(count) +
                            " values but has " + std::to_string(values.size()));
  for (int64_t v : values)
    if (name.find("directions") != std::string::npos && v != 0 && v != 1)
      n.badAttr(name, std::to_string(v), "0 (forward) or 1 (reverse)");
  return values;
}

Expr indexAt(NodeContext& n, const Expr& data, int64_t index, int64_t axis) {
  return n.fold(
      relay::take(data, scalarConstant(static_cast<double>(index), DataType::int64()), axis));
}

// Opset 8 Scan: every input and output has a batch axis first and the scan inputs their sequence
// axis second; the first input is the optional sequence_lens, and `directions` reverses scan
// inputs. Unrolled per batch row and step; rows are stacked back along axis 0. Sequences shorter
// than the scan inputs (sequence_lens) are not supported.
void scan8(NodeContext& n) {
  const ::onnx::GraphProto& body = n.attrGraph("body");
  const int64_t numScanInputs = n.attrInt("num_scan_inputs", 0);
  if (n.numInputs() < 2 || numScanInputs < 1 ||
      numScanInputs > static_cast<int64_t>(n.numInputs()) - 1)
    n.badAttr("num_scan_inputs", std::to_string(numScanInputs),
              "1 to the number of inputs after sequence_lens");
  const size_t scanned = static_cast<size_t>(numScanInputs);
  const size_t carried = n.numInputs() - 1 - scanned;
  if (body.output_size() < static_cast<int>(carried))
    n.fail("onnx_subgraph", "the body must compute the " + std::to_string(carried) +
                                " state values but computes " + std::to_string(body.output_size()));
  const size_t scans = static_cast<size_t>(body.output_size()) - carried;
  const std::vector<int64_t> directions = listAttr(n, "directions", scanned);
  const std::vector<int64_t> first = n.inputShape(1);
  if (first.empty()) n.fail("onnx_input", "opset 8 Scan inputs need a batch axis");
  const int64_t batch = first[0];
  const std::vector<int64_t> scanShape = n.inputShape(1 + carried);
  if (scanShape.size() < 2) n.fail("onnx_input", "opset 8 scan inputs need (batch, sequence) axes");
  const int64_t length = scanShape[1];
  for (size_t k = 1; k < n.numInputs(); ++k) {
    const std::vector<int64_t> shape = n.inputShape(k);
    if (shape.empty() || shape[0] != batch)
      n.fail("onnx_input", "input " + std::to_string(k) + " does not share the batch size " +
                               std::to_string(batch));
    if (k > carried && (shape.size() < 2 || shape[1] != length))
      n.fail("onnx_input", "the scan inputs have different lengths");
  }
  if (n.hasInput(0))
    for (int64_t l : n.constantInts(0, "sequence_lens"))
      if (l != length)
        n.fail("onnx_unsupported_attr", "sequence_lens shorter than the scan inputs (" +
                                            std::to_string(l) + " of " + std::to_string(length) +
                                            ") are not supported");
  if (length == 0 || batch * length > kMaxIterations)
    n.fail("onnx_loop", "the scan runs " + std::to_string(batch * length) + " body steps; 1 to " +
                            std::to_string(kMaxIterations) + " are unrolled at import");
  std::vector<std::vector<Expr>> rows(carried + scans);
  for (int64_t b = 0; b < batch; ++b) {
    std::vector<Expr> state;
    for (size_t k = 0; k < carried; ++k) state.push_back(indexAt(n, n.input(1 + k), b, 0));
    std::vector<ScanOutput> steps(scans);
    for (int64_t t = 0; t < length; ++t) {
      std::vector<Expr> inputs = state;
      for (size_t j = 0; j < scanned; ++j) {
        const Expr row = indexAt(n, n.input(1 + carried + j), b, 0);
        inputs.push_back(indexAt(n, row, directions[j] ? length - 1 - t : t, 0));
      }
      const std::vector<Expr> out = n.convertSubgraph(
          body, inputs, "body (batch " + std::to_string(b) + ", step " + std::to_string(t) + ")");
      for (size_t k = 0; k < carried; ++k) state[k] = out[k];
      for (size_t k = 0; k < scans; ++k) {
        collect(n, steps[k], out[carried + k], k, t);
        steps[k].values.push_back(out[carried + k]);
      }
    }
    for (size_t k = 0; k < carried; ++k) rows[k].push_back(state[k]);
    for (size_t k = 0; k < scans; ++k)
      rows[carried + k].push_back(relay::stack(steps[k].values, 0));
  }
  std::vector<Expr> outputs;
  for (std::vector<Expr>& r : rows) outputs.push_back(relay::stack(r, 0));
  setOutputs(n, outputs);
}

// Opset 9+ Scan: the scan inputs are sliced along their scan axes, the body runs once per slice
// with the state, and the per-slice outputs are stacked along the scan output axes (opset 9 and
// 10 are opset 11's form without negative axes).
void scan(NodeContext& n) {
  if (n.sourceOpset() < 9) return scan8(n);
  const ::onnx::GraphProto& body = n.attrGraph("body");
  const int64_t numScanInputs = n.attrInt("num_scan_inputs", 0);
  if (numScanInputs < 1 || numScanInputs > static_cast<int64_t>(n.numInputs()))
    n.badAttr("num_scan_inputs", std::to_string(numScanInputs),
              "1 to the number of inputs (" + std::to_string(n.numInputs()) + ")");
  const size_t inputsScanned = static_cast<size_t>(numScanInputs);
  const size_t carried = n.numInputs() - inputsScanned;
  if (body.output_size() < static_cast<int>(carried))
    n.fail("onnx_subgraph", "the body must compute the " + std::to_string(carried) +
                                " state values but computes " + std::to_string(body.output_size()));
  const size_t scans = static_cast<size_t>(body.output_size()) - carried;
  const std::vector<int64_t> inAxes = listAttr(n, "scan_input_axes", inputsScanned);
  const std::vector<int64_t> inDirections = listAttr(n, "scan_input_directions", inputsScanned);
  const std::vector<int64_t> outAxes = listAttr(n, "scan_output_axes", scans);
  const std::vector<int64_t> outDirections = listAttr(n, "scan_output_directions", scans);

  std::optional<int64_t> length;
  std::vector<int64_t> axes;
  for (size_t j = 0; j < inputsScanned; ++j) {
    const std::vector<int64_t> shape = n.inputShape(carried + j);
    const int64_t axis = n.normalizeAxis(inAxes[j], static_cast<int64_t>(shape.size()),
                                         "scan_input_axes[" + std::to_string(j) + "]");
    axes.push_back(axis);
    if (length && *length != shape[axis])
      n.fail("onnx_input", "the scan inputs have different lengths, " + std::to_string(*length) +
                               " and " + std::to_string(shape[axis]));
    length = shape[axis];
  }
  if (*length == 0) n.fail("onnx_loop", "scanning zero-length inputs is not supported");
  if (*length > kMaxIterations)
    n.fail("onnx_loop", "the scan runs " + std::to_string(*length) + " iterations, more than " +
                            std::to_string(kMaxIterations) + ", the most unrolled at import");

  std::vector<Expr> state;
  for (size_t k = 0; k < carried; ++k) state.push_back(n.input(k));
  std::vector<ScanOutput> scanned(scans);
  for (int64_t t = 0; t < *length; ++t) {
    std::vector<Expr> inputs = state;
    for (size_t j = 0; j < inputsScanned; ++j) {
      const int64_t index = inDirections[j] ? *length - 1 - t : t;
      inputs.push_back(n.fold(
          relay::take(n.input(carried + j),
                      scalarConstant(static_cast<double>(index), DataType::int64()), axes[j])));
    }
    const std::vector<Expr> out =
        n.convertSubgraph(body, inputs, "body (iteration " + std::to_string(t) + ")");
    for (size_t k = 0; k < carried; ++k) state[k] = out[k];
    for (size_t k = 0; k < scans; ++k) {
      collect(n, scanned[k], out[carried + k], k, t);
      scanned[k].values.push_back(out[carried + k]);
    }
  }
  std::vector<Expr> outputs = state;
  for (size_t k = 0; k < scans; ++k) {
    std::vector<Expr>& values = scanned[k].values;
    if (outDirections[k]) std::reverse(values.begin(), values.end());
    const auto rank = static_cast<int64_t>(n.shapeOf(values[0]).size());
    const int64_t axis =
        n.normalizeAxis(outAxes[k], rank + 1, "scan_output_axes[" + std::to_string(k) + "]");
    outputs.push_back(relay::stack(values, static_cast<int>(axis)));
  }
  setOutputs(n, outputs);
}

constexpr ConverterRow kRows[] = {
    {"If", ifOp,
     "a Relay if when the branches' outputs agree in type; a constant condition keeps only the "
     "taken branch, and so does a specialised one (tessera run --input) when they differ"},
    {"Loop", loop,
     "unrolled at import over constant M and conditions (at most 4096 iterations); over run-time "
     "data a recursive function run on the VM, whose loop-carried values keep one type and which "
     "has no scan outputs (those unroll on values given at import)"},
    {"Scan", scan,
     "opset 8 (batch axis, sequence_lens equal to the length) and 9+ forms, unrolled at import "
     "over the static scan length (at most 4096 steps); axes and "
     "directions"},
};

}  // namespace

std::span<const ConverterRow> controlConverters() {
  return kRows;
}

}  // namespace tessera::frontend::onnx
