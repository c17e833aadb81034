// ONNX's text operator TfIdfVectorizer (opset 9) over integer tokens, lowered at import to
// comparisons of strided slices of the input with the pool's n-grams (constants), counted with
// `sum` and scattered into the output columns by one `nn.dense`. Input shapes are static.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "frontend/onnx/context.h"
#include "relay/op/nn.h"
#include "relay/op/tensor.h"

namespace tessera::frontend::onnx {
namespace {

using relay::Expr;

/// Largest total of match-mask elements (rows x positions x pool n-grams, per token compared)
/// over every (n, skip) pair, and of the scatter matrix: 64 MiB of float32 or bool.
constexpr int64_t kMaxTfIdfElements = int64_t{1} << 24;
/// Most `equal` ops the lowering may emit (one per token per (n, skip) pair): the graph grows with
/// positions / (n - 1) skips, so a long input with a huge max_skip_count is refused.
constexpr int64_t kMaxTfIdfCompares = 4096;

// The pool n-grams of one length that a count can reach, with each one's output column.
struct GramSet {
  int64_t length = 0;
  std::vector<std::vector<int64_t>> tokens;
  std::vector<int64_t> columns;
};

// The pool read as ONNX's reference does: ngram_counts[i] starts the (i + 1)-grams, n-grams are
// numbered across all lengths in pool order (ngram_indexes is indexed by that number), and only
// lengths in [minLen, maxLen] are loaded. A repeated n-gram counts for its last occurrence only,
// since the reference's lookup tree overwrites the id.
std::vector<GramSet> readPool(NodeContext& n, int64_t minLen, int64_t maxLen,
                              const std::vector<int64_t>& pool,
                              const std::vector<int64_t>& indexes) {
  const std::vector<int64_t> counts = *n.attrInts("ngram_counts");
  const auto poolSize = static_cast<int64_t>(pool.size());
  std::vector<GramSet> sets;
  int64_t id = 0;
  for (size_t i = 0; i < counts.size(); ++i) {
    const auto len = static_cast<int64_t>(i + 1);
    const int64_t begin = counts[i], end = i + 1 < counts.size() ? counts[i + 1] : poolSize;
    if (begin < 0 || end < begin || end > poolSize)
      n.fail("onnx_attr", "ngram_counts must be non-decreasing starts within the pool of " +
                              std::to_string(poolSize) + " values; the " + std::to_string(len) +
                              "-grams span [" + std::to_string(begin) + ", " + std::to_string(end) +
                              ")");
    if ((end - begin) % len != 0)
      n.fail("onnx_attr", "ngram_counts gives the " + std::to_string(len) + "-grams " +
                              std::to_string(end - begin) + " pool values, not a multiple of " +
                              std::to_string(len));
    const int64_t grams = (end - begin) / len;
    if (id + grams > static_cast<int64_t>(indexes.size()))
      n.fail("onnx_attr", "ngram_indexes has " + std::to_string(indexes.size()) +
                              " entries but the pool holds more n-grams");
    if (len >= minLen && len <= maxLen && grams > 0) {
      std::map<std::vector<int64_t>, int64_t> column;  // sorted: a deterministic graph
      for (int64_t g = 0; g < grams; ++g) {
        const auto at = pool.begin() + begin + g * len;
        column[std::vector<int64_t>(at, at + len)] = indexes[id + g];
      }
      GramSet set{.length = len};
      for (const auto& [tokens, col] : column) {
        set.tokens.push_back(tokens);
        set.columns.push_back(col);
      }
      sets.push_back(std::move(set));
    }
    id += grams;
  }
  if (id != static_cast<int64_t>(indexes.size()))
    n.fail("onnx_attr", "ngram_indexes has " + std::to_string(indexes.size()) +
                            " entries for the pool's " + std::to_string(id) + " n-grams");
  return sets;
}

// The skip distances (skip + 1) an n-gram length is counted at. Unigrams do not depend on the
// distance, and the reference counts them at distance 1 only; longer n-grams at every distance
// up to max_skip_count + 1 whose n-gram still fits in the row.
std::vector<int64_t> distancesFor(int64_t len, int64_t maxSkip, int64_t width) {
  if (len == 1) return width > 0 ? std::vector<int64_t>{1} : std::vector<int64_t>{};
  std::vector<int64_t> out;
  for (int64_t d = 1; d - 1 <= maxSkip && (len - 1) * d < width; ++d) out.push_back(d);
  return out;
}

// Counts per pool n-gram of `set` in each row of x [rows, width] (int64): for every distance d,
// token j of the candidates starting at positions 0..width-(n-1)d-1 is the slice of x starting
// at j d, compared with token j of every pool n-gram; a candidate matches when all n tokens do.
Expr countGrams(const Expr& x, int64_t rows, int64_t width, const GramSet& set, int64_t maxSkip) {
  const auto k = static_cast<int64_t>(set.tokens.size());
  Expr total;
  for (int64_t d : distancesFor(set.length, maxSkip, width)) {
    const int64_t positions = width - (set.length - 1) * d;
    Expr match;
    for (int64_t j = 0; j < set.length; ++j) {
      std::vector<int64_t> tokenJ;
      for (const auto& gram : set.tokens) tokenJ.push_back(gram[j]);
      const Expr slice = relay::reshape(
          relay::stridedSlice(x, {0, j * d}, {rows, j * d + positions}), {rows, positions, 1});
      const Expr hit = relay::equal(slice, relay::reshape(int64Constant(tokenJ), {1, 1, k}));
      match = match ? relay::logicalAnd(match, hit) : hit;
    }
    const Expr counts = relay::sum(relay::cast(match, DataType::float32()),
                                   relay::ReduceAttrs{.axis = std::vector<int64_t>{1}});
    total = total ? relay::add(total, counts) : counts;
  }
  return total;  // null when no candidate fits
}

// Checks the mask sizes and op count before anything is built.
void checkSize(NodeContext& n, const std::vector<GramSet>& sets, int64_t rows, int64_t width,
               int64_t maxSkip) {
  int64_t elements = 0, compares = 0;
  for (const GramSet& set : sets)
    for (int64_t d : distancesFor(set.length, maxSkip, width)) {
      const int64_t positions = width - (set.length - 1) * d;
      const auto k = static_cast<int64_t>(set.tokens.size());
      int64_t mask = 0;
      if (__builtin_mul_overflow(rows * positions, k * set.length, &mask) ||
          __builtin_add_overflow(elements, mask, &elements) || elements > kMaxTfIdfElements)
        n.fail("onnx_unsupported_size",
               "the n-gram match masks exceed " + std::to_string(kMaxTfIdfElements) +
                   " elements (rows x positions x pool n-grams x n, over every skip)");
      compares += set.length;
      if (compares > kMaxTfIdfCompares)
        n.fail("onnx_unsupported_size", "counting needs more than " +
                                            std::to_string(kMaxTfIdfCompares) +
                                            " token comparisons (lengths x skips); lower "
                                            "max_skip_count or max_gram_length");
    }
}

// TfIdfVectorizer: counts per pool n-gram, scattered into columns ngram_indexes (several n-grams
// may share a column: their counts add), then weighted by mode. Weights are indexed by output
// column, as ONNX's reference and ONNX Runtime index them.
void tfIdfVectorizer(NodeContext& n) {
  if (n.hasAttr("pool_strings"))
    n.fail("onnx_unsupported_attr",
           "pool_strings is not supported (no string tensors); only "
           "pool_int64s over int32 or int64 tokens");
  const DataType dtype = n.inputDtype(0);
  if (dtype != DataType::int32() && dtype != DataType::int64())
    n.fail("onnx_input", "input 0 must be int32 or int64 tokens, not " + dtype.name());
  const std::string mode = n.attrString("mode", "");
  if (mode != "TF" && mode != "IDF" && mode != "TFIDF") n.badAttr("mode", mode, "TF, IDF, TFIDF");
  auto required = [&](const std::string& name) {
    const std::optional<int64_t> v = n.attrIntOpt(name);
    if (!v) n.fail("onnx_attr", "missing attribute '" + name + "'");
    return *v;
  };
  const int64_t minLen = required("min_gram_length"), maxLen = required("max_gram_length");
  const int64_t maxSkip = required("max_skip_count");
  if (minLen < 1 || maxLen < minLen)
    n.fail("onnx_attr", "min_gram_length and max_gram_length must satisfy 1 <= min <= max, not " +
                            std::to_string(minLen) + " and " + std::to_string(maxLen));
  if (maxSkip < 0)
    n.fail("onnx_attr", "max_skip_count must be >= 0, not " + std::to_string(maxSkip));
  for (const char* name : {"pool_int64s", "ngram_counts", "ngram_indexes"})
    if (!n.attrInts(name)) n.fail("onnx_attr", std::string("missing attribute '") + name + "'");
  const std::vector<int64_t> indexes = *n.attrInts("ngram_indexes");
  if (indexes.empty()) n.fail("onnx_attr", "ngram_indexes must not be empty");
  if (*std::min_element(indexes.begin(), indexes.end()) < 0)
    n.fail("onnx_attr", "ngram_indexes must be non-negative");
  const int64_t outSize = *std::max_element(indexes.begin(), indexes.end()) + 1;
  const std::vector<GramSet> sets =
      readPool(n, minLen, maxLen, *n.attrInts("pool_int64s"), indexes);
  const std::vector<float> weights = n.attrFloats("weights").value_or(std::vector<float>{});
  if (!weights.empty() && static_cast<int64_t>(weights.size()) < outSize)
    n.fail("onnx_attr", "weights has " + std::to_string(weights.size()) +
                            " entries for an output of " + std::to_string(outSize) + " columns");

  // A [C] input is one row; a scalar is one token, as in the reference.
  const std::vector<int64_t> shape = n.inputShape(0);
  if (shape.size() > 2) n.fail("onnx_shape", "input 0 must have shape [C] or [N, C]");
  const int64_t rows = shape.size() == 2 ? shape[0] : 1;
  const int64_t width = shape.empty() ? 1 : shape.back();
  if (rows < 1) n.fail("onnx_shape", "input 0 must have at least one row");
  checkSize(n, sets, rows, width, maxSkip);
  if (outSize > kMaxTfIdfElements / rows)
    n.fail("onnx_unsupported_size", "an output of " + std::to_string(rows) + " x " +
                                        std::to_string(outSize) + " exceeds " +
                                        std::to_string(kMaxTfIdfElements) + " elements");
  // Tokens compared as int64 so that pool values outside int32 never match by wrapping.
  const Expr x = relay::cast(relay::reshape(n.input(0), {rows, width}), DataType::int64());

  std::vector<Expr> counts;
  std::vector<int64_t> columns;
  for (const GramSet& set : sets) {
    const Expr c = countGrams(x, rows, width, set, maxSkip);
    if (!c) continue;
    counts.push_back(c);
    columns.insert(columns.end(), set.columns.begin(), set.columns.end());
  }
  Expr tf;
  if (counts.empty()) {
    tf = relay::zeros({rows, outSize});
  } else {
    const auto grams = static_cast<int64_t>(columns.size());
    if (grams * outSize > kMaxTfIdfElements)
      n.fail("onnx_unsupported_size", "the scatter matrix of " + std::to_string(grams) +
                                          " n-grams x " + std::to_string(outSize) +
                                          " columns exceeds " + std::to_string(kMaxTfIdfElements));
    // scatter[c, g] = 1 when pool n-gram g counts towards column c.
    NDArray scatter = NDArray::empty({outSize, grams}, DataType::float32());
    for (int64_t i = 0; i < outSize * grams; ++i) scatter.setFloat(i, 0);
    for (int64_t g = 0; g < grams; ++g) scatter.setFloat(columns[g] * grams + g, 1);
    const Expr all = counts.size() == 1 ? counts[0] : relay::concatenate(counts, 1);
    tf = relay::nn::dense(all, relay::makeConstant(scatter));
  }

  Expr out = tf, w;
  if (!weights.empty()) {
    NDArray arr = NDArray::empty({outSize}, DataType::float32());
    for (int64_t i = 0; i < outSize; ++i) arr.setFloat(i, weights[static_cast<size_t>(i)]);
    w = relay::makeConstant(arr);
  }
  const Expr zero = scalarConstant(0, DataType::float32());
  if (mode == "IDF")
    out = weights.empty() ? relay::cast(relay::greater(tf, zero), DataType::float32())
                          : relay::where(relay::greater(tf, zero), w, zero);
  else if (mode == "TFIDF" && !weights.empty())
    out = relay::multiply(tf, w);
  n.setOutput(0, shape.size() == 2 ? out : relay::reshape(out, {outSize}));
}

constexpr ConverterRow kRows[] = {
    {"TfIdfVectorizer", tfIdfVectorizer,
     "int32/int64 tokens with pool_int64s (no pool_strings); [C] or [N, C]; TF, IDF, TFIDF; "
     "match masks up to 2^24 elements"},
};

}  // namespace

std::span<const ConverterRow> textConverters() {
  return kRows;
}

}  // namespace tessera::frontend::onnx
