package io.sandboxd.controller.app;

import java.time.Clock;

/** Settings shared by the reconcilers. */
public record ControllerOptions(String clusterDomain, boolean extensions, Workers workers, Clock clock) {
    /** Reconcile threads per controller (the --*-workers flags). */
    public record Workers(int sandbox, int claim, int warmPool, int template) {
        public static Workers defaults() {
            return new Workers(32, 32, 4, 2);
        }
    }

    public static ControllerOptions defaults() {
        return new ControllerOptions("cluster.local", true, Workers.defaults(), Clock.systemUTC());
    }
}
