"""llm-sandbox's README examples (github.com/vndee/llm-sandbox, README.md), written once for the
two files that run them: test_readme_examples.py (`from paddock import ...`) and
test_compat_readme.py (`from llm_sandbox import ...`, through llm-sandbox-compat). Each constant
is the code an example passes to `session.run`, `..._SAYS` what it prints where both files check
the same; `save_plots` (writing a run's plots to files) and `copy_example` (copies both ways
around a command) are the README's code for those examples, with what differs as arguments."""

import base64
from pathlib import Path

HELLO_WORLD = """
print("Hello from LLM Sandbox!")
print("I'm running in a secure container.")
"""
HELLO_WORLD_SAYS = "Hello from LLM Sandbox!\nI'm running in a secure container.\n"

NUMPY = """
import numpy as np

# Create an array
arr = np.array([1, 2, 3, 4, 5])
print(f"Array: {arr}")
print(f"Mean: {np.mean(arr)}")
"""
NUMPY_SAYS = "Array: [1 2 3 4 5]\nMean: 3.0\n"

JAVASCRIPT_AXIOS = """
const greeting = "Hello from Node.js!";
console.log(greeting);

const axios = require('axios');
console.log("Axios loaded successfully!");
"""
JAVASCRIPT_AXIOS_SAYS = "Hello from Node.js!\nAxios loaded successfully!\n"

JAVA = """
public class HelloWorld {
    public static void main(String[] args) {
        System.out.println("Hello from Java!");
    }
}
"""
JAVA_SAYS = "Hello from Java!\n"

CPP = """
#include <iostream>

int main() {
    std::cout << "Hello from C++!" << std::endl;
    return 0;
}
"""
CPP_SAYS = "Hello from C++!\n"

GO = """
package main
import "fmt"

func main() {
    fmt.Println("Hello from Go!")
}
"""
GO_SAYS = "Hello from Go!\n"

R_DEMO = """
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

PYTHON_PLOT = """
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
"""

R_GGPLOT2_PLOT = """
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
"""

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def save_plots(plots, folder, prefix):
    """The README's "Save plots to files" loop: plot_1.png, ... for prefix "plot" (the
    matplotlib example), r_plot_1.png, ... for "r_plot" (the ggplot2 one), in folder."""
    for i, plot in enumerate(plots):
        plot_path = Path(folder) / f"{prefix}_{i + 1}.{plot.format.value}"
        with plot_path.open("wb") as f:
            f.write(base64.b64decode(plot.content_base64))


COPY_SAYS = "ran test.py\n"
COPY_OUTPUT = "written in the sandbox\n"


def copy_example(session, command, writes):
    """The README's copy example in an open session, from the current folder: the host's test.py
    (written here: run in the sandbox, it writes COPY_OUTPUT to the path writes and prints
    COPY_SAYS) to the sandbox, run there with command, and /sandbox/output.txt back to
    output.txt. Returns what the command did."""
    Path("test.py").write_text("open(%r, 'w').write(%r)\nprint('ran test.py')\n"
                               % (writes, COPY_OUTPUT))

    # Copy a file from the host to the sandbox
    session.copy_to_runtime("test.py", "/sandbox/test.py")

    # Run the copied Python code in the sandbox
    result = session.execute_command(command)

    # Copy a file from the sandbox to the host
    session.copy_from_runtime("/sandbox/output.txt", "output.txt")
    return result
