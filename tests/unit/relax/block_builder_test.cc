// BlockBuilder: variable naming, scopes and their errors, emitTe's PrimFunc naming, parameter
// naming and de-duplication, symbolic shapes mapped between caller and PrimFunc.
#include <gtest/gtest.h>

#include "relax/block_builder.h"
#include "relax/ops.h"
#include "relax/printer.h"
#include "relax_test_util.h"
#include "topi/broadcast.h"
#include "topi/elemwise.h"

namespace tessera {
namespace {

using relax_test::diagnosticOf;

relax::Var tensorVar(const std::string& name, relax::SymbolScope& s,
                     std::vector<relax::SymbolScope::Dim> dims) {
  return relax::makeVar(name, s.tensor(dims, DataType::float32()));
}

auto addTe = [](const std::vector<te::Tensor>& t) { return topi::add(t[0], t[1]); };
auto reluTe = [](const std::vector<te::Tensor>& t) { return topi::relu(t[0]); };

TEST(BlockBuilder, NamesVariablesByScope) {
  relax::SymbolScope s;
  relax::Var x = tensorVar("x", s, {int64_t{2}, int64_t{3}});
  relax::BlockBuilder bb;
  bb.function("f", std::vector<relax::Var>{x});
  relax::Var g = bb.emit(relax::relu(x));
  relax::Var lv, lv1, out;
  {
    auto df = bb.dataflow();
    lv = bb.emit(relax::add(g, x));
    lv1 = bb.emit(relax::multiply(lv, lv));
    out = bb.emitOutput(lv1);
  }
  relax::Var after = bb.emit(relax::relu(out), "result");
  bb.emitFuncOutput(after);
  EXPECT_EQ(g->name, "gv");
  EXPECT_FALSE(g->dataflow);
  EXPECT_EQ(lv->name, "lv");
  EXPECT_TRUE(lv->dataflow);
  EXPECT_EQ(lv1->name, "lv1");
  EXPECT_EQ(out->name, "gv1");
  EXPECT_FALSE(out->dataflow);
  EXPECT_EQ(after->name, "result");
  relax::Function f = bb.get().relaxFunction("f");
  ASSERT_EQ(f->blocks.size(), 3u);
  EXPECT_FALSE(f->blocks[0].dataflow);
  EXPECT_TRUE(f->blocks[1].dataflow);
  EXPECT_EQ(f->blocks[1].bindings.size(), 3u);
  EXPECT_EQ(relax::sinfoScript(f->ret), "R.Tensor((2, 3), dtype=\"float32\")");
}

TEST(BlockBuilder, NormalizesNestedCalls) {
  relax::SymbolScope s;
  relax::Var x = tensorVar("x", s, {int64_t{4}});
  relax::BlockBuilder bb;
  bb.function("f", std::vector<relax::Var>{x});
  relax::Var y = bb.emit(relax::add(relax::relu(x), x));
  bb.emitFuncOutput(y);
  EXPECT_EQ(relax::toScript(bb.get().relaxFunction("f"), "f"), R"(@R.function
def f(x: R.Tensor((4,), dtype="float32")) -> R.Tensor((4,), dtype="float32"):
    gv = R.nn.relu(x)
    gv1 = R.add(gv, x)
    return gv1
)");
}

TEST(BlockBuilder, ScopeErrors) {
  relax::SymbolScope s;
  relax::Var x = tensorVar("x", s, {int64_t{4}});
  relax::BlockBuilder bb;
  EXPECT_EQ(diagnosticOf([&] { bb.emit(relax::relu(x)); }),
            "block_builder: emit: no function is open (call function() first)");
  bb.function("f", std::vector<relax::Var>{x});
  EXPECT_EQ(diagnosticOf([&] { bb.function("g"); }),
            "block_builder: function 'g': functions cannot nest (still building 'f')");
  EXPECT_EQ(diagnosticOf([&] { bb.emitOutput(x); }),
            "block_builder: emitOutput: only allowed inside a dataflow block");
  EXPECT_EQ(diagnosticOf([&] { bb.get(); }),
            "block_builder: get: function 'f' was not finished with emitFuncOutput");
  EXPECT_EQ(diagnosticOf([&] { bb.emitFuncOutput(x, std::vector<relax::Var>{x}); }),
            "block_builder: emitFuncOutput: function parameters of 'f' have been initialized in "
            "function()");
  relax::BlockBuilder bb2;
  bb2.function("g");
  EXPECT_EQ(diagnosticOf([&] { bb2.emitFuncOutput(x); }),
            "block_builder: emitFuncOutput: Relax function 'g' must have parameters");
}

TEST(BlockBuilder, EmitTeNamesAndDeduplicatesPrimFuncs) {
  relax::SymbolScope s;
  relax::Var x = tensorVar("x", s, {int64_t{1}, int64_t{8}});
  relax::Var y = tensorVar("y", s, {int64_t{1}, int64_t{4}});
  NDArray c8 = NDArray::empty({8}, DataType::float32());
  relax::BlockBuilder bb;
  bb.function("main", std::vector<relax::Var>{x, y});
  relax::Var a, b, c;
  {
    auto df = bb.dataflow();
    a = bb.emitTe("add", addTe, {x, relax::makeConstant(c8)});
    b = bb.emitTe("add", addTe, {a, relax::makeConstant(c8)});
    c = bb.emitTe("add", addTe, {y, y});
    bb.emitOutput(c);
  }
  bb.emitFuncOutput(c);
  const relax::IRModule& mod = bb.get();
  std::vector<std::string> names;
  for (const auto& e : mod.entries()) names.push_back(e.name);
  // The first two differ only in the placeholder's name (x vs lv), which is part of the PrimFunc.
  EXPECT_EQ(names, (std::vector<std::string>{"add", "add1", "add2", "main"}));
  tir::PrimFunc first = mod.primFunc("add");
  EXPECT_EQ(first->paramBuffers()[0]->name, "x");
  EXPECT_EQ(first->paramBuffers()[1]->name, "B");  // a constant takes its position's letter
  EXPECT_FALSE(first->attrs.has("global_symbol"));

  // A structurally identical PrimFunc is reused.
  relax::BlockBuilder again(mod);
  relax::Var x2 = tensorVar("x", s, {int64_t{1}, int64_t{8}});
  again.function("second", std::vector<relax::Var>{x2});
  relax::Var r = again.emitTe("add", addTe, {x2, relax::makeConstant(c8)});
  again.emitFuncOutput(r);
  EXPECT_EQ(again.get().entries().size(), 5u);
  EXPECT_NE(relax::toScript(again.get().relaxFunction("second"), "second")
                .find("R.call_tir(cls.add, (x, "),
            std::string::npos);
}

TEST(BlockBuilder, EmitTeKeepsSymbolicShapes) {
  relax::SymbolScope s;
  relax::Var x = tensorVar("x", s, {"b", "n"});
  relax::BlockBuilder bb;
  bb.function("main", std::vector<relax::Var>{x});
  relax::Var y = bb.emitTe("relu", reluTe, {x});
  bb.emitFuncOutput(y);
  const relax::IRModule& mod = bb.get();
  // out_sinfo is in the caller's variables; the PrimFunc has fresh ones of the same names.
  EXPECT_EQ(relax::sinfoScript(y->sinfo), "R.Tensor((b, n), dtype=\"float32\")");
  EXPECT_TRUE(tir::deepEqual((*y->sinfo->shape)[1], s.var("n")));
  tir::PrimFunc relu = mod.primFunc("relu");
  const tir::PrimExpr& primDim = relu->paramBuffers()[0]->shape[1];
  EXPECT_EQ(primDim->as<tir::VarNode>()->name, "n");
  EXPECT_NE(primDim.get(), s.var("n").get());
}

TEST(BlockBuilder, EmitTeNeedsKnownShapes) {
  relax::Var x = relax::makeVar("x", relax::tensorSInfoNdim(2, DataType::float32()));
  relax::BlockBuilder bb;
  bb.function("main", std::vector<relax::Var>{x});
  EXPECT_EQ(diagnosticOf([&] { bb.emitTe("relu", reluTe, {x}); }),
            "block_builder: emit_te 'relu': argument 0 must be a tensor with a known shape (use "
            "match_cast), got R.Tensor(dtype=\"float32\", ndim=2)");
}

}  // namespace
}  // namespace tessera
