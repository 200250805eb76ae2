"""This package and the real llm-sandbox are both the import package `llm_sandbox`: installed
together, one overwrites the other's files and neither works. Refuse to import when pip's
records show the real one."""

__all__ = ["check_not_beside_llm_sandbox"]


def check_not_beside_llm_sandbox():
    try:
        from importlib import metadata
    except ImportError:  # Python 3.7 has no importlib.metadata; 3.9+ is required anyway
        return
    try:
        real = metadata.distribution("llm-sandbox")
    except metadata.PackageNotFoundError:
        return
    raise ImportError(
        "llm-sandbox %s is installed beside llm-sandbox-compat (both are `llm_sandbox`): "
        "uninstall one (pip uninstall llm-sandbox, or pip uninstall llm-sandbox-compat)"
        % real.version)
