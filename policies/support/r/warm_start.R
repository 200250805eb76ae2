# paddock: a warm R interpreter (runtime/warm_interpreter.h). Written where the call's program
# will be (main.R) and started exactly as a cold run starts the program (`Rscript main.R`), with
# the call's streams as its own from the start. R runs a --file script one top-level expression
# at a time, reading on from the file it opened (fd 3, as in a cold run) as it goes; this loader
# is that file's only expression. It moves its file aside (the call's main.R is written anew
# beside it), loads the policy's preload list, says it is ready on fd 5 and waits on fd 4 for
# exactly one call, which brings its environment. It closes both, puts the call's environment in
# place, appends the call's main.R to its own file and removes that file's name: R then reads on
# and runs the call's code as a cold run runs its script, at the top level, with its own errors,
# warnings, "Calls:" lines and exit. Nothing here binds a global name or leaves a namespace or
# a DLL loaded.
local({
  wanted <- r"---(PADDOCK_PRELOAD)---"
  for (name in regmatches(wanted, gregexpr("[A-Za-z0-9_.]+", wanted))[[1]]) {
    try(suppressPackageStartupMessages(loadNamespace(name)), silent = TRUE)
  }
  script <- sub("^--file=", "", grep("^--file=", commandArgs(), value = TRUE)[1])
  aside <- file.path(dirname(script), ".paddock", "r", "warm_start.R")
  # Without this, the call's main.R would be written over the file R reads on from.
  if (is.na(script) || !suppressWarnings(file.rename(script, aside))) {
    quit(save = "no", status = 1, runLast = FALSE)
  }
  # R cannot close a descriptor it did not open but through parallel's C code, loaded here as a
  # bare library: loading the namespace would leave a finalizer that runs at exit.
  closer <- dyn.load(file.path(R.home("library"), "parallel", "libs", "parallel.so"))
  answer <- file("/proc/self/fd/5", "wb", raw = TRUE)
  # The CPU time up to here is the start's, not the call's: paddock subtracts it.
  used <- proc.time()
  writeBin(charToRaw(sprintf("ready %.0f", (used[[1]] + used[[2]]) * 1e9)), answer)
  flush(answer)
  call <- file("/proc/self/fd/4", "rb", raw = TRUE)
  data <- raw()
  repeat { # to the end: paddock closes its end after the call
    more <- readBin(call, "raw", 65536L)
    if (!length(more)) break
    data <- c(data, more)
  }
  close(call)
  if (length(data) < 3L || !identical(data[1:3], as.raw(c(0x67, 0x6f, 0)))) {
    quit(save = "no", status = 0, runLast = FALSE) # paddock closed this sandbox without a call
  }
  # At its start, R put the folders of R_LIBS and R_LIBS_USER that existed on its library path
  # (base's Rprofile does, as here): the call's files, written by now, may have made one
  # (/work/R/library).
  before <- .libPaths()
  user <- Sys.getenv("R_LIBS_USER")
  .libPaths(c(unlist(strsplit(Sys.getenv("R_LIBS"), ":")),
              if (user == "NULL") character() else unlist(strsplit(user, ":"))))
  # Where a namespace loaded by now (preloaded, or a default package) would come from another
  # folder of that path, a cold run would load that one. This interpreter then ends before it
  # takes the call, which paddock runs cold.
  if (!identical(before, .libPaths())) {
    for (name in setdiff(loadedNamespaces(), "base")) {
      found <- find.package(name, lib.loc = .libPaths(), quiet = TRUE)
      if (length(found) && found[1] != getNamespaceInfo(name, "path")) {
        quit(save = "no", status = 0, runLast = FALSE)
      }
    }
  }
  # Before anything of the call runs: paddock waits for this word, for a while.
  try(writeBin(charToRaw("took"), answer), silent = TRUE)
  try(close(answer), silent = TRUE)
  .Call("mc_close_fds", c(4L, 5L), PACKAGE = "parallel")
  dyn.unload(closer[["path"]])
  # The call's environment, over what R set at its start (R_HOME, the Renviron files): the
  # variables this interpreter started with are the call's too, with the same values, so R's
  # start made of them what it makes of them in a cold run.
  started <- r"---(PADDOCK_START_ENV)---"
  started <- regmatches(started, gregexpr("[A-Za-z0-9_]+", started))[[1]]
  ends <- which(data == as.raw(0))
  entries <- vapply(seq_len(length(ends) - 1L), function(i) {
    if (ends[i + 1L] > ends[i] + 1L) rawToChar(data[(ends[i] + 1L):(ends[i + 1L] - 1L)]) else ""
  }, "")
  equals <- regexpr("=", entries, fixed = TRUE)
  named <- equals > 1L
  values <- substring(entries[named], equals[named] + 1L)
  names(values) <- substring(entries[named], 1L, equals[named] - 1L)
  values <- values[!names(values) %in% started]
  if (length(values)) do.call(Sys.setenv, as.list(values))
  program <- file(aside, "ab")
  writeBin(readBin(script, "raw", file.size(script)), program)
  close(program)
  unlink(aside)
})
