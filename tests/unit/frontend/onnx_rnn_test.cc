// ONNX importer, recurrent layers (RNN, GRU, LSTM): the imported graph under the reference
// interpreter against a plain scalar recurrence written here from the ONNX spec, on seeded random
// weights, for each direction, layout, sequence_lens masking, clip and cell option; and the
// diagnostics for attributes the importer rejects.
#include <algorithm>
#include <cmath>
#include <functional>
#include <optional>

#include <gtest/gtest.h>

#include "onnx_test_util.h"
#include "relay/text/printer.h"

namespace tessera::test {
namespace {

// An activation with its parameters spelled out (the test states the defaults itself).
struct Act {
  std::string name;
  double alpha = 0, beta = 0;
};

double apply(const Act& a, double x) {
  if (a.name == "Tanh") return std::tanh(x);
  if (a.name == "Sigmoid") return 1 / (1 + std::exp(-x));
  if (a.name == "Relu") return std::max(x, 0.0);
  if (a.name == "Affine") return a.alpha * x + a.beta;
  if (a.name == "LeakyRelu") return x >= 0 ? x : a.alpha * x;
  if (a.name == "ThresholdedRelu") return x > a.alpha ? x : 0;
  if (a.name == "ScaledTanh") return a.alpha * std::tanh(a.beta * x);
  if (a.name == "HardSigmoid") return std::clamp(a.alpha * x + a.beta, 0.0, 1.0);
  if (a.name == "Elu") return x >= 0 ? x : a.alpha * (std::exp(x) - 1);
  if (a.name == "Softsign") return x / (1 + std::abs(x));
  if (a.name == "Softplus") return std::log(1 + std::exp(x));
  ADD_FAILURE() << "no reference for " << a.name;
  return 0;
}

// One layer to import and check. Weights are initializers; X, sequence_lens (unless
// `constantLens`), initial_h and initial_c are graph inputs.
struct Case {
  std::string op = "LSTM";
  std::string direction = "forward";
  int64_t layout = 0;
  int64_t seq = 4, batch = 3, input = 3, hidden = 4;
  bool bias = true, initial = true, peepholes = false;
  bool inputForget = false, linearBeforeReset = false;
  std::optional<double> clip;
  std::vector<double> lens;  // empty: no sequence_lens
  bool constantLens = false;
  std::vector<std::string> activations;  // the attribute; empty: not set
  std::vector<float> alphas, betas;
  std::vector<Act> refActs;  // per direction, as the reference applies them; empty: defaults

