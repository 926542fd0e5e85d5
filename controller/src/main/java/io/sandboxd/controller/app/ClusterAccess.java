package io.sandboxd.controller.app;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Optional;

/**
 * Whether there is any API server to talk to, checked before start-up: outside a cluster with no
 * kubeconfig, fabric8 would fall back to https://kubernetes.default.svc and the controller would
 * retry forever, not ready. Without any of fabric8's sources, it stops with one line instead.
 */
final class ClusterAccess {
    private ClusterAccess() {}

    /** Why no API server is configured, or empty when one of fabric8's sources is there. */
    static Optional<String> missing(Map<String, String> env, Map<String, String> sysProps, Path home) {
        if (present(env.get("KUBERNETES_SERVICE_HOST"))
                || present(env.get("KUBERNETES_MASTER"))
                || present(sysProps.get("kubernetes.master"))) {
            return Optional.empty();
        }
        String kubeconfig = sysProps.getOrDefault("kubeconfig", env.get("KUBECONFIG"));
        if (present(kubeconfig)) {
            for (String file : kubeconfig.split(File.pathSeparator)) {
                if (!file.isBlank() && Files.isRegularFile(Path.of(file))) {
                    return Optional.empty();
                }
            }
            return Optional.of("no Kubernetes API server: not in a cluster (KUBERNETES_SERVICE_HOST is unset) and"
                    + " no kubeconfig file at KUBECONFIG=" + kubeconfig);
        }
        if (home != null && Files.isRegularFile(home.resolve(".kube/config"))) {
            return Optional.empty();
        }
        return Optional.of("no Kubernetes API server: not in a cluster (KUBERNETES_SERVICE_HOST is unset) and"
                + " no kubeconfig (KUBECONFIG unset, no ~/.kube/config)");
    }

    private static boolean present(String s) {
        return s != null && !s.isBlank();
    }
}
