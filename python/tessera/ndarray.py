"""tessera.nd: tensors (TVM's tvm.nd), shared with NumPy and PyTorch through DLPack.

``array(x)`` and ``NDArray.numpy()`` copy, as TVM's do. ``from_dlpack(x)`` shares x's memory
when it is 64-byte aligned (what compiled kernels assume) and copies it otherwise; NumPy's own
allocations are usually only 16-byte aligned, so allocate with ``empty`` (aligned) and view it
from NumPy (``numpy.from_dlpack(nd)``) or PyTorch (``torch.from_dlpack(nd)``) to share memory.
"""
from . import _core
from .runtime import Device, cpu, ext_dev

NDArray = _core.NDArray


def _check_device(device):
    if device is not None and device != cpu(0) and not isinstance(device, Device):
        raise TypeError(f"expected a tessera.Device, got {device!r}")
    # VTA's simulator (ext_dev) works on host memory: its tensors are CPU tensors.
    if isinstance(device, Device) and device in (cpu(device.device_id), ext_dev(device.device_id)):
        return
    if isinstance(device, Device):
        raise ValueError(f"Tessera's tensors live on the CPU, not on {device!r}")


def array(arr, device=None, dtype=None, ctx=None):
    """A new NDArray holding a copy of ``arr`` (a NumPy array, an NDArray, or anything
    ``numpy.asarray`` reads)."""
    _check_device(device if device is not None else ctx)
    if isinstance(arr, NDArray):
        arr = arr.numpy()
    return _core.ndarray_from_numpy(arr, dtype or "")


def empty(shape, dtype="float32", device=None):
    """A zero-filled, 64-byte aligned NDArray."""
    _check_device(device)
    return _core.ndarray_empty(list(shape), dtype)


def from_dlpack(dltensor):
    """An NDArray sharing the memory of a DLPack producer (a NumPy array, a PyTorch tensor, an
    NDArray) or of a DLPack capsule; unaligned data is copied into an aligned tensor."""
    return _core.from_dlpack(dltensor)


def _device(self):
    return cpu(0)


# TVM's NDArray API besides what the extension defines.
NDArray.device = property(_device)
NDArray.asnumpy = NDArray.numpy  # TVM < 0.8's name
NDArray.to_dlpack = NDArray.__dlpack__
NDArray.__array__ = lambda self, dtype=None: (
    self.numpy() if dtype is None else self.numpy().astype(dtype))
