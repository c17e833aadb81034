// Child access over TensorIR statements and the iterative ancestor-chain search built on it.
#include "tir/stmt_children.h"

#include <utility>

namespace tessera::tir {

std::vector<Stmt> stmtChildren(const Stmt& s) {
  std::vector<Stmt> out;
  if (s) forEachChild(*s, [&out](const Stmt& child) { out.push_back(child); });
  return out;
}

std::vector<Stmt> findStmtChain(const Stmt& root, const std::function<bool(const Stmt&)>& match) {
  // Each pending statement remembers its depth; when it is popped the chain is cut back to its
  // parent, so `chain` always holds exactly the ancestors of the statement being examined.
  std::vector<std::pair<Stmt, size_t>> stack;
  std::vector<Stmt> chain;
  std::vector<Stmt> children;
  if (root) stack.emplace_back(root, 0);
  while (!stack.empty()) {
    auto [s, depth] = std::move(stack.back());
    stack.pop_back();
    chain.resize(depth);
    chain.push_back(s);
    if (match(s)) return chain;
    children.clear();
    forEachChild(*s, [&children](const Stmt& child) { children.push_back(child); });
    // Pushed in reverse so the first child is examined first, as a recursive pre-order would.
    for (size_t i = children.size(); i-- > 0;)
      stack.emplace_back(std::move(children[i]), depth + 1);
  }
  return {};
}

}  // namespace tessera::tir
