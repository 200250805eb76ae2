"""llm-sandbox's README examples through llm-sandbox-compat: `from llm_sandbox import ...` as
llm-sandbox's users write it, nothing changed, run on the real paddock binary. (The examples
that name a Docker client, a Kubernetes client or pod manifest, a Dockerfile or an image pulled
from Docker Hub need what this machine has not, and are not here.)"""

import warnings
from pathlib import Path

import pytest

from llm_sandbox import ArtifactSandboxSession, FileType, InteractiveSandboxSession, SandboxSession

# The examples' code, and what they print, stand once in readme_snippets.py:
# test_readme_examples.py runs the same through `from paddock import ...`.
import readme_snippets as readme


def test_hello_world():
    with SandboxSession(lang="python") as session:
        result = session.run(readme.HELLO_WORLD)
        print(result.stdout)
    assert result.exit_code == 0
    assert result.stdout == readme.HELLO_WORLD_SAYS


def test_numpy_with_libraries():
    with SandboxSession(lang="python") as session:
        result = session.run(readme.NUMPY, libraries=["numpy"])
    assert (result.exit_code, result.stdout) == (0, readme.NUMPY_SAYS)


def test_javascript_with_an_npm_library():
    with SandboxSession(lang="javascript") as session:
        result = session.run(readme.JAVASCRIPT_AXIOS, libraries=["axios"])
    assert (result.exit_code, result.stdout) == (0, readme.JAVASCRIPT_AXIOS_SAYS), result.stderr


@pytest.mark.parametrize("lang, code, said", [
    ("java", readme.JAVA, readme.JAVA_SAYS),
    ("cpp", readme.CPP, readme.CPP_SAYS),
    ("go", readme.GO, readme.GO_SAYS),
])
def test_compiled_languages(lang, code, said):
    with SandboxSession(lang=lang) as session:
        result = session.run(code)
    assert (result.exit_code, result.stdout) == (0, said), result.stderr


def test_r_with_llm_sandboxs_image_name():
    # The README names llm-sandbox's R image: the compat package runs R on paddock's own root.
    with SandboxSession(
        lang="r",
        image="ghcr.io/vndee/sandbox-r-451-bullseye",
        verbose=True,
    ) as session:
        result = session.run(readme.R_DEMO)
    assert result.exit_code == 0, result.stderr
    # Every line its print(paste(...)) and print("...") calls write, in order (print(df) writes
    # the data frame between them).
    assert [line for line in result.stdout.splitlines() if line.startswith("[1] ")] == [
        '[1] "=== Basic R Demo ==="', '[1] "Numbers: 1, 2, 3, 4, 5, 10, 15, 20"',
        '[1] "Mean: 7.5"', '[1] "Median: 4.5"', '[1] "Standard Deviation: 6.86606562325595"',
        '[1] "=== Data Frame ==="', '[1] "Average Score: 87.75"']


def test_interactive_session():
    with InteractiveSandboxSession(
        lang="python",
        kernel_type="ipython",
        history_size=200,
    ) as session:
        session.run("value = 21 * 2")
        result = session.run("print(f'Result: {value}')")
        assert result.stdout == "Result: 42\n"

        # Use magic command to install libraries (paddock refuses installs from a cell; pandas
        # is there already, so the example goes on as written).
        session.run("%pip install pandas")
        result = session.run(
            "import pandas as pd; print(pd.DataFrame({'A': [1, 2, 3], 'B': [4, 5, 6]}))")
    assert result.exit_code == 0, result.stderr
    assert result.stdout.split() == ["A", "B", "0", "1", "4", "1", "2", "5", "2", "3", "6"]


def test_python_plots(tmp_path):
    with ArtifactSandboxSession(lang="python") as session:
        result = session.run(readme.PYTHON_PLOT, libraries=["matplotlib", "numpy"])
        readme.save_plots(result.plots, tmp_path, "plot")
    assert result.exit_code == 0, result.stderr
    assert [plot.format for plot in result.plots] == [FileType.PNG]
    assert (tmp_path / "plot_1.png").read_bytes()[:8] == readme.PNG_SIGNATURE


def test_r_ggplot2_plots(tmp_path):
    with ArtifactSandboxSession(lang="r") as session:
        result = session.run(readme.R_GGPLOT2_PLOT, libraries=["ggplot2"])
        readme.save_plots(result.plots, tmp_path, "r_plot")
    assert result.exit_code == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r_plot_1.png", "r_plot_2.png"]


def test_copy_to_and_from_runtime_with_python(tmp_path, monkeypatch):
    # As the README has it: `python`, /sandbox, and a file back from the sandbox.
    monkeypatch.chdir(tmp_path)
    with SandboxSession(lang="python", keep_template=True) as session:
        result = readme.copy_example(session, "python /sandbox/test.py",
                                     writes="/sandbox/output.txt")
        print(result)
    assert (result.exit_code, result.stdout) == (0, readme.COPY_SAYS), result.stderr
    assert Path("output.txt").read_text() == readme.COPY_OUTPUT


def test_text_is_stdout_and_deprecated():
    with SandboxSession(lang="python") as session:
        result = session.run("import sys\nprint('out')\nprint('err', file=sys.stderr)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert result.text() == "out\n"
    assert [w.category for w in caught] == [DeprecationWarning]
    assert result.stderr == "err\n"
