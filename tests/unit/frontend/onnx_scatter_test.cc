// ONNX importer, scatters, TopK, Einsum and ReverseSequence: results of the imported graph under
// the reference interpreter against values computed here by plain loops, with indices both as
// run-time graph inputs (the match-mask lowering) and as initializers (gather tables), and the
// diagnostics for malformed equations, bad axes and oversized masks.
#include <algorithm>
#include <map>
#include <numeric>

#include <gtest/gtest.h>

#include "onnx_test_util.h"

namespace tessera::test {
namespace {

constexpr int32_t kInt64 = ::onnx::TensorProto::INT64;

// ScatterElements on 2-D data along `axis` by the ONNX definition: each update applied in turn.
std::vector<double> scatterElementsRef(std::vector<double> data, const std::vector<int64_t>& d,
                                       const std::vector<double>& idx,
                                       const std::vector<int64_t>& q,
                                       const std::vector<double>& upd, int axis,
                                       const std::string& reduction) {
  for (int64_t i = 0; i < q[0]; ++i)
    for (int64_t j = 0; j < q[1]; ++j) {
      auto k = static_cast<int64_t>(idx[i * q[1] + j]);
      if (k < 0) k += d[axis];
      const int64_t at = axis == 0 ? k * d[1] + j : i * d[1] + k;
      const double u = upd[i * q[1] + j];
      if (reduction == "add")
        data[at] += u;
      else if (reduction == "mul")
        data[at] *= u;
      else if (reduction == "max")
        data[at] = std::max(data[at], u);
      else
        data[at] = u;
    }
  return data;
}

// One ScatterElements node; indices a graph input (run-time) or an initializer (known).
OnnxGraph scatterElementsGraph(const std::vector<int64_t>& d, const NDArray& indices, bool known,
                               int64_t axis, const std::string& reduction) {
  OnnxGraph g(16);
  g.input("data", d);
  if (known)
    g.initializer("idx", indices);
  else
    g.input("idx", indices.shape(), kInt64);
  g.input("upd", indices.shape());
  OnnxNode node = g.node("ScatterElements", {"data", "idx", "upd"}, {"y"}).i("axis", axis);
  if (!reduction.empty()) node.s("reduction", reduction);
  g.output("y");
  return g;
}

NDArray runScatterElements(const std::vector<int64_t>& d, const std::vector<double>& data,
                           const NDArray& indices, const std::vector<double>& upd, bool known,
                           int64_t axis, const std::string& reduction) {
  OnnxGraph g = scatterElementsGraph(d, indices, known, axis, reduction);
  const NDArray x = f32(d, data), u = f32(indices.shape(), upd);
  return known ? runOnnx1(g, {x, u}) : runOnnx1(g, {x, indices, u});
}

// Duplicates, negative indices and every reduction, through both lowerings.
TEST(OnnxScatter, ScatterElementsMatchesSequentialDefinition) {
  const std::vector<int64_t> d = {3, 4}, q = {2, 4};
  const std::vector<double> data = iota(12, 1);
  const std::vector<double> idx = {0, -1, 2, 0, 0, 2, -3, 1};  // rows 0 and 2 hit twice
  const std::vector<double> upd = {10, 20, 30, 40, 50, 60, 70, 80};
  for (const std::string reduction : {"", "add", "mul", "max"})
    for (bool known : {false, true}) {
      const NDArray got = runScatterElements(d, data, i64(q, idx), upd, known, 0, reduction);
      const NDArray want = f32(d, scatterElementsRef(data, d, idx, q, upd, 0, reduction));
      EXPECT_TRUE(allClose(got, want)) << "reduction '" << reduction << "' known " << known;
    }
}

// Indices covering only part of the other axis: the lines they miss stay as they are.
TEST(OnnxScatter, ScatterElementsIndicesSmallerThanData) {
  const std::vector<int64_t> d = {3, 4}, q = {2, 3};
  const std::vector<double> idx = {3, 0, 3, -1, 1, 2}, upd = {1, 2, 3, 4, 5, 6};
  for (const std::string reduction : {"", "add"})
    for (bool known : {false, true}) {
      const NDArray got = runScatterElements(d, iota(12), i64(q, idx), upd, known, 1, reduction);
      const NDArray want = f32(d, scatterElementsRef(iota(12), d, idx, q, upd, 1, reduction));
      EXPECT_TRUE(allClose(got, want)) << "reduction '" << reduction << "' known " << known;
    }
}

TEST(OnnxScatter, ScatterElementsAlongLastAxisWithNegativeIndices) {
  const std::vector<int64_t> d = {2, 5}, q = {2, 3};
  const std::vector<double> idx = {-1, 0, -1, 4, -5, 2};  // duplicate in row 0: last wins
  const std::vector<double> upd = {1, 2, 3, 4, 5, 6};
  for (bool known : {false, true}) {
    const NDArray got = runScatterElements(d, iota(10), i64(q, idx), upd, known, -1, "none");
    EXPECT_TRUE(allClose(got, f32(d, {2, 1, 2, 3, 3, 5, 6, 6, 8, 4}))) << "known " << known;
  }
}

TEST(OnnxScatter, ScatterElementsErrors) {
  const NDArray idx = i64({1, 2}, {0, 1});
  const Diagnostic axis = diagnosticOf([&] {
    frontend::onnx::importOnnxBytes(scatterElementsGraph({2, 3}, idx, false, 2, "").bytes(), {});
  });
  EXPECT_NE(axis.message.find("axis"), std::string::npos) << axis.message;
  const Diagnostic reduction = diagnosticOf([&] {
    frontend::onnx::importOnnxBytes(scatterElementsGraph({2, 3}, idx, false, 0, "xor").bytes(), {});
  });
  EXPECT_EQ(reduction.code, "onnx_unsupported_attr");
  const Diagnostic range = diagnosticOf([&] {
    frontend::onnx::importOnnxBytes(
        scatterElementsGraph({2, 3}, i64({1, 2}, {0, 3}), true, 1, "").bytes(), {});
  });
  EXPECT_NE(range.message.find("index 3 is out of range"), std::string::npos) << range.message;
  // 4096 run-time updates into 8192 elements: a 2^25-element mask is refused, not allocated.
  const Diagnostic big = diagnosticOf([&] {
    frontend::onnx::importOnnxBytes(
        scatterElementsGraph({2, 4096}, NDArray::empty({1, 4096}, DataType::int64()), false, 1, "")
            .bytes(),
        {});
  });
  EXPECT_EQ(big.code, "onnx_unsupported_size");
  EXPECT_NE(big.message.find("16777216"), std::string::npos) << big.message;
}

// ScatterND: whole rows of a (3, 2, 2) tensor addressed by 1-tuples, a duplicate multiplied twice,
// and single elements addressed by 2-tuples with a negative entry.
TEST(OnnxScatter, ScatterNdRowsAndElements) {
  for (bool known : {false, true}) {
    OnnxGraph g(16);
    const NDArray rows = i64({3, 1}, {2, 0, -1}), cells = i64({2, 2}, {0, -1, 2, 0});
    g.input("x", {3, 2, 2}).input("u", {3, 2, 2}).input("c", {2, 2});
    if (known)
      g.initializer("rows", rows).initializer("cells", cells);
    else
      g.input("rows", {3, 1}, kInt64).input("cells", {2, 2}, kInt64);
    g.node("ScatterND", {"x", "rows", "u"}, {"mul"}).s("reduction", "mul");
    g.node("ScatterND", {"x", "cells", "c"}, {"set"});
    g.output("mul").output("set");
    const NDArray x = f32({3, 2, 2}, iota(12)), c = f32({2, 2}, {-1, -2, -3, -4});
    const NDArray u = f32({3, 2, 2}, {2, 2, 2, 2, 3, 3, 3, 3, 5, 5, 5, 5});
    const relay::Value v = known ? runOnnx(g, {x, u, c}) : runOnnx(g, {x, u, c, rows, cells});
    ASSERT_TRUE(v.isTuple());
    // row 2 times 2 and (index -1 = 2) times 5; row 0 times 3; row 1 unchanged.
    EXPECT_TRUE(allClose(v.fields()[0].tensor(),
                         f32({3, 2, 2}, {0, 3, 6, 9, 4, 5, 6, 7, 80, 90, 100, 110})));
    // (0, -1) = (0, 1) is the pair of elements at 2 and 3; (2, 0) the pair at 8 and 9.
    EXPECT_TRUE(allClose(v.fields()[1].tensor(),
                         f32({3, 2, 2}, {0, 1, -1, -2, 4, 5, 6, 7, -3, -4, 10, 11})));
  }
}

// --- TopK -------------------------------------------------------------------------------------

// Per row of a (rows, L) table: the k best positions, ties to the lower index.
std::pair<std::vector<double>, std::vector<double>> topKRef(const std::vector<double>& x,
                                                            int64_t rows, int64_t len, int64_t k,
                                                            bool largest) {
  std::vector<double> values, indices;
  for (int64_t r = 0; r < rows; ++r) {
    std::vector<int64_t> order(static_cast<size_t>(len));
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int64_t a, int64_t b) {
      return largest ? x[r * len + a] > x[r * len + b] : x[r * len + a] < x[r * len + b];
    });
    for (int64_t t = 0; t < k; ++t) {
      values.push_back(x[r * len + order[t]]);
      indices.push_back(static_cast<double>(order[t]));
    }
  }
  return {values, indices};
}

