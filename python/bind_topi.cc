// TOPI's TE operators for Python (tvm.topi): the C++ computes of src/topi as functions from TE
// tensors to TE tensors, what `BlockBuilder.emit_te(topi.nn.conv2d_nchw, x, w, ...)` calls (seed
// 002's emit_te, and the fx importer's mapping table in tessera.frontend). Attribute lists come
// in TVM's forms (an int or a 2-/4-tuple) and are checked here: a wrong length is a
// DiagnosticError with code "topi".
#include <array>
#include <map>

#include "support/diagnostic.h"
#include "tir_binding.h"
#include "topi/broadcast.h"
#include "topi/elemwise.h"
#include "topi/nn.h"
#include "topi/reduction.h"
#include "topi/transform.h"

namespace tessera::python {

namespace {

/// An int or a list of ints as a vector.
std::vector<int64_t> intList(py::handle value, const std::string& what) {
  if (py::isinstance<py::int_>(value)) return {value.cast<int64_t>()};
  try {
    return value.cast<std::vector<int64_t>>();
  } catch (const py::cast_error&) {
    throwDiagnostic("topi", what + ": expected an int or a list of ints");
  }
}

/// TVM's 1- or 2-value form of strides, dilation, kernel and output sizes.
std::array<int64_t, 2> pair(py::handle value, const std::string& what) {
  std::vector<int64_t> v = intList(value, what);
  if (v.size() == 1) return {v[0], v[0]};
  if (v.size() != 2) {
    throwDiagnostic("topi", what + ": expected 1 or 2 values, got " + std::to_string(v.size()));
  }
  return {v[0], v[1]};
}

/// TVM's 1-, 2- or 4-value padding as (top, left, bottom, right).
std::array<int64_t, 4> padding(py::handle value) {
  std::vector<int64_t> v = intList(value, "padding");
  if (v.size() != 1 && v.size() != 2 && v.size() != 4) {
    throwDiagnostic("topi", "padding: expected 1, 2 or 4 values, got " + std::to_string(v.size()));
  }
  return topi::padTuple(v);
}

DataType optionalDtype(py::handle dtype) {
  return dtype.is_none() ? DataType::voidType() : tirDtype(dtype.cast<std::string>());
}

void bindTopiNn(py::module_& m) {
  m.def(
      "topi_conv2d_nchw",
      [](const te::Tensor& data, const te::Tensor& weight, py::handle strides, py::handle pad,
         py::handle dilation, int64_t groups, py::handle outDtype) {
        topi::Conv2DParams p{.strides = pair(strides, "strides"),
                             .padding = padding(pad),
                             .dilation = pair(dilation, "dilation"),
                             .groups = groups,
                             .outDtype = optionalDtype(outDtype)};
        return topi::conv2dNchw(data, weight, p);
      },
      py::arg("data"), py::arg("weight"), py::arg("strides"), py::arg("padding"),
      py::arg("dilation"), py::arg("groups"), py::arg("out_dtype"));
  m.def(
      "topi_pool2d",
      [](const te::Tensor& data, const std::string& kind, py::handle kernel, py::handle strides,
         py::handle dilation, py::handle pad, bool ceilMode, bool countIncludePad,
         const std::string& layout) {
        topi::Pool2DParams p{.poolSize = pair(kernel, "pool_size"),
                             .strides = pair(strides, "strides"),
                             .dilation = pair(dilation, "dilation"),
                             .padding = padding(pad),
                             .ceilMode = ceilMode,
                             .countIncludePad = countIncludePad,
                             .layout = layout};
        if (kind == "max") return topi::maxPool2d(data, p);
        if (kind == "avg") return topi::avgPool2d(data, p);
        throwDiagnostic("topi", "pool2d: pool_type must be 'max' or 'avg', got '" + kind + "'");
      },
      py::arg("data"), py::arg("kind"), py::arg("kernel"), py::arg("strides"), py::arg("dilation"),
      py::arg("padding"), py::arg("ceil_mode"), py::arg("count_include_pad"), py::arg("layout"));
  m.def("topi_global_pool2d", [](const te::Tensor& data, const std::string& kind,
                                 const std::string& layout) {
    if (kind != "max" && kind != "avg") {
      throwDiagnostic("topi", "global_pool: pool_type must be 'max' or 'avg', got '" + kind + "'");
    }
    return topi::globalPool2d(data, kind == "max", layout);
  });
  m.def("topi_adaptive_avg_pool2d",
        [](const te::Tensor& data, py::handle outSize, const std::string& layout) {
          return topi::adaptiveAvgPool2d(data, pair(outSize, "output_size"), layout);
        });
  m.def("topi_batch_norm", &topi::batchNormInference, py::arg("data"), py::arg("gamma"),
        py::arg("beta"), py::arg("moving_mean"), py::arg("moving_var"), py::arg("axis"),
        py::arg("epsilon"), py::arg("center"), py::arg("scale"));
  m.def("topi_bias_add", &topi::biasAdd);
  m.def("topi_pad", [](const te::Tensor& data, py::handle before, py::handle after,
                       py::handle padValue, const std::string& name) {
    return topi::pad(data, intList(before, "pad_before"), intList(after, "pad_after"),
                     padValue.is_none() ? tir::PrimExpr() : toPrimExpr(padValue, data.dtype()),
                     name);
  });
  m.def("topi_log_softmax", &topi::logSoftmax);
}

}  // namespace

/// TOPI's TE operators (tvm.topi) as TE tensors.
void bindTopiOps(py::module_& m) {
  m.def("topi_binary", [](const std::string& op, const te::Tensor& a, const te::Tensor& b) {
    if (!topi::isBinaryOp(op)) throwDiagnostic("topi", "topi has no binary operator '" + op + "'");
    return topi::binaryOp(op, a, b);
  });
  m.def("topi_unary",
        [](const std::string& op, const te::Tensor& x) { return topi::unaryOp(op, x); });
  m.def("topi_relu", &topi::relu);
  m.def("topi_clip", &topi::clip);
  m.def("topi_dense", [](const te::Tensor& data, const te::Tensor& weight, py::handle outDtype) {
    return topi::dense(data, weight, optionalDtype(outDtype));
  });
  m.def("topi_matmul", [](const te::Tensor& a, const te::Tensor& b, bool ta, bool tb) {
    return topi::matmul(a, b, ta, tb);
  });
  m.def("topi_softmax", &topi::softmax);
  m.def("topi_transpose", &topi::transpose);
  m.def("topi_reshape",
        [](const te::Tensor& x, py::handle shape) { return topi::reshape(x, toPrimExprs(shape)); });
  m.def("topi_concatenate", &topi::concatenate);
  m.def("topi_reduce",
        [](const std::string& kind, const te::Tensor& x, py::handle axis, bool keepdims) {
          static const std::map<std::string, topi::ReduceKind> kinds = {
              {"sum", topi::ReduceKind::kSum},
              {"max", topi::ReduceKind::kMax},
              {"min", topi::ReduceKind::kMin},
              {"mean", topi::ReduceKind::kMean}};
          auto it = kinds.find(kind);
          if (it == kinds.end()) throwDiagnostic("topi", "topi has no reduction '" + kind + "'");
          topi::ReduceSpec spec;
          if (!axis.is_none()) spec.axis = intList(axis, "axis");
          spec.keepdims = keepdims;
          return topi::reduce(it->second, x, spec);
        });
  bindTopiNn(m);
}

}  // namespace tessera::python
