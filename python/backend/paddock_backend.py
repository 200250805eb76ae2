"""The package's build backend (PEP 517, with PEP 660's editable hook), in the standard library
alone.

pyproject.toml names it with `requires = []` and `backend-path`, so that `pip install ./python`
needs nothing from a package index: pip's build isolation installs the backend's requirements
from the index, and with setuptools that fails wherever no index is reachable (and, with
`--no-build-isolation`, wherever the interpreter lacks setuptools and wheel). The package is
pure Python with no build step, so a backend only has to write two archives: a wheel (a zip
laid out by the binary distribution format spec) and an sdist (a tar.gz with PKG-INFO).

The metadata comes from pyproject.toml's [project] table, read with tomllib where the
interpreter has it (3.11 and later) and otherwise with `_read_project_table`, which reads the
small subset of TOML that table uses and refuses anything else by name.
"""

import base64
import hashlib
import io
import json
import os
import re
import tarfile
import time
import zipfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# What an sdist carries besides the package: enough to build the wheel again from it.
SDIST_FILES = ("pyproject.toml", "README.md", "backend/paddock_backend.py")
# The import package's folder when it is not the distribution's name (llm-sandbox-compat's
# llm_sandbox, whose backend sets ROOT, PACKAGE and SDIST_FILES before building).
PACKAGE = None


class BuildError(Exception):
    pass


# --- pyproject.toml ----------------------------------------------------------------------


_STRING = r'"(?:[^"\\]|\\.)*"'


def _without_comment(line):
    """The line up to a `#` outside a string."""
    in_string = escaped = False
    for index, char in enumerate(line):
        if in_string:
            in_string = escaped or char != '"'
            escaped = not escaped and char == "\\"
        elif char == '"':
            in_string = True
        elif char == "#":
            return line[:index]
    return line


def _toml_value(text, where):
    """A basic string or an array of them, the only values [project] uses. TOML's basic
    strings escape as JSON's do."""
    text = text.strip()
    if re.fullmatch(_STRING, text):
        return json.loads(text)
    array = re.fullmatch(r"\[\s*((?:%s\s*,\s*)*(?:%s)?)\s*,?\s*\]" % (_STRING, _STRING), text)
    if array:
        return [json.loads(item) for item in re.findall(_STRING, array.group(1))]
    raise BuildError("pyproject.toml, %s: without tomllib (Python 3.11+) only strings and "
                     "arrays of strings are read; cannot read %r" % (where, text))


def _read_project_table(text):
    """pyproject.toml's [project] and [project.*] tables as tomllib would give them, for the
    subset of TOML they use: `key = "string"`, `key = [strings]` (over several lines too),
    comments and blank lines. Other tables are skipped."""
    project, table, pending = {}, None, None
    for number, raw in enumerate(text.splitlines(), 1):
        line = _without_comment(raw).strip()
        if pending is not None:
            pending[1] += " " + line
            if line.endswith("]"):
                table[pending[0]] = _toml_value(pending[1], "line %d" % number)
                pending = None
            continue
        if not line:
            continue
        header = re.fullmatch(r"\[([A-Za-z0-9_.-]+)\]", line)
        if header:
            name = header.group(1)
            if name == "project":
                table = project
            elif name.startswith("project."):
                table = project.setdefault(name[len("project."):], {})
            else:
                table = None
            continue
        if table is None:
            continue
        pair = re.fullmatch(r"([A-Za-z0-9_-]+)\s*=\s*(.*)", line)
        if not pair:
            raise BuildError("pyproject.toml, line %d: cannot read %r without tomllib "
                             "(Python 3.11+)" % (number, raw))
        key, value = pair.groups()
        if value.startswith("[") and not value.endswith("]"):
            pending = [key, value]
        else:
            table[key] = _toml_value(value, "line %d" % number)
    if pending is not None:
        raise BuildError("pyproject.toml: the array %r is not closed" % pending[0])
    return project


def project_table(root=None):
    root = root or ROOT
    with open(os.path.join(root, "pyproject.toml"), encoding="utf-8") as handle:
        text = handle.read()
    try:
        import tomllib
    except ImportError:
        return _read_project_table(text)
    return tomllib.loads(text).get("project", {})


def _version(root, package):
    """`__version__ = "X"` from the package's __init__.py: [project] lists version as dynamic,
    so that the package and its metadata cannot disagree."""
    with open(os.path.join(root, package, "__init__.py"), encoding="utf-8") as handle:
        found = re.search(r'^__version__\s*=\s*"([^"]+)"', handle.read(), re.M)
    if not found:
        raise BuildError("%s/__init__.py has no __version__ = \"...\" line" % package)
    return found.group(1)


