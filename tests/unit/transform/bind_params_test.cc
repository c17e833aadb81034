// BindParams and InlineGlobalCalls, and the pass table: golden before/after text, a differential
// check (exact: the bound values are the values the "before" module is run with) and the table's
// consistency.
#include <gtest/gtest.h>

#include <set>

#include "pass_test_util.h"
#include "relay/builder.h"
#include "relay/interp/interpreter.h"
#include "relay/transform/pass_table.h"
#include "relay/transform/passes.h"
#include "relay/type_infer.h"
#include "support/diagnostic.h"
#include "test_util.h"

namespace tessera::relay {
namespace {

using test::printBare;

const char* kDense = R"(def @main(%x: Tensor[(2, 3), float32], %w: Tensor[(4, 3), float32]) {
  nn.dense(%x, %w, units=4)
})";

TEST(BindParams, NamedParameterBecomesConstantAndIsRemoved) {
  IRModule before = parseModule(kDense);
  NDArray w = test::randomTensor({4, 3}, DataType::float32(), 5);
  IRModule after = bindParams(before, {{"w", w}, {"unknown", w}});
  EXPECT_EQ(printBare(after), R"(def @main(%x: Tensor[(2, 3), float32]) -> Tensor[(2, 4), float32] {
  nn.dense(%x, meta[relay.Constant][0], units=4)
}
)");
  NDArray x = test::randomTensor({2, 3}, DataType::float32(), 6);
  EXPECT_TRUE(
      test::valuesClose(Interpreter(before).run({x, w}), Interpreter(after).run({x}), 0, 0));
}

TEST(BindParams, DuplicateNamesAreAnError) {
  // The text format rejects duplicate names, so the module is built directly.
  Var w1 = var("w", {2});
  Var w2 = var("w", {2});
  IRModule m = IRModule::fromExpr(makeFunction({w1, w2}, add(w1, w2)));
  try {
    bindParams(m, {{"w", test::randomTensor({2}, DataType::float32(), 1)}});
    ADD_FAILURE() << "expected bind_params_duplicate";
  } catch (const DiagnosticError& e) {
    EXPECT_EQ(e.diagnostic().code, "bind_params_duplicate");
  }
}

TEST(PassTable, EveryRowIsFoundByItsPassName) {
  std::set<std::string> names;
  for (const PassTableRow& row : passTable()) {
    Pass pass = passByName(row.name());
    EXPECT_EQ(pass->info().name, row.name());
    EXPECT_EQ(pass->info().optLevel, row.optLevel()) << row.name();
    EXPECT_TRUE(names.insert(row.name()).second) << "two rows named " << row.name();
  }
}

// InlineGlobalCalls (build() runs it first): a callee used twice is inlined at both calls with
// its own arguments, the inlined functions leave the module, and a recursive function stays.
TEST(InlineGlobalCalls, InlinesEveryCallAndDropsTheCallees) {
  IRModule m = parseModule(R"(def @main(%x: Tensor[(2), float32]) {
  %0 = @twice(%x);
  @twice(%0)
}
def @twice(%y: Tensor[(2), float32]) {
  add(%y, %y)
})");
  IRModule inlined = inlineGlobalCalls(m);
  EXPECT_EQ(printBare(inlined), R"(def @main(%x: Tensor[(2), float32]) -> Tensor[(2), float32] {
  %0 = add(%x, %x);
  add(%0, %0)
}
)");
}

// A loop written as recursion cannot be inlined: the recursive function stays (called from @main),
// the non-recursive function it calls is inlined into it and leaves the module.
TEST(InlineGlobalCalls, KeepsRecursiveFunctions) {
  IRModule recursive = parseModule(R"(def @main(%x: Tensor[(2), float32]) {
  @loop(%x)
}
def @loop(%y: Tensor[(2), float32]) -> Tensor[(2), float32] {
  @loop(@twice(%y))
}
def @twice(%y: Tensor[(2), float32]) {
  add(%y, %y)
})");
  EXPECT_EQ(printBare(inlineGlobalCalls(recursive)),
            R"(def @loop(%y: Tensor[(2), float32]) -> Tensor[(2), float32] {
  %0 = add(%y, %y);
  @loop(%0)
}

def @main(%x: Tensor[(2), float32]) -> Tensor[(2), float32] {
  @loop(%x)
}
)");
}

// A function literal called where it stands (relay.testing's lstm calls each cell so) is inlined;
// one that two calls share stays, since its let variables would be bound twice in one scope.
TEST(InlineGlobalCalls, InlinesAFunctionLiteralCalledOnce) {
  IRModule m = parseModule(R"(def @main(%x: Tensor[(2), float32]) {
  %0 = fn (%y: Tensor[(2), float32]) {
    let %z = multiply(%y, %y);
    add(%z, %y)
  };
  %0(%x)
})");
  EXPECT_EQ(printBare(inlineGlobalCalls(m)),
            R"(def @main(%x: Tensor[(2), float32]) -> Tensor[(2), float32] {
  let %z: Tensor[(2), float32] = multiply(%x, %x);
  add(%z, %x)
}
)");
  IRModule twice = parseModule(R"(def @main(%x: Tensor[(2), float32]) {
  %0 = fn (%y: Tensor[(2), float32]) {
    let %z = multiply(%y, %y);
    add(%z, %y)
  };
  %1 = %0(%x);
  %0(%1)
})");
  EXPECT_EQ(printBare(inlineGlobalCalls(twice)), printBare(inferTypes(twice)));
}

}  // namespace
}  // namespace tessera::relay
