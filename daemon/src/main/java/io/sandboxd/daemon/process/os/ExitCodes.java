package io.sandboxd.daemon.process.os;

/** Exit status conventions: the process's own code, or 128+N for death by signal N. */
final class ExitCodes {
    private ExitCodes() {}

    /**
     * Both of our reapers already follow the shell convention: the JDK's {@code Process} and
     * pty4j's native {@code wait_for_child_process_exit} return 128+N for a signal death. This is
     * the one place to adapt if either ever changes; -1 (a wait error) stays -1.
     */
    static int normalize(int code) {
        return code;
    }
}
