"""Seed 000's ``vta_utils.vta_pattern``: the four composite patterns, the rows of the C++ pattern
table (``vta::vtaPatternTable()``, src/vta/graph/vta_composite.h)."""
from .. import _core


def pattern_table():
    """[(name, pattern), ...] in table order: vta_preprocessing, vta_reshape_transpose,
    vta_conv2d, vta_output (the names seed 000 gives them)."""
    return [tuple(row) for row in _core.vta_pattern_table()]


def _row(name):
    for row_name, pattern in _core.vta_pattern_table():
        if row_name == name:
            return pattern
    raise KeyError(name)


def preprocessing_pattern():
    """multiply(x, const) -> round -> clip -> cast."""
    return _row("vta_preprocessing")


def pad_reshape_transpose_pattern():
    """[nn.pad ->] reshape -> transpose [-> broadcast_to]."""
    return _row("vta_reshape_transpose")


def conv_add_activate_pattern():
    """nn.conv2d -> [add] -> [fixed_point_multiply -> cast -> add] -> [nn.relu] -> [requantize]
    -> cast -> [annotation.stop_fusion]."""
    return _row("vta_conv2d")


def output_pattern():
    """cast -> multiply(x, const)."""
    return _row("vta_output")
