// Value formatting for the Relay printer: scalar constants as literals (`16f`, `0i64`, `True`),
// attribute values, and attribute lists. In exact mode (the round-trip form) every float is
// written with as many digits as it takes to read back the same bits.
#pragma once

#include <string>

#include "ir/attr_value.h"
#include "ir/attrs.h"
#include "relay/expr.h"

namespace tessera::relay::text {

/// Whether the constant prints as a literal: rank 0 with a value, dtype int16/32/64,
/// float16/32/64 or bool. In exact mode a NaN does not (no literal spells it).
bool isSimpleScalar(const ConstantNode& constant, bool exact);
/// The literal of a simple scalar constant: `0`, `0i64`, `16f`, `1e-05f`, `3f64`, `True`.
std::string scalarLiteral(const ConstantNode& constant, bool exact);
/// `%g`-style text of `value` (6 significant digits), or in exact mode the shortest such text that
/// reads back as the same value of `dtype`.
std::string floatText(double value, DataType dtype, bool exact);
/// An attribute value as written after `key=`. Nested attrs objects print as `{k=v, ...}`; with
/// `typeKeys`, a typed one also carries `attrs_type_key="..."` so the parser can rebuild its type.
std::string attrValueText(const AttrValue& value, bool exact, bool typeKeys);
/// The printed fields of an attrs object as `k=v` items joined by ", ".
std::string attrsItems(const AttrsNode& attrs, bool exact, bool typeKeys, bool withTypeKey);

}  // namespace tessera::relay::text
