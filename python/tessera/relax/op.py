"""relax.op: the high-level ops Tessera's VM compiler legalizes to PrimFuncs (LegalizeOps)."""
from .. import _core


def add(x1, x2):
    """Elementwise sum with broadcasting."""
    return _core.relax_op("add", [x1, x2], [])


def multiply(x1, x2):
    """Elementwise product with broadcasting."""
    return _core.relax_op("multiply", [x1, x2], [])


def matmul(x1, x2, out_dtype=None):
    """Matrix product."""
    return _core.relax_op("matmul", [x1, x2], [])


def permute_dims(x, axes=None):
    """Transpose (reversed axes by default)."""
    return _core.relax_op("permute_dims", [x], list(axes or []))


class nn:  # pylint: disable=invalid-name,too-few-public-methods
    """relax.op.nn."""

    @staticmethod
    def relu(data):
        """max(x, 0)."""
        return _core.relax_op("relu", [data], [])
