package io.sandboxd.daemon.grpc;

/** The health service is exempt from auth and from the shutdown gate (it must say NOT_SERVING). */
final class HealthMethods {
    private HealthMethods() {}

    static boolean isHealth(String fullMethodName) {
        return fullMethodName.startsWith("grpc.health.v1.Health/");
    }
}
