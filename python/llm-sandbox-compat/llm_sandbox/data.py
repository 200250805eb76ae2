"""llm-sandbox's result classes: frozen, with its fields alone (paddock's extra fields, such as
`timed_out` or `phase`, stay in paddock's own results)."""

import json
import warnings
from dataclasses import dataclass, field
from enum import Enum
from typing import Callable, List, Optional

__all__ = ["StreamCallback", "FileType", "PlotOutput", "ConsoleOutput", "ExecutionResult"]

# A callback given output text as it comes (run's and execute_command's on_stdout/on_stderr).
StreamCallback = Callable[[str], None]


class FileType(Enum):
    PNG = "png"
    JPEG = "jpeg"
    PDF = "pdf"
    SVG = "svg"
    CSV = "csv"
    JSON = "json"
    TXT = "txt"
    HTML = "html"


@dataclass(frozen=True)
class PlotOutput:
    format: FileType
    content_base64: str
    width: Optional[int] = None
    height: Optional[int] = None
    dpi: Optional[int] = None


@dataclass(frozen=True)
class ConsoleOutput:
    exit_code: int = 0
    stderr: str = ""
    stdout: str = ""

    def text(self):
        """stdout, as llm-sandbox's text() gives it (deprecated there: use `stdout`)."""
        warnings.warn("The 'text' property is deprecated and will be removed in a future "
                      "version. Use 'stdout' attribute directly instead.",
                      DeprecationWarning, stacklevel=2)
        return self.stdout

    def success(self):
        return not self.exit_code

    def to_json(self, include_plots=False):
        data = dict(self.__dict__)
        if "plots" in data:
            if include_plots:
                data["plots"] = [_plot_dict(plot) for plot in data["plots"]]
            else:
                del data["plots"]
        return json.dumps(data, indent=2)


@dataclass(frozen=True)
class ExecutionResult(ConsoleOutput):
    plots: List[PlotOutput] = field(default_factory=list)


def _plot_dict(plot):
    if not isinstance(plot, PlotOutput):
        return plot
    return {"format": plot.format.value, "content_base64": plot.content_base64,
            "width": plot.width, "height": plot.height, "dpi": plot.dpi}


def plot_from_paddock(plot):
    """A paddock PlotOutput as llm-sandbox's, or None for a format llm-sandbox has no name for
    (GIF)."""
    try:
        format = FileType(str(getattr(plot.format, "value", plot.format)))
    except ValueError:
        return None
    return PlotOutput(format=format, content_base64=plot.content_base64, width=plot.width,
                      height=plot.height, dpi=plot.dpi)


def from_paddock(result, with_plots=False):
    """llm-sandbox's frozen result for a paddock result."""
    if not with_plots:
        return ConsoleOutput(exit_code=result.exit_code, stderr=result.stderr,
                             stdout=result.stdout)
    plots = [plot for plot in map(plot_from_paddock, getattr(result, "plots", []) or [])
             if plot is not None]
    return ExecutionResult(exit_code=result.exit_code, stderr=result.stderr,
                           stdout=result.stdout, plots=plots)