TEST(OnnxTopK, TiesTakeTheLowerIndexLargestAndSmallest) {
  const std::vector<double> x = {3, 1, 3, 2, 1, 3, 5, 5, 0, 5, 4, 4};  // (2, 6) with ties
  for (int64_t largest : {1, 0}) {
    OnnxGraph g(11);
    g.input("x", {2, 6}).initializer("k", i64({1}, {4}));
    g.node("TopK", {"x", "k"}, {"values", "indices"}).i("largest", largest);
    g.output("values").output("indices");
    const relay::Value v = runOnnx(g, {f32({2, 6}, x)});
    ASSERT_TRUE(v.isTuple());
    auto [values, indices] = topKRef(x, 2, 6, 4, largest != 0);
    EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({2, 4}, values))) << "largest " << largest;
    EXPECT_TRUE(allClose(v.fields()[1].tensor(), i64({2, 4}, indices), 0, 0));
  }
}

TEST(OnnxTopK, FirstAxisOfThreeDimensionsWithGivenK) {
  // K as a graph input whose value is given at import; axis 0 of (4, 2, 2).
  OnnxGraph g(11);
  g.input("x", {4, 2, 2}).input("k", {1}, kInt64);
  g.node("TopK", {"x", "k"}, {"values", "indices"}).i("axis", 0);
  g.output("values").output("indices");
  const std::vector<double> x = {4, 0, 7, 1, 9, 0, 7, 3, 1, 5, 2, 3, 9, 2, 7, 0};
  frontend::onnx::ImportOptions options;
  options.inputValues["k"] = i64({1}, {2});
  const relay::Value v = runOnnx(g, {f32({4, 2, 2}, x), i64({1}, {2})}, options);
  ASSERT_TRUE(v.isTuple());
  // Columns (x[:, j]) transposed to rows for the reference, results transposed back.
  std::vector<double> cols;
  for (int64_t j = 0; j < 4; ++j)
    for (int64_t i = 0; i < 4; ++i) cols.push_back(x[i * 4 + j]);
  auto [values, indices] = topKRef(cols, 4, 4, 2, true);
  std::vector<double> wantValues(8), wantIndices(8);
  for (int64_t j = 0; j < 4; ++j)
    for (int64_t t = 0; t < 2; ++t) {
      wantValues[t * 4 + j] = values[j * 2 + t];
      wantIndices[t * 4 + j] = indices[j * 2 + t];
    }
  EXPECT_TRUE(allClose(v.fields()[0].tensor(), f32({2, 2, 2}, wantValues)));
  EXPECT_TRUE(allClose(v.fields()[1].tensor(), i64({2, 2, 2}, wantIndices), 0, 0));
}

