"""tessera.testing: TVM's ``tvm.testing.assert_allclose`` (NDArrays or NumPy arrays)."""
import numpy as np


def assert_allclose(actual, desired, rtol=1e-7, atol=1e-7):
    """NumPy's assert_allclose, with TVM's defaults, on NDArrays or arrays of the same shape."""
    actual = actual.numpy() if hasattr(actual, "numpy") else np.asarray(actual)
    desired = desired.numpy() if hasattr(desired, "numpy") else np.asarray(desired)
    np.testing.assert_allclose(actual, desired, rtol=rtol, atol=atol, verbose=True)
