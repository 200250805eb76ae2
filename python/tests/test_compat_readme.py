"""llm-sandbox's README examples through llm-sandbox-compat: `from llm_sandbox import ...` as
llm-sandbox's users write it, nothing changed, run on the real paddock binary. (The examples
that name a Docker client, a Kubernetes client or pod manifest, a Dockerfile or an image pulled
from Docker Hub need what this machine has not, and are not here.)"""

import base64
import warnings
from pathlib import Path

import pytest

from llm_sandbox import ArtifactSandboxSession, FileType, InteractiveSandboxSession, SandboxSession


def test_hello_world():
    with SandboxSession(lang="python") as session:
        result = session.run("""
print("Hello from LLM Sandbox!")
print("I'm running in a secure container.")
    """)
        print(result.stdout)
    assert result.exit_code == 0
    assert result.stdout == "Hello from LLM Sandbox!\nI'm running in a secure container.\n"


def test_numpy_with_libraries():
    with SandboxSession(lang="python") as session:
        result = session.run("""
import numpy as np

# Create an array
arr = np.array([1, 2, 3, 4, 5])
print(f"Array: {arr}")
print(f"Mean: {np.mean(arr)}")
    """, libraries=["numpy"])
    assert (result.exit_code, result.stdout) == (0, "Array: [1 2 3 4 5]\nMean: 3.0\n")


def test_javascript_with_an_npm_library():
    with SandboxSession(lang="javascript") as session:
        result = session.run("""
const greeting = "Hello from Node.js!";
console.log(greeting);

const axios = require('axios');
console.log("Axios loaded successfully!");
    """, libraries=["axios"])
    assert (result.exit_code, result.stdout) == (
        0, "Hello from Node.js!\nAxios loaded successfully!\n"), result.stderr


@pytest.mark.parametrize("lang, code, said", [
    ("java", """
public class HelloWorld {
    public static void main(String[] args) {
        System.out.println("Hello from Java!");
    }
}
    """, "Hello from Java!\n"),
    ("cpp", """
#include <iostream>

int main() {
    std::cout << "Hello from C++!" << std::endl;
    return 0;
}
    """, "Hello from C++!\n"),
    ("go", """
package main
import "fmt"

func main() {
    fmt.Println("Hello from Go!")
}
    """, "Hello from Go!\n"),
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
        result = session.run(
            """
# Basic R operations
print("=== Basic R Demo ===")
numbers <- c(1, 2, 3, 4, 5, 10, 15, 20)
print(paste("Mean:", mean(numbers)))
df <- data.frame(
    name = c("Alice", "Bob", "Charlie", "Diana"),
    score = c(85, 92, 78, 96)
)
print(paste("Average Score:", mean(df$score)))
        """
        )
    assert result.exit_code == 0, result.stderr
    assert result.stdout.splitlines() == ['[1] "=== Basic R Demo ==="', '[1] "Mean: 7.5"',
                                          '[1] "Average Score: 87.75"']


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
        result = session.run("""
import matplotlib.pyplot as plt
import numpy as np

x = np.linspace(0, 10, 100)
y = np.sin(x)

plt.figure(figsize=(10, 6))
plt.plot(x, y)
plt.title("Sine Wave")
plt.savefig("sine_wave.png", dpi=150, bbox_inches="tight")
plt.show()
    """, libraries=["matplotlib", "numpy"])

        for i, plot in enumerate(result.plots):
            plot_path = tmp_path / f"plot_{i + 1}.{plot.format.value}"
            with plot_path.open("wb") as f:
                f.write(base64.b64decode(plot.content_base64))
    assert result.exit_code == 0, result.stderr
    assert [plot.format for plot in result.plots] == [FileType.PNG]
    assert (tmp_path / "plot_1.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_r_ggplot2_plots(tmp_path):
    with ArtifactSandboxSession(lang="r") as session:
        result = session.run("""
library(ggplot2)
data <- data.frame(x = rnorm(100), y = rnorm(100))
p <- ggplot(data, aes(x = x, y = y)) + geom_point(alpha = 0.6)
print(p)
hist(data$x, main = "Distribution of X", col = "lightblue", breaks = 20)
    """, libraries=["ggplot2"])
        for i, plot in enumerate(result.plots):
            plot_path = Path(tmp_path / f"r_plot_{i + 1}.{plot.format.value}")
            with plot_path.open("wb") as f:
                f.write(base64.b64decode(plot.content_base64))
    assert result.exit_code == 0, result.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r_plot_1.png", "r_plot_2.png"]


def test_copy_to_and_from_runtime_with_python(tmp_path, monkeypatch):
    # As the README has it: `python`, /sandbox, and a file back from the sandbox.
    monkeypatch.chdir(tmp_path)
    Path("test.py").write_text("open('/sandbox/output.txt', 'w').write('from the sandbox\\n')\n"
                               "print('ran test.py')\n")
    with SandboxSession(lang="python", keep_template=True) as session:
        session.copy_to_runtime("test.py", "/sandbox/test.py")
        result = session.execute_command("python /sandbox/test.py")
        print(result)
        session.copy_from_runtime("/sandbox/output.txt", "output.txt")
    assert (result.exit_code, result.stdout) == (0, "ran test.py\n"), result.stderr
    assert Path("output.txt").read_text() == "from the sandbox\n"


def test_text_is_stdout_and_deprecated():
    with SandboxSession(lang="python") as session:
        result = session.run("import sys\nprint('out')\nprint('err', file=sys.stderr)")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert result.text() == "out\n"
    assert [w.category for w in caught] == [DeprecationWarning]
    assert result.stderr == "err\n"
