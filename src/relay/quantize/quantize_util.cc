#include "relay/quantize/quantize_util.h"

#include <algorithm>
#include <cmath>

#include "relay/builder.h"
#include "relay/visit.h"
#include "support/check.h"

namespace tessera::relay::quantize {

bool isConstantExpr(const Expr& e) {
  bool constant = true;
  postOrderVisit(e, [&](const Expr& node) {
    if (node->as<VarNode>()) constant = false;
  });
  return constant;
}

Expr scalarConstant(double value, DataType dtype) {
  if (dtype.isFloat()) return scalar(value, dtype);
  // Saturate (NaN: 0): shift amounts and rounding terms computed from extreme scales must not
  // overflow the conversion to an integer.
  const double limit = 9.2e18;
  return makeConstant(NDArray::scalarInt(
      std::isnan(value) ? 0 : static_cast<int64_t>(std::clamp(value, -limit, limit)), dtype));
}

double scalarValue(const Expr& e) {
  const auto* c = e->as<ConstantNode>();
  TS_CHECK(c && c->hasData() && c->data.numel() == 1) << "expected a scalar constant";
  return c->data.getFloat(0);
}

}  // namespace tessera::relay::quantize