TEST(OnnxTopK, KOutOfRangeIsAnError) {
  OnnxGraph g(11);
  g.input("x", {2, 3}).initializer("k", i64({1}, {4}));
  g.node("TopK", {"x", "k"}, {"values", "indices"});
  g.output("values");
  const Diagnostic d = diagnosticOf([&] { frontend::onnx::importOnnxBytes(g.bytes(), {}); });
  EXPECT_EQ(d.code, "onnx_input");
  EXPECT_NE(d.message.find("K = 4 is outside [1, 3]"), std::string::npos) << d.message;
}

// --- Einsum -----------------------------------------------------------------------------------

struct Tensor {
  std::vector<int64_t> shape;
  std::vector<double> values;
};

// Einsum by enumeration: every assignment of the labels of an explicit equation without "...".
Tensor einsumRef(const std::string& equation, const std::vector<Tensor>& in) {
  const size_t arrow = equation.find("->");
  std::vector<std::string> terms;
  std::string lhs = equation.substr(0, arrow), cur;
  for (char c : lhs + ",") {
    if (c != ',') {
      cur += c;
      continue;
    }
    terms.push_back(cur);
    cur.clear();
  }
  const std::string out = equation.substr(arrow + 2);
  std::map<char, int64_t> extent;
  for (size_t i = 0; i < terms.size(); ++i)
    for (size_t a = 0; a < terms[i].size(); ++a) extent[terms[i][a]] = in[i].shape[a];
  Tensor result;
  for (char c : out) result.shape.push_back(extent[c]);
  result.values.assign(static_cast<size_t>(shapeNumel(result.shape)), 0.0);
  std::vector<char> labels;
  for (auto [c, e] : extent) labels.push_back(c);
  std::map<char, int64_t> at;
  for (char c : labels) at[c] = 0;
  auto offset = [&](const std::string& term, const std::vector<int64_t>& shape) {
    int64_t flat = 0;
    for (size_t a = 0; a < term.size(); ++a) flat = flat * shape[a] + at[term[a]];
    return flat;
  };
  for (;;) {
    double product = 1;
    for (size_t i = 0; i < terms.size(); ++i)
      product *= in[i].values[offset(terms[i], in[i].shape)];
    result.values[offset(out, result.shape)] += product;
    size_t l = labels.size();
    while (l > 0 && ++at[labels[l - 1]] == extent[labels[l - 1]]) at[labels[--l]] = 0;
    if (l == 0) break;
  }
  return result;
}

