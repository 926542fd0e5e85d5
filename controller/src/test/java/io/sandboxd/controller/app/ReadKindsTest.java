package io.sandboxd.controller.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.Config;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientBuilder;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxClaim;
import io.sandboxd.controller.model.SandboxTemplate;
import io.sandboxd.controller.model.SandboxWarmPool;
import org.junit.jupiter.api.Test;

/** Watch events of our kinds are read straight into their classes (no generic pass, no conversion). */
class ReadKindsTest {
    static String object(String kind) {
        String group = kind.equals("Sandbox") ? "agents.x-k8s.io" : "extensions.agents.x-k8s.io";
        return "{\"apiVersion\":\"" + group + "/v1beta1\",\"kind\":\"" + kind
                + "\",\"metadata\":{\"name\":\"a\",\"namespace\":\"n\"}}";
    }

    static KubernetesClient client() {
        return new KubernetesClientBuilder().withConfig(Config.empty()).build();
    }

    @Test
    void unregisteredTheyAreReadAsGenericResources() {
        try (KubernetesClient c = client()) {
            Object o = c.getKubernetesSerialization().unmarshal(object("Sandbox"));
            assertThat(o).isInstanceOf(GenericKubernetesResource.class);
        }
    }

    @Test
    void registeredEachIsReadIntoItsClass() {
        try (KubernetesClient c = client()) {
            Controllers.readKindsIntoTheirClasses(c);
            var s = c.getKubernetesSerialization();
            assertThat((Object) s.unmarshal(object("Sandbox"))).isInstanceOf(Sandbox.class);
            assertThat((Object) s.unmarshal(object("SandboxTemplate"))).isInstanceOf(SandboxTemplate.class);
            assertThat((Object) s.unmarshal(object("SandboxWarmPool"))).isInstanceOf(SandboxWarmPool.class);
            assertThat((Object) s.unmarshal(object("SandboxClaim"))).isInstanceOf(SandboxClaim.class);
        }
    }
}