  int64_t gates() const { return op == "RNN" ? 1 : op == "GRU" ? 3 : 4; }
  int64_t directions() const { return direction == "bidirectional" ? 2 : 1; }
};

// The layer's tensors, time-major ((seq, batch, input) and (directions, batch, hidden) states).
struct Data {
  NDArray x, w, r, b, h0, c0, p, lens;
};

Data dataFor(const Case& c, uint64_t seed) {
  const DataType f = DataType::float32();
  const int64_t nd = c.directions(), rows = c.gates() * c.hidden;
  Data d;
  d.x = randomTensor({c.seq, c.batch, c.input}, f, seed);
  d.w = randomTensor({nd, rows, c.input}, f, seed + 1, -0.6, 0.6);
  d.r = randomTensor({nd, rows, c.hidden}, f, seed + 2, -0.6, 0.6);
  d.b = randomTensor({nd, 2 * rows}, f, seed + 3, -0.5, 0.5);
  d.h0 = randomTensor({nd, c.batch, c.hidden}, f, seed + 4, -0.5, 0.5);
  d.c0 = randomTensor({nd, c.batch, c.hidden}, f, seed + 5, -0.5, 0.5);
  d.p = randomTensor({nd, 3 * c.hidden}, f, seed + 6, -0.5, 0.5);
  if (!c.lens.empty()) d.lens = tensorOf({c.batch}, DataType::int32(), c.lens);
  return d;
}

// Y (seq, directions, batch, hidden), Y_h and Y_c (directions, batch, hidden).
struct Outputs {
  std::vector<double> y, yh, yc;
};

// The ONNX recurrences, one scalar at a time. Past an entry's sequence length the state holds
// and Y is zero (ONNX Runtime); the reverse direction starts at the entry's last valid step.
Outputs reference(const Case& c, const Data& d) {
  const int64_t seq = c.seq, batch = c.batch, in = c.input, hs = c.hidden, g = c.gates();
  const int64_t nd = c.directions(), rows = g * hs;
  const std::vector<double> x = valuesOf(d.x), w = valuesOf(d.w), r = valuesOf(d.r),
                            b = valuesOf(d.b), p = valuesOf(d.p);
  std::vector<double> lens(static_cast<size_t>(batch), static_cast<double>(seq));
  if (!c.lens.empty()) lens = c.lens;
  std::vector<Act> acts = c.refActs;
  if (acts.empty()) {
    const std::vector<Act> one = c.op == "RNN" ? std::vector<Act>{{"Tanh"}}
                                 : c.op == "GRU"
                                     ? std::vector<Act>{{"Sigmoid"}, {"Tanh"}}
                                     : std::vector<Act>{{"Sigmoid"}, {"Tanh"}, {"Tanh"}};
    for (int64_t k = 0; k < nd; ++k) acts.insert(acts.end(), one.begin(), one.end());
  }
  auto clip = [&](double v) { return c.clip ? std::clamp(v, -*c.clip, *c.clip) : v; };
  Outputs out{.y = std::vector<double>(static_cast<size_t>(seq * nd * batch * hs)),
              .yh = std::vector<double>(static_cast<size_t>(nd * batch * hs)),
              .yc = std::vector<double>(static_cast<size_t>(nd * batch * hs))};
  const size_t actsPerDirection = acts.size() / static_cast<size_t>(nd);
  for (int64_t dir = 0; dir < nd; ++dir) {
    const bool reverse = c.direction == "reverse" || dir == 1;
    const Act* f = &acts[static_cast<size_t>(dir) * actsPerDirection];
    std::vector<double> h(static_cast<size_t>(batch * hs)), cell(h.size());
    if (c.initial) {
      const std::vector<double> h0 = valuesOf(d.h0), c0 = valuesOf(d.c0);
      std::copy_n(h0.begin() + dir * batch * hs, h.size(), h.begin());
      std::copy_n(c0.begin() + dir * batch * hs, h.size(), cell.begin());
    }
    auto W = [&](int64_t j, int64_t i) {
      return w[static_cast<size_t>((dir * rows + j) * in + i)];
    };
    auto R = [&](int64_t j, int64_t k) {
      return r[static_cast<size_t>((dir * rows + j) * hs + k)];
    };
    auto B = [&](int64_t j) { return c.bias ? b[static_cast<size_t>(dir * 2 * rows + j)] : 0.0; };
    auto P = [&](int64_t j) {
      return c.peepholes ? p[static_cast<size_t>(dir * 3 * hs + j)] : 0.0;
    };
    for (int64_t step = 0; step < seq; ++step) {
      const int64_t t = reverse ? seq - 1 - step : step;
      for (int64_t e = 0; e < batch; ++e) {
        if (static_cast<double>(t) >= lens[static_cast<size_t>(e)]) continue;  // Y stays zero
        double* he = &h[static_cast<size_t>(e * hs)];
        double* ce = &cell[static_cast<size_t>(e * hs)];
        std::vector<double> xw(static_cast<size_t>(rows)), rh(static_cast<size_t>(rows));
        for (int64_t j = 0; j < rows; ++j) {
          xw[j] = B(j);
          rh[j] = B(rows + j);
          for (int64_t i = 0; i < in; ++i)
            xw[j] += x[static_cast<size_t>((t * batch + e) * in + i)] * W(j, i);
          for (int64_t k = 0; k < hs; ++k) rh[j] += he[k] * R(j, k);
        }
        std::vector<double> hn(static_cast<size_t>(hs)), cn(static_cast<size_t>(hs));
        if (c.op == "RNN")
          for (int64_t j = 0; j < hs; ++j) hn[j] = apply(f[0], clip(xw[j] + rh[j]));
        if (c.op == "GRU") {
          std::vector<double> z(hn.size()), rg(hn.size());
          for (int64_t j = 0; j < hs; ++j) {
            z[j] = apply(f[0], clip(xw[j] + rh[j]));
            rg[j] = apply(f[0], clip(xw[hs + j] + rh[hs + j]));
          }
          for (int64_t j = 0; j < hs; ++j) {
            double pre = xw[2 * hs + j];
            if (c.linearBeforeReset) {
              pre += rg[j] * rh[2 * hs + j];
            } else {
              double rr = B(rows + 2 * hs + j);
              for (int64_t k = 0; k < hs; ++k) rr += rg[k] * he[k] * R(2 * hs + j, k);
              pre += rr;
            }
            hn[j] = (1 - z[j]) * apply(f[1], clip(pre)) + z[j] * he[j];
          }
        }
        if (c.op == "LSTM")
          for (int64_t j = 0; j < hs; ++j) {
            const double ig = apply(f[0], clip(xw[j] + rh[j] + P(j) * ce[j]));
            const double fg =
                c.inputForget
                    ? 1 - ig
                    : apply(f[0], clip(xw[2 * hs + j] + rh[2 * hs + j] + P(2 * hs + j) * ce[j]));
            cn[j] = fg * ce[j] + ig * apply(f[1], clip(xw[3 * hs + j] + rh[3 * hs + j]));
            const double og = apply(f[0], clip(xw[hs + j] + rh[hs + j] + P(hs + j) * cn[j]));
            hn[j] = og * apply(f[2], cn[j]);
          }
        std::copy(hn.begin(), hn.end(), he);
        std::copy(cn.begin(), cn.end(), ce);
        std::copy(hn.begin(), hn.end(), out.y.begin() + ((t * nd + dir) * batch + e) * hs);
      }
    }
    std::copy(h.begin(), h.end(), out.yh.begin() + dir * batch * hs);
    std::copy(cell.begin(), cell.end(), out.yc.begin() + dir * batch * hs);
  }
  return out;
}

// (a, b, inner) -> (b, a, inner): time-major to batch-first and back.
std::vector<double> swapLeading(const std::vector<double>& v, int64_t a, int64_t b, int64_t inner) {
  std::vector<double> out(v.size());
  for (int64_t i = 0; i < a; ++i)
    for (int64_t j = 0; j < b; ++j)
      for (int64_t k = 0; k < inner; ++k)
        out[static_cast<size_t>((j * a + i) * inner + k)] =
            v[static_cast<size_t>((i * b + j) * inner + k)];
  return out;
}

OnnxGraph graphFor(const Case& c, const Data& d) {
  const int64_t nd = c.directions();
  OnnxGraph g(14);
  const bool batchFirst = c.layout == 1;
  const std::vector<int64_t> state = batchFirst ? std::vector<int64_t>{c.batch, nd, c.hidden}
                                                : std::vector<int64_t>{nd, c.batch, c.hidden};
  g.input("X", batchFirst ? std::vector<int64_t>{c.batch, c.seq, c.input}
                          : std::vector<int64_t>{c.seq, c.batch, c.input});
  std::vector<std::string> inputs = {"X", "W", "R", c.bias ? "B" : ""};
  g.initializer("W", d.w).initializer("R", d.r);
  if (c.bias) g.initializer("B", d.b);
  inputs.push_back(c.lens.empty() ? "" : "lens");
  if (!c.lens.empty() && c.constantLens) g.initializer("lens", d.lens);
  if (!c.lens.empty() && !c.constantLens) g.input("lens", {c.batch}, ::onnx::TensorProto::INT32);
  inputs.push_back(c.initial ? "h0" : "");
  if (c.initial) g.input("h0", state);
  if (c.op == "LSTM") {
    inputs.push_back(c.initial ? "c0" : "");
    if (c.initial) g.input("c0", state);
    inputs.push_back(c.peepholes ? "P" : "");
    if (c.peepholes) g.initializer("P", d.p);
  }
  while (!inputs.empty() && inputs.back().empty()) inputs.pop_back();
  std::vector<std::string> outputs = {"Y", "Y_h"};
  if (c.op == "LSTM") outputs.push_back("Y_c");
  OnnxNode node = g.node(c.op, inputs, outputs);
  node.i("hidden_size", c.hidden).s("direction", c.direction);
  if (c.layout != 0) node.i("layout", c.layout);
  if (c.clip) node.f("clip", static_cast<float>(*c.clip));
  if (c.inputForget) node.i("input_forget", 1);
  if (c.linearBeforeReset) node.i("linear_before_reset", 1);
  if (!c.alphas.empty()) node.floats("activation_alpha", c.alphas);
  if (!c.betas.empty()) node.floats("activation_beta", c.betas);
  if (!c.activations.empty()) {
    auto* a = node.proto().add_attribute();
    a->set_name("activations");
    a->set_type(::onnx::AttributeProto::STRINGS);
    for (const std::string& s : c.activations) a->add_strings(s);
  }
  for (const std::string& o : outputs) g.output(o);
  return g;
}

// Imports and runs `c` on seeded data and compares Y, Y_h (and Y_c) with the reference.
void expectMatchesReference(const Case& c, uint64_t seed = 7) {
  const Data d = dataFor(c, seed);
  const int64_t nd = c.directions(), hs = c.hidden;
  const bool batchFirst = c.layout == 1;
  std::vector<NDArray> args;
  const std::vector<double> x = valuesOf(d.x);
  args.push_back(
      batchFirst ? f32({c.batch, c.seq, c.input}, swapLeading(x, c.seq, c.batch, c.input)) : d.x);
  if (!c.lens.empty() && !c.constantLens) args.push_back(d.lens);
  auto state = [&](const NDArray& s) {
    return batchFirst ? f32({c.batch, nd, hs}, swapLeading(valuesOf(s), nd, c.batch, hs)) : s;
  };
  if (c.initial) args.push_back(state(d.h0));
  if (c.initial && c.op == "LSTM") args.push_back(state(d.c0));

  const relay::Value v = runOnnx(graphFor(c, d), args);
  ASSERT_TRUE(v.isTuple());
  const Outputs want = reference(c, d);
  const std::vector<int64_t> yShape = batchFirst ? std::vector<int64_t>{c.batch, c.seq, nd, hs}
                                                 : std::vector<int64_t>{c.seq, nd, c.batch, hs};
  const std::vector<int64_t> hShape =
      batchFirst ? std::vector<int64_t>{c.batch, nd, hs} : std::vector<int64_t>{nd, c.batch, hs};
  auto y = batchFirst ? swapLeading(want.y, c.seq * nd, c.batch, hs) : want.y;
  auto yh = batchFirst ? swapLeading(want.yh, nd, c.batch, hs) : want.yh;
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32(yShape, y), 1e-4, 1e-5)) << "Y";
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), f32(hShape, yh), 1e-4, 1e-5)) << "Y_h";
  if (c.op != "LSTM") return;
  auto yc = batchFirst ? swapLeading(want.yc, nd, c.batch, hs) : want.yc;
  EXPECT_TRUE(allClose(v.fields()[2].tensor(), f32(hShape, yc), 1e-4, 1e-5)) << "Y_c";
}

