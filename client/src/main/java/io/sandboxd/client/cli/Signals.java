package io.sandboxd.client.cli;

/**
 * Local signal handlers through {@code sun.misc.Signal} (module jdk.unsupported, on JDK 17 and
 * 25 alike). A handler replaces the JVM's default action (for INT and TERM: exiting), and runs on
 * a thread of its own.
 */
final class Signals {
    private Signals() {}

    /** Handles {@code name} (e.g. "INT", "WINCH"); false where the signal cannot be handled. */
    static boolean handle(String name, Runnable action) {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal(name), s -> action.run());
            return true;
        } catch (IllegalArgumentException | LinkageError e) {
            return false;
        }
    }
}
