package io.sandboxd.bench;

/** The startup baseline: a Java program that does nothing, run with the daemon's JVM options. */
public final class TrivialMain {
    private TrivialMain() {}

    public static void main(String[] args) {
        // intentionally empty
    }
}
