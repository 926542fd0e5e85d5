package io.sandboxd.conformance.cli;

/** Entry point of sandboxd-conformance.jar. */
public final class Main {
    private Main() {}

    public static void main(String[] args) {
        System.exit(ConformanceCommand.execute(args, System.out, System.err));
    }
}
