# paddock: every R graphics page becomes a PNG file in $PADDOCK_PLOTS_DIR, which paddock returns
# as artifacts, without the code opening a device itself. Devices still open at exit are closed
# so that their last page is written. Figures are 640x480, as python's (matplotlib's 6.4x4.8 inches
# at 100 dpi).
local({
  plots <- Sys.getenv("PADDOCK_PLOTS_DIR", "/work/.paddock/plots")
  dir.create(plots, recursive = TRUE, showWarnings = FALSE)
  options(device = function(...) {
    grDevices::png(filename = file.path(plots, "figure-%d.png"), width = 640, height = 480)
  })
})
.Last <- function() grDevices::graphics.off()
