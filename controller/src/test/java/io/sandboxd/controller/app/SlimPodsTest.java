package io.sandboxd.controller.app;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodCondition;
import io.fabric8.kubernetes.api.model.PodIP;
import io.sandboxd.controller.core.SandboxConditions;
import org.junit.jupiter.api.Test;

/** Of a Pod, the controller reads its metadata, spec.nodeName and the status parts it uses; nothing else is bound. */
class SlimPodsTest {
    static final String POD =
            "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"p\",\"namespace\":\"n\","
                    + "\"labels\":{\"a\":\"b\"},\"ownerReferences\":[{\"apiVersion\":\"agents.x-k8s.io/v1beta1\","
                    + "\"kind\":\"Sandbox\",\"name\":\"s\",\"uid\":\"u\",\"controller\":true}]},"
                    + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\",\"ports\":[{\"containerPort\":80}]}],"
                    + "\"volumes\":[{\"name\":\"v\",\"emptyDir\":{}}],\"tolerations\":[{\"key\":\"k\",\"operator\":\"Exists\"}],"
                    + "\"nodeName\":\"node-1\",\"restartPolicy\":\"Always\",\"securityContext\":{}},"
                    + "\"status\":{\"phase\":\"Running\",\"hostIP\":\"192.168.0.1\",\"podIP\":\"10.0.0.2\","
                    + "\"podIPs\":[{\"ip\":\"10.0.0.2\"}],\"conditions\":[{\"type\":\"Ready\",\"status\":\"True\","
                    + "\"lastProbeTime\":null,\"lastTransitionTime\":\"2026-12-03T00:00:00Z\"},"
                    + "{\"type\":\"PodScheduled\",\"status\":\"True\",\"reason\":\"R\"}],"
                    + "\"containerStatuses\":[{\"name\":\"c\",\"ready\":true,\"restartCount\":0,"
                    + "\"state\":{\"running\":{\"startedAt\":\"2026-12-03T00:00:00Z\"}}}],\"qosClass\":\"BestEffort\"}}";

    @Test
    void whatTheControllerReadsIsThereAndTheRestIsNot() {
        for (Pod p : KindFirstWatchObjectsTest.readBothWays(POD, Pod.class)) {
            assertThat(p.getMetadata().getLabels()).containsEntry("a", "b");
            assertThat(p.getMetadata().getOwnerReferences()).hasSize(1);
            assertThat(p.getSpec().getNodeName()).isEqualTo("node-1");
            assertThat(p.getSpec().getContainers()).isEmpty();
            assertThat(p.getSpec().getVolumes()).isEmpty();
            assertThat(p.getSpec().getAdditionalProperties()).isEmpty();
            assertThat(p.getStatus().getPhase()).isEqualTo("Running");
            assertThat(p.getStatus().getPodIP()).isEqualTo("10.0.0.2");
            assertThat(p.getStatus().getPodIPs()).extracting(PodIP::getIp).containsExactly("10.0.0.2");
            assertThat(p.getStatus().getConditions())
                    .extracting(PodCondition::getType, PodCondition::getStatus)
                    .containsExactly(
                            org.assertj.core.groups.Tuple.tuple("Ready", "True"),
                            org.assertj.core.groups.Tuple.tuple("PodScheduled", "True"));
            assertThat(p.getStatus().getConditions().get(0).getLastTransitionTime())
                    .isEqualTo("2026-12-03T00:00:00Z");
            assertThat(p.getStatus().getContainerStatuses()).isEmpty();
            assertThat(p.getStatus().getHostIP()).isNull();
            assertThat(SandboxConditions.podIPs(p)).containsExactly("10.0.0.2");
            assertThat(SandboxConditions.podCondition(p, "PodScheduled").getReason())
                    .isEqualTo("R");
        }
        // fabric8's own reading binds all of it: the test shows the mix-in at work.
        Pod theirs = (Pod) KindFirstWatchObjectsTest.object(KindFirstWatchObjectsTest.fabric8(), POD);
        assertThat(theirs.getSpec().getContainers()).hasSize(1);
        assertThat(theirs.getStatus().getContainerStatuses()).hasSize(1);
    }

    @Test
    void aPodWithoutSpecOrStatusOrWithNullsReads() {
        var ours = KindFirstWatchObjectsTest.ours();
        Pod bare = ours.unmarshal("{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"p\"}}", Pod.class);
        assertThat(bare.getSpec()).isNull();
        assertThat(bare.getStatus()).isNull();
        Pod nulls = ours.unmarshal(
                "{\"kind\":\"Pod\",\"apiVersion\":\"v1\",\"metadata\":{\"name\":\"p\"},\"spec\":null,"
                        + "\"status\":{\"phase\":null,\"conditions\":null,\"podIPs\":null,\"podIP\":null}}",
                Pod.class);
        assertThat(nulls.getSpec()).isNull();
        assertThat(nulls.getStatus().getPhase()).isNull();
        assertThat(nulls.getStatus().getConditions()).isNull();
        assertThat(SandboxConditions.podIPs(nulls)).isEmpty();
    }

    @Test
    void podsTheControllerCreatesAreWrittenWhole() {
        // Writing is not narrowed: a Pod built from its desired state goes out with its spec.
        var ours = KindFirstWatchObjectsTest.ours();
        Pod theirs = (Pod) KindFirstWatchObjectsTest.object(KindFirstWatchObjectsTest.fabric8(), POD);
        assertThat(ours.asJson(theirs)).contains("\"containers\"", "\"tolerations\"", "\"containerStatuses\"");
    }
}
