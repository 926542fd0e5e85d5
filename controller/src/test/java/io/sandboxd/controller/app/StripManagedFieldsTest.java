package io.sandboxd.controller.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.sandboxd.controller.model.Sandbox;
import org.junit.jupiter.api.Test;

/** The controller's reading leaves metadata.managedFields out; everything else is read as before. */
class StripManagedFieldsTest {
    private static final String MANAGED = "\"managedFields\":[{\"manager\":\"kubelet\",\"operation\":\"Update\","
            + "\"apiVersion\":\"v1\",\"time\":\"2026-12-03T00:00:00Z\",\"fieldsType\":\"FieldsV1\","
            + "\"fieldsV1\":{\"f:status\":{\"f:phase\":{}}},\"subresource\":\"status\"}]";

    private static final String POD = "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"p\","
            + "\"labels\":{\"a\":\"b\"}," + MANAGED + ",\"resourceVersion\":\"9\"},"
            + "\"spec\":{\"nodeName\":\"n\"},\"status\":{\"phase\":\"Running\"}}";

    private static final String SANDBOX = "{\"apiVersion\":\"agents.x-k8s.io/v1beta1\",\"kind\":\"Sandbox\","
            + "\"metadata\":{\"name\":\"s\"," + MANAGED + ",\"generation\":3},"
            + "\"spec\":{\"operatingMode\":\"Running\"}}";

    @Test
    void aPodFromAWatchAndFromAResponseHasNoManagedFieldsAndEverythingElse() {
        for (Pod p : KindFirstWatchObjectsTest.readBothWays(POD, Pod.class)) {
            assertThat(p.getMetadata().getManagedFields()).isEmpty();
            assertThat(p.getMetadata().getAdditionalProperties()).doesNotContainKey("managedFields");
            assertThat(p.getMetadata().getLabels()).containsEntry("a", "b");
            assertThat(p.getMetadata().getResourceVersion()).isEqualTo("9");
            assertThat(p.getSpec().getNodeName()).isEqualTo("n");
            assertThat(p.getStatus().getPhase()).isEqualTo("Running");
        }
        // fabric8's own reading keeps them: the test shows the mix-in at work.
        Pod theirs = (Pod) KindFirstWatchObjectsTest.object(KindFirstWatchObjectsTest.fabric8(), POD);
        assertThat(theirs.getMetadata().getManagedFields()).hasSize(1);
    }

    @Test
    void ourKindsToo() {
        for (Sandbox sb : KindFirstWatchObjectsTest.readBothWays(SANDBOX, Sandbox.class)) {
            assertThat(sb.getMetadata().getManagedFields()).isEmpty();
            assertThat(sb.getMetadata().getGeneration()).isEqualTo(3);
            assertThat(sb.getSpec().getOperatingMode()).isEqualTo("Running");
        }
    }
}
