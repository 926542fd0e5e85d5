package io.sandboxd.daemon.process;

/**
 * The outcome of Execute: the exit code and the kept output (head + tail of each stream).
 *
 * @param stdoutDropped bytes dropped from the middle of stdout (0 if it fit)
 */
public record ExecuteResult(int exitCode, byte[] stdout, byte[] stderr, long stdoutDropped, long stderrDropped) {}
