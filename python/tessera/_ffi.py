"""The extension module and the packed-function registry (TVM's tvm._ffi / tvm.register_func)."""
from . import _core
from . import error as _error

# C++ errors are raised as the package's exception classes from here on.
_core._set_error_classes(_error.DiagnosticError, _error.InternalError)

PackedFunc = _core.PackedFunc


def register_func(func_name, f=None, override=False):
    """Registers a Python function under ``func_name`` so that C++ code calls it by name (the
    VM's ``call_dps_packed``, ``get_global_func``). Used as ``@register_func("name")``,
    ``@register_func`` (the function's own name) or ``register_func("name", f)``. Arguments arrive
    as NDArray, int, float, str or None; the result may be any of those (or a NumPy array).
    Registering a taken name raises DiagnosticError unless ``override`` is set."""
    if callable(func_name):
        f, func_name = func_name, func_name.__name__
    if not isinstance(func_name, str):
        raise TypeError("register_func expects the function's name as a str")

    def register(fn):
        _core.register_func(func_name, fn, override)
        return fn

    return register(f) if f is not None else register


def get_global_func(name, allow_missing=False):
    """The function registered under ``name`` (C++ or Python), callable from Python; None when
    missing and ``allow_missing``, else DiagnosticError."""
    return _core.get_global_func(name, allow_missing)


def list_global_func_names():
    """Every registered function name, sorted."""
    return _core.list_global_func_names()


def remove_global_func(name):
    """Removes ``name`` from the registry; returns whether it was registered."""
    return _core.remove_global_func(name)
