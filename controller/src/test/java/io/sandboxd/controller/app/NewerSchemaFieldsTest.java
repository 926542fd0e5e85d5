package io.sandboxd.controller.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.client.utils.KubernetesSerialization;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxClaim;
import io.sandboxd.controller.model.SandboxTemplate;
import io.sandboxd.controller.model.SandboxWarmPool;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Objects from an API server whose CRDs are newer than the controller carry fields the model does
 * not know, at any depth: they are read (known fields intact), through the controller's one-pass
 * watch path and through fabric8's own reading alike.
 */
class NewerSchemaFieldsTest {
    private static final String NEW = "\"fromANewerSchema\":{\"x\":[1,2]}";

    private static <T> T both(String json, Class<T> type) {
        KubernetesSerialization ours = KindFirstWatchObjectsTest.ours();
        List<T> read = KindFirstWatchObjectsTest.readBothWays(json, type);
        Object viaFabric8 = KindFirstWatchObjectsTest.object(KindFirstWatchObjectsTest.fabric8(), json);
        assertThat(ours.asJson(read.get(0))).isEqualTo(ours.asJson(viaFabric8));
        assertThat(ours.asJson(read.get(1))).isEqualTo(ours.asJson(read.get(0)));
        return read.get(0);
    }

    @Test
    void aSandbox() {
        Sandbox sb = both(
                "{\"apiVersion\":\"agents.x-k8s.io/v1beta1\",\"kind\":\"Sandbox\",\"metadata\":{\"name\":\"s\"}," + NEW
                        + ",\"spec\":{" + NEW + ",\"operatingMode\":\"Running\"},"
                        + "\"status\":{\"nodeName\":\"n1\"," + NEW + "}}",
                Sandbox.class);
        assertThat(sb.getSpec().getOperatingMode()).isEqualTo("Running");
        assertThat(sb.getStatus().getNodeName()).isEqualTo("n1");
        assertThat(KindFirstWatchObjectsTest.ours().asJson(sb)).doesNotContain("fromANewerSchema");
    }

    @Test
    void aClaimWithNewFieldsInNestedParts() {
        SandboxClaim c = both(
                "{\"apiVersion\":\"extensions.agents.x-k8s.io/v1beta1\",\"kind\":\"SandboxClaim\",\"metadata\":{\"name\":\"c\"},"
                        + "\"spec\":{\"warmPoolRef\":{\"name\":\"p\"," + NEW + "},"
                        + "\"lifecycle\":{" + NEW + ",\"shutdownPolicy\":\"Retain\"},"
                        + "\"additionalPodMetadata\":{" + NEW + ",\"labels\":{\"a\":\"b\"}},"
                        + "\"env\":[{\"name\":\"E\",\"value\":\"v\"," + NEW + "}]," + NEW + "},"
                        + "\"status\":{\"sandbox\":{\"name\":\"s\"," + NEW + "}," + NEW + "}}",
                SandboxClaim.class);
        assertThat(c.getSpec().getWarmPoolRef().getName()).isEqualTo("p");
        assertThat(c.getSpec().getLifecycle().getShutdownPolicy()).isEqualTo("Retain");
        assertThat(c.getSpec().getAdditionalPodMetadata().getLabels()).containsEntry("a", "b");
        assertThat(c.getSpec().getEnv().get(0).getValue()).isEqualTo("v");
        assertThat(c.getStatus().getSandbox().getName()).isEqualTo("s");
    }

    @Test
    void aPoolAndATemplate() {
        SandboxWarmPool p = both(
                "{\"apiVersion\":\"extensions.agents.x-k8s.io/v1beta1\",\"kind\":\"SandboxWarmPool\",\"metadata\":{\"name\":\"p\"},"
                        + "\"spec\":{\"replicas\":3,\"sandboxTemplateRef\":{\"name\":\"t\"},"
                        + "\"updateStrategy\":{\"type\":\"Recreate\"," + NEW + "}," + NEW + "},"
                        + "\"status\":{\"readyReplicas\":2," + NEW + "}}",
                SandboxWarmPool.class);
        assertThat(p.getSpec().getReplicas()).isEqualTo(3);
        assertThat(p.getSpec().getUpdateStrategy().getType()).isEqualTo("Recreate");
        assertThat(p.getStatus().getReadyReplicas()).isEqualTo(2);

        SandboxTemplate t = both(
                "{\"apiVersion\":\"extensions.agents.x-k8s.io/v1beta1\",\"kind\":\"SandboxTemplate\",\"metadata\":{\"name\":\"t\"},"
                        + "\"spec\":{\"service\":true,\"networkPolicy\":{\"ingress\":[]," + NEW + "}," + NEW + "}}",
                SandboxTemplate.class);
        assertThat(t.getSpec().getService()).isTrue();
        assertThat(t.getSpec().getNetworkPolicy().getIngress()).isEmpty();
    }
}
