"""llm-sandbox's README examples with `from llm_sandbox import` changed to `from paddock import`
(and, where noted, what a paddock sandbox lacks: llm-sandbox's images and its /sandbox folder)."""

import base64
from pathlib import Path

from paddock import ArtifactSandboxSession, FileType, SandboxSession


def test_hello_world():
    with SandboxSession(lang="python") as session:
        result = session.run("""
print("Hello from LLM Sandbox!")
print("I'm running in a secure container.")
    """)
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
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "Array: [1 2 3 4 5]\nMean: 3.0\n"
    # numpy is preinstalled in paddock's python policy: nothing is downloaded, and it says so.
    assert any("numpy" in note for note in result.notes)


def test_javascript_with_an_npm_library():
    with SandboxSession(lang="javascript") as session:
        result = session.run("""
const greeting = "Hello from Node.js!";
console.log(greeting);

const axios = require('axios');
console.log("Axios loaded successfully!");
    """, libraries=["axios"])
    assert result.exit_code == 0, result.stderr
    assert result.stdout == "Hello from Node.js!\nAxios loaded successfully!\n"


def test_java():
    with SandboxSession(lang="java") as session:
        result = session.run("""
public class HelloWorld {
    public static void main(String[] args) {
        System.out.println("Hello from Java!");
    }
}
    """)
    assert (result.exit_code, result.stdout) == (0, "Hello from Java!\n"), result.stderr


def test_cpp():
    with SandboxSession(lang="cpp") as session:
        result = session.run("""
#include <iostream>

int main() {
    std::cout << "Hello from C++!" << std::endl;
    return 0;
}
    """)
    assert (result.exit_code, result.stdout) == (0, "Hello from C++!\n"), result.stderr


def test_go():
    with SandboxSession(lang="go") as session:
        result = session.run("""
package main
import "fmt"

func main() {
    fmt.Println("Hello from Go!")
}
    """)
    assert (result.exit_code, result.stdout) == (0, "Hello from Go!\n"), result.stderr


def test_r():
    # llm-sandbox's example names its R image (image="ghcr.io/vndee/sandbox-r-451-bullseye");
    # paddock runs on the host's R unless given an image, and these machines reach no ghcr.io.
    with SandboxSession(lang="r", verbose=True) as session:
        result = session.run(
            """
# Basic R operations
print("=== Basic R Demo ===")

# Create some data
numbers <- c(1, 2, 3, 4, 5, 10, 15, 20)
print(paste("Numbers:", paste(numbers, collapse=", ")))

# Basic statistics
print(paste("Mean:", mean(numbers)))
print(paste("Median:", median(numbers)))
print(paste("Standard Deviation:", sd(numbers)))

# Work with data frames
df <- data.frame(
    name = c("Alice", "Bob", "Charlie", "Diana"),
    age = c(25, 30, 35, 28),
    score = c(85, 92, 78, 96)
)

print("=== Data Frame ===")
print(df)

# Calculate average score
avg_score <- mean(df$score)
print(paste("Average Score:", avg_score))
        """
        )
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
        result = session.run("""
import matplotlib.pyplot as plt
import numpy as np

x = np.linspace(0, 10, 100)
y = np.sin(x)

plt.figure(figsize=(10, 6))
plt.plot(x, y)
plt.title("Sine Wave")
plt.xlabel("x")
plt.ylabel("sin(x)")
plt.grid(True)
plt.savefig("sine_wave.png", dpi=150, bbox_inches="tight")
plt.show()
    """, libraries=["matplotlib", "numpy"])

        # Save plots to files
        for i, plot in enumerate(result.plots):
            plot_path = tmp_path / f"plot_{i + 1}.{plot.format.value}"
            with plot_path.open("wb") as f:
                f.write(base64.b64decode(plot.content_base64))
    assert result.exit_code == 0, result.stderr
    assert len(result.plots) == 1
    plot = result.plots[0]
    assert plot.format == FileType.PNG and plot.format.value == "png"
    assert (tmp_path / "plot_1.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert plot.width and plot.height and plot.width > plot.height  # figsize=(10, 6)


def test_r_ggplot2_plots(tmp_path):
    with ArtifactSandboxSession(lang="r") as session:
        result = session.run("""
library(ggplot2)

# Create sample data
data <- data.frame(
    x = rnorm(100),
    y = rnorm(100)
)

# Create ggplot2 visualization
p <- ggplot(data, aes(x = x, y = y)) +
    geom_point(alpha = 0.6) +
    geom_smooth(method = "lm", se = FALSE) +
    labs(title = "Scatter Plot with Trend Line",
         x = "X values", y = "Y values") +
    theme_minimal()

print(p)

# Base R plot
hist(data$x, main = "Distribution of X",
     xlab = "X values", col = "lightblue", breaks = 20)
    """, libraries=["ggplot2"])

        for i, plot in enumerate(result.plots):
            plot_path = Path(tmp_path / f"r_plot_{i + 1}.{plot.format.value}")
            with plot_path.open("wb") as f:
                f.write(base64.b64decode(plot.content_base64))
    assert result.exit_code == 0, result.stderr
    assert [plot.format.value for plot in result.plots] == ["png", "png"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["r_plot_1.png", "r_plot_2.png"]


def test_copy_to_and_from_runtime(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("test.py").write_text("open('output.txt', 'w').write('written in the sandbox\\n')\n"
                               "print('ran test.py')\n")
    with SandboxSession(lang="python", keep_template=True) as session:
        # Copy a file from the host to the sandbox
        session.copy_to_runtime("test.py", "/sandbox/test.py")

        # Run the copied Python code in the sandbox. (llm-sandbox's example says
        # `python /sandbox/test.py`: paddock's sandbox has Debian's python3, and its work
        # directory is /work, where /sandbox/... paths of copy_* land.)
        result = session.execute_command("python3 /work/test.py")
        assert (result.exit_code, result.stdout) == (0, "ran test.py\n"), result.stderr

        # Copy a file from the sandbox to the host
        session.copy_from_runtime("/sandbox/output.txt", "output.txt")
    assert Path("output.txt").read_text() == "written in the sandbox\n"
