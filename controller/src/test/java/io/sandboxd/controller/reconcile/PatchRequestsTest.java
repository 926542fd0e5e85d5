package io.sandboxd.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.sandboxd.controller.core.JsonPatch;
import io.sandboxd.controller.model.Sandbox;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Patches sent straight through the HTTP client answer exactly as fabric8's own patch does. */
class PatchRequestsTest {
    StandInClient standIn;
    KubernetesClient client;

    @BeforeEach
    void start() throws Exception {
        standIn = new StandInClient("ns");
        client = standIn.client;
    }

    @AfterEach
    void stop() {
        standIn.close();
    }

    @Test
    void aPatchThatAppliesReturnsThePatchedObjectAsFabric8sDoes() {
        Pod pod = client.resource(pod("p")).create();
        Pod ours = Kube.patch(client, pod, new JsonPatch().add("/metadata/labels/ours", "1"));
        Pod theirs = client.resource(pod)
                .patch(
                        PatchContext.of(PatchType.JSON),
                        new JsonPatch().add("/metadata/labels/theirs", "2").json());
        assertThat(ours.getMetadata().getLabels()).containsEntry("ours", "1");
        assertThat(theirs.getMetadata().getLabels()).containsEntry("ours", "1").containsEntry("theirs", "2");
        assertThat(client.pods()
                        .inNamespace("ns")
                        .withName("p")
                        .get()
                        .getMetadata()
                        .getLabels())
                .isEqualTo(Map.of("app", "x", "ours", "1", "theirs", "2"));
    }

    @Test
    void aStatusPatchGoesToTheStatusSubresource() {
        Sandbox member = io.sandboxd.controller.core.WarmMembersTest.member("sb-1", "2026-01-01T00:00:00Z");
        member.getMetadata().setResourceVersion(null);
        member.getMetadata().setUid(null);
        member.setStatus(null);
        Sandbox created = client.resource(member).create();
        String version =
                Kube.patchStatus(client, created, new JsonPatch().add("/status", Map.of("serviceFQDN", "sb-1.ns.svc")));
        Sandbox stored = client.resources(Sandbox.class)
                .inNamespace(created.getMetadata().getNamespace())
                .withName("sb-1")
                .get();
        assertThat(stored.getStatus().getServiceFQDN()).isEqualTo("sb-1.ns.svc");
        assertThat(version)
                .as("the version the write made")
                .isEqualTo(stored.getMetadata().getResourceVersion())
                .isNotEqualTo(created.getMetadata().getResourceVersion());
        assertThat(client.getKubernetesSerialization().asJson(stored.getSpec()))
                .as("the spec is untouched")
                .isEqualTo(client.getKubernetesSerialization().asJson(created.getSpec()));
    }

    @Test
    void refusalsCarryTheSameStatusAsFabric8s() {
        Pod missing = pod("missing");
        assertSameFailure(
                () -> Kube.patch(client, missing, new JsonPatch().add("/metadata/labels/a", "b")),
                () -> client.resource(missing)
                        .patch(
                                PatchContext.of(PatchType.JSON),
                                new JsonPatch().add("/metadata/labels/a", "b").json()));
        KubernetesClientException notFound =
                catchIt(() -> Kube.patch(client, missing, new JsonPatch().add("/metadata/labels/a", "b")));
        assertThat(Kube.notFound(notFound)).isTrue();

        Pod pod = client.resource(pod("q")).create();
        JsonPatch stale = new JsonPatch().test("/metadata/labels/app", "other").add("/metadata/labels/a", "b");
        assertSameFailure(() -> Kube.patch(client, pod, stale), () -> client.resource(pod)
                .patch(PatchContext.of(PatchType.JSON), stale.json()));
        assertThat(client.pods()
                        .inNamespace("ns")
                        .withName("q")
                        .get()
                        .getMetadata()
                        .getLabels())
                .as("a refused patch changed nothing")
                .isEqualTo(Map.of("app", "x"));
    }

    @Test
    void aWholeMapWrittenFromAStaleCopyIsRefusedInsteadOfDroppingAnotherWritersLabel() {
        Pod stale = client.resource(pod("r", Map.of())).create();
        client.resource(stale)
                .patch(
                        PatchContext.of(PatchType.JSON),
                        new JsonPatch()
                                .add("/metadata/labels", Map.of("touch", "1"))
                                .json());

        JsonPatch ours =
                new JsonPatch().mapEntry("/metadata/labels", stale.getMetadata().getLabels(), "hash", "h1");
        assertThat(ours.replacesAMap())
                .as("our copy has no labels: the op writes the whole map")
                .isTrue();
        KubernetesClientException refused = catchIt(() -> Kube.patch(client, stale, ours));
        assertThat(Kube.refusedAsStale(refused, ours)).isTrue();
        assertThat(labels("r")).as("the other writer's label survives").isEqualTo(Map.of("touch", "1"));

        Pod fresh = client.pods().inNamespace("ns").withName("r").get();
        JsonPatch again =
                new JsonPatch().mapEntry("/metadata/labels", fresh.getMetadata().getLabels(), "hash", "h1");
        assertThat(again.replacesAMap())
                .as("one key added to the map the fresh copy shows")
                .isFalse();
        Kube.patch(client, fresh, again);
        assertThat(labels("r")).isEqualTo(Map.of("touch", "1", "hash", "h1"));

        Pod current = client.resource(pod("s", Map.of())).create();
        Kube.patch(
                client,
                current,
                new JsonPatch()
                        .mapEntry("/metadata/labels", current.getMetadata().getLabels(), "hash", "h2"));
        assertThat(labels("s")).as("a current copy passes the guard").isEqualTo(Map.of("hash", "h2"));
    }

    @Test
    void onlyAGuardedPatchIsRefusedAsStale() {
        Pod pod = client.resource(pod("t")).create();
        JsonPatch perKey = new JsonPatch().test("/metadata/labels/app", "other").add("/metadata/labels/a", "b");
        KubernetesClientException refused = catchIt(() -> Kube.patch(client, pod, perKey));
        assertThat(refused.getCode()).isEqualTo(422);
        assertThat(Kube.refusedAsStale(refused, perKey))
                .as("a refusal of a patch Kube did not guard is the caller's to report")
                .isFalse();
    }

    private Map<String, String> labels(String pod) {
        return client.pods().inNamespace("ns").withName(pod).get().getMetadata().getLabels();
    }

    private static void assertSameFailure(Supplier<?> ours, Supplier<?> theirs) {
        KubernetesClientException a = catchIt(ours);
        KubernetesClientException b = catchIt(theirs);
        assertThat(a.getCode()).isEqualTo(b.getCode()).isGreaterThanOrEqualTo(400);
        assertThat(a.getStatus().getReason()).isEqualTo(b.getStatus().getReason());
        assertThat(Kube.message(a)).isEqualTo(Kube.message(b));
    }

    static KubernetesClientException catchIt(Supplier<?> call) {
        Throwable[] caught = new Throwable[1];
        assertThatThrownBy(() -> call.get())
                .isInstanceOf(KubernetesClientException.class)
                .satisfies(t -> caught[0] = t);
        return (KubernetesClientException) caught[0];
    }

    private static Pod pod(String name) {
        return pod(name, Map.of("app", "x"));
    }

    private static Pod pod(String name, Map<String, String> labels) {
        return new PodBuilder()
                .withMetadata(new ObjectMetaBuilder()
                        .withName(name)
                        .withNamespace("ns")
                        .withLabels(labels)
                        .build())
                .build();
    }
}
