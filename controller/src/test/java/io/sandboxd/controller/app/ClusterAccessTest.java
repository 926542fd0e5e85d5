package io.sandboxd.controller.app;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ClusterAccessTest {
    @TempDir
    Path home;

    @Test
    void noClusterAndNoKubeconfigIsNamed() {
        assertThat(ClusterAccess.missing(Map.of(), Map.of(), home))
                .hasValue("no Kubernetes API server: not in a cluster (KUBERNETES_SERVICE_HOST is unset) and"
                        + " no kubeconfig (KUBECONFIG unset, no ~/.kube/config)");
        assertThat(ClusterAccess.missing(Map.of("KUBECONFIG", "/nonexistent"), Map.of(), home))
                .get()
                .asString()
                .endsWith("no kubeconfig file at KUBECONFIG=/nonexistent");
    }

    @Test
    void anyOfFabric8sSourcesIsEnough() throws Exception {
        assertThat(ClusterAccess.missing(Map.of("KUBERNETES_SERVICE_HOST", "10.0.0.1"), Map.of(), home))
                .isEmpty();
        assertThat(ClusterAccess.missing(Map.of("KUBERNETES_MASTER", "https://h:6443"), Map.of(), home))
                .isEmpty();
        assertThat(ClusterAccess.missing(Map.of(), Map.of("kubernetes.master", "https://h:6443"), home))
                .isEmpty();
        Path config = Files.writeString(home.resolve("cfg"), "apiVersion: v1\n");
        assertThat(ClusterAccess.missing(Map.of("KUBECONFIG", "/nonexistent:" + config), Map.of(), home))
                .isEmpty();
        Files.createDirectories(home.resolve(".kube"));
        Files.writeString(home.resolve(".kube/config"), "apiVersion: v1\n");
        assertThat(ClusterAccess.missing(Map.of(), Map.of(), home)).isEmpty();
    }
}
