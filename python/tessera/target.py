"""tessera.target: compilation targets (TVM's tvm.target), as TVM-style strings such as
``"llvm -mcpu=skylake-avx512"``; the C++ side parses them and fills in the host's CPU."""


class Target:
    """A target given by its TVM-style string."""

    def __init__(self, target, host=None):
        self.text = target.text if isinstance(target, Target) else str(target)

    @property
    def kind(self):
        return self.text.split()[0]

    def __str__(self):
        return self.text

    def __repr__(self):
        return f"Target({self.text!r})"


def _target_string(target):
    """The string of a target given as str, Target, or TVM's {kind: target} dict."""
    if target is None:
        return "llvm"
    if isinstance(target, dict):
        if len(target) != 1:
            raise ValueError("Tessera compiles for one target at a time")
        target = next(iter(target.values()))
    return str(target)