// Runs `equation` on the given operands (values 1, 2, ... offset per operand) and compares with
// the enumeration of `reference` (the same contraction spelled explicitly, without "...").
void expectEinsum(const std::string& equation, const std::string& reference,
                  const std::vector<std::vector<int64_t>>& shapes,
                  const std::vector<int64_t>& refShapeOverride = {}) {
  OnnxGraph g(12);
  std::vector<std::string> names;
  std::vector<NDArray> inputs;
  std::vector<Tensor> ref;
  for (size_t i = 0; i < shapes.size(); ++i) {
    names.push_back("x" + std::to_string(i));
    g.input(names.back(), shapes[i]);
    std::vector<double> v;
    for (int64_t k = 0; k < shapeNumel(shapes[i]); ++k)
      v.push_back(static_cast<double>((k * 7 + i * 3) % 11) - 4);
    inputs.push_back(f32(shapes[i], v));
    ref.push_back({shapes[i], v});
  }
  g.node("Einsum", names, {"y"}).s("equation", equation);
  g.output("y");
  const Tensor want = einsumRef(reference, ref);
  const std::vector<int64_t> shape = refShapeOverride.empty() ? want.shape : refShapeOverride;
  EXPECT_TRUE(allClose(runOnnx1(g, inputs), f32(shape, want.values))) << equation;
}

TEST(OnnxEinsum, ContractionsAgainstEnumeration) {
  expectEinsum("bij, bjk -> bik", "bij,bjk->bik", {{2, 3, 4}, {2, 4, 5}});
  expectEinsum("ij,jk", "ij,jk->ik", {{3, 4}, {4, 2}});  // implicit output
  expectEinsum("ba,ca", "ba,ca->bc", {{3, 4}, {2, 4}});  // implicit: sorted labels
  expectEinsum("ij,jk,kl->il", "ij,jk,kl->il", {{2, 3}, {3, 4}, {4, 2}});  // three operands
  expectEinsum("i,j,i->j", "i,j,i->j", {{3}, {2}, {3}});
  expectEinsum("ij->", "ij->", {{3, 4}});
  expectEinsum("i,i", "i,i->", {{5}, {5}});
  expectEinsum("ij,kj->ikj", "ij,kj->ikj", {{2, 3}, {4, 3}});  // outer product over a batch
}

TEST(OnnxEinsum, DiagonalsAndTrace) {
  expectEinsum("ii->i", "ii->i", {{4, 4}});
  expectEinsum("ii", "ii->", {{4, 4}});  // implicit: a repeated label is summed
  expectEinsum("iji->ij", "iji->ij", {{3, 2, 3}});
  expectEinsum("ii,ij->j", "ii,ij->j", {{3, 3}, {3, 2}});
}

TEST(OnnxEinsum, EllipsisBroadcastsRightAligned) {
  // "..." stands for (2, 3) in the first operand and (3) in the second.
  expectEinsum("...ij,...jk->...ik", "abij,bjk->abik", {{2, 3, 2, 4}, {3, 4, 2}});
  expectEinsum("...ii->...i", "aii->ai", {{3, 4, 4}});
  expectEinsum("i...->...", "iab->ab", {{3, 2, 2}});
  expectEinsum("...i,i", "abi,i->ab", {{2, 2, 3}, {3}});  // implicit with ellipsis first
}

