// nn.* operators: attribute structs (TVM's type keys, field names and defaults, spec §3.1) and the
// builder functions that apply TVM's Python front-door normalisation (padding expanded to four
// values, scalar strides/kernel sizes to pairs), since that decides what the printer shows.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "ir/attrs.h"
#include "ir/layout.h"
#include "ir/type.h"
#include "relay/expr.h"
#include "relay/op_registry.h"
#include "runtime/ndarray.h"

namespace tessera::relay::nn {

// --- attribute structs (declaration order = TVM's field order = printing order) ------------------

/// nn.conv2d. `padding` holds 1, 2 or 4 values (spec §3.2 step 4); the builder writes 4.
struct Conv2DAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.Conv2DAttrs";
  std::vector<int64_t> strides = {1, 1};
  std::vector<int64_t> padding = {0, 0};
  std::vector<int64_t> dilation = {1, 1};
  int64_t groups = 1;
  std::optional<int64_t> channels = {};
  std::optional<std::vector<int64_t>> kernelSize = {};
  std::string dataLayout = "NCHW";
  std::string kernelLayout = "OIHW";
  std::string outLayout = {};  ///< empty: same as dataLayout
  DataType outDtype = {};      ///< void: the data's dtype
  template <typename V>
  static void fields(V& v) {
    v("strides", &Conv2DAttrs::strides);
    v("padding", &Conv2DAttrs::padding);
    v("dilation", &Conv2DAttrs::dilation);
    v("groups", &Conv2DAttrs::groups);
    v("channels", &Conv2DAttrs::channels);
    v("kernel_size", &Conv2DAttrs::kernelSize);
    v("data_layout", &Conv2DAttrs::dataLayout);
    v("kernel_layout", &Conv2DAttrs::kernelLayout);
    v("out_layout", &Conv2DAttrs::outLayout);
    v("out_dtype", &Conv2DAttrs::outDtype);
  }
};

/// nn.dense. `units` has no declared default in TVM, so it is always printed (`units=None`).
struct DenseAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.DenseAttrs";
  std::optional<int64_t> units = {};
  DataType outDtype = {};
  template <typename V>
  static void fields(V& v) {
    v.alwaysShown("units", &DenseAttrs::units);
    v("out_dtype", &DenseAttrs::outDtype);
  }
};

/// nn.batch_matmul. The declared default of transpose_b is false, as in TVM's C++ attrs (so text
/// without `transpose_b=True` means false); the builder passes true like TVM's Python API.
struct BatchMatmulAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.BatchMatmulAttrs";
  DataType outDtype = {};
  bool transposeA = false;
  bool transposeB = false;
  template <typename V>
  static void fields(V& v) {
    v("out_dtype", &BatchMatmulAttrs::outDtype);
    v("transpose_a", &BatchMatmulAttrs::transposeA);
    v("transpose_b", &BatchMatmulAttrs::transposeB);
  }
};

/// nn.batch_norm.
struct BatchNormAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.BatchNormAttrs";
  int64_t axis = 1;
  double epsilon = 1e-5;
  bool center = true;
  bool scale = true;
  template <typename V>
  static void fields(V& v) {
    v("axis", &BatchNormAttrs::axis);
    v("epsilon", &BatchNormAttrs::epsilon);
    v("center", &BatchNormAttrs::center);
    v("scale", &BatchNormAttrs::scale);
  }
};

/// nn.layer_norm.
struct LayerNormAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.LayerNormAttrs";
  int64_t axis = -1;
  double epsilon = 1e-5;
  bool center = true;
  bool scale = true;
  template <typename V>
  static void fields(V& v) {
    v("axis", &LayerNormAttrs::axis);
    v("epsilon", &LayerNormAttrs::epsilon);
    v("center", &LayerNormAttrs::center);
    v("scale", &LayerNormAttrs::scale);
  }
};

/// nn.bias_add.
struct BiasAddAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.BiasAddAttrs";
  int64_t axis = 1;
  template <typename V>
  static void fields(V& v) {
    v("axis", &BiasAddAttrs::axis);
  }
};

/// nn.dropout (inference: identity).
struct DropoutAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.DropoutAttrs";
  double rate = 0.5;
  template <typename V>
  static void fields(V& v) {
    v("rate", &DropoutAttrs::rate);
  }
};

/// nn.leaky_relu.
struct LeakyReluAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.LeakyReluAttrs";
  double alpha = 0.25;
  template <typename V>
  static void fields(V& v) {
    v("alpha", &LeakyReluAttrs::alpha);
  }
};

/// nn.softmax and nn.log_softmax.
struct SoftmaxAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.SoftmaxAttrs";
  int64_t axis = -1;
  template <typename V>
  static void fields(V& v) {
    v("axis", &SoftmaxAttrs::axis);
  }
};

