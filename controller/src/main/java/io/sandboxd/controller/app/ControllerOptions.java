package io.sandboxd.controller.app;

import java.time.Clock;

/** Settings shared by the reconcilers. */
public record ControllerOptions(String clusterDomain, boolean extensions, int workers, Clock clock) {
  public static ControllerOptions defaults() {
    return new ControllerOptions("cluster.local", true, 50, Clock.systemUTC());
  }
}