TEST(OnnxEinsum, MalformedEquationsNameTheProblem) {
  auto error = [](const std::string& equation, const std::vector<std::vector<int64_t>>& shapes) {
    OnnxGraph g(12);
    std::vector<std::string> names;
    for (size_t i = 0; i < shapes.size(); ++i) {
      names.push_back("x" + std::to_string(i));
      g.input(names.back(), shapes[i]);
    }
    g.node("Einsum", names, {"y"}).s("equation", equation);
    g.output("y");
    return diagnosticOf([&] { frontend::onnx::importOnnxBytes(g.bytes(), {}); });
  };
  struct Case {
    std::string equation;
    std::vector<std::vector<int64_t>> shapes;
    std::string expected;
  };
  const Case cases[] = {
      {"ij,jk->ik->i", {{2, 2}, {2, 2}}, "more than one '->'"},
      {"ij;jk", {{2, 2}}, "unexpected ';'"},
      {"ij..k", {{2, 2, 2}}, "unexpected '.'"},
      {"......", {{2}}, "two '...'"},
      {"ij,jk", {{2, 2}}, "2 input terms for 1 inputs"},
      {"ijk", {{2, 2}}, "3 labels but input 0 has rank 2"},
      {"ij->ik", {{2, 2}}, "output label 'k' that no input has"},
      {"ij->ii", {{2, 2}}, "repeats output label 'i'"},
      {"ij,jk", {{2, 3}, {4, 2}}, "label 'j' has extents 3 and 4"},
      {"ii", {{2, 3}}, "label 'i' has extents 2 and 3"},
      {"ii", {{1, 3}}, "repeats label 'i' over axes of extents 1 and 3"},
  };
  for (const Case& c : cases) {
    const Diagnostic d = error(c.equation, c.shapes);
    EXPECT_NE(d.message.find(c.expected), std::string::npos) << c.equation << ": " << d.message;
  }
}

// --- ReverseSequence --------------------------------------------------------------------------

TEST(OnnxReverseSequence, RunTimeLengthsAlongEitherLayout) {
  // x (batch 3, time 4, 2 features); lengths 4, 0 (untouched) and 2.
  const std::vector<double> lens = {4, 0, 2};
  std::vector<double> x = iota(24), want = x;
  for (int64_t b = 0; b < 3; ++b)
    for (int64_t t = 0; t < static_cast<int64_t>(lens[b]); ++t)
      for (int64_t f = 0; f < 2; ++f)
        want[(b * 4 + t) * 2 + f] = x[(b * 4 + static_cast<int64_t>(lens[b]) - 1 - t) * 2 + f];
  OnnxGraph g(11);
  g.input("x", {3, 4, 2}).input("lens", {3}, kInt64);
  g.node("ReverseSequence", {"x", "lens"}, {"y"}).i("batch_axis", 0).i("time_axis", 1);
  g.output("y");
  EXPECT_TRUE(allClose(runOnnx1(g, {f32({3, 4, 2}, x), i64({3}, lens)}), f32({3, 4, 2}, want)));

  // The same data time-major: (time 4, batch 3, 2).
  std::vector<double> xt(24), wantT(24);
  for (int64_t b = 0; b < 3; ++b)
    for (int64_t t = 0; t < 4; ++t)
      for (int64_t f = 0; f < 2; ++f) {
        xt[(t * 3 + b) * 2 + f] = x[(b * 4 + t) * 2 + f];
        wantT[(t * 3 + b) * 2 + f] = want[(b * 4 + t) * 2 + f];
      }
  OnnxGraph h(11);
  h.input("x", {4, 3, 2}).input("lens", {3}, kInt64);
  h.node("ReverseSequence", {"x", "lens"}, {"y"});  // defaults: batch_axis 1, time_axis 0
  h.output("y");
  EXPECT_TRUE(allClose(runOnnx1(h, {f32({4, 3, 2}, xt), i64({3}, lens)}), f32({4, 3, 2}, wantT)));
}

TEST(OnnxReverseSequence, SameAxisTwiceIsAnError) {
  OnnxGraph g(11);
  g.input("x", {3, 4}).input("lens", {3}, kInt64);
  g.node("ReverseSequence", {"x", "lens"}, {"y"}).i("batch_axis", 0).i("time_axis", 0);
  g.output("y");
  const Diagnostic d = diagnosticOf([&] { frontend::onnx::importOnnxBytes(g.bytes(), {}); });
  EXPECT_EQ(d.code, "onnx_attr");
  EXPECT_NE(d.message.find("batch_axis and time_axis"), std::string::npos) << d.message;
}

}  // namespace
}  // namespace tessera::test
