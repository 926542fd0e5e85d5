package io.sandboxd.controller.app;

/**
 * Turns off JOSDK's MDC bookkeeping unless the operator set {@value #PROPERTY} themselves.
 *
 * <p>Why: JOSDK puts the resource's name, namespace, kind and the event's action into the logging
 * MDC for every watch event and every reconcile, and removes them afterwards. Our log encoders
 * (sandboxd-logging) write a line's key-value pairs and never the MDC, so that work bought nothing:
 * 5% of fabric8's task threads' CPU samples in a warm-claim burst (JFR, {@code sandboxd-bench
 * controller --managed-fields --pod-defaults}). JOSDK reads the property once, when its MDC helper
 * is first loaded, so this runs before the operator is built.
 */
final class NoOperatorMdc {
    static final String PROPERTY = "JAVA_OPERATOR_SDK_USE_MDC";

    private NoOperatorMdc() {}

    static void apply() {
        if (System.getProperty(PROPERTY) == null) System.setProperty(PROPERTY, "false");
    }
}
