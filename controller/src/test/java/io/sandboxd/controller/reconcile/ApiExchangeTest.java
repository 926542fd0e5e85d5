package io.sandboxd.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Pod;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxClaim;
import org.junit.jupiter.api.Test;

/** The URLs writes go to; the exchange itself is tested through the patches and creates it sends. */
class ApiExchangeTest {
    @Test
    void urlsNameTheKindTheNamespaceAndTheSubresource() {
        assertThat(ApiExchange.url("https://api:6443/", Pod.class, "ns", "p", false))
                .isEqualTo("https://api:6443/api/v1/namespaces/ns/pods/p");
        assertThat(ApiExchange.url("https://api:6443", Sandbox.class, "team-a", "sb-1", true))
                .isEqualTo("https://api:6443/apis/agents.x-k8s.io/v1beta1/namespaces/team-a/sandboxes/sb-1/status");
        assertThat(ApiExchange.url("http://127.0.0.1:8080/", SandboxClaim.class, "ns", "c", false))
                .isEqualTo("http://127.0.0.1:8080/apis/extensions.agents.x-k8s.io/"
                        + HasMetadata.getVersion(SandboxClaim.class) + "/namespaces/ns/sandboxclaims/c");
        assertThat(ApiExchange.url("https://api:6443/", Pod.class, null, "p", false))
                .as("no namespace: a cluster-scoped path")
                .isEqualTo("https://api:6443/api/v1/pods/p");
    }

    @Test
    void theCollectionUrlHasNoName() {
        assertThat(ApiExchange.url("https://api:6443/", Pod.class, "ns", null, false))
                .isEqualTo("https://api:6443/api/v1/namespaces/ns/pods");
        assertThat(ApiExchange.url("https://api:6443", Sandbox.class, "team-a", null, false))
                .isEqualTo("https://api:6443/apis/agents.x-k8s.io/v1beta1/namespaces/team-a/sandboxes");
    }
}
