// ONNX importer, TfIdfVectorizer: TF, IDF and TFIDF under the reference interpreter against
// counts by a naive loop over every (length, skip, position) here — 1-D and 2-D input, skips,
// unigrams with bigrams and trigrams, int32 tokens, shared columns, repeated pool n-grams — and
// the import diagnostics.
#include <functional>
#include <map>

#include <gtest/gtest.h>

#include "onnx_test_util.h"

namespace tessera::test {
namespace {

struct TfIdfCase {
  std::string mode = "TF";
  int64_t minLen = 1, maxLen = 2, maxSkip = 0;
  std::vector<int64_t> counts, indexes, pool;
  std::vector<float> weights;
  std::vector<int64_t> shape;  // [C] or [N, C]
  int32_t elemType = ::onnx::TensorProto::INT64;
};

// A small alphabet, so that many n-grams repeat across positions and skips.
std::vector<double> tokens(int64_t numel) {
  std::vector<double> v;
  for (int64_t i = 0; i < numel; ++i) v.push_back(static_cast<double>((i * i + 3 * i + 1) % 5));
  return v;
}

// The output by definition: every pool n-gram (its last occurrence when repeated) of a length in
// [minLen, maxLen] is counted at each start and skip where x[i], x[i + d], ... equals it, unigrams
// once (the skip does not change them), n-grams of 2 or more once per distance d = skip + 1.
std::vector<double> naive(const TfIdfCase& c, const std::vector<double>& x) {
  int64_t outSize = 0;
  for (int64_t col : c.indexes) outSize = std::max(outSize, col + 1);
  const int64_t width = c.shape.back(), rows = c.shape.size() == 2 ? c.shape[0] : 1;
  std::map<std::vector<int64_t>, int64_t> column;
  int64_t id = 0;
  for (size_t i = 0; i < c.counts.size(); ++i) {
    const auto len = static_cast<int64_t>(i + 1);
    const int64_t end =
        i + 1 < c.counts.size() ? c.counts[i + 1] : static_cast<int64_t>(c.pool.size());
    for (int64_t at = c.counts[i]; at < end; at += len, ++id)
      if (len >= c.minLen && len <= c.maxLen)
        column[std::vector<int64_t>(c.pool.begin() + at, c.pool.begin() + at + len)] =
            c.indexes[static_cast<size_t>(id)];
  }
  std::vector<double> tf(static_cast<size_t>(rows * outSize), 0.0);
  for (int64_t r = 0; r < rows; ++r)
    for (const auto& [gram, col] : column) {
      const auto len = static_cast<int64_t>(gram.size());
      for (int64_t d = 1; d <= (len == 1 ? 1 : c.maxSkip + 1); ++d)
        for (int64_t i = 0; i + (len - 1) * d < width; ++i) {
          bool same = true;
          for (int64_t j = 0; j < len; ++j)
            same = same && static_cast<int64_t>(x[static_cast<size_t>(r * width + i + j * d)]) ==
                               gram[static_cast<size_t>(j)];
          if (same) tf[static_cast<size_t>(r * outSize + col)] += 1;
        }
    }
  for (size_t i = 0; i < tf.size(); ++i) {
    const double w = c.weights.empty() ? 1.0 : c.weights[i % static_cast<size_t>(outSize)];
    if (c.mode == "IDF") tf[i] = tf[i] > 0 ? w : 0;
    if (c.mode == "TFIDF") tf[i] *= w;
  }
  return tf;
}

OnnxGraph graphOf(const TfIdfCase& c) {
  OnnxGraph g(13);
  g.input("x", c.shape, c.elemType);
  OnnxNode node = g.node("TfIdfVectorizer", {"x"}, {"y"});
  node.s("mode", c.mode)
      .i("min_gram_length", c.minLen)
      .i("max_gram_length", c.maxLen)
      .i("max_skip_count", c.maxSkip)
      .ints("ngram_counts", c.counts)
      .ints("ngram_indexes", c.indexes)
      .ints("pool_int64s", c.pool);
  if (!c.weights.empty()) node.floats("weights", c.weights);
  g.output("y");
  return g;
}

NDArray runTfIdf(const TfIdfCase& c, const std::vector<double>& x) {
  const DataType dtype =
      c.elemType == ::onnx::TensorProto::INT32 ? DataType::int32() : DataType::int64();
  return runOnnx1(graphOf(c), {tensorOf(c.shape, dtype, x)});
}

void expectTfIdf(const TfIdfCase& c) {
  int64_t numel = 1, outSize = 0;
  for (int64_t e : c.shape) numel *= e;
  for (int64_t col : c.indexes) outSize = std::max(outSize, col + 1);
  const std::vector<double> x = tokens(numel);
  std::vector<int64_t> outShape = {outSize};
  if (c.shape.size() == 2) outShape.insert(outShape.begin(), c.shape[0]);
  EXPECT_TRUE(allClose(runTfIdf(c, x), f32(outShape, naive(c, x)), 0, 0))
      << c.mode << " lengths " << c.minLen << ".." << c.maxLen << " skip " << c.maxSkip;
}

// Unigrams 0 1 2, bigrams (0 1) (1 2) (2 0) (3 3), trigrams (0 1 2) (4 4 4).
TfIdfCase mixedPool() {
  return {.counts = {0, 3, 11},
          .indexes = {0, 1, 2, 3, 4, 5, 6, 7, 8},
          .pool = {0, 1, 2, 0, 1, 1, 2, 2, 0, 3, 3, 0, 1, 2, 4, 4, 4}};
}

// The ONNX example (test_tfidfvectorizer_tf_uniandbigrams_skip5): unigrams once, bigrams at
// every skip up to 5.
TEST(OnnxText, MatchesOnnxExample) {
  TfIdfCase c = {.maxSkip = 5,
                 .counts = {0, 4},
                 .indexes = {0, 1, 2, 3, 4, 5, 6},
                 .pool = {2, 3, 5, 4, 5, 6, 7, 8, 6, 7},
                 .shape = {12},
                 .elemType = ::onnx::TensorProto::INT32};
  const NDArray got = runTfIdf(c, {1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8});
  EXPECT_TRUE(allClose(got, f32({7}, {0, 3, 1, 0, 1, 3, 1}), 0, 0));
  c.minLen = 2;  // only bigrams: test_tfidfvectorizer_tf_onlybigrams_skip5
  EXPECT_TRUE(allClose(runTfIdf(c, {1, 1, 3, 3, 3, 7, 8, 6, 7, 5, 6, 8}),
                       f32({7}, {0, 0, 0, 0, 1, 3, 1}), 0, 0));
}

TEST(OnnxText, CountsMatchNaiveLoop) {
  for (const std::vector<int64_t>& shape : {std::vector<int64_t>{23}, {3, 17}})
    for (int64_t skip : {0, 1, 4})
      for (auto [minLen, maxLen] : {std::pair<int64_t, int64_t>{1, 1}, {1, 2}, {2, 3}, {1, 3}}) {
        TfIdfCase c = mixedPool();
        c.shape = shape;
        c.maxSkip = skip;
        c.minLen = minLen;
        c.maxLen = maxLen;
        expectTfIdf(c);
      }
}

TEST(OnnxText, ModesAndWeights) {
  for (const char* mode : {"TF", "IDF", "TFIDF"})
    for (bool weighted : {false, true}) {
      TfIdfCase c = mixedPool();
      c.mode = mode;
      c.maxSkip = 2;
      c.maxLen = 3;
      c.shape = {2, 19};
      if (weighted) c.weights = {0.5F, 2, 1.25F, 3, 0.1F, 7, 1, 0.25F, 4};
      expectTfIdf(c);
    }
}

// int32 tokens; permuted and shared columns (their counts add); a repeated pool n-gram counts for
// its last occurrence only; an output column no n-gram reaches stays zero.
TEST(OnnxText, ColumnsInt32AndRepeats) {
  TfIdfCase c = mixedPool();
  c.elemType = ::onnx::TensorProto::INT32;
  c.indexes = {8, 3, 3, 0, 1, 7, 2, 5, 4};
  c.maxSkip = 1;
  c.maxLen = 3;
  c.shape = {2, 15};
  expectTfIdf(c);
  c.pool = {0, 1, 2, 0, 1, 1, 2, 0, 1, 3, 3, 0, 1, 2, 4, 4, 4};  // (0 1) twice
  c.mode = "TFIDF";
  c.weights = {1, 2, 3, 4, 5, 6, 7, 8, 9};
  expectTfIdf(c);
  // No candidate fits: a 1-token row with only bigrams gives zeros.
  c.minLen = 2;
  c.shape = {1};
  expectTfIdf(c);
}

TEST(OnnxText, Errors) {
  auto importError = [](const TfIdfCase& c, const std::function<void(OnnxNode&)>& edit = {}) {
    OnnxGraph g = graphOf(c);
    OnnxNode node(g.model().mutable_graph()->mutable_node(0));
    if (edit) edit(node);
    return diagnosticOf([&] { frontend::onnx::importOnnxBytes(g.bytes(), {}); });
  };
  TfIdfCase c = mixedPool();
  c.shape = {8};
  const Diagnostic strings = importError(c, [](OnnxNode& node) {
    ::onnx::AttributeProto* a = node.proto().add_attribute();
    a->set_name("pool_strings");
    a->set_type(::onnx::AttributeProto::STRINGS);
    a->add_strings("hello");
  });
  EXPECT_EQ(strings.code, "onnx_unsupported_attr");
  EXPECT_NE(strings.message.find("pool_strings"), std::string::npos) << strings.message;

  TfIdfCase uneven = c;
  uneven.counts = {0, 4, 11};  // 7 values for the bigrams
  const Diagnostic odd = importError(uneven);
  EXPECT_EQ(odd.code, "onnx_attr");
  EXPECT_NE(odd.message.find("not a multiple of 2"), std::string::npos) << odd.message;
  TfIdfCase decreasing = c;
  decreasing.counts = {0, 11, 3};
  EXPECT_EQ(importError(decreasing).code, "onnx_attr");
  TfIdfCase fewIndexes = c;
  fewIndexes.indexes = {0, 1, 2, 3};
  const Diagnostic indexes = importError(fewIndexes);
  EXPECT_EQ(indexes.code, "onnx_attr");
  EXPECT_NE(indexes.message.find("ngram_indexes"), std::string::npos) << indexes.message;

  TfIdfCase mode = c;
  mode.mode = "BM25";
  EXPECT_EQ(importError(mode).code, "onnx_unsupported_attr");
  TfIdfCase lengths = c;
  lengths.minLen = 0;
  EXPECT_EQ(importError(lengths).code, "onnx_attr");
  TfIdfCase floats = c;
  floats.elemType = ::onnx::TensorProto::FLOAT;
  EXPECT_EQ(importError(floats).code, "onnx_input");
  TfIdfCase huge = c;
  huge.shape = {64, 4096};
  huge.maxSkip = 1000;
  EXPECT_EQ(importError(huge).code, "onnx_unsupported_size");
}

}  // namespace
}  // namespace tessera::test
