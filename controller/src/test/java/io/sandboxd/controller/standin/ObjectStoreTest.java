package io.sandboxd.controller.standin;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.sandboxd.controller.standin.ObjectStore.ApiException;
import io.sandboxd.controller.standin.ObjectStore.Event;
import io.sandboxd.controller.standin.ObjectStore.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** The stand-in is a measuring instrument: its API semantics are tested like the code it measures. */
class ObjectStoreTest {
    final ObjectStore store = new ObjectStore();
    final Kind sandboxes = store.kindOf("sandboxes");
    final Kind pods = store.kindOf("pods");

    static ObjectNode obj(String json) {
        return (ObjectNode) ObjectStore.JSON.readTree(json);
    }

    static JsonNode patch(String json) {
        return ObjectStore.JSON.readTree(json);
    }

    @Test
    void createSetsServerFieldsAndDropsStatusOfStatusSubresourceKinds() {
        JsonNode sb = store.create(
                sandboxes, "ns", obj("{\"metadata\":{\"name\":\"a\"},\"spec\":{\"x\":1},\"status\":{\"y\":2}}"));
        assertThat(sb.path("metadata").path("uid").asString()).isNotEmpty();
        assertThat(sb.path("metadata").path("namespace").asString()).isEqualTo("ns");
        assertThat(sb.path("metadata").path("generation").asLong()).isEqualTo(1);
        assertThat(sb.path("metadata").path("resourceVersion").asString()).isEqualTo("1");
        assertThat(sb.path("apiVersion").asString()).isEqualTo("agents.x-k8s.io/v1beta1");
        assertThat(sb.has("status")).isFalse();
        assertThatThrownBy(() -> store.create(sandboxes, "ns", obj("{\"metadata\":{\"name\":\"a\"}}")))
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.code).isEqualTo(409));
        JsonNode gen = store.create(pods, "ns", obj("{\"metadata\":{\"generateName\":\"p-\"}}"));
        assertThat(gen.path("metadata").path("name").asString())
                .startsWith("p-")
                .hasSize(7);
        assertThat(gen.path("status").path("phase").asString()).isEqualTo("Pending");
    }

    /**
     * A write is worked out outside the store's lock and committed only over the version it was
     * worked out from: a write that lands in between is not lost, the first is worked out again.
     */
    @Test
    void aWriteOverAVersionChangedMeanwhileIsWorkedOutAgainFromTheNewOne() {
        store.create(sandboxes, "ns", obj("{\"metadata\":{\"name\":\"a\"}}"));
        java.util.concurrent.atomic.AtomicInteger passes = new java.util.concurrent.atomic.AtomicInteger();
        JsonNode done = store.update(
                sandboxes,
                "ns",
                "a",
                o -> {
                    if (passes.getAndIncrement() == 0) {
                        store.update(sandboxes, "ns", "a", in -> label(in, "inner"), false);
                    }
                    return label(o, "outer");
                },
                false);
        assertThat(passes).hasValue(2);
        assertThat(done.path("metadata").path("labels").properties())
                .extracting(Map.Entry::getKey)
                .containsExactlyInAnyOrder("inner", "outer");
        assertThat(done.path("metadata").path("resourceVersion").asString()).isEqualTo("3");
        assertThat(store.get(sandboxes, "ns", "a")).isSameAs(done);
    }

    private static ObjectNode label(ObjectNode o, String key) {
        o.withObjectProperty("metadata").withObjectProperty("labels").put(key, "1");
        return o;
    }

    @Test
    void aFailedJsonPatchTestIs422AndAStaleResourceVersionOnPutIs409() {
        store.create(sandboxes, "ns", obj("{\"metadata\":{\"name\":\"a\"}}"));
        JsonNode ok = store.patch(
                sandboxes,
                "ns",
                "a",
                "application/json-patch+json",
                patch(
                        "[{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"1\"},{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{\"k\":\"v\"}}]"),
                false);
        assertThat(ok.path("metadata").path("resourceVersion").asString()).isEqualTo("2");
        assertThatThrownBy(() -> store.patch(
                        sandboxes,
                        "ns",
                        "a",
                        "application/json-patch+json",
                        patch("[{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"1\"}]"),
                        false))
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.code).isEqualTo(422));
        assertThatThrownBy(() -> store.patch(
                        sandboxes,
                        "ns",
                        "a",
                        "application/json-patch+json",
                        patch("[{\"op\":\"add\",\"path\":\"/metadata/annotations/k\",\"value\":\"v\"}]"),
                        false))
                .as("a key under a missing map")
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.code).isEqualTo(422));
        assertThatThrownBy(() -> store.replace(
                        sandboxes, "ns", "a", obj("{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"1\"}}"), false))
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.code).isEqualTo(409));
        assertThatThrownBy(() -> store.get(sandboxes, "ns", "missing"))
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.code).isEqualTo(404));
    }

    @Test
    void statusGoesOnlyThroughTheSubresourceAndOnlySpecChangesBumpTheGeneration() {
        store.create(sandboxes, "ns", obj("{\"metadata\":{\"name\":\"a\"},\"spec\":{\"x\":1}}"));
        JsonNode s = store.patch(
                sandboxes,
                "ns",
                "a",
                "application/json-patch+json",
                patch(
                        "[{\"op\":\"add\",\"path\":\"/status\",\"value\":{\"ok\":true}},{\"op\":\"add\",\"path\":\"/spec/x\",\"value\":9}]"),
                true);
        assertThat(s.path("status").path("ok").asBoolean()).isTrue();
        assertThat(s.path("spec").path("x").asInt())
                .as("spec ignored on /status")
                .isEqualTo(1);
        assertThat(s.path("metadata").path("generation").asLong()).isEqualTo(1);
        JsonNode m = store.patch(
                sandboxes,
                "ns",
                "a",
                "application/merge-patch+json",
                patch("{\"status\":{\"ok\":false},\"spec\":{\"x\":2},\"metadata\":{\"labels\":{\"l\":\"1\"}}}"),
                false);
        assertThat(m.path("status").path("ok").asBoolean())
                .as("status ignored on the main resource")
                .isTrue();
        assertThat(m.path("metadata").path("generation").asLong()).isEqualTo(2);
        JsonNode l = store.patch(
                sandboxes,
                "ns",
                "a",
                "application/merge-patch+json",
                patch("{\"metadata\":{\"labels\":{\"l\":\"2\"}}}"),
                false);
        assertThat(l.path("metadata").path("generation").asLong())
                .as("metadata only")
                .isEqualTo(2);
        JsonNode same = store.patch(
                sandboxes,
                "ns",
                "a",
                "application/merge-patch+json",
                patch("{\"metadata\":{\"labels\":{\"l\":\"2\"}}}"),
                false);
        assertThat(same.path("metadata").path("resourceVersion"))
                .as("a no-op write keeps the version")
                .isEqualTo(l.path("metadata").path("resourceVersion"));
    }

    @Test
    void watchesReplayFromAVersionAndFollowTheLabelSelector() throws Exception {
        store.create(pods, "ns", obj("{\"metadata\":{\"name\":\"p\",\"labels\":{\"h\":\"1\"}}}"));
        long after = store.resourceVersion();
        store.patch(
                pods,
                "ns",
                "p",
                "application/merge-patch+json",
                patch("{\"metadata\":{\"labels\":{\"h\":null}}}"),
                false);
        store.patch(
                pods,
                "ns",
                "p",
                "application/merge-patch+json",
                patch("{\"metadata\":{\"labels\":{\"h\":\"2\"}}}"),
                false);
        store.create(pods, "other", obj("{\"metadata\":{\"name\":\"q\",\"labels\":{\"h\":\"1\"}}}"));
        try (ObjectStore.Watch w = store.watch(pods, "ns", LabelSelector.parse("h"), null, after)) {
            store.delete(pods, "ns", "p");
            List<String> seen = new ArrayList<>();
            for (Event e; (e = w.queue.poll()) != null; ) seen.add(e.type() + " " + e.name());
            // unlabelled = left the selection (DELETED), relabelled = back (ADDED); the other namespace never seen
            assertThat(seen).containsExactly("DELETED p", "ADDED p", "DELETED p");
        }
        try (ObjectStore.Watch w = store.watch(pods, null, LabelSelector.parse(null), null, 0)) {
            assertThat(w.queue.poll().name())
                    .as("no version: the current objects as ADDED")
                    .isEqualTo("q");
        }
    }

    @Test
    void finalizersHoldADeletedObjectUntilTheyAreRemoved() {
        store.create(sandboxes, "ns", obj("{\"metadata\":{\"name\":\"a\",\"finalizers\":[\"f\"]}}"));
        JsonNode d = store.delete(sandboxes, "ns", "a");
        assertThat(d.path("metadata").has("deletionTimestamp")).isTrue();
        store.patch(
                sandboxes,
                "ns",
                "a",
                "application/json-patch+json",
                patch("[{\"op\":\"remove\",\"path\":\"/metadata/finalizers\"}]"),
                false);
        assertThatThrownBy(() -> store.get(sandboxes, "ns", "a")).isInstanceOf(ApiException.class);
    }

    @Test
    void aDeleteWhosePreconditionsNoLongerHoldIs409AndDeletesNothing() {
        JsonNode a = store.create(sandboxes, "ns", obj("{\"metadata\":{\"name\":\"a\"}}"));
        String rv = a.path("metadata").path("resourceVersion").asString();
        store.patch(
                sandboxes,
                "ns",
                "a",
                "application/json-patch+json",
                patch("[{\"op\":\"add\",\"path\":\"/metadata/labels\",\"value\":{\"k\":\"v\"}}]"),
                false);
        assertThatThrownBy(() -> store.delete(
                        sandboxes, "ns", "a", obj("{\"preconditions\":{\"resourceVersion\":\"" + rv + "\"}}")))
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.code).isEqualTo(409));
        assertThatThrownBy(() -> store.delete(sandboxes, "ns", "a", obj("{\"preconditions\":{\"uid\":\"other\"}}")))
                .isInstanceOfSatisfying(
                        ApiException.class, e -> assertThat(e.code).isEqualTo(409));
        assertThat(store.get(sandboxes, "ns", "a")
                        .path("metadata")
                        .path("labels")
                        .path("k")
                        .asString())
                .isEqualTo("v");
        String now = store.get(sandboxes, "ns", "a")
                .path("metadata")
                .path("resourceVersion")
                .asString();
        store.delete(sandboxes, "ns", "a", obj("{\"preconditions\":{\"resourceVersion\":\"" + now + "\"}}"));
        assertThatThrownBy(() -> store.get(sandboxes, "ns", "a")).isInstanceOf(ApiException.class);
    }

    @Test
    void labelSelectors() {
        Map<String, String> l = Map.of("a", "1", "b", "2");
        assertThat(LabelSelector.parse("a").matches(l)).isTrue();
        assertThat(LabelSelector.parse("!a").matches(l)).isFalse();
        assertThat(LabelSelector.parse("a=1,b==2").matches(l)).isTrue();
        assertThat(LabelSelector.parse("a!=1").matches(l)).isFalse();
        assertThat(LabelSelector.parse("c!=1").matches(l)).isTrue();
        assertThat(LabelSelector.parse("a in (3,1),b notin (5)").matches(l)).isTrue();
        assertThat(LabelSelector.parse("a in (3)").matches(l)).isFalse();
        assertThat(LabelSelector.parse("").matches(Map.of())).isTrue();
    }

    @Test
    void theRequestBodyNamesTheClaimThatBecomesController() {
        JsonNode adoption = patch("[{\"op\":\"test\",\"path\":\"/metadata/resourceVersion\",\"value\":\"3\"},"
                + "{\"op\":\"add\",\"path\":\"/metadata/ownerReferences\",\"value\":[{\"apiVersion\":\"extensions.agents.x-k8s.io/v1beta1\","
                + "\"kind\":\"SandboxClaim\",\"name\":\"c-1\",\"uid\":\"u\",\"controller\":true}]}]");
        assertThat(ApiStandIn.controllingClaim(adoption)).isEqualTo("c-1");
        assertThat(ApiStandIn.controllingClaim(
                        patch("{\"metadata\":{\"ownerReferences\":[{\"kind\":\"SandboxWarmPool\",\"name\":\"p\","
                                + "\"uid\":\"u\",\"controller\":true}]}}")))
                .isNull();
    }

    @Test
    void withManagedFieldsEveryWriteStoresTheFieldTreesAndAWriteWithoutThemKeepsThem() {
        ObjectStore mf = new ObjectStore().recordManagedFields();
        Kind pod = mf.kindOf("pods");
        JsonNode p = mf.create(
                pod,
                "ns",
                obj("{\"metadata\":{\"name\":\"p\",\"labels\":{\"a\":\"b\"}},"
                        + "\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}"));
        JsonNode entries = p.path("metadata").path("managedFields");
        assertThat(entries.size()).isEqualTo(2);
        assertThat(entries.get(0).path("fieldsType").asString()).isEqualTo("FieldsV1");
        JsonNode own = entries.get(0).path("fieldsV1");
        assertThat(own.path("f:metadata").path("f:labels").has("f:a")).isTrue();
        assertThat(own.path("f:spec")
                        .path("f:containers")
                        .path("k:{\"name\":\"c\"}")
                        .has("f:image"))
                .isTrue();
        assertThat(entries.get(1).path("subresource").asString()).isEqualTo("status");
        assertThat(entries.get(1).path("fieldsV1").path("f:status").has("f:phase"))
                .isTrue();

        // A client that strips managedFields and writes the object back unchanged changes nothing.
        ObjectNode stripped = (ObjectNode) p.deepCopy();
        stripped.withObjectProperty("metadata").remove("managedFields");
        assertThat(mf.replace(pod, "ns", "p", stripped, false)).isSameAs(mf.get(pod, "ns", "p"));
        assertThat(mf.get(pod, "ns", "p")
                        .path("metadata")
                        .path("resourceVersion")
                        .asString())
                .isEqualTo(p.path("metadata").path("resourceVersion").asString());

        // A real change gets new trees.
        JsonNode changed = mf.patch(
                pod,
                "ns",
                "p",
                "application/merge-patch+json",
                patch("{\"metadata\":{\"labels\":{\"x\":\"y\"}}}"),
                false);
        assertThat(changed.path("metadata")
                        .path("managedFields")
                        .get(0)
                        .path("fieldsV1")
                        .path("f:metadata")
                        .path("f:labels")
                        .has("f:x"))
                .isTrue();
        assertThat(store.create(sandboxes, "ns", obj("{\"metadata\":{\"name\":\"plain\"}}"))
                        .path("metadata")
                        .has("managedFields"))
                .as("off by default")
                .isFalse();
    }

    @Test
    void withPodDefaultsANewPodHasTheApiServersDefaultsAndAStartedOneAKubeletsStatus() throws Exception {
        ObjectStore cluster = new ObjectStore().applyPodDefaults();
        Kind pod = cluster.kindOf("pods");
        JsonNode p = cluster.create(
                pod,
                "ns",
                obj("{\"metadata\":{\"name\":\"p\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\","
                        + "\"ports\":[{\"containerPort\":80}]}]}}"));
        JsonNode spec = p.path("spec");
        assertThat(spec.path("dnsPolicy").asString()).isEqualTo("ClusterFirst");
        assertThat(spec.path("tolerations").size()).isEqualTo(2);
        assertThat(spec.path("volumes").get(0).path("name").asString()).startsWith("kube-api-access-");
        JsonNode c = spec.path("containers").get(0);
        assertThat(c.path("terminationMessagePath").asString()).isEqualTo("/dev/termination-log");
        assertThat(c.path("ports").get(0).path("protocol").asString()).isEqualTo("TCP");
        assertThat(c.path("volumeMounts").get(0).path("mountPath").asString())
                .isEqualTo("/var/run/secrets/kubernetes.io/serviceaccount");

        try (StandInKubelet kubelet = new StandInKubelet(cluster, java.time.Duration.ZERO)) {
            cluster.create(
                    pod,
                    "ns",
                    obj(
                            "{\"metadata\":{\"name\":\"q\"},\"spec\":{\"containers\":[{\"name\":\"c\",\"image\":\"i\"}]}}"));
            long deadline = System.nanoTime() + 10_000_000_000L;
            while (kubelet.podsStarted.get() < 1 && System.nanoTime() < deadline) Thread.sleep(10);
            JsonNode st = cluster.get(pod, "ns", "q").path("status");
            assertThat(st.path("phase").asString()).isEqualTo("Running");
            assertThat(st.path("conditions").size()).isEqualTo(5);
            assertThat(st.path("containerStatuses").get(0).path("containerID").asString())
                    .startsWith("containerd://")
                    .hasSize("containerd://".length() + 64);
            assertThat(st.path("containerStatuses").get(0).path("volumeMounts").size())
                    .isEqualTo(1);
        }
        assertThat(store.create(pods, "ns", obj("{\"metadata\":{\"name\":\"plain\"},\"spec\":{}}"))
                        .path("spec")
                        .has("tolerations"))
                .as("off by default")
                .isFalse();
    }
}
