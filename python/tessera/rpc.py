"""tessera.rpc: TVM's ``rpc.LocalSession()``, the in-process session seed 004 uses when
``env.TARGET == "sim"``. There is no RPC server: modules are uploaded and loaded in this process
(``upload`` remembers a file, ``load_module`` returns the module ``vta.build(...).save`` wrote
there), and ``ext_dev(0)`` is the VTA simulator, whose memory is the host's."""
import os

from .runtime import cpu, ext_dev


class LocalSession:
    """An RPC session that runs everything in this process."""

    def __init__(self):
        self._files = {}

    def upload(self, data, target=None):
        """Remembers the file ``data`` under ``target`` (its base name by default)."""
        self._files[target or os.path.basename(data)] = os.path.abspath(data)

    def load_module(self, path):
        """The module saved to the file uploaded as ``path`` by this process."""
        from .vta.build_module import _SAVED  # pylint: disable=import-outside-toplevel
        full = self._files.get(path, os.path.abspath(path))
        if full not in _SAVED:
            raise FileNotFoundError(f"rpc.LocalSession.load_module: {path!r} is not a module "
                                    "saved and uploaded by this process")
        return _SAVED[full]

    def cpu(self, dev_id=0):
        return cpu(dev_id)

    def ext_dev(self, dev_id=0):
        return ext_dev(dev_id)


def connect(url, port, key="", session_timeout=0):  # pylint: disable=unused-argument
    """No remote devices: Tessera runs VTA on its simulator only."""
    raise NotImplementedError("rpc.connect: Tessera has no RPC; use rpc.LocalSession()")
