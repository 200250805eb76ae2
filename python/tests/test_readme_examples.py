"""llm-sandbox's README examples with `from llm_sandbox import` changed to `from paddock import`
(and, where noted, what a paddock sandbox lacks: llm-sandbox's images and its /sandbox folder)."""

from pathlib import Path

from paddock import ArtifactSandboxSession, FileType, SandboxSession

# The examples' code, and what they print, stand once in readme_snippets.py: test_compat_readme.py
# runs the same through `from llm_sandbox import ...`.
import readme_snippets as readme


def test_hello_world():
    with SandboxSession(lang="python") as session:
        result = session.run(readme.HELLO_WORLD)
    assert result.exit_code == 0
    assert result.stdout == readme.HELLO_WORLD_SAYS


def test_numpy_with_libraries():
    with SandboxSession(lang="python") as session:
        result = session.run(readme.NUMPY, libraries=["numpy"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == readme.NUMPY_SAYS
    # numpy is preinstalled in paddock's python policy: nothing is downloaded, and it says so.
    assert any("numpy" in note for note in result.notes)


def test_javascript_with_an_npm_library():
    with SandboxSession(lang="javascript") as session:
        result = session.run(readme.JAVASCRIPT_AXIOS, libraries=["axios"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == readme.JAVASCRIPT_AXIOS_SAYS


def test_java():
    with SandboxSession(lang="java") as session:
        result = session.run(readme.JAVA)
    assert (result.exit_code, result.stdout) == (0, readme.JAVA_SAYS), result.stderr


def test_cpp():
    with SandboxSession(lang="cpp") as session:
        result = session.run(readme.CPP)
    assert (result.exit_code, result.stdout) == (0, readme.CPP_SAYS), result.stderr


def test_go():
    with SandboxSession(lang="go") as session:
        result = session.run(readme.GO)
    assert (result.exit_code, result.stdout) == (0, readme.GO_SAYS), result.stderr


def test_r():
    # llm-sandbox's example names its R image (image="ghcr.io/vndee/sandbox-r-451-bullseye");
    # paddock runs on the host's R unless given an image, and these machines reach no ghcr.io.
    with SandboxSession(lang="r", verbose=True) as session:
        result = session.run(readme.R_DEMO)
    assert result.exit_code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0] == '[1] "=== Basic R Demo ==="'
    assert '[1] "Numbers: 1, 2, 3, 4, 5, 10, 15, 20"' in lines
    assert '[1] "Mean: 7.5"' in lines
    assert '[1] "Median: 4.5"' in lines
    assert '[1] "Average Score: 87.75"' in lines
    assert any(line.split()[:2] == ["3", "Charlie"] for line in lines)


def test_python_plots(tmp_path):
    with ArtifactSandboxSession(lang="python") as session:
        result = session.run(readme.PYTHON_PLOT, libraries=["matplotlib", "numpy"])

        # Save plots to files
        readme.save_plots(result.plots, tmp_path, "plot")
    assert result.exit_code == 0, result.stderr
    assert len(result.plots) == 1
    plot = result.plots[0]
    assert plot.format == FileType.PNG and plot.format.value == "png"
    assert (tmp_path / "plot_1.png").read_bytes()[:8] == readme.PNG_SIGNATURE
    assert plot.width and plot.height and plot.width > plot.height  # figsize=(10, 6)


def test_r_ggplot2_plots(tmp_path):
    with ArtifactSandboxSession(lang="r") as session:
        result = session.run(readme.R_GGPLOT2_PLOT, libraries=["ggplot2"])
        readme.save_plots(result.plots, tmp_path, "r_plot")
    assert result.exit_code == 0, result.stderr
    assert [plot.format.value for plot in result.plots] == ["png", "png"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r_plot_1.png", "r_plot_2.png"]


def test_copy_to_and_from_runtime(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    with SandboxSession(lang="python", keep_template=True) as session:
        # Copy test.py to the sandbox, run it there, copy its output back. (llm-sandbox's example
        # says `python /sandbox/test.py`: paddock's sandbox has Debian's python3, and its work
        # directory is /work, where /sandbox/... paths of copy_* land: test.py writes output.txt
        # there.)
        result = readme.copy_example(session, "python3 /work/test.py", writes="output.txt")
    assert (result.exit_code, result.stdout) == (0, readme.COPY_SAYS), result.stderr
    assert Path("output.txt").read_text() == readme.COPY_OUTPUT
