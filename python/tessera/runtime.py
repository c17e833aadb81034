"""Devices (TVM's tvm.runtime.Device, tvm.cpu, tvm.device, tvm.ext_dev). Tessera runs on the CPU;
``ext_dev`` is VTA's simulator, whose memory is the host's."""
_CPU = 1  # DLPack's kDLCPU
_EXT_DEV = 12  # DLPack's kDLExtDev
_NAMES = {"cpu": _CPU, "llvm": _CPU, "c": _CPU}


class Device:
    """A device: type (DLPack code) and index. Only ``cpu(0)`` holds Tessera's tensors."""

    def __init__(self, device_type=_CPU, device_id=0):
        self.device_type = device_type
        self.device_id = device_id

    def __eq__(self, other):
        return isinstance(other, Device) and (self.device_type, self.device_id) == (
            other.device_type, other.device_id)

    def __hash__(self):
        return hash((self.device_type, self.device_id))

    def __repr__(self):
        if self.device_type == _EXT_DEV:
            return f"ext_dev({self.device_id})"
        return f"cpu({self.device_id})" if self.device_type == _CPU else (
            f"device({self.device_type}, {self.device_id})")

    def _dlpack_device(self):
        return (self.device_type, self.device_id)


def cpu(dev_id=0):
    """The CPU device."""
    return Device(_CPU, dev_id)


def ext_dev(dev_id=0):
    """VTA (TVM's ``tvm.ext_dev``): the simulator, which reads tensors in host memory."""
    return Device(_EXT_DEV, dev_id)


def enabled(target):
    """Whether Tessera was built with ``target`` (TVM's ``tvm.runtime.enabled``): the CPU and
    VTA's simulator, no RPC and no GPU."""
    return str(target).split()[0] in ("llvm", "cpu", "c", "ext_dev", "vta")


def device(dev_type, dev_id=0):
    """A device by name (``"cpu"``, ``"llvm"``) or DLPack code; only the CPU exists here."""
    code = _NAMES.get(dev_type.split()[0], None) if isinstance(dev_type, str) else dev_type
    if code != _CPU:
        raise ValueError(f"Tessera runs on the CPU only; no device {dev_type!r}")
    return Device(code, dev_id)


context = device  # TVM < 0.8's name
