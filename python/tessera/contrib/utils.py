"""tessera.contrib.utils: TVM's ``utils.tempdir()``, a temporary directory removed at exit."""
import atexit
import os
import shutil
import tempfile


class TempDirectory:
    """A temporary directory: ``relpath(name)`` is a path inside it, ``listdir()`` its files."""

    def __init__(self):
        self.temp_dir = tempfile.mkdtemp(prefix="tessera_")
        atexit.register(shutil.rmtree, self.temp_dir, True)

    def relpath(self, name):
        return os.path.join(self.temp_dir, name)

    def listdir(self):
        return os.listdir(self.temp_dir)

    def remove(self):
        shutil.rmtree(self.temp_dir, ignore_errors=True)


def tempdir(custom_path=None, keep_for_debug=None):  # pylint: disable=unused-argument
    """A new TempDirectory."""
    return TempDirectory()