class Project:
    def __init__(self, root=None):
        root = root or ROOT  # read at call time: another distribution's backend may set it
        table = project_table(root)
        self.root = root
        self.name = table["name"]
        self.package = PACKAGE or self.name
        if "version" in table:
            self.version = table["version"]
        elif "version" in table.get("dynamic", []):
            self.version = _version(root, self.package)
        else:
            raise BuildError("pyproject.toml's [project] has neither version nor dynamic version")
        self.table = table
        # The distribution's name as file names write it (the wheel spec's escaping).
        self.dist = re.sub(r"[-_.]+", "_", self.name).lower()

    def metadata(self):
        """Core metadata 2.1 (METADATA in the wheel, PKG-INFO in the sdist)."""
        table = self.table
        lines = ["Metadata-Version: 2.1", "Name: " + self.name, "Version: " + self.version]
        if "description" in table:
            lines.append("Summary: " + table["description"])
        if "requires-python" in table:
            lines.append("Requires-Python: " + table["requires-python"])
        lines += ["Classifier: " + c for c in table.get("classifiers", [])]
        lines += ["Requires-Dist: " + d for d in table.get("dependencies", [])]
        for extra, requirements in sorted(table.get("optional-dependencies", {}).items()):
            lines.append("Provides-Extra: " + extra)
            lines += ['Requires-Dist: %s; extra == "%s"' % (r, extra) for r in requirements]
        body = ""
        readme = table.get("readme")
        if readme:
            lines.append("Description-Content-Type: text/markdown")
            with open(os.path.join(self.root, readme), encoding="utf-8") as handle:
                body = handle.read()
        return "\n".join(lines) + "\n\n" + body

    def package_files(self):
        """The package's files, relative to the root, sorted; no bytecode."""
        found = []
        for folder, folders, files in os.walk(os.path.join(self.root, self.package)):
            folders[:] = sorted(f for f in folders if f != "__pycache__")
            for name in files:
                if not name.endswith((".pyc", ".pyo")):
                    found.append(os.path.relpath(os.path.join(folder, name), self.root))
        return sorted(found)


# --- archives ----------------------------------------------------------------------------


def _timestamp():
    """SOURCE_DATE_EPOCH when set (reproducible builds), else now; zip cannot go before 1980."""
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", time.time()))
    return max(epoch, 315532800)


class _Wheel:
    def __init__(self, path):
        self.zip = zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED)
        self.when = time.gmtime(_timestamp())[:6]
        self.record = []

    def add(self, name, data, executable=False):
        info = zipfile.ZipInfo(name, self.when)
        info.external_attr = (0o755 if executable else 0o644) << 16
        info.compress_type = zipfile.ZIP_DEFLATED
        self.zip.writestr(info, data)
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        self.record.append("%s,sha256=%s,%d" % (name, digest, len(data)))

    def close(self, dist_info):
        record = dist_info + "/RECORD"
        text = "\n".join(self.record + [record + ",,"]) + "\n"
        info = zipfile.ZipInfo(record, self.when)
        info.external_attr = 0o644 << 16
        self.zip.writestr(info, text.encode())
        self.zip.close()


def _write_wheel(directory, editable):
    project = Project()
    dist_info = "%s-%s.dist-info" % (project.dist, project.version)
    name = "%s-%s-py3-none-any.whl" % (project.dist, project.version)
    wheel = _Wheel(os.path.join(directory, name))
    try:
        if editable:
            # PEP 660: a .pth file puts the source tree on sys.path.
            wheel.add("_%s_editable.pth" % project.dist, (project.root + "\n").encode())
        else:
            for relative in project.package_files():
                with open(os.path.join(project.root, relative), "rb") as handle:
                    data = handle.read()
                executable = os.access(os.path.join(project.root, relative), os.X_OK)
                wheel.add(relative.replace(os.sep, "/"), data, executable)
        wheel.add(dist_info + "/METADATA", project.metadata().encode())
        wheel.add(dist_info + "/WHEEL",
                  b"Wheel-Version: 1.0\nGenerator: paddock_backend\nRoot-Is-Purelib: true\n"
                  b"Tag: py3-none-any\n")
    finally:
        wheel.close(dist_info)
    return name


def _write_sdist(directory):
    project = Project()
    base = "%s-%s" % (project.dist, project.version)
    name = base + ".tar.gz"
    when = _timestamp()

    def add(archive, relative, data):
        info = tarfile.TarInfo("%s/%s" % (base, relative.replace(os.sep, "/")))
        info.size, info.mtime, info.mode = len(data), when, 0o644
        archive.addfile(info, io.BytesIO(data))

    with tarfile.open(os.path.join(directory, name), "w:gz", format=tarfile.PAX_FORMAT) as archive:
        for relative in list(SDIST_FILES) + project.package_files():
            with open(os.path.join(project.root, relative), "rb") as handle:
                add(archive, relative, handle.read())
        add(archive, "PKG-INFO", project.metadata().encode())
    return name


# --- PEP 517 and PEP 660 hooks -----------------------------------------------------------


def get_requires_for_build_wheel(config_settings=None):
    return []


def get_requires_for_build_sdist(config_settings=None):
    return []


def get_requires_for_build_editable(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, editable=False)


def build_editable(wheel_directory, config_settings=None, metadata_directory=None):
    return _write_wheel(wheel_directory, editable=True)


def build_sdist(sdist_directory, config_settings=None):
    return _write_sdist(sdist_directory)
