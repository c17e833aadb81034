"""tessera.script: TVMScript in, under TVM 0.16's names (tvm.script).

``@tessera.script.ir_module`` (also ``I.ir_module`` with ``from tessera.script import ir as I``)
on a class, ``@T.prim_func`` and ``@R.function`` (``from tessera.script import tir as T``,
``from tessera.script import relax as R``) on a function hand the decorated source
(``inspect.getsource``) to Tessera's C++ TVMScript parser and return what the rest of the
package uses: a ``relax.IRModule`` (a ``tir`` module when it holds PrimFuncs only), a
``tir.PrimFunc``, a ``relax.Function``. ``from_source(text)`` parses text, such as what
``mod.script()`` printed. The grammar accepted is the one Tessera prints plus seed 002's
hand-written form: docs/user/tvmscript.md. A mistake in the script raises
``tessera.DiagnosticError`` whose ``span`` is the line and column in the Python file.
"""
from . import ir, relax, tir
from ._source import from_source
from .ir import ir_module

__all__ = ["ir", "tir", "relax", "ir_module", "from_source"]
