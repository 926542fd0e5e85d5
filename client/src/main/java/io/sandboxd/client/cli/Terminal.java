package io.sandboxd.client.cli;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * The local terminal, through {@code stty} on this process's own stdin (no native code): its
 * size, and raw mode entered and left again. {@link #restore()} is idempotent and also runs from a
 * shutdown hook, so every exit path leaves the terminal as it was (except SIGKILL).
 */
final class Terminal {
    private final String saved;
    private final File device;
    private final Thread hook;
    private boolean restored;

    private Terminal(String saved, File device) {
        this.saved = saved;
        this.device = device;
        this.hook = new Thread(this::restoreNow, "terminal-restore");
        Runtime.getRuntime().addShutdownHook(hook);
    }

    /** True if stdin is a terminal. */
    static boolean stdinIsTerminal() {
        return stty(false, "-g").isPresent();
    }

    /** {cols, rows} of the terminal on stdin, else of the controlling terminal; empty if neither. */
    static Optional<int[]> size() {
        Optional<String> s = stty(false, "size").or(() -> stty(true, "size"));
        return s.flatMap(Terminal::parseSize);
    }

    static Optional<int[]> parseSize(String sttySize) {
        String[] p = sttySize.trim().split("\\s+");
        try {
            int rows = Integer.parseInt(p[0]);
            int cols = Integer.parseInt(p[1]);
            return rows > 0 && cols > 0 ? Optional.of(new int[] {cols, rows}) : Optional.empty();
        } catch (RuntimeException e) {
            return Optional.empty();
        }
    }

    /** Puts the terminal on stdin in raw mode without echo; empty if stdin is no terminal. */
    static Optional<Terminal> enterRaw() {
        Optional<String> saved = stty(false, "-g");
        if (saved.isEmpty() || stty(false, "raw", "-echo").isEmpty()) {
            return Optional.empty();
        }
        // The device itself, for the restore: stdin may be closed by then.
        File device = null;
        try {
            device = java.nio.file.Files.readSymbolicLink(java.nio.file.Path.of("/proc/self/fd/0"))
                    .toFile();
        } catch (IOException | UnsupportedOperationException e) {
            // restore through stdin then
        }
        return Optional.of(new Terminal(saved.get().trim(), device));
    }

    /** Back to the saved settings. */
    void restore() {
        restoreNow();
        try {
            Runtime.getRuntime().removeShutdownHook(hook);
        } catch (IllegalStateException e) {
            // already shutting down: the hook runs (and finds it done)
        }
    }

    private synchronized void restoreNow() {
        if (!restored) {
            restored = true;
            if (device == null
                    || stty(ProcessBuilder.Redirect.from(device), saved).isEmpty()) {
                stty(false, saved);
            }
        }
    }

    /** Runs stty on our stdin (or /dev/tty); its stdout if it succeeded. */
    private static Optional<String> stty(boolean devTty, String... args) {
        return stty(
                devTty ? ProcessBuilder.Redirect.from(new File("/dev/tty")) : ProcessBuilder.Redirect.INHERIT, args);
    }

    private static Optional<String> stty(ProcessBuilder.Redirect input, String... args) {
        String[] cmd = new String[args.length + 1];
        cmd[0] = "stty";
        System.arraycopy(args, 0, cmd, 1, args.length);
        try {
            Process p = new ProcessBuilder(cmd)
                    .redirectInput(input)
                    .redirectError(ProcessBuilder.Redirect.DISCARD)
                    .start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(5, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                return Optional.empty();
            }
            return p.exitValue() == 0 ? Optional.of(out) : Optional.empty();
        } catch (IOException e) {
            return Optional.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return Optional.empty();
        }
    }
}
