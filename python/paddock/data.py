"""What a run gives back: llm-sandbox's result classes, with paddock's extra fields."""

import base64
import json
import struct
from dataclasses import dataclass, field
from enum import Enum
from typing import Any, Dict, List, Optional

__all__ = ["FileType", "PlotOutput", "ConsoleOutput", "ExecutionResult"]


class FileType(str, Enum):
    PNG = "png"
    JPEG = "jpeg"
    GIF = "gif"
    PDF = "pdf"
    SVG = "svg"
    CSV = "csv"
    JSON = "json"
    TXT = "txt"
    HTML = "html"
    UNKNOWN = "bin"

    def __str__(self):
        return str(self.value)

    @classmethod
    def from_mime(cls, mime_type):
        subtype = (mime_type or "").split(";")[0].split("/")[-1].strip().lower()
        subtype = {"jpg": "jpeg", "svg+xml": "svg", "plain": "txt"}.get(subtype, subtype)
        try:
            return cls(subtype)
        except ValueError:
            return cls.UNKNOWN


def _image_size(data):
    """(width, height) from a PNG, GIF or JPEG's header, else (None, None)."""
    try:
        if data[:8] == b"\x89PNG\r\n\x1a\n" and data[12:16] == b"IHDR":
            return struct.unpack(">II", data[16:24])
        if data[:6] in (b"GIF87a", b"GIF89a"):
            return struct.unpack("<HH", data[6:10])
        if data[:2] == b"\xff\xd8":
            i = 2
            while i + 9 < len(data):
                if data[i] != 0xFF:
                    break
                marker = data[i + 1]
                length = struct.unpack(">H", data[i + 2:i + 4])[0]
                if 0xC0 <= marker <= 0xCF and marker not in (0xC4, 0xC8, 0xCC):
                    height, width = struct.unpack(">HH", data[i + 5:i + 9])
                    return width, height
                i += 2 + length
    except (struct.error, IndexError):
        pass
    return None, None


@dataclass
class PlotOutput:
    """One figure the code drew, in the order drawn."""

    format: FileType
    content_base64: str
    width: Optional[int] = None
    height: Optional[int] = None
    dpi: Optional[int] = None
    name: str = ""

    @property
    def content(self):
        """The image's bytes."""
        return base64.b64decode(self.content_base64)

    @classmethod
    def from_block(cls, block, name=""):
        data = block.get("data", "")
        format = FileType.from_mime(block.get("mimeType"))
        width = height = None
        if format in (FileType.PNG, FileType.GIF, FileType.JPEG):
            # The header is near the start (a JPEG's size may follow some metadata).
            width, height = _image_size(base64.b64decode(data[:87380]))
        return cls(format=format, content_base64=data, width=width, height=height, name=name)


def _with_timeout_line(structured):
    """stderr, ending with llm-sandbox's word for a run its timeout stopped: code that only
    reads stderr (or prints it) sees why the run ended, not an empty string."""
    stderr = structured.get("stderr", "") or ""
    if not structured.get("timed_out"):
        return stderr
    seconds = structured.get("timeout_seconds")
    if not isinstance(seconds, (int, float)) or isinstance(seconds, bool):
        seconds = (structured.get("duration_ms") or 0) / 1000.0
    if stderr and not stderr.endswith("\n"):
        stderr += "\n"
    return stderr + "timed out after %g s\n" % seconds


@dataclass
class ConsoleOutput:
    """What a command or program did: its exit code and output, and how it ended.

    `exit_code` is the program's own status, 124 when the timeout stopped it; `phase` says which
    step it reached (install, compile, run or screening). A live session's cell adds `result`
    (the final expression's value as text) and `error` ({ename, evalue, traceback})."""

    exit_code: int = 0
    stderr: str = ""
    stdout: str = ""
    phase: str = "run"
    timed_out: bool = False
    oom_killed: bool = False
    duration_ms: Optional[int] = None
    truncated: bool = False
    notes: List[str] = field(default_factory=list)
    result: Optional[str] = None
    error: Optional[Dict[str, Any]] = None
    state_lost: bool = False
    raw: Dict[str, Any] = field(default_factory=dict, repr=False)

    def text(self):
        """stdout, then stderr."""
        return self.stdout + self.stderr

    def success(self):
        return self.exit_code == 0

    def __bool__(self):
        return True

    def to_dict(self, include_plots=False):
        data = {"exit_code": self.exit_code, "stdout": self.stdout, "stderr": self.stderr,
                "phase": self.phase, "timed_out": self.timed_out,
                "oom_killed": self.oom_killed, "duration_ms": self.duration_ms}
        if self.result is not None:
            data["result"] = self.result
        if self.error is not None:
            data["error"] = self.error
        if self.notes:
            data["notes"] = list(self.notes)
        if include_plots:
            data["plots"] = [{"format": p.format.value, "content_base64": p.content_base64}
                             for p in getattr(self, "plots", [])]
        return data

    def to_json(self, include_plots=False):
        return json.dumps(self.to_dict(include_plots))

    @classmethod
    def _fields_from(cls, structured):
        s = structured or {}
        return dict(
            exit_code=int(s.get("exit_code", 1)), stdout=s.get("stdout", "") or "",
            stderr=_with_timeout_line(s), phase=s.get("phase", "run") or "run",
            timed_out=bool(s.get("timed_out", False)), oom_killed=bool(s.get("oom_killed", False)),
            duration_ms=s.get("duration_ms"), truncated=bool(s.get("truncated", False)),
            notes=list(s.get("notes") or []), result=s.get("result"), error=s.get("error"),
            state_lost=bool(s.get("state_lost", False)), raw=s)


@dataclass
class ExecutionResult(ConsoleOutput):
    """A run's result with its figures (`plots`, in the order drawn)."""

    plots: List[PlotOutput] = field(default_factory=list)

    @classmethod
    def from_tool_result(cls, tool_result, with_plots=True):
        structured = tool_result.get("structuredContent") or {}
        plots = []
        if with_plots:
            images = [b for b in tool_result.get("content") or [] if b.get("type") == "image"]
            names = [a.get("name", "") for a in structured.get("artifacts") or []
                     if str(a.get("mime_type", "")).startswith("image/")]
            for index, block in enumerate(images):
                name = names[index] if index < len(names) else ""
                if name.startswith("outputs/"):
                    continue  # a file the code saved, not a figure it drew
                plots.append(PlotOutput.from_block(block, name))
        return cls(plots=plots, **cls._fields_from(structured))