/// nn.max_pool2d. `pool_size` is required; `padding` holds 1, 2 or 4 values.
struct MaxPool2DAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.MaxPool2DAttrs";
  std::vector<int64_t> poolSize = {};
  std::vector<int64_t> strides = {1, 1};
  std::vector<int64_t> dilation = {1, 1};
  std::vector<int64_t> padding = {0, 0};
  std::string layout = "NCHW";
  std::string outLayout = {};
  bool ceilMode = false;
  template <typename V>
  static void fields(V& v) {
    v.required("pool_size", &MaxPool2DAttrs::poolSize);
    v("strides", &MaxPool2DAttrs::strides);
    v("dilation", &MaxPool2DAttrs::dilation);
    v("padding", &MaxPool2DAttrs::padding);
    v("layout", &MaxPool2DAttrs::layout);
    v("out_layout", &MaxPool2DAttrs::outLayout);
    v("ceil_mode", &MaxPool2DAttrs::ceilMode);
  }
};

/// nn.avg_pool2d: max_pool2d's fields plus count_include_pad.
struct AvgPool2DAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.AvgPool2DAttrs";
  std::vector<int64_t> poolSize = {};
  std::vector<int64_t> strides = {1, 1};
  std::vector<int64_t> dilation = {1, 1};
  std::vector<int64_t> padding = {0, 0};
  std::string layout = "NCHW";
  std::string outLayout = {};
  bool ceilMode = false;
  bool countIncludePad = false;
  template <typename V>
  static void fields(V& v) {
    v.required("pool_size", &AvgPool2DAttrs::poolSize);
    v("strides", &AvgPool2DAttrs::strides);
    v("dilation", &AvgPool2DAttrs::dilation);
    v("padding", &AvgPool2DAttrs::padding);
    v("layout", &AvgPool2DAttrs::layout);
    v("out_layout", &AvgPool2DAttrs::outLayout);
    v("ceil_mode", &AvgPool2DAttrs::ceilMode);
    v("count_include_pad", &AvgPool2DAttrs::countIncludePad);
  }
};

/// nn.global_avg_pool2d and nn.global_max_pool2d.
struct GlobalPool2DAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.GlobalPool2DAttrs";
  std::string layout = "NCHW";
  std::string outLayout = {};
  template <typename V>
  static void fields(V& v) {
    v("layout", &GlobalPool2DAttrs::layout);
    v("out_layout", &GlobalPool2DAttrs::outLayout);
  }
};

/// nn.adaptive_avg_pool2d. `output_size`: empty keeps H and W, one value is used for both.
struct AdaptivePool2DAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.AdaptivePool2DAttrs";
  std::vector<int64_t> outputSize = {};
  std::string layout = "NCHW";
  std::string outLayout = {};
  template <typename V>
  static void fields(V& v) {
    v("output_size", &AdaptivePool2DAttrs::outputSize);
    v("layout", &AdaptivePool2DAttrs::layout);
    v("out_layout", &AdaptivePool2DAttrs::outLayout);
  }
};

/// nn.pad. The pad value is the op's second argument (a scalar expression), not an attribute.
struct PadAttrs {
  static constexpr const char* kTypeKey = "relay.attrs.PadAttrs";
  std::vector<std::vector<int64_t>> padWidth = {};  ///< one [before, after] pair per axis
  std::string padMode = "constant";                 ///< "constant", "edge" or "reflect"
  template <typename V>
  static void fields(V& v) {
    v.required("pad_width", &PadAttrs::padWidth);
    v("pad_mode", &PadAttrs::padMode);
  }
};

// --- builders (relay.nn.* in TVM's Python API) ---------------------------------------------------

/// nn.conv2d; padding, strides, dilation and kernel_size are normalised as TVM's Python API does.
Expr conv2d(Expr data, Expr weight, Conv2DAttrs attrs = {});
/// nn.dense: `(..., K) x (units, K) -> (..., units)`.
Expr dense(Expr data, Expr weight, DenseAttrs attrs = {});
/// nn.batch_matmul with the Python API's defaults (NT format: transpose_b=true).
Expr batchMatmul(Expr tensorA, Expr tensorB, DataType outDtype = DataType::voidType(),
                 bool transposeA = false, bool transposeB = true);
/// nn.batch_norm: the 3-tuple call (normalised data, moving_mean, moving_var); project with
/// tupleGetItem.
Expr batchNorm(Expr data, Expr gamma, Expr beta, Expr movingMean, Expr movingVar,
               BatchNormAttrs attrs = {});
