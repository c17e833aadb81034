"""tessera.relay.transform: graph passes (TVM's tvm.relay.transform).

Each function returns a Pass of the C++ pass table; calling it on an IRModule runs it under the
current PassContext with the GIL released. A pass called directly runs whatever the opt level;
inside a Sequential the context's opt level and disabled_pass decide, as in TVM.
"""
from .. import _core
from ..transform import PassContext, Sequential  # noqa: F401 (TVM re-exports them here)


def _table_pass(name):
    def factory():
        return _core.pass_by_name(name)

    factory.__name__ = name
    factory.__doc__ = f"The {name} pass."
    return factory


# Every pass of the table by its name (InferType, SimplifyInference, FoldConstant, ...); the
# passes that take arguments are defined below.
for _name in _core.pass_names():
    globals()[_name] = _table_pass(_name)


def FoldConstant(fold_qnn=False):
    """Evaluates constant subexpressions with the reference interpreter."""
    return _core.pass_by_name("FoldConstant")


def EliminateCommonSubexpr(fskip=None):
    """Merges calls of the same op on the same arguments."""
    if fskip is not None:
        raise NotImplementedError("EliminateCommonSubexpr(fskip=...) with a Python callback is "
                                  "not bound yet")
    return _core.pass_by_name("EliminateCommonSubexpr")


def FuseOps(fuse_opt_level=-1):
    """Fuses op calls into Primitive functions; ``fuse_opt_level`` >= 0 fuses as that opt level
    would, -1 as the current context's."""
    return _core.fuse_ops(fuse_opt_level)


def CombineParallelConv2D(min_num_branches=3):
    """Merges >= min_num_branches parallel conv2d on one input into one conv2d."""
    return _core.combine_parallel_conv2d(min_num_branches)


def CombineParallelDense(min_num_branches=3, to_batch=True):
    """Merges parallel same-shaped dense on one input into a batch_matmul."""
    if not to_batch:
        raise NotImplementedError("CombineParallelDense(to_batch=False) is not implemented")
    return _core.combine_parallel_dense(min_num_branches)


def ConvertLayout(desired_layouts):
    """Converts ops to the desired layouts, e.g. ``{"nn.conv2d": ["NHWC", "default"]}``."""
    return _core.convert_layout({k: list(v) for k, v in desired_layouts.items()})


def MergeComposite(pattern_table):
    """Outlines the matches of ``[(name, pattern), ...]`` into composite functions
    (``Composite=<name>``), earlier rows first. Rows with a check function are refused."""
    return _core.merge_composite_pass([tuple(row) for row in pattern_table])
