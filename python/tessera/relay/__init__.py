"""tessera.relay: the graph IR, its ops and passes, relay.build and relay.quantize (TVM's
tvm.relay)."""
from . import expr
from .expr import (var, const, Var, GlobalVar, Constant, Call, Tuple, TupleGetItem, Let, If,
                   Function, Expr, TupleWrapper, Type, TensorType, TupleType, FuncType,
                   IncompleteType, scalar_type)
from . import op
from .op import *  # noqa: F401,F403 (every top-level op: add, multiply, reshape, ...)
from .op import _TOP

op._install_families()
from . import analysis
from . import transform
from . import build_module
from .build_module import build, create_executor, build_config
from . import backend
from . import frontend
from . import quantize
from ..ir import IRModule
from ..parser import fromtext, parse_expr

Module = IRModule  # TVM < 0.7's name, used by seed 003
# `from .op import *` exports only the names in op's globals, which include the top-level ops.
__all__ = [name for name in globals() if not name.startswith("_")] + list(_TOP)
