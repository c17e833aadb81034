// ONNX's Einsum: the equation is parsed at import (explicit or implicit output, "..." broadcast
// right-aligned across operands, a label repeated within one operand taking that operand's
// diagonal), then the operands are contracted left to right, each pair as one nn.batch_matmul
// over (batch, free, contracted) groups of labels; labels no later step needs are summed away
// first, and the last result is transposed into the output's order.
#include <algorithm>
#include <cctype>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "frontend/onnx/context.h"
#include "relay/op/nn.h"
#include "relay/op/tensor.h"

namespace tessera::frontend::onnx {
namespace {

using relay::Expr;

/// Labels are letters (their character codes) and, for the dimensions "..." stands for,
/// kEllipsisLabel + i (i counted from the left of the widest ellipsis).
constexpr int kEllipsisLabel = 256;
/// Marks where "..." stands in a parsed term before it is expanded.
constexpr int kEllipsisMark = -1;

std::string labelName(int label) {
  if (label >= kEllipsisLabel)
    return "the dimension " + std::to_string(label - kEllipsisLabel) + " of '...'";
  return std::string("'") + static_cast<char>(label) + "'";
}

// One term's letters with kEllipsisMark where "..." was; `what` names it in diagnostics.
std::vector<int> parseTerm(const NodeContext& n, const std::string& term, const std::string& what) {
  std::vector<int> out;
  bool ellipsis = false;
  for (size_t i = 0; i < term.size(); ++i) {
    const char c = term[i];
    if (std::isalpha(static_cast<unsigned char>(c))) {
      out.push_back(c);
      continue;
    }
    if (c != '.' || term.compare(i, 3, "...") != 0)
      n.fail("onnx_attr", "einsum equation: " + what + " '" + term + "' has an unexpected '" +
                              std::string(1, c) + "' (expected letters and at most one '...')");
    if (ellipsis) n.fail("onnx_attr", "einsum equation: " + what + " '" + term + "' has two '...'");
    ellipsis = true;
    out.push_back(kEllipsisMark);
    i += 2;
  }
  return out;
}

// A value with one label per axis.
struct Operand {
  Expr e;
  std::vector<int> labels;
  std::vector<int64_t> shape;
};

// The equation with every "..." expanded, and each label's extent (an extent of 1 broadcasts
// against any other, as numpy's einsum allows).
struct Equation {
  std::vector<std::vector<int>> inputs;
  std::vector<int> output;
  std::map<int, int64_t> extent;
};

Equation parseEquation(const NodeContext& n, std::string text) {
  std::erase_if(text, [](char c) { return std::isspace(static_cast<unsigned char>(c)); });
  const size_t arrow = text.find("->");
  if (arrow != std::string::npos && text.find("->", arrow + 2) != std::string::npos)
    n.fail("onnx_attr", "einsum equation '" + text + "' has more than one '->'");
  const std::string lhs = text.substr(0, arrow);
  std::vector<std::string> terms;
  for (size_t start = 0;;) {
    const size_t comma = lhs.find(',', start);
    terms.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (terms.size() != n.numInputs())
    n.fail("onnx_attr", "einsum equation '" + text + "' has " + std::to_string(terms.size()) +
                            " input terms for " + std::to_string(n.numInputs()) + " inputs");
  Equation eq;
  std::vector<std::vector<int>> raw;
  int64_t widest = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    raw.push_back(parseTerm(n, terms[i], "input term " + std::to_string(i)));
    const auto letters = static_cast<int64_t>(std::count_if(
        raw.back().begin(), raw.back().end(), [](int l) { return l != kEllipsisMark; }));
    const bool hasEllipsis = letters != static_cast<int64_t>(raw.back().size());
    const int64_t rank = n.inputRank(i);
    if (rank < letters || (!hasEllipsis && rank != letters))
      n.fail("onnx_attr", "einsum equation: input term " + std::to_string(i) + " '" + terms[i] +
                              "' has " + std::to_string(letters) + " labels but input " +
                              std::to_string(i) + " has rank " + std::to_string(rank));
    widest = std::max(widest, rank - letters);
  }
  auto expand = [&](const std::vector<int>& term, int64_t dims) {
    std::vector<int> out;
    for (int l : term) {
      if (l != kEllipsisMark) {
        out.push_back(l);
        continue;
      }
      for (int64_t d = widest - dims; d < widest; ++d)
        out.push_back(kEllipsisLabel + static_cast<int>(d));
    }
    return out;
  };
  for (size_t i = 0; i < raw.size(); ++i) {
    const int64_t dims = n.inputRank(i) - static_cast<int64_t>(raw[i].size()) + 1;
    eq.inputs.push_back(expand(raw[i], dims));
    const std::vector<int64_t> shape = n.inputShape(i);
    for (size_t a = 0; a < shape.size(); ++a) {
      auto [it, fresh] = eq.extent.emplace(eq.inputs[i][a], shape[a]);
      if (fresh || it->second == shape[a] || shape[a] == 1) continue;
      if (it->second != 1)
        n.fail("onnx_shape", "einsum label " + labelName(it->first) + " has extents " +
                                 std::to_string(it->second) + " and " + std::to_string(shape[a]));
      it->second = shape[a];
    }
  }
  if (arrow != std::string::npos) {
    eq.output = expand(parseTerm(n, text.substr(arrow + 2), "the output term"), widest);
  } else {  // implicit: the broadcast dimensions, then the labels used once, alphabetically
    std::map<int, int> uses;
    for (const std::vector<int>& term : eq.inputs)
      for (int l : term) ++uses[l];
    for (int64_t d = 0; d < widest; ++d) eq.output.push_back(kEllipsisLabel + static_cast<int>(d));
    for (auto [l, count] : uses)
      if (l < kEllipsisLabel && count == 1) eq.output.push_back(l);
  }
  std::set<int> seen;
  for (int l : eq.output) {
    if (!seen.insert(l).second)
      n.fail("onnx_attr", "einsum equation '" + text + "' repeats output label " + labelName(l));
    if (!eq.extent.count(l))
      n.fail("onnx_attr", "einsum equation '" + text + "' has output label " + labelName(l) +
                              " that no input has");
  }
  return eq;
}

std::vector<int64_t> positions(const std::vector<int>& labels, const std::vector<int>& order) {
  std::vector<int64_t> perm;
  for (int l : order) perm.push_back(std::find(labels.begin(), labels.end(), l) - labels.begin());
  return perm;
}

bool isIdentity(const std::vector<int64_t>& perm) {
  for (size_t i = 0; i < perm.size(); ++i)
    if (perm[i] != static_cast<int64_t>(i)) return false;
  return true;
}

Operand transposed(const Operand& op, const std::vector<int>& order) {
  const std::vector<int64_t> perm = positions(op.labels, order);
  if (isIdentity(perm)) return op;
  Operand out{relay::transpose(op.e, perm), order, {}};
  for (int64_t p : perm) out.shape.push_back(op.shape[p]);
  return out;
}

// Takes diagonals until every label appears once: the two axes of a repeated label moved last,
// merged, and every (n + 1)-th element taken.
Operand diagonal(const NodeContext& n, Operand op, size_t which) {
  for (;;) {
    size_t i = 0, j = 0;
    for (size_t a = 0; a < op.labels.size() && j == 0; ++a)
      for (size_t b = a + 1; b < op.labels.size() && j == 0; ++b)
        if (op.labels[a] == op.labels[b]) i = a, j = b;
    if (j == 0) return op;
    const int label = op.labels[i];
    const int64_t extent = op.shape[i];
    if (op.shape[j] != extent)
      n.fail("onnx_shape", "einsum input " + std::to_string(which) + " repeats label " +
                               labelName(label) + " over axes of extents " +
                               std::to_string(extent) + " and " + std::to_string(op.shape[j]));
    std::vector<int64_t> perm, shape;
    std::vector<int> labels;
    for (size_t a = 0; a < op.labels.size(); ++a)
      if (a != i && a != j) {
        perm.push_back(static_cast<int64_t>(a));
        shape.push_back(op.shape[a]);
        labels.push_back(op.labels[a]);
      }
    perm.insert(perm.end(), {static_cast<int64_t>(i), static_cast<int64_t>(j)});
    shape.push_back(extent * extent);
    std::vector<int64_t> diag;
    for (int64_t t = 0; t < extent; ++t) diag.push_back(t * (extent + 1));
    const Expr merged = relay::reshape(relay::transpose(op.e, perm), shape);
    shape.back() = extent;
    labels.push_back(label);
    op = Operand{relay::take(merged, int64Constant(diag), static_cast<int64_t>(shape.size()) - 1),
                 labels, shape};
  }
}

// Sums the axes whose labels are not in `keep`.
Operand reduceTo(Operand op, const std::set<int>& keep) {
  std::vector<int64_t> axes, shape;
  std::vector<int> labels;
  for (size_t a = 0; a < op.labels.size(); ++a) {
    if (keep.count(op.labels[a])) {
      labels.push_back(op.labels[a]);
      shape.push_back(op.shape[a]);
    } else {
      axes.push_back(static_cast<int64_t>(a));
    }
  }
  if (axes.empty()) return op;
  return Operand{relay::sum(op.e, relay::ReduceAttrs{.axis = axes}), labels, shape};
}

// `op` arranged as groups of labels (`order` = the groups concatenated), broadcast to the
// equation's extents and reshaped to one axis per group.
Expr grouped(const Operand& op, const std::vector<std::vector<int>>& groups,
             const std::map<int, int64_t>& extent) {
  std::vector<int> order;
  std::vector<int64_t> full, merged;
  for (const std::vector<int>& g : groups) {
    int64_t size = 1;
    for (int l : g) {
      order.push_back(l);
      full.push_back(extent.at(l));
      size *= extent.at(l);
    }
    merged.push_back(size);
  }
  Operand t = transposed(op, order);
  Expr e = t.e;
  if (t.shape != full) e = relay::broadcastTo(e, full);
  return relay::reshape(e, merged);
}

// a and b contracted into one operand that keeps the labels of `keep` (the output's and those of
// operands still to come): shared kept labels are the batch, shared others are summed by the
// product, the rest are each side's free rows/columns.
Operand contract(Operand a, Operand b, const std::set<int>& keep,
                 const std::map<int, int64_t>& extent) {
  auto with = [&](const Operand& other) {
    std::set<int> s = keep;
    s.insert(other.labels.begin(), other.labels.end());
    return s;
  };
  a = reduceTo(a, with(b));
  b = reduceTo(b, with(a));
  auto in = [](const Operand& op, int l) {
    return std::find(op.labels.begin(), op.labels.end(), l) != op.labels.end();
  };
  std::vector<int> batch, summed, aFree, bFree;
  for (int l : a.labels) {
    if (!in(b, l))
      aFree.push_back(l);
    else
      (keep.count(l) ? batch : summed).push_back(l);
  }
  for (int l : b.labels)
    if (!in(a, l)) bFree.push_back(l);
  const Expr product = relay::nn::batchMatmul(grouped(a, {batch, aFree, summed}, extent),
                                              grouped(b, {batch, bFree, summed}, extent));
  Operand out{Expr(), batch, {}};
  out.labels.insert(out.labels.end(), aFree.begin(), aFree.end());
  out.labels.insert(out.labels.end(), bFree.begin(), bFree.end());
  for (int l : out.labels) out.shape.push_back(extent.at(l));
  out.e = relay::reshape(product, out.shape);
  return out;
}

void einsum(NodeContext& n) {
  if (n.numInputs() == 0) n.fail("onnx_input", "Einsum needs at least one input");
  if (!n.hasAttr("equation")) n.fail("onnx_attr", "attribute 'equation' is required");
  const std::string text = n.attrString("equation", "");
  for (size_t i = 1; i < n.numInputs(); ++i)
    if (n.inputDtype(i) != n.inputDtype(0))
      n.fail("onnx_input", "input " + std::to_string(i) + " has type " + n.inputDtype(i).name() +
                               " but input 0 has " + n.inputDtype(0).name());
  const Equation eq = parseEquation(n, text);
  std::vector<Operand> ops;
  for (size_t i = 0; i < n.numInputs(); ++i)
    ops.push_back(diagonal(n, Operand{n.input(i), eq.inputs[i], n.inputShape(i)}, i));
  const std::set<int> outputs(eq.output.begin(), eq.output.end());
  Operand acc = ops[0];
  for (size_t i = 1; i < ops.size(); ++i) {
    std::set<int> keep = outputs;
    for (size_t j = i + 1; j < ops.size(); ++j)
      keep.insert(ops[j].labels.begin(), ops[j].labels.end());
    acc = contract(acc, ops[i], keep, eq.extent);
  }
  // Every label left has its equation extent: a shared label is broadcast by the contraction
  // that meets both extents, and an unshared one has its operand's.
  n.setOutput(0, transposed(reduceTo(acc, outputs), eq.output).e);
}

constexpr ConverterRow kRows[] = {
    {"Einsum", einsum,
     "explicit and implicit output, '...', diagonals, any number of operands; pairwise "
     "contractions as nn.batch_matmul"},
};

}  // namespace

std::span<const ConverterRow> einsumConverters() {
  return kRows;
}

}  // namespace tessera::frontend::onnx
