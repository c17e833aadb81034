// ONNX's recurrent layers RNN, GRU and LSTM (opset 7 to 14, with 14's batch-first `layout`),
// unrolled over the static sequence length at import so that the interpreter and the compiled
// path both run them as plain Relay. The input projection X·Wᵀ plus both biases is one nn.dense
// over every time step and direction; a step then only adds its recurrent h·Rᵀ and the gates.
// sequence_lens (constant or a graph input) masks each batch entry as ONNX Runtime does: past its
// length the state holds and Y is zero, so Y_h is the state at the entry's last step.
#include <algorithm>
#include <cctype>
#include <optional>

#include "frontend/onnx/context.h"
#include "relay/op/nn.h"
#include "relay/op/tensor.h"

namespace tessera::frontend::onnx {

namespace {

using relay::Expr;

// Each step adds some tens of Relay calls; a longer sequence is rejected rather than built.
constexpr int64_t kMaxUnrolledSteps = 4096;

enum class Cell { kRnn, kGru, kLstm };

// --- activations ---------------------------------------------------------------------------------

enum class ActKind {
  kRelu,
  kTanh,
  kSigmoid,
  kAffine,
  kLeakyRelu,
  kThresholdedRelu,
  kScaledTanh,
  kHardSigmoid,
  kElu,
  kSoftsign,
  kSoftplus
};

// ONNX's activation list with how many of activation_alpha/activation_beta each consumes and the
// defaults of the operator of that name.
struct ActInfo {
  const char* name;
  ActKind kind;
  int params;  // 0: none, 1: alpha, 2: alpha and beta
  double alpha, beta;
};

constexpr ActInfo kActivations[] = {
    {"Relu", ActKind::kRelu, 0, 0, 0},
    {"Tanh", ActKind::kTanh, 0, 0, 0},
    {"Sigmoid", ActKind::kSigmoid, 0, 0, 0},
    {"Affine", ActKind::kAffine, 2, 1.0, 0.0},
    {"LeakyRelu", ActKind::kLeakyRelu, 1, 0.01, 0},
    {"ThresholdedRelu", ActKind::kThresholdedRelu, 1, 1.0, 0},
    {"ScaledTanh", ActKind::kScaledTanh, 2, 1.0, 1.0},
    {"HardSigmoid", ActKind::kHardSigmoid, 2, 0.2, 0.5},
    {"Elu", ActKind::kElu, 1, 1.0, 0},
    {"Softsign", ActKind::kSoftsign, 0, 0, 0},
    {"Softplus", ActKind::kSoftplus, 0, 0, 0},
};

struct Activation {
  ActKind kind;
  double alpha, beta;
};

bool sameNameIgnoringCase(const std::string& a, const char* b) {
  const std::string lower(b);
  return a.size() == lower.size() &&
         std::equal(a.begin(), a.end(), lower.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

std::string activationNames() {
  std::string all;
  for (const ActInfo& a : kActivations) all += std::string(all.empty() ? "" : ", ") + a.name;
  return all;
}

// The activations of every direction, in order (f, g, h per direction). One direction's list is
// repeated for a bidirectional layer, as ONNX Runtime accepts. activation_alpha/beta are consumed
// only by the activations that take them, in order (ONNX Runtime's reading of the spec); the
// operator's own default fills in for a missing value. Names match case-insensitively, as in
// ONNX Runtime.
std::vector<Activation> activationsOf(NodeContext& n, const std::vector<std::string>& defaults,
                                      size_t directions) {
  std::vector<std::string> names = n.attrStrings("activations").value_or(defaults);
  const size_t perDirection = defaults.size();
  if (names.size() == perDirection && directions == 2) {
    const std::vector<std::string> one = names;  // inserting a vector's own range is undefined
    names.insert(names.end(), one.begin(), one.end());
  }
  if (names.size() != perDirection * directions)
    n.fail("onnx_attr", "attribute 'activations' has " + std::to_string(names.size()) +
                            " names but " + n.opType() + " takes " + std::to_string(perDirection) +
                            " per direction (" + std::to_string(perDirection * directions) +
                            " for " + std::to_string(directions) + " direction(s))");
  const std::vector<float> alphas = n.attrFloats("activation_alpha").value_or(std::vector<float>{});
  const std::vector<float> betas = n.attrFloats("activation_beta").value_or(std::vector<float>{});
  size_t nextAlpha = 0, nextBeta = 0;
  std::vector<Activation> out;
  for (const std::string& name : names) {
    const ActInfo* info = nullptr;
    for (const ActInfo& a : kActivations)
      if (sameNameIgnoringCase(name, a.name)) info = &a;
    if (!info) n.badAttr("activations", name, activationNames());
    Activation act{.kind = info->kind, .alpha = info->alpha, .beta = info->beta};
    if (info->params >= 1 && nextAlpha < alphas.size()) act.alpha = alphas[nextAlpha++];
    if (info->params >= 2 && nextBeta < betas.size()) act.beta = betas[nextBeta++];
    out.push_back(act);
  }
  return out;
}

Expr activate(const Activation& a, const Expr& x, DataType dtype) {
  auto c = [&](double v) { return scalarConstant(v, dtype); };
  switch (a.kind) {
    case ActKind::kRelu:
      return relay::nn::relu(x);
    case ActKind::kTanh:
      return relay::tanh(x);
    case ActKind::kSigmoid:
      return relay::sigmoid(x);
    case ActKind::kAffine:
      return relay::add(relay::multiply(x, c(a.alpha)), c(a.beta));
    case ActKind::kLeakyRelu:
      return relay::nn::leakyRelu(x, {.alpha = a.alpha});
    case ActKind::kThresholdedRelu:
      return relay::where(relay::greater(x, c(a.alpha)), x, c(0));
    case ActKind::kScaledTanh:
      return relay::multiply(c(a.alpha), relay::tanh(relay::multiply(x, c(a.beta))));
    case ActKind::kHardSigmoid:
      return relay::clip(relay::add(relay::multiply(x, c(a.alpha)), c(a.beta)), 0, 1);
    case ActKind::kElu:  // the exp branch is selected by `where`, so its overflow is never used
      return relay::where(relay::less(x, c(0)),
                          relay::multiply(c(a.alpha), relay::subtract(relay::exp(x), c(1))), x);
    case ActKind::kSoftsign:
      return relay::divide(x, relay::add(c(1), relay::abs(x)));
    case ActKind::kSoftplus:  // log(1 + exp(x)) without overflow for large x
      return relay::add(relay::maximum(x, c(0)),
                        relay::log(relay::add(c(1), relay::exp(relay::negative(relay::abs(x))))));
  }
  return x;
}

// --- the layer's attributes and inputs, checked ----------------------------------------------

// Input positions in the ONNX signature (X, W, R, B, sequence_lens, initial_h, initial_c, P).
enum Input : size_t { kX, kW, kR, kB, kSeqLens, kInitialH, kInitialC, kPeephole };

struct Layer {
  Cell cell;
  int64_t gates, seq, batch, inputSize, hidden;
  std::vector<bool> reverse;  // per direction
  bool batchFirst;            // layout 1: X, Y, initial and final states put the batch first
  std::optional<double> clip;
  std::vector<Activation> acts;  // per direction, `perDirection` each
  size_t perDirection;
  bool linearBeforeReset, inputForget;
  DataType dtype;
};

void expectShape(NodeContext& n, size_t input, const std::string& what,
                 const std::vector<int64_t>& want) {
  const std::vector<int64_t> got = n.inputShape(input);
  if (got == want) return;
  auto str = [](const std::vector<int64_t>& s) {
    std::string r = "(";
    for (size_t i = 0; i < s.size(); ++i) r += (i ? ", " : "") + std::to_string(s[i]);
    return r + ")";
  };
  n.fail("onnx_shape", what + " must have shape " + str(want) + " but has shape " + str(got));
}

Layer layerOf(NodeContext& n, Cell cell) {
  Layer l{.cell = cell, .gates = cell == Cell::kRnn ? 1 : cell == Cell::kGru ? 3 : 4};
  const int64_t layout = n.attrInt("layout", 0);
  if (layout != 0 && layout != 1) n.badAttr("layout", std::to_string(layout), "0, 1");
  l.batchFirst = layout == 1;
  const std::string direction = n.attrString("direction", "forward");
  if (direction == "forward" || direction == "reverse")
    l.reverse = {direction == "reverse"};
  else if (direction == "bidirectional")
    l.reverse = {false, true};
  else
    n.badAttr("direction", direction, "forward, reverse, bidirectional");
  const auto directions = static_cast<int64_t>(l.reverse.size());

  const std::vector<int64_t> x = n.inputShape(kX);
  if (x.size() != 3) n.fail("onnx_shape", "X must have rank 3 (sequence, batch, input)");
  l.seq = l.batchFirst ? x[1] : x[0];
  l.batch = l.batchFirst ? x[0] : x[1];
  l.inputSize = x[2];
  if (l.seq < 1 || l.seq > kMaxUnrolledSteps)
    n.fail("onnx_shape", "the sequence length " + std::to_string(l.seq) +
                             " is out of range; supported: 1 to " +
                             std::to_string(kMaxUnrolledSteps) + " steps (the layer is unrolled)");
  l.dtype = n.inputDtype(kX);
  if (!l.dtype.isFloat()) n.fail("onnx_input", "X must be a floating-point tensor");

  const std::vector<int64_t> r = n.inputShape(kR);
  if (r.size() != 3)
    n.fail("onnx_shape", "R must have rank 3 (directions, gates * hidden, hidden)");
  l.hidden = n.attrInt("hidden_size", r[2]);
  if (l.hidden < 1 || l.hidden != r[2])
    n.badAttr("hidden_size", std::to_string(l.hidden), "R's last extent, " + std::to_string(r[2]));
  const int64_t rows = l.gates * l.hidden;
  expectShape(n, kW, "W", {directions, rows, l.inputSize});
  expectShape(n, kR, "R", {directions, rows, l.hidden});
  if (n.hasInput(kB)) expectShape(n, kB, "B", {directions, 2 * rows});
  if (n.hasInput(kSeqLens)) {
    expectShape(n, kSeqLens, "sequence_lens", {l.batch});
    if (!n.inputDtype(kSeqLens).isInteger())
      n.fail("onnx_input", "sequence_lens must be an integer tensor");
  }
  const std::vector<int64_t> state = l.batchFirst
                                         ? std::vector<int64_t>{l.batch, directions, l.hidden}
                                         : std::vector<int64_t>{directions, l.batch, l.hidden};
  if (n.hasInput(kInitialH)) expectShape(n, kInitialH, "initial_h", state);
  if (cell == Cell::kLstm && n.hasInput(kInitialC)) expectShape(n, kInitialC, "initial_c", state);
  if (cell == Cell::kLstm && n.hasInput(kPeephole))
    expectShape(n, kPeephole, "P", {directions, 3 * l.hidden});

  l.clip = n.attrFloatOpt("clip");
  if (l.clip && !(*l.clip > 0)) n.badAttr("clip", std::to_string(*l.clip), "a positive threshold");
  const std::vector<std::string> defaults =
      cell == Cell::kRnn   ? std::vector<std::string>{"Tanh"}
      : cell == Cell::kGru ? std::vector<std::string>{"Sigmoid", "Tanh"}
                           : std::vector<std::string>{"Sigmoid", "Tanh", "Tanh"};
  l.perDirection = defaults.size();
  l.acts = activationsOf(n, defaults, l.reverse.size());
  l.linearBeforeReset = cell == Cell::kGru && n.attrInt("linear_before_reset", 0) != 0;
  l.inputForget = cell == Cell::kLstm && n.attrInt("input_forget", 0) != 0;
  return l;
}

// --- building blocks ---------------------------------------------------------------------------

// x[begin:end] along `axis`.
Expr sliceAxis(const Expr& x, int64_t axis, int64_t begin, int64_t end) {
  return relay::stridedSlice(x, {begin}, {end}, {1}, std::vector<int64_t>{axis});
}

// Direction d's slab of a [directions, ...] input, without the direction axis.
Expr directionOf(NodeContext& n, size_t input, int64_t d, int64_t axis) {
  std::vector<int64_t> shape = n.inputShape(input);
  shape.erase(shape.begin() + axis);
  return n.fold(relay::reshape(sliceAxis(n.input(input), axis, d, d + 1), shape));
}

// The bias the projection adds for direction d: Wb + Rb, except GRU's Rbh under
// linear_before_reset, which must be added to h·Rhᵀ before the reset gate scales it.
Expr projectionBias(NodeContext& n, const Layer& l, int64_t d) {
  const int64_t rows = l.gates * l.hidden;
  const Expr b = directionOf(n, kB, d, 0);
  const Expr wb = sliceAxis(b, 0, 0, rows), rb = sliceAxis(b, 0, rows, 2 * rows);
  if (!l.linearBeforeReset) return relay::add(wb, rb);
  const int64_t zr = 2 * l.hidden;
  return relay::concatenate(
      {relay::add(sliceAxis(wb, 0, 0, zr), sliceAxis(rb, 0, 0, zr)), sliceAxis(wb, 0, zr, rows)},
      0);
}

// X·Wᵀ + bias for every step and direction at once: (time-major or batch-first as X) with the
// directions' gate rows side by side in the last axis.
Expr projectInputs(NodeContext& n, const Layer& l) {
  const auto directions = static_cast<int64_t>(l.reverse.size());
  const int64_t rows = directions * l.gates * l.hidden;
  const Expr w = n.fold(relay::reshape(n.input(kW), {rows, l.inputSize}));
  Expr xw = relay::nn::dense(relay::reshape(n.input(kX), {l.seq * l.batch, l.inputSize}), w);
  if (n.hasInput(kB)) {
    std::vector<Expr> biases;
    for (int64_t d = 0; d < directions; ++d) biases.push_back(projectionBias(n, l, d));
    xw = relay::add(xw, n.fold(relay::concatenate(biases, 0)));
  }
  return relay::reshape(xw, l.batchFirst ? std::vector<int64_t>{l.batch, l.seq, rows}
                                         : std::vector<int64_t>{l.seq, l.batch, rows});
}

// The recurrent state of one direction; c only for LSTM.
struct State {
  Expr h, c;
};

Expr initialOf(NodeContext& n, const Layer& l, size_t input, int64_t d) {
  if (!n.hasInput(input))
    return relay::makeConstant(NDArray::empty({l.batch, l.hidden}, l.dtype));  // zeros
  return directionOf(n, input, d, l.batchFirst ? 1 : 0);
}

// What one step of direction d needs besides the state. The weight slices are cut (and folded)
// once per direction, not per step.
struct StepInputs {
  Expr xw;   // X_t·Wᵀ + biases, (batch, gates * hidden)
  Expr r;    // the R rows multiplied by H: all, or GRU's z and r rows without linear_before_reset
  Expr rh;   // GRU without linear_before_reset: Rh, applied to r ⊙ H; else null
  Expr rbh;  // GRU with linear_before_reset and B: Rbh, (hidden); else null
  Expr pi, po, pf;         // LSTM peepholes, (hidden) each; or null
  const Activation* acts;  // this direction's activations
};

class Stepper {
 public:
  explicit Stepper(const Layer& l) : l_(l) {}

  State step(const StepInputs& in, const State& s) const {
    switch (l_.cell) {
      case Cell::kRnn:
        return {act(in.acts[0], add(in.xw, relay::nn::dense(s.h, in.r))), Expr()};
      case Cell::kGru:
        return gru(in, s);
      case Cell::kLstm:
        return lstm(in, s);
    }
    return s;
  }

 private:
  Expr gate(const Expr& x, int64_t k) const {
    return sliceAxis(x, 1, k * l_.hidden, (k + 1) * l_.hidden);
  }
  Expr c(double v) const { return scalarConstant(v, l_.dtype); }
  static Expr add(const Expr& a, const Expr& b) { return relay::add(a, b); }
  static Expr mul(const Expr& a, const Expr& b) { return relay::multiply(a, b); }
  // ONNX's clip bounds the input of every gate activation (not the cell state).
  Expr act(const Activation& a, const Expr& x) const {
    return activate(a, l_.clip ? relay::clip(x, -*l_.clip, *l_.clip) : x, l_.dtype);
  }

  // z and r gate, candidate h~ = g(X·Whᵀ + (r ⊙ H)·Rhᵀ + Wbh + Rbh) or, with linear_before_reset,
  // g(X·Whᵀ + r ⊙ (H·Rhᵀ + Rbh) + Wbh); H' = (1 - z) ⊙ h~ + z ⊙ H.
  // With linear_before_reset one product H·Rᵀ serves all three gates; otherwise h~'s product
  // must wait for r.
  State gru(const StepInputs& in, const State& s) const {
    const Expr recurrent = relay::nn::dense(s.h, in.r);
    const Expr z = act(in.acts[0], add(gate(in.xw, 0), gate(recurrent, 0)));
    const Expr r = act(in.acts[0], add(gate(in.xw, 1), gate(recurrent, 1)));
    Expr reset;
    if (l_.linearBeforeReset) {
      reset = gate(recurrent, 2);
      if (in.rbh) reset = add(reset, in.rbh);
      reset = mul(r, reset);
    } else {
      reset = relay::nn::dense(mul(r, s.h), in.rh);
    }
    const Expr candidate = act(in.acts[1], add(gate(in.xw, 2), reset));
    return {add(mul(relay::subtract(c(1), z), candidate), mul(z, s.h)), Expr()};
  }

  // Gates in ONNX's order i, o, f, c (peepholes i, o, f); input_forget couples f = 1 - i as
  // ONNX Runtime does. C' = f ⊙ C + i ⊙ g(c~); the output gate peeks at C'; H' = o ⊙ h(C').
  State lstm(const StepInputs& in, const State& s) const {
    const Expr gates = add(in.xw, relay::nn::dense(s.h, in.r));
    Expr i = gate(gates, 0), o = gate(gates, 1), f = gate(gates, 2);
    if (in.pi) {
      i = add(i, mul(in.pi, s.c));
      f = add(f, mul(in.pf, s.c));
    }
    i = act(in.acts[0], i);
    f = l_.inputForget ? relay::subtract(c(1), i) : act(in.acts[0], f);
    const Expr cell = add(mul(f, s.c), mul(i, act(in.acts[1], gate(gates, 3))));
    if (in.po) o = add(o, mul(in.po, cell));
    o = act(in.acts[0], o);
    return {mul(o, activate(in.acts[2], cell, l_.dtype)), cell};
  }

  const Layer& l_;
};

// The per-step mask (batch, 1): entry b still runs at step t when t < sequence_lens[b]. Null when
// every length is known to cover the whole sequence.
Expr stepMask(NodeContext& n, const Layer& l, int64_t t) {
  if (!n.hasInput(kSeqLens)) return Expr();
  if (std::optional<NDArray> lens = n.constantInput(kSeqLens)) {
    bool full = true;
    for (int64_t b = 0; b < lens->numel(); ++b) full = full && lens->getInt(b) >= l.seq;
    if (full) return Expr();
  }
  const Expr running = relay::less(scalarConstant(static_cast<double>(t), n.inputDtype(kSeqLens)),
                                   n.input(kSeqLens));
  return n.fold(relay::expandDims(running, 1));
}

// The outputs of one direction: Y's steps in time order (batch, hidden), and the final states.
struct DirectionResult {
  std::vector<Expr> ys;
  State last;
};

DirectionResult runDirection(NodeContext& n, const Layer& l, const Expr& xw, int64_t d,
                             const std::vector<Expr>& masks) {
  const int64_t rows = l.gates * l.hidden, hs = l.hidden;
  StepInputs in{.r = directionOf(n, kR, d, 0), .acts = &l.acts[d * l.perDirection]};
  if (l.cell == Cell::kGru && !l.linearBeforeReset) {
    in.rh = n.fold(sliceAxis(in.r, 0, 2 * hs, 3 * hs));
    in.r = n.fold(sliceAxis(in.r, 0, 0, 2 * hs));
  }
  if (l.linearBeforeReset && n.hasInput(kB))
    in.rbh = n.fold(sliceAxis(directionOf(n, kB, d, 0), 0, rows + 2 * hs, 2 * rows));
  if (l.cell == Cell::kLstm && n.hasInput(kPeephole)) {
    const Expr p = directionOf(n, kPeephole, d, 0);
    in.pi = n.fold(sliceAxis(p, 0, 0, hs));
    in.po = n.fold(sliceAxis(p, 0, hs, 2 * hs));
    in.pf = n.fold(sliceAxis(p, 0, 2 * hs, 3 * hs));
  }
  State s{initialOf(n, l, kInitialH, d),
          l.cell == Cell::kLstm ? initialOf(n, l, kInitialC, d) : Expr()};
  const Stepper stepper(l);
  const Expr zero = scalarConstant(0, l.dtype);
  const int64_t timeAxis = l.batchFirst ? 1 : 0;
  DirectionResult out{.ys = std::vector<Expr>(l.seq)};
  for (int64_t k = 0; k < l.seq; ++k) {
    const int64_t t = l.reverse[d] ? l.seq - 1 - k : k;
    in.xw = relay::reshape(relay::stridedSlice(xw, {t, d * rows}, {t + 1, (d + 1) * rows}, {1, 1},
                                               std::vector<int64_t>{timeAxis, 2}),
                           {l.batch, rows});
    State next = stepper.step(in, s);
    const Expr& mask = masks[t];
    if (!mask) {
      out.ys[t] = next.h;
      s = next;
      continue;
    }
    out.ys[t] = relay::where(mask, next.h, zero);
    s.h = relay::where(mask, next.h, s.h);
    if (next.c) s.c = relay::where(mask, next.c, s.c);
  }
  out.last = s;
  return out;
}

template <Cell kCell>
void recurrent(NodeContext& n) {
  const Layer l = layerOf(n, kCell);
  const Expr xw = projectInputs(n, l);
  std::vector<Expr> masks;
  for (int64_t t = 0; t < l.seq; ++t) masks.push_back(stepMask(n, l, t));
  std::vector<Expr> ys, hs, cs;
  for (int64_t d = 0; d < static_cast<int64_t>(l.reverse.size()); ++d) {
    DirectionResult r = runDirection(n, l, xw, d, masks);
    // Y is (seq, directions, batch, hidden), or (batch, seq, directions, hidden) batch-first.
    if (n.outputUsed(0)) ys.push_back(relay::stack(r.ys, l.batchFirst ? 1 : 0));
    hs.push_back(r.last.h);
    cs.push_back(r.last.c);
  }
  const int stateAxis = l.batchFirst ? 1 : 0;
  if (n.outputUsed(0)) n.setOutput(0, relay::stack(ys, l.batchFirst ? 2 : 1));
  if (n.outputUsed(1)) n.setOutput(1, relay::stack(hs, stateAxis));
  if (kCell == Cell::kLstm && n.outputUsed(2)) n.setOutput(2, relay::stack(cs, stateAxis));
}

constexpr ConverterRow kRows[] = {
    {"GRU", recurrent<Cell::kGru>,
     "unrolled over the static sequence; all attributes incl. layout, linear_before_reset"},
    {"LSTM", recurrent<Cell::kLstm>,
     "unrolled over the static sequence; all attributes incl. layout, peepholes, input_forget"},
    {"RNN", recurrent<Cell::kRnn>,
     "unrolled over the static sequence; all attributes incl. layout"},
};

}  // namespace

std::span<const ConverterRow> rnnConverters() {
  return kRows;
}

}  // namespace tessera::frontend::onnx
