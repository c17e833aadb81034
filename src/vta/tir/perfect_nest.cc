// Loop-nest reading shared by InjectDMAIntrin and InjectALUIntrin (perfect_nest.h).
#include "vta/tir/perfect_nest.h"

#include "support/diagnostic.h"

namespace tessera::vta {

using namespace tir;

PerfectNest perfectNest(const Stmt& root, const char* code) {
  PerfectNest nest;
  Stmt s = root;
  while (true) {
    if (const auto* f = s->as<ForNode>()) {
      const int64_t* e = asConstInt(f->extent);
      if (!e || !isZero(f->min))
        throwDiagnostic(code, "loop '" + f->loopVar->name + "' needs a constant extent from 0");
      if (*e == 1)
        nest.unit[f->loopVar.get()] = intImm(0, f->loopVar->dtype);
      else
        nest.loops.push_back({f->loopVar, *e});
      s = f->body;
    } else if (const auto* d = s->as<DeclBufferNode>()) {
      s = d->body;
    } else if (const auto* l = s->as<LetStmtNode>()) {
      s = substitute(l->body, {{l->var.get(), l->value}});
    } else {
      break;
    }
  }
  nest.leaf = s;
  return nest;
}

std::optional<AffineIndex> affineIndex(const PrimExpr& e, const std::vector<NestLoop>& loops,
                                       arith::Analyzer& analyzer) {
  VarMap zero;
  for (const NestLoop& l : loops) zero[l.var.get()] = intImm(0, l.var->dtype);
  AffineIndex a{analyzer.simplify(substitute(e, zero)), {}};
  PrimExpr rebuilt = a.base;
  for (const NestLoop& l : loops) {
    VarMap one = zero;
    one[l.var.get()] = intImm(1, l.var->dtype);
    const PrimExpr step = analyzer.simplify(substitute(e, one) - a.base);  // keeps *c alive
    const int64_t* c = asConstInt(step);
    if (!c) return std::nullopt;
    a.coef.push_back(*c);
    rebuilt = rebuilt + intImm(*c, l.var->dtype) * l.var;
  }
  if (!analyzer.canProveEqual(e, rebuilt)) return std::nullopt;
  return a;
}

}  // namespace tessera::vta
