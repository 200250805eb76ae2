"""copy_to_runtime and copy_from_runtime as llm-sandbox does them (its Docker backend, through
`docker cp`'s archives), on paddock's file tools:

- to the sandbox, a file becomes `dest`; a folder's contents go into `dest` (made, or merged
  into the folder that is there): the folder takes the name `dest` gives it.
- from the sandbox, a file becomes `dest`; a folder is copied *into* `dest`, keeping its own
  name (`dest/NAME/...`), whether `dest` exists or not.

paddock's own library copies a folder's contents to `dest` both ways (docs/python.md)."""

import os
import posixpath

from paddock._ops import sandbox_path

__all__ = ["copy_to", "copy_from"]


def copy_to(session, src, dest):
    if not (os.path.isfile(src) or os.path.isdir(src)):
        raise FileNotFoundError("Source path %s does not exist or is not accessible" % src)
    session.copy_to_runtime(src, dest)


def _sandbox_kind(session, path):
    """"file", "directory", another type, or None when nothing is there."""
    if path == "":
        return "directory"
    listed = session._drive(session._kept_op("list_files", {
        "path": posixpath.dirname(path), "all": True}))
    for entry in listed.get("entries") or []:
        if entry.get("name") == posixpath.basename(path):
            return entry.get("type")
    return None


def copy_from(session, src, dest):
    relative = sandbox_path(src, session._aliases).rstrip("/")
    try:
        kind = _sandbox_kind(session, relative)
    except Exception:  # a missing parent folder: nothing there either
        kind = None
    if kind is None:
        raise FileNotFoundError("File %s not found in container" % src)
    if kind == "directory":
        name = posixpath.basename(posixpath.normpath(str(src))) or "sandbox"
        session.copy_from_runtime(src, os.path.join(dest, name))
    else:
        if os.path.isdir(dest):
            raise IsADirectoryError("%s is a directory: name the file to write" % dest)
        session.copy_from_runtime(src, dest)
