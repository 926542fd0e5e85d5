package io.sandboxd.daemon.process;

import io.sandboxd.daemon.errors.ErrorKind;
import io.sandboxd.daemon.errors.SandboxException;

/** A PTY window size in character cells. */
public record TerminalSize(int cols, int rows) {
    public static final TerminalSize DEFAULT = new TerminalSize(80, 24);
    private static final long MAX = 65535;

    /** Start: 0 in either dimension means the 80x24 default (runtime-contract §1.3). */
    public static TerminalSize initial(long cols, long rows) throws SandboxException {
        if (cols == 0 || rows == 0) {
            return DEFAULT;
        }
        return resize(cols, rows);
    }

    /** ResizeTTY: both dimensions in [1, 65535] (runtime-contract §1.7). */
    public static TerminalSize resize(long cols, long rows) throws SandboxException {
        if (cols < 1 || cols > MAX || rows < 1 || rows > MAX) {
            throw new SandboxException(
                    ErrorKind.INVALID_ARGUMENT, "cols and rows must be between 1 and 65535, got " + cols + "x" + rows);
        }
        return new TerminalSize((int) cols, (int) rows);
    }
}