TEST(OnnxRnn, ForwardWithBiasAndInitialState) {
  expectMatchesReference({.op = "RNN"});
}

TEST(OnnxRnn, ReverseWithoutBiasOrInitialState) {
  expectMatchesReference({.op = "RNN", .direction = "reverse", .bias = false, .initial = false});
}

TEST(OnnxRnn, BidirectionalBatchFirst) {
  expectMatchesReference({.op = "RNN", .direction = "bidirectional", .layout = 1});
}

// Every activation with ONNX's defaults (the reference states them), and with given parameters.
TEST(OnnxRnn, EachActivationWithDefaultAndGivenParameters) {
  const std::vector<Act> defaults = {{"Relu"},
                                     {"Sigmoid"},
                                     {"Affine", 1, 0},
                                     {"LeakyRelu", 0.01},
                                     {"ThresholdedRelu", 1},
                                     {"ScaledTanh", 1, 1},
                                     {"HardSigmoid", 0.2, 0.5},
                                     {"Elu", 1},
                                     {"Softsign"},
                                     {"Softplus"}};
  for (const Act& a : defaults) {
    SCOPED_TRACE(a.name);
    expectMatchesReference({.op = "RNN", .activations = {a.name}, .refActs = {a}});
  }
  for (const Act& a : std::vector<Act>{{"Affine", 0.5, -0.25},
                                       {"LeakyRelu", 0.3},
                                       {"ThresholdedRelu", 0.1},
                                       {"ScaledTanh", 1.5, 0.7},
                                       {"HardSigmoid", 0.4, 0.3},
                                       {"Elu", 0.6}}) {
    SCOPED_TRACE(a.name + " with parameters");
    const bool usesBeta = a.name == "Affine" || a.name == "ScaledTanh" || a.name == "HardSigmoid";
    expectMatchesReference(
        {.op = "RNN",
         .activations = {a.name},
         .alphas = {static_cast<float>(a.alpha)},
         .betas = usesBeta ? std::vector<float>{static_cast<float>(a.beta)} : std::vector<float>{},
         .refActs = {a}});
  }
}

