// Tensors, placeholders and computes (spec tir_relax.md §1.1–§1.3).
#include "te/tensor.h"

#include <string>

#include "support/check.h"
#include "support/diagnostic.h"
#include "tir/functor.h"

namespace tessera::te {

const Buffer& Tensor::buffer() const {
  TS_CHECK(op_ != nullptr) << "use of an undefined tensor";
  return op_->outputs.at(static_cast<size_t>(valueIndex_));
}
const std::vector<PrimExpr>& Tensor::shape() const {
  return buffer()->shape;
}
DataType Tensor::dtype() const {
  return buffer()->dtype;
}
const std::string& Tensor::name() const {
  return buffer()->name;
}

PrimExpr Tensor::operator()(std::vector<PrimExpr> indices) const {
  if (indices.size() != shape().size())
    throwDiagnostic("te_index", "tensor " + name() + " of rank " + std::to_string(ndim()) +
                                    " is indexed with " + std::to_string(indices.size()) +
                                    " indices");
  return std::make_shared<ProducerLoadNode>(*this, std::move(indices));
}

Tensor producerOf(const PrimExpr& e) {
  if (!e || e->kind != tir::ExprKind::kBufferLoad) return {};
  // Producer loads are the only BufferLoad subclass; RTTI tells them apart from plain loads.
  const auto* load = dynamic_cast<const ProducerLoadNode*>(e.get());
  return load ? load->tensor : Tensor{};
}

ShapeArg::ShapeArg(std::initializer_list<int64_t> values) {
  for (int64_t v : values) dims.push_back(tir::intImm(v));
}
ShapeArg::ShapeArg(const std::vector<int64_t>& values) {
  for (int64_t v : values) dims.push_back(tir::intImm(v));
}

Var var(std::string name, DataType dtype) {
  return tir::makeVar(std::move(name), dtype);
}
Var sizeVar(std::string name, DataType dtype) {
  return tir::makeSizeVar(std::move(name), dtype);
}

Tensor placeholder(ShapeArg shape, DataType dtype, std::string name) {
  auto op = std::make_shared<OperationNode>();
  op->kind = OpKind::kPlaceholder;
  op->name = name;
  op->outputs.push_back(tir::makeBuffer(std::move(name), std::move(shape.dims), dtype));
  return Tensor(op, 0);
}

namespace detail {
void arityMismatch(const std::string& name, size_t rank, int arity) {
  throwDiagnostic("te_compute", "compute " + name + ": the body takes " + std::to_string(arity) +
                                    " index variables but the shape has rank " +
                                    std::to_string(rank));
}
}  // namespace detail

namespace {

// Two reductions are "the same except for value_index" when they share combiner, axes, sources
// and condition (tuple-valued reductions such as argmax).
bool sameReduction(const tir::ReduceNode* a, const tir::ReduceNode* b) {
  if (a->combiner != b->combiner || a->axis.size() != b->axis.size()) return false;
  for (size_t k = 0; k < a->axis.size(); ++k)
    if (a->axis[k].var != b->axis[k].var) return false;
  if (a->source.size() != b->source.size()) return false;
  for (size_t k = 0; k < a->source.size(); ++k)
    if (!tir::deepEqual(a->source[k], b->source[k])) return false;
  return tir::deepEqual(a->condition, b->condition);
}

void checkReductions(const std::string& name, const std::vector<PrimExpr>& body) {
  const auto* first = body[0]->as<tir::ReduceNode>();
  for (const PrimExpr& e : body) {
    const auto* r = e->as<tir::ReduceNode>();
    if ((r == nullptr) != (first == nullptr))
      throwDiagnostic("te_compute",
                      "compute " + name + ": either every output or none must be a reduction");
    if (r && !sameReduction(first, r))
      throwDiagnostic("te_compute", "compute " + name +
                                        ": the outputs must be one reduction that differs only "
                                        "in value index");
  }
}

// The tensors `body` reads, in first-use order (post-order over each expression).
std::vector<Tensor> collectInputs(const std::vector<PrimExpr>& body) {
  std::vector<Tensor> inputs;
  for (const PrimExpr& e : body) {
    tir::postOrderVisitExpr(e, [&](const PrimExpr& node) {
      Tensor t = producerOf(node);
      if (!t.defined()) return;
      for (const Tensor& seen : inputs)
        if (seen == t) return;
      inputs.push_back(t);
    });
  }
  return inputs;
}

}  // namespace

std::vector<Tensor> computeMulti(ShapeArg shape, const FComputeMulti& f, ComputeOptions options) {
  const size_t rank = shape.dims.size();
  if (!options.indexNames.empty() && options.indexNames.size() != rank)
    throwDiagnostic("te_compute",
                    "compute " + options.name + ": " + std::to_string(options.indexNames.size()) +
                        " index names given for a shape of rank " + std::to_string(rank));
  auto op = std::make_shared<OperationNode>();
  op->kind = OpKind::kCompute;
  op->name = options.name;
  op->tag = std::move(options.tag);
  op->attrs = std::move(options.attrs);
  op->layoutFreePlaceholders = std::move(options.layoutFreePlaceholders);
  std::vector<Var> vars;
  for (size_t d = 0; d < rank; ++d) {
    const PrimExpr& extent = shape.dims[d];
    std::string name = options.indexNames.empty() ? "i" + std::to_string(d) : options.indexNames[d];
    Var v = tir::makeVar(std::move(name), extent->dtype);
    vars.push_back(v);
    op->axis.push_back(IterVar{Range{tir::intImm(0, extent->dtype), extent}, v});
  }
  op->body = f(vars);
  if (op->body.empty())
    throwDiagnostic("te_compute", "compute " + op->name + ": the body returned no expression");
  checkReductions(op->name, op->body);
  if (const auto* r = op->body[0]->as<tir::ReduceNode>()) op->reduceAxis = r->axis;
  op->inputs = collectInputs(op->body);
  const bool multi = op->body.size() > 1;
  for (size_t k = 0; k < op->body.size(); ++k) {
    std::string name = multi ? op->name + ".v" + std::to_string(k) : op->name;
    op->outputs.push_back(tir::makeBuffer(std::move(name), shape.dims, op->body[k]->dtype));
  }
  std::vector<Tensor> result;
  for (size_t k = 0; k < op->outputs.size(); ++k) result.emplace_back(op, static_cast<int>(k));
  return result;
}

}  // namespace tessera::te
