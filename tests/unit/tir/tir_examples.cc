#include "tir_examples.h"

namespace tessera::tir::examples {

namespace {

PrimExpr c(int64_t v) {
  return intImm(v);
}
PrimExpr f32(double v) {
  return floatImm(v);
}
PrimExpr load(const Buffer& b, std::vector<PrimExpr> idx) {
  return bufferLoad(b, std::move(idx));
}

IterVar iterVar(const Var& v, PrimExpr extent, IterVarType type = IterVarType::kDataPar) {
  return IterVar{Range{intImm(0, extent->dtype), std::move(extent)}, v, type, ""};
}

Buffer buffer2d(const std::string& name, int64_t rows, int64_t cols) {
  return makeBuffer(name, {c(rows), c(cols)});
}

// A view with another shape over the same memory (what FlattenBuffer makes).
Buffer viewOf(const Buffer& b, std::vector<PrimExpr> shape, const Var& data) {
  auto v = std::make_shared<BufferNode>(*withShape(b, std::move(shape)));
  v->data = data;
  return v;
}

}  // namespace

BufferRegion pointRegion(const Buffer& buffer, const std::vector<Var>& vars) {
  BufferRegion r{buffer, {}};
  for (const Var& v : vars) r.region.push_back(Range{v, intImm(1, v->dtype)});
  return r;
}

Stmt rootBlock(std::vector<Buffer> allocs, Stmt body) {
  auto root = std::make_shared<BlockNode>();
  root->name = "root";
  root->allocBuffers = std::move(allocs);
  root->body = std::move(body);
  return blockRealize({}, boolImm(true), root);
}

PrimFunc matmulRelu(int64_t n) {
  Buffer A = buffer2d("A", n, n), B = buffer2d("B", n, n), relu = buffer2d("relu", n, n);
  Buffer matmul = buffer2d("matmul", n, n);
  Var i = makeVar("i"), j = makeVar("j"), k = makeVar("k");
  Var vi = makeVar("v_i"), vj = makeVar("v_j"), vk = makeVar("v_k");
  auto mm = std::make_shared<BlockNode>();
  mm->name = "matmul";
  mm->iterVars = {iterVar(vi, c(n)), iterVar(vj, c(n)),
                  iterVar(vk, c(n), IterVarType::kCommReduce)};
  mm->reads = {pointRegion(A, {vi, vk}), pointRegion(B, {vk, vj})};
  mm->writes = {pointRegion(matmul, {vi, vj})};
  mm->init = bufferStore(matmul, f32(0.0), {vi, vj});
  mm->body =
      bufferStore(matmul, load(matmul, {vi, vj}) + load(A, {vi, vk}) * load(B, {vk, vj}), {vi, vj});
  Stmt mmLoops =
      loopNest({i, j, k}, {c(n), c(n), c(n)}, blockRealize({i, j, k}, boolImm(true), mm));

  Var i2 = makeVar("i"), j2 = makeVar("j");
  Var vi2 = makeVar("v_i"), vj2 = makeVar("v_j");
  auto rl = std::make_shared<BlockNode>();
  rl->name = "relu";
  rl->iterVars = {iterVar(vi2, c(n)), iterVar(vj2, c(n))};
  rl->reads = {pointRegion(matmul, {vi2, vj2})};
  rl->writes = {pointRegion(relu, {vi2, vj2})};
  rl->body = bufferStore(relu, max(load(matmul, {vi2, vj2}), f32(0.0)), {vi2, vj2});
  Stmt rlLoops = loopNest({i2, j2}, {c(n), c(n)}, blockRealize({i2, j2}, boolImm(true), rl));
  return makePrimFunc("main", {A, B, relu}, rootBlock({matmul}, seq({mmLoops, rlLoops})));
}

PrimFunc decomposedMatmul(int64_t n) {
  Buffer A = buffer2d("A", n, n), B = buffer2d("B", n, n), C = buffer2d("C", n, n);
  Var i = makeVar("i"), j0 = makeVar("j_0"), j1init = makeVar("j_1_init");
  Var k = makeVar("k"), j1 = makeVar("j_1");

  Var vi = makeVar("vi"), vj = makeVar("vj");
  auto init = std::make_shared<BlockNode>();
  init->name = "C_init";
  init->iterVars = {iterVar(vi, c(n)), iterVar(vj, c(n))};
  init->writes = {pointRegion(C, {vi, vj})};
  init->body = bufferStore(C, f32(0.0), {vi, vj});
  Stmt initNest =
      loopNest({j1init}, {c(8)}, blockRealize({PrimExpr(i), j0 * 8 + j1init}, boolImm(true), init));

  Var ui = makeVar("vi"), uj = makeVar("vj"), uk = makeVar("vk");
  auto update = std::make_shared<BlockNode>();
  update->name = "C_update";
  update->iterVars = {iterVar(ui, c(n)), iterVar(uj, c(n)),
                      iterVar(uk, c(n), IterVarType::kCommReduce)};
  update->reads = {pointRegion(C, {ui, uj}), pointRegion(A, {ui, uk}), pointRegion(B, {uk, uj})};
  update->writes = {pointRegion(C, {ui, uj})};
  update->body =
      bufferStore(C, load(C, {ui, uj}) + load(A, {ui, uk}) * load(B, {uk, uj}), {ui, uj});
  Stmt updateNest =
      loopNest({k, j1}, {c(n), c(8)},
               blockRealize({PrimExpr(i), j0 * 8 + j1, PrimExpr(k)}, boolImm(true), update));
  Stmt outer = loopNest({i, j0}, {c(n), c(n / 8)}, seq({initNest, updateNest}));
  return makePrimFunc("main", {A, B, C}, rootBlock({}, outer));
}

PrimFunc loweredMatmulRelu() {
  Buffer A = buffer2d("A", 64, 64), B = buffer2d("B", 64, 64), D = buffer2d("D", 64, 64);
  Buffer A1 = withShape(A, {c(4096)}), B1 = withShape(B, {c(4096)}), D1 = withShape(D, {c(4096)});
  Var cData = makeVar("C", DataType::handle());
  Buffer C1 = viewOf(makeBuffer("C", {c(8)}), {c(8)}, cData);
  Var i = makeVar("i"), j0 = makeVar("j_0"), ax0init = makeVar("ax0_init");
  Var ax0 = makeVar("ax0"), ax1 = makeVar("ax1");

  Stmt initLoop = loopNest({ax0init}, {c(8)}, bufferStore(C1, f32(0.0), {ax0init}));
  PrimExpr update =
      load(C1, {ax0}) + load(A1, {i * 64 + ax1}) * load(B1, {ax1 * 64 + j0 * 8 + ax0});
  Stmt updateLoop = loopNest({ax0, ax1}, {c(8), c(64)}, bufferStore(C1, update, {ax0}));
  Stmt store = bufferStore(D1, max(load(C1, {ramp(c(0), c(1), 8)}), broadcast(f32(0.0), 8)),
                           {ramp(i * 64 + j0 * 8, c(1), 8)});
  Stmt jLoop = loopNest({j0}, {c(8)}, seq({initLoop, updateLoop, store}));
  Stmt iLoop = forLoop(i, c(0), c(64), ForKind::kParallel,
                       allocate(cData, DataType::float32(), {c(8)}, "global", jLoop));
  Stmt body = declBuffer(A1, declBuffer(B1, declBuffer(D1, iLoop)));
  return makePrimFunc("main", {A, B, D}, body);
}

PrimFunc symbolicRowMax() {
  Var n = makeVar("n", DataType::int64());
  Buffer X = makeBuffer("X", {n, c(4)});
  Buffer red = makeBuffer("X_red", {n});
  Var i = makeVar("i", DataType::int64()), r = makeVar("r");
  Var vi = makeVar("v_i", DataType::int64()), vr = makeVar("v_r");
  auto b = std::make_shared<BlockNode>();
  b->name = "X_red";
  // The domain starts at an int64 zero while the loop starts at an int32 one, as in TVM's
  // create_prim_func output: the bindings then print as T.axis.spatial/reduce (spec §1.8).
  b->iterVars = {IterVar{Range{intImm(0, DataType::int64()), n}, vi, IterVarType::kDataPar, ""},
                 iterVar(vr, c(4), IterVarType::kCommReduce)};
  b->reads = {pointRegion(X, {vi, vr})};
  b->writes = {pointRegion(red, {vi})};
  b->init = bufferStore(red, minValue(DataType::float32()), {vi});
  b->body = bufferStore(red, max(load(red, {vi}), load(X, {vi, vr})), {vi});
  Stmt loops =
      forLoop(i, c(0), n, ForKind::kSerial,
              forLoop(r, c(0), c(4), ForKind::kSerial, blockRealize({i, r}, boolImm(true), b)));
  return makePrimFunc("main", {X, red}, rootBlock({}, loops));
}

}  // namespace tessera::tir::examples
