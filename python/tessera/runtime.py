"""Devices (TVM's tvm.runtime.Device, tvm.cpu, tvm.device). Tessera runs on the CPU only."""
_CPU = 1  # DLPack's kDLCPU
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
        return f"cpu({self.device_id})" if self.device_type == _CPU else (
            f"device({self.device_type}, {self.device_id})")

    def _dlpack_device(self):
        return (self.device_type, self.device_id)


def cpu(dev_id=0):
    """The CPU device."""
    return Device(_CPU, dev_id)


def device(dev_type, dev_id=0):
    """A device by name (``"cpu"``, ``"llvm"``) or DLPack code; only the CPU exists here."""
    code = _NAMES.get(dev_type.split()[0], None) if isinstance(dev_type, str) else dev_type
    if code != _CPU:
        raise ValueError(f"Tessera runs on the CPU only; no device {dev_type!r}")
    return Device(code, dev_id)


context = device  # TVM < 0.8's name
