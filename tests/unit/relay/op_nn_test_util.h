// Helpers shared by the nn.* op tests: tensor literals, running a kernel or a type relation, and
// checking a type error's constraint label.
#pragma once

#include <cmath>
#include <map>

#include <gtest/gtest.h>

#include "relay/builder.h"
#include "relay/op/nn.h"
#include "relay/op/op_common.h"
#include "relay/type_infer.h"
#include "support/diagnostic.h"
#include "test_util.h"

namespace tessera::relay {
namespace {

using test::allClose;
using test::tensorOf;
using test::valuesOf;
using Values = std::vector<double>;

const DataType kF32 = DataType::float32();
const DataType kI8 = DataType::int8();
const DataType kI32 = DataType::int32();

inline NDArray t(std::vector<int64_t> shape, Values values, DataType dtype = kF32) {
  return tensorOf(shape, dtype, values);
}
inline Type tt(std::vector<int64_t> shape, DataType dtype = kF32) {
  return tensorType(shape, dtype);
}
// Runs the op's relation then its kernel; the result as doubles.
inline Values run(const std::string& op, std::vector<Value> args, Attrs attrs = nullptr) {
  return valuesOf(evalOp(op, args, attrs).tensor());
}
inline std::string typeOf(const std::string& op, std::vector<Type> args, Attrs attrs = nullptr) {
  return typeToString(inferCallType(op, args, attrs));
}
inline void expectNear(const Values& got, const Values& want, double tol = 1e-6) {
  ASSERT_EQ(got.size(), want.size());
  for (size_t i = 0; i < got.size(); ++i) EXPECT_NEAR(got[i], want[i], tol) << "element " << i;
}
// Expects a type error with `code` whose message mentions each of `mentions` (shapes, names).
inline void expectTypeError(const std::string& op, std::vector<Type> args, Attrs attrs,
                            const std::string& code, std::vector<std::string> mentions) {
  try {
    inferCallType(op, args, attrs);
    ADD_FAILURE() << op << ": expected a " << code << " error";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().code, code) << e.diagnostic().str();
    for (const std::string& m : mentions)
      EXPECT_NE(e.diagnostic().message.find(m), std::string::npos)
          << "'" << m << "' not in: " << e.diagnostic().message;
  }
}
// Runs a relation directly, recording the argument types it assigns.
inline std::map<size_t, std::string> assigned(const std::string& op, std::vector<Type> args,
                                              Attrs attrs, std::string* out) {
  const OpDef* def = OpRegistry::global().find(op);
  if (!attrs) attrs = def->defaultAttrs;
  std::map<size_t, std::string> types;
  TypeReporter r(def->name, args, attrs.get(), Span{},
                 [&](size_t i, const Type& type) { types[i] = typeToString(type); });
  std::optional<Type> result = def->typeRelation(r);
  *out = result ? typeToString(*result) : "undecided";
  return types;
}
inline std::string printedAttrs(const Expr& call) {
  return call->as<CallNode>()->attrs->nonDefaultString();
}
}  // namespace
}  // namespace tessera::relay
