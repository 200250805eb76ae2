// The default data libraries (scripts/setup, scripts/build-language-images): what a model's data
// code usually imports works in one fresh execute_code call, with no session and no `libraries`
// (so no networked install). Python: numpy, pandas, matplotlib, scipy, scikit-learn, seaborn,
// requests, BeautifulSoup, openpyxl, statsmodels. R: ggplot2, dplyr, tidyr, gridExtra.
import assert from 'node:assert/strict';
import test from 'node:test';
import { connectSdk1, connectSdk2, finishClient } from './support/clients.mjs';
import { describe } from './support/server.mjs';

const PNG_MAGIC = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
// The sandbox's own limit (seconds) and the client's wait: this machine is slow, and R loading
// ggplot2 and its dependencies from a cold page cache takes several seconds.
const RUN_TIMEOUT_S = 120;
const CLIENT_TIMEOUT_MS = 150000;

// Every PNG image block, checked, and the artifacts that match them.
function checkImages(result, what) {
  const images = result.content.filter((c) => c.type === 'image');
  assert.ok(images.length >= 1, `${what}: an image block: ${describe(result)}`);
  for (const image of images) {
    assert.equal(image.mimeType, 'image/png');
    const bytes = Buffer.from(image.data, 'base64');
    assert.ok(bytes.subarray(0, 8).equals(PNG_MAGIC), `${what}: PNG magic`);
    assert.ok(bytes.length > 1000, `${what}: a real figure is more than ${bytes.length} bytes`);
  }
  const artifacts = result.structuredContent.artifacts;
  assert.ok(Array.isArray(artifacts), `${what}: artifacts: ${describe(result)}`);
  const pngs = artifacts.filter((a) => a.mime_type === 'image/png');
  assert.equal(pngs.length, images.length, `${what}: one artifact per image: ${JSON.stringify(artifacts)}`);
  for (const [i, a] of pngs.entries()) {
    assert.equal(typeof a.name, 'string');
    assert.equal(a.size, Buffer.from(images[i].data, 'base64').length, `${what}: artifact ${a.name}'s size`);
  }
  return images;
}

const PYTHON = `
import io
import numpy as np
import pandas as pd
import matplotlib
import scipy.stats
import sklearn
from sklearn.linear_model import LinearRegression
import seaborn as sns
import requests
from bs4 import BeautifulSoup
import openpyxl
import statsmodels.api as sm

x = np.arange(10, dtype=float)
y = 3 * x + 2
model = LinearRegression().fit(x.reshape(-1, 1), y)
print(f"sklearn {model.coef_[0]:.2f} {model.intercept_:.2f}")

ols = sm.OLS(y, sm.add_constant(x)).fit()
print(f"statsmodels {ols.params[1]:.2f} {ols.params[0]:.2f}")

print(f"scipy {scipy.stats.pearsonr(x, y)[0]:.3f}")

soup = BeautifulSoup('<ul><li class="a">one</li><li class="a">two</li></ul>', "html.parser")
print("bs4", ",".join(li.get_text() for li in soup.select("li.a")))

wb = openpyxl.Workbook()
wb.active["A1"] = "paddock"
wb.active["B1"] = 42
wb.save("/work/data.xlsx")
back = openpyxl.load_workbook("/work/data.xlsx").active
print("openpyxl", back["A1"].value, back["B1"].value)
print("pandas", pd.read_excel("/work/data.xlsx", header=None).iloc[0, 1])

prepared = requests.Request("GET", "https://example.org/q", params={"a": 1}).prepare()
print("requests", prepared.url)

frame = pd.DataFrame({"group": ["a", "b", "c"], "value": [1, 3, 2]})
sns.barplot(data=frame, x="group", y="value")
matplotlib.pyplot.show()
print("backend", matplotlib.get_backend().lower())
`;

test('python: every default data library imports and works in one fresh call', { timeout: 180000 }, async (t) => {
  const conn = await connectSdk2(t, { mode: 'legacy' });
  const result = await conn.client.callTool(
    { name: 'execute_code', arguments: { language: 'python', code: PYTHON, timeout: RUN_TIMEOUT_S } },
    { timeout: CLIENT_TIMEOUT_MS },
  );
  assert.equal(result.isError, false, describe(result));
  const out = result.structuredContent.stdout;
  for (const line of [
    'sklearn 3.00 2.00',
    'statsmodels 3.00 2.00',
    'scipy 1.000',
    'bs4 one,two',
    'openpyxl paddock 42',
    'pandas 42',
    'requests https://example.org/q?a=1',
    'backend agg',
  ]) assert.ok(out.split('\n').includes(line), `"${line}" in stdout:\n${out}\nstderr:\n${result.structuredContent.stderr}`);
  checkImages(result, 'seaborn');
  t.diagnostic(`python duration_ms ${result.structuredContent.duration_ms}`);
  await finishClient(conn);
});

const R = `
suppressPackageStartupMessages({
  library(ggplot2)
  library(dplyr)
  library(tidyr)
  library(gridExtra)
})
summary <- mtcars %>%
  group_by(cyl) %>%
  summarise(n = n(), mpg = round(mean(mpg), 1)) %>%
  arrange(cyl)
cat("dplyr", paste(summary$cyl, summary$n, sep = ":"), "\\n")
long <- pivot_longer(data.frame(id = 1:2, a = 3:4, b = 5:6), c(a, b))
cat("tidyr", nrow(long), "\\n")
p <- ggplot(mtcars, aes(wt, mpg, colour = factor(cyl))) + geom_point() + labs(title = "mtcars")
print(p)
cat("ggplot2", as.character(packageVersion("ggplot2")), "\\n")
`;

test('r: ggplot2 and dplyr load in one fresh call and ggplot2 draws a figure', { timeout: 180000 }, async (t) => {
  const conn = await connectSdk1(t);
  const result = await conn.client.callTool(
    { name: 'execute_code', arguments: { language: 'r', code: R, timeout: RUN_TIMEOUT_S } },
    undefined,
    { timeout: CLIENT_TIMEOUT_MS },
  );
  assert.equal(result.isError, false, describe(result));
  const out = result.structuredContent.stdout;
  assert.match(out, /^dplyr 4:11 6:7 8:14 $/m, `stdout:\n${out}\nstderr:\n${result.structuredContent.stderr}`);
  assert.match(out, /^tidyr 4 $/m);
  assert.match(out, /^ggplot2 \d+\.\d+\.\d+/m);
  const images = checkImages(result, 'ggplot2');
  assert.equal(images.length, 1, `one page: ${describe(result)}`);
  t.diagnostic(`r duration_ms ${result.structuredContent.duration_ms}`);
  await finishClient(conn);
});
