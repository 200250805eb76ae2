# paddock: a warm ruby interpreter (runtime/warm_interpreter.h). Written where the call's program
# will be (main.rb) and started exactly as a cold run starts the program (`ruby main.rb`), with
# the call's streams as its own from the start, so that $0, ARGV, the standard streams and
# /proc/self/cmdline are a cold run's. It requires the policy's preload list, says it is ready on
# fd 3, and waits there for exactly one call, which brings its environment; its files (main.rb
# among them, over this one) are written by then. fd 3 is closed, and the call's code runs as the
# main program: compiled from its file as ruby compiles a main script (its top frame is <main>,
# __dir__ is absolute), at the top level. Nothing here binds a top-level name: a lambda's locals
# are its own, and it defines no method or constant but DATA where the call's file has __END__.
# Written without the socket library, which would define Socket for the call's code.
lambda do |preload|
  preload.each do |name|
    require name
  rescue LoadError # not in this root file system: the call requires it itself
  end
  channel = IO.for_fd(3, "r+b", autoclose: true)
  # The CPU time up to here is the start's, not the call's: paddock subtracts it.
  channel.syswrite("ready #{Process.clock_gettime(Process::CLOCK_PROCESS_CPUTIME_ID, :nanosecond)}")
  data = begin
    channel.sysread(1 << 20)
  rescue EOFError, SystemCallError
    "".b
  end
  exit!(0) unless data.start_with?("go\0") # paddock closed this sandbox without a call
  begin # before anything of the call runs: paddock waits for this word, for a while
    channel.syswrite("took")
  rescue SystemCallError
  end
  channel.close
  # The call's environment, in its order, replaces the language's.
  ENV.replace(data.byteslice(3, data.bytesize).split("\0").filter_map do |entry|
    name, equals, value = entry.partition("=")
    [name, value] unless equals.empty?
  end.to_h)
  data = nil
  source = File.binread($0)
  # Where the file has an __END__ line, ruby gives the main script DATA: the file, read from
  # the line after it.
  if (marker = /^__END__(?:\r?\n|\z)/.match(source))
    rest = File.open($0)
    rest.seek(marker.end(0))
    Object.const_set(:DATA, rest)
  end
  source = marker = rest = nil
  begin
    program = RubyVM::InstructionSequence.compile_file($0)
  rescue SyntaxError => e
    # Said as ruby says a main script's syntax errors: the message alone.
    $stderr.puts(e.message)
    exit(1)
  end
  frames_below = caller(0).size + 1
  begin
    program.eval
  rescue Exception => e # rubocop:disable Lint/RescueException
    # Said as ruby says an uncaught exception, without this loader's frames.
    trace = e.backtrace
    e.set_backtrace(trace[0, trace.size - frames_below]) if trace && trace.size >= frames_below
    raise e
  end
end.call(PADDOCK_PRELOAD)
