// Construction of the seed-002 MLP modules. The kernels are written in TE (the C++ spelling of
// the seed's TVMScript PrimFuncs) and turned into TensorIR with int64 indices, as Relax expects.
#include "mlp_modules.h"

#include <cmath>
#include <random>

#include "relax/block_builder.h"
#include "relax/ops.h"
#include "runtime/packed_func.h"
#include "te/create_prim_func.h"
#include "te/reduce.h"
#include "topi/broadcast.h"
#include "topi/nn.h"

namespace tessera::mlp_vm {

using relax::Expr;
using relax::StructInfo;
using relax::SymbolScope;
using relax::Var;

namespace {

tir::PrimFunc named(tir::PrimFunc f, const std::string& name) {
  auto copy = std::make_shared<tir::PrimFuncNode>(*f);
  copy->name = name;
  copy->attrs.set("global_symbol", AttrValue::string(name));
  return copy;
}

tir::PrimExpr i64(int64_t v) {
  return tir::intImm(v, DataType::int64());
}

/// main(x, w0, b0, w1, b1) = linear(relu(linear(x, w0, b0)), w1, b1) with the given callees.
relax::Function mlpMain(SymbolScope& s, std::vector<SymbolScope::Dim> x,
                        std::vector<SymbolScope::Dim> w0, std::vector<SymbolScope::Dim> w1,
                        const std::string& linearA, const std::string& reluName,
                        const std::string& linearB) {
  const DataType f32 = DataType::float32();
  Var vx = relax::makeVar("x", s.tensor(x, f32));
  Var vw0 = relax::makeVar("w0", s.tensor(w0, f32));
  Var vb0 = relax::makeVar("b0", s.tensor({w0[0]}, f32));
  Var vw1 = relax::makeVar("w1", s.tensor(w1, f32));
  Var vb1 = relax::makeVar("b1", s.tensor({w1[0]}, f32));
  StructInfo hidden = s.tensor({int64_t{1}, w0[0]}, f32);
  StructInfo out = s.tensor({int64_t{1}, w1[0]}, f32);
  relax::BlockBuilder bb;
  bb.function("main", std::vector<Var>{vx, vw0, vb0, vw1, vb1});
  Var result;
  {
    auto df = bb.dataflow();
    Var lv0 = bb.emit(relax::callDpsPacked(linearA, {vx, vw0, vb0}, hidden), "lv0");
    Var lv1 = bb.emit(relax::callDpsPacked(reluName, {lv0}, hidden), "lv1");
    result = bb.emitOutput(relax::callDpsPacked(linearB, {lv1, vw1, vb1}, out), "out");
  }
  bb.emitFuncOutput(result);
  return bb.get().relaxFunction("main");
}

}  // namespace

tir::PrimFunc linear0() {
  tir::Var m = tir::makeVar("m", DataType::int64());
  tir::Var n = tir::makeVar("n", DataType::int64());
  te::Tensor x = te::placeholder({{i64(1), m}}, DataType::float32(), "X");
  te::Tensor w = te::placeholder({{n, m}}, DataType::float32(), "W");
  te::Tensor b = te::placeholder({{n}}, DataType::float32(), "B");
  te::IterVar k = te::reduceAxis(tir::Range{i64(0), m}, "k");
  te::Tensor y = te::compute(
      {{i64(1), n}},
      [&](tir::Var i, tir::Var j) { return te::sum(x(i, k.var) * w(j, k.var), {k}); }, "Y");
  te::Tensor z = te::compute(
      {{i64(1), n}}, [&](tir::Var i, tir::Var j) { return y(i, j) + b(j); }, "Z");
  return named(te::createPrimFunc({x, w, b, z}, DataType::int64()), "linear0");
}

tir::PrimFunc linear0(int64_t in, int64_t hidden) {
  te::Tensor x = te::placeholder({1, in}, DataType::float32(), "X");
  te::Tensor w = te::placeholder({hidden, in}, DataType::float32(), "W");
  te::Tensor b = te::placeholder({hidden}, DataType::float32(), "B");
  te::IterVar k = te::reduceAxis(0, in, "k");
  te::Tensor y = te::compute(
      {1, hidden}, [&](tir::Var i, tir::Var j) { return te::sum(x(i, k.var) * w(j, k.var), {k}); },
      "Y");
  te::Tensor z = te::compute(
      {1, hidden}, [&](tir::Var i, tir::Var j) { return y(i, j) + b(j); }, "Z");
  return named(te::createPrimFunc({x, w, b, z}), "linear0");
}

tir::PrimFunc relu0() {
  tir::Var n = tir::makeVar("n", DataType::int64());
  te::Tensor x = te::placeholder({{i64(1), n}}, DataType::float32(), "X");
  te::Tensor y = te::compute(
      {{i64(1), n}}, [&](tir::Var i, tir::Var j) { return tir::max(x(i, j), tir::floatImm(0.0)); },
      "Y");
  return named(te::createPrimFunc({x, y}, DataType::int64()), "relu0");
}

void registerEnvFunctions() {
  registerGlobal(
      "env.linear",
      [](PackedArgs args) -> PackedValue {
        checkArgCount("env.linear", args, 4);
        const NDArray &x = args[0].tensor(), &w = args[1].tensor(), &b = args[2].tensor(),
                      &out = args[3].tensor();
        int64_t rows = x.shape()[0], inner = x.shape()[1], cols = w.shape()[0];
        const float *px = x.as<float>(), *pw = w.as<float>(), *pb = b.as<float>();
        float* po = out.as<float>();
        for (int64_t i = 0; i < rows; ++i)
          for (int64_t j = 0; j < cols; ++j) {
            float acc = 0.0f;
            for (int64_t kk = 0; kk < inner; ++kk) acc += px[i * inner + kk] * pw[j * inner + kk];
            po[i * cols + j] = acc + pb[j];
          }
        return {};
      },
      /*override=*/true);
  registerGlobal(
      "env.relu",
      [](PackedArgs args) -> PackedValue {
        checkArgCount("env.relu", args, 2);
        const NDArray &x = args[0].tensor(), &out = args[1].tensor();
        for (int64_t i = 0; i < x.numel(); ++i)
          out.as<float>()[i] = std::max(x.as<float>()[i], 0.0f);
        return {};
      },
      /*override=*/true);
}

relax::IRModule myModule() {
  relax::IRModule mod;
  mod.add("relu0", relu0());
  mod.add("linear0", linear0());
  SymbolScope s;
  mod.add("main",
          mlpMain(s, {int64_t{1}, "m"}, {"n", "m"}, {"k", "n"}, "linear0", "relu0", "linear0"));
  return mod;
}

relax::IRModule myModuleWithExternCall() {
  relax::IRModule mod;
  SymbolScope s;
  mod.add("main", mlpMain(s, {int64_t{1}, "m"}, {"n", "m"}, {"k", "n"}, "env.linear", "env.relu",
                          "env.linear"));
  return mod;
}

relax::IRModule myModuleMixture(int64_t in, int64_t hidden, int64_t out) {
  relax::IRModule mod;
  mod.add("linear0", linear0());
  SymbolScope s;
  mod.add("main", mlpMain(s, {int64_t{1}, in}, {hidden, in}, {out, hidden}, "linear0", "env.relu",
                          "env.linear"));
  return mod;
}

relax::IRModule fromBuilder(const std::map<std::string, NDArray>& params) {
  int64_t in = params.at("w0").shape()[1];
  Var x =
      relax::makeVar("x", relax::tensorSInfo({relax::dim(1), relax::dim(in)}, DataType::float32()));
  auto dense = [](const std::vector<te::Tensor>& t) { return topi::dense(t[0], t[1]); };
  auto add = [](const std::vector<te::Tensor>& t) { return topi::add(t[0], t[1]); };
  auto teRelu = [](const std::vector<te::Tensor>& t) {
    return te::compute(
        t[0].shape(),
        [&](tir::Var i, tir::Var j) { return tir::max(t[0](i, j), tir::floatImm(0.0)); }, "relu");
  };
  relax::BlockBuilder bb;
  bb.function("main");
  Var lv4;
  {
    auto df = bb.dataflow();
    Var lv = bb.emitTe("dense", dense, {x, relax::makeConstant(params.at("w0"))});
    Var lv1 = bb.emitTe("add", add, {lv, relax::makeConstant(params.at("b0"))});
    Var lv2 = bb.emitTe("te_relu", teRelu, {lv1});
    Var lv3 = bb.emitTe("dense", dense, {lv2, relax::makeConstant(params.at("w1"))});
    lv4 = bb.emitTe("add", add, {lv3, relax::makeConstant(params.at("b1"))});
    bb.emitOutput(lv4);
  }
  // Seed 002's from_fx returns the dataflow variable itself; that is accepted.
  bb.emitFuncOutput(lv4, std::vector<Var>{x});
  return bb.get();
}

std::map<std::string, NDArray> randomParams(int64_t in, int64_t hidden, int64_t out,
                                            uint32_t seed) {
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> dist(-0.1f, 0.1f);
  auto make = [&](std::vector<int64_t> shape) {
    NDArray a = NDArray::empty(std::move(shape), DataType::float32());
    for (int64_t i = 0; i < a.numel(); ++i) a.as<float>()[i] = dist(rng);
    return a;
  };
  return {{"w0", make({hidden, in})},
          {"b0", make({hidden})},
          {"w1", make({out, hidden})},
          {"b1", make({out})}};
}

NDArray referenceMlp(const NDArray& x, const std::map<std::string, NDArray>& params) {
  auto linear = [](const NDArray& in, const NDArray& w, const NDArray& b, bool relu) {
    int64_t inner = w.shape()[1], cols = w.shape()[0];
    NDArray out = NDArray::empty({1, cols}, DataType::float32());
    for (int64_t j = 0; j < cols; ++j) {
      double acc = 0;
      for (int64_t k = 0; k < inner; ++k) acc += in.getFloat(k) * w.getFloat(j * inner + k);
      acc += b.getFloat(j);
      out.setFloat(j, relu ? std::max(acc, 0.0) : acc);
    }
    return out;
  };
  NDArray h = linear(x, params.at("w0"), params.at("b0"), true);
  return linear(h, params.at("w1"), params.at("b1"), false);
}

int64_t argmax(const NDArray& logits) {
  int64_t best = 0;
  for (int64_t i = 1; i < logits.numel(); ++i)
    if (logits.getFloat(i) > logits.getFloat(best)) best = i;
  return best;
}

}  // namespace tessera::mlp_vm
