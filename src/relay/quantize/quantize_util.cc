#include "relay/quantize/quantize_util.h"

#include <algorithm>
#include <cmath>

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
  NDArray a = NDArray::empty({}, dtype);
  if (dtype.isFloat()) {
    a.setFloat(0, value);
  } else {
    // Saturate (NaN: 0): shift amounts and rounding terms computed from extreme scales must not
    // overflow the conversion.
    const double limit = 9.2e18;
    a.setInt(0, std::isnan(value) ? 0 : static_cast<int64_t>(std::clamp(value, -limit, limit)));
  }
  return makeConstant(a);
}

double scalarValue(const Expr& e) {
  const auto* c = e->as<ConstantNode>();
  TS_CHECK(c && c->hasData() && c->data.numel() == 1) << "expected a scalar constant";
  return c->data.getFloat(0);
}

}  // namespace tessera::relay::quantize