TEST(OnnxGru, LinearBeforeResetOffAndOn) {
  for (bool lbr : {false, true}) {
    SCOPED_TRACE(lbr ? "linear_before_reset=1" : "linear_before_reset=0");
    expectMatchesReference({.op = "GRU", .linearBeforeReset = lbr});
    expectMatchesReference({.op = "GRU", .direction = "reverse", .linearBeforeReset = lbr}, 11);
  }
}

TEST(OnnxGru, BidirectionalBatchFirstWithClip) {
  expectMatchesReference({.op = "GRU", .direction = "bidirectional", .layout = 1, .clip = 0.4});
}

// Runtime lengths 4, 2, 1: the short entries hold their state and give zeros in Y; the reverse
// direction starts from each entry's last valid step.
TEST(OnnxGru, BidirectionalRuntimeSequenceLensMask) {
  expectMatchesReference(
      {.op = "GRU", .direction = "bidirectional", .linearBeforeReset = true, .lens = {4, 2, 1}});
}

TEST(OnnxLstm, ForwardWithAllOutputs) {
  expectMatchesReference({.op = "LSTM"});
}

TEST(OnnxLstm, PeepholesBidirectional) {
  expectMatchesReference({.op = "LSTM", .direction = "bidirectional", .peepholes = true});
}