/// nn.layer_norm.
Expr layerNorm(Expr data, Expr gamma, Expr beta, LayerNormAttrs attrs = {});
/// nn.bias_add.
Expr biasAdd(Expr data, Expr bias, BiasAddAttrs attrs = {});
/// Field 0 of nn.dropout, as TVM's Python relay.nn.dropout returns it.
Expr dropout(Expr data, DropoutAttrs attrs = {});
/// The 2-tuple nn.dropout call itself (relay.nn.dropout_raw).
Expr dropoutRaw(Expr data, DropoutAttrs attrs = {});
/// nn.relu.
Expr relu(Expr data);
/// nn.leaky_relu.
Expr leakyRelu(Expr data, LeakyReluAttrs attrs = {});
/// nn.softmax.
Expr softmax(Expr data, SoftmaxAttrs attrs = {});
/// nn.log_softmax.
Expr logSoftmax(Expr data, SoftmaxAttrs attrs = {});
/// nn.max_pool2d; padding, pool_size, strides and dilation normalised as for conv2d.
Expr maxPool2d(Expr data, MaxPool2DAttrs attrs);
/// nn.avg_pool2d; normalised as maxPool2d.
Expr avgPool2d(Expr data, AvgPool2DAttrs attrs);
/// nn.global_avg_pool2d.
Expr globalAvgPool2d(Expr data, GlobalPool2DAttrs attrs = {});
/// nn.global_max_pool2d.
Expr globalMaxPool2d(Expr data, GlobalPool2DAttrs attrs = {});
/// nn.adaptive_avg_pool2d.
Expr adaptiveAvgPool2d(Expr data, AdaptivePool2DAttrs attrs = {});
/// nn.pad; `padValue` is a scalar expression of any dtype (cast to the data's dtype when run).
Expr pad(Expr data, Expr padValue, PadAttrs attrs);
/// nn.batch_flatten.
Expr batchFlatten(Expr data);

// --- helpers shared by the nn.* type relations and reference kernels ----------------------------

namespace detail {

/// (top, left, bottom, right) from the 1-, 2- or 4-value padding forms; nullopt for other sizes.
std::optional<std::array<int64_t, 4>> expandPadding(const std::vector<int64_t>& padding);
/// A 1-value list repeated to a pair (TVM's scalar-to-tuple normalisation); others unchanged.
std::vector<int64_t> pairFromScalar(std::vector<int64_t> values);
/// `(in + padTotal - ((window - 1) * dilation + 1) + (ceilMode ? stride - 1 : 0)) / stride + 1`
/// with floor division; a non-constant input extent gives Any.
Dim slidingOutDim(const Dim& in, int64_t padTotal, int64_t window, int64_t stride, int64_t dilation,
                  bool ceilMode);
/// Elementwise conversion to `dtype` with `cast` semantics (ints wrap, floats truncate toward
/// zero), so kernels can "cast inputs to out_dtype, then multiply".
NDArray castTensor(const NDArray& a, DataType dtype);
/// A copy of `a` re-blocked from layout `from` to `to` (same primal axes, e.g. NCHW1n16c -> NCHW).
NDArray relayoutTensor(const NDArray& a, const Layout& from, const Layout& to);
/// True when both extents are known and differ (Any and symbolic extents never conflict).
bool dimsConflict(const Dim& a, const Dim& b);
/// `axis` normalised into [0, rank of `data`); otherwise reports `code` naming the data shape.
int normalizeAxisOf(int64_t axis, const TensorTypeNode& data, const TypeReporter& r,
                    const std::string& code);
/// Checks that a known per-channel parameter (gamma, beta, bias, ...) is `T[(extent), dtype]`,
/// reporting `code` with both types otherwise, then assigns that type to argument `index`.
void assignVector(const TypeReporter& r, size_t index, const std::string& name, const Dim& extent,
                  DataType dtype, const TensorTypeNode& data, int axis, const std::string& code);
/// True when every sub-axis extent of `shape` equals its layout factor (16 for the c of NCHW16c).
bool subAxesMatch(const Shape& shape, const Layout& layout);

/// A running sum in an output dtype: double for floats; for integers 64-bit wraparound, narrowed
/// to the dtype's width on store (the low bits of a wrapped sum do not depend on where it wraps).
class Accumulator {
 public:
  explicit Accumulator(DataType dtype) : dtype_(dtype) {}
  /// sum += a[i].
  void add(const NDArray& a, int64_t i);
  /// sum += a[i] * b[j].
  void mac(const NDArray& a, int64_t i, const NDArray& b, int64_t j);
  /// Writes sum / divisor to out[k]; integer division truncates toward zero after wrapping.
  void store(const NDArray& out, int64_t k, int64_t divisor = 1) const;

 private:
  bool isFloat() const { return dtype_.isFloat(); }
  DataType dtype_;
  double real_ = 0;
  uint64_t wrapped_ = 0;
};

}  // namespace detail
}  // namespace tessera::relay::nn

namespace tessera::relay {
// The attrs structs are also reachable as relay::Conv2DAttrs (TVM's tvm::relay::Conv2DAttrs), so
// passes can name them without the nn:: qualifier.
using nn::AdaptivePool2DAttrs;
using nn::AvgPool2DAttrs;
using nn::BatchMatmulAttrs;
using nn::BatchNormAttrs;
using nn::BiasAddAttrs;
using nn::Conv2DAttrs;
using nn::DenseAttrs;
using nn::DropoutAttrs;
using nn::GlobalPool2DAttrs;
using nn::LayerNormAttrs;
using nn::LeakyReluAttrs;
using nn::MaxPool2DAttrs;
using nn::PadAttrs;
using nn::SoftmaxAttrs;
}  // namespace tessera::relay