TEST(OnnxLstm, InputForgetCouplesTheForgetGate) {
  expectMatchesReference({.op = "LSTM", .peepholes = true, .inputForget = true});
}

TEST(OnnxLstm, ClipBoundsGateInputs) {
  // A small threshold that most gate inputs exceed, so clipping changes the result.
  expectMatchesReference({.op = "LSTM", .direction = "reverse", .clip = 0.25});
}

TEST(OnnxLstm, SequenceLensRuntimeAndConstantBatchFirst) {
  for (bool constant : {false, true}) {
    SCOPED_TRACE(constant ? "constant lengths" : "runtime lengths");
    expectMatchesReference({.op = "LSTM",
                            .direction = "bidirectional",
                            .layout = 1,
                            .peepholes = true,
                            .lens = {3, 4, 1},
                            .constantLens = constant});
  }
}

// activation_alpha/beta go, in order, only to the activations that take them; missing ones take
// the operator's default (ScaledTanh here: 1, 1).
TEST(OnnxLstm, CustomActivationsConsumeAlphaAndBetaInOrder) {
  expectMatchesReference(
      {.op = "LSTM",
       .activations = {"HardSigmoid", "LeakyRelu", "ScaledTanh"},
       .alphas = {0.3F, 0.05F},
       .betas = {0.6F},
       .refActs = {{"HardSigmoid", 0.3F, 0.6F}, {"LeakyRelu", 0.05F}, {"ScaledTanh", 1, 1}}});
}

// The efficient form: one projection of X for all steps and directions, then one recurrent
// product per step and direction.
TEST(OnnxLstm, InputProjectionIsOneDense) {
  const Case c{.op = "LSTM", .direction = "bidirectional", .seq = 5};
  const std::string text =
      relay::printModule(frontend::onnx::importOnnxBytes(graphFor(c, dataFor(c, 1)).bytes()));
  size_t dense = 0;
  for (size_t at = text.find("nn.dense("); at != std::string::npos;
       at = text.find("nn.dense(", at + 1))
    ++dense;
  EXPECT_EQ(dense, 1 + 5 * 2);
}

Diagnostic importError(const Case& c) {
  return diagnosticOf(
      [&] { (void)frontend::onnx::importOnnxBytes(graphFor(c, dataFor(c, 1)).bytes()); });
}

TEST(OnnxRnn, WrongActivationCountIsADiagnostic) {
  const Diagnostic d = importError({.op = "LSTM", .activations = {"Sigmoid", "Tanh"}});
  EXPECT_EQ(d.code, "onnx_attr");
  EXPECT_NE(d.message.find("'activations' has 2 names but LSTM takes 3 per direction"),
            std::string::npos)
      << d.message;
  EXPECT_NE(d.context.find("LSTM"), std::string::npos);
}

TEST(OnnxRnn, UnknownActivationIsADiagnostic) {
  const Diagnostic d = importError({.op = "GRU", .activations = {"Sigmoid", "Swish"}});
  EXPECT_EQ(d.code, "onnx_unsupported_attr");
  EXPECT_NE(d.message.find("activations=Swish"), std::string::npos) << d.message;
  EXPECT_NE(d.message.find("HardSigmoid"), std::string::npos) << d.message;
}

TEST(OnnxRnn, BadDirectionLayoutAndClipAreDiagnostics) {
  Diagnostic d = importError({.op = "RNN", .direction = "sideways"});
  EXPECT_EQ(d.code, "onnx_unsupported_attr");
  EXPECT_NE(d.message.find("direction=sideways"), std::string::npos) << d.message;
  d = importError({.op = "RNN", .layout = 2});
  EXPECT_EQ(d.code, "onnx_unsupported_attr");
  EXPECT_NE(d.message.find("layout=2"), std::string::npos) << d.message;
  d = importError({.op = "GRU", .clip = -1.0});
  EXPECT_EQ(d.code, "onnx_unsupported_attr");
  EXPECT_NE(d.message.find("clip="), std::string::npos) << d.message;
}

}  // namespace
}  // namespace tessera::test
