package io.sandboxd.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.sandboxd.controller.standin.ObjectStore;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** Creates sent straight through the HTTP client answer exactly as fabric8's own create does. */
class CreateRequestsTest {
    StandInClient standIn;
    ObjectStore store;
    KubernetesClient client;

    @BeforeEach
    void start() throws Exception {
        standIn = new StandInClient("default");
        store = standIn.store;
        client = standIn.client;
    }

    @AfterEach
    void stop() {
        standIn.close();
    }

    @Test
    void aCreateAnswersTheObjectTheServerMadeAsFabric8sDoes() {
        Pod ours = CreateRequests.create(client, pod("ns", "ours"));
        Pod theirs = client.resource(pod("ns", "theirs")).create();
        assertThat(ours.getMetadata().getUid()).isNotBlank();
        assertThat(ours.getMetadata().getResourceVersion()).isNotBlank();
        assertThat(ours.getStatus().getPhase())
                .as("what only the server sets comes back")
                .isEqualTo(theirs.getStatus().getPhase())
                .isEqualTo("Pending");
        assertThat(withoutIdentity(ours)).isEqualTo(withoutIdentity(theirs));
        assertThat(store.get(store.kindOf("pods"), "ns", "ours")
                        .path("metadata")
                        .path("uid")
                        .asString())
                .isEqualTo(ours.getMetadata().getUid());
    }

    @Test
    void anUnreadCreateStillCreatesInTheObjectsOwnNamespace() {
        CreateRequests.createUnread(client, pod("team-b", "p"));
        assertThat(client.pods().inNamespace("team-b").withName("p").get()).isNotNull();
        assertThat(client.pods().inNamespace("default").withName("p").get()).isNull();
    }

    @Test
    void aNameTakenIsRefusedWithTheSameStatusAsFabric8s() {
        client.resource(pod("ns", "taken")).create();
        KubernetesClientException ours =
                PatchRequestsTest.catchIt(() -> CreateRequests.create(client, pod("ns", "taken")));
        KubernetesClientException theirs = PatchRequestsTest.catchIt(
                () -> client.resource(pod("ns", "taken")).create());
        assertThat(Kube.conflict(ours)).isTrue();
        assertThat(ours.getCode()).isEqualTo(theirs.getCode()).isEqualTo(409);
        assertThat(ours.getStatus().getReason()).isEqualTo(theirs.getStatus().getReason());
        assertThat(Kube.message(ours)).isEqualTo(Kube.message(theirs));
        assertThat(PatchRequestsTest.catchIt(() -> {
                            CreateRequests.createUnread(client, pod("ns", "taken"));
                            return null;
                        })
                        .getCode())
                .isEqualTo(409);
    }

    @Test
    void aNamespacedObjectWithoutANamespaceIsNotSentToTheClientsDefault() {
        assertThatThrownBy(() -> CreateRequests.create(client, pod(null, "lost")))
                .isInstanceOf(IllegalArgumentException.class)
                .hasMessage("Pod \"lost\" has no namespace to be created in");
        assertThat(client.pods().inNamespace("default").withName("lost").get()).isNull();
    }

    private static Pod withoutIdentity(Pod p) {
        Pod c = new PodBuilder(p).build();
        c.getMetadata().setName(null);
        c.getMetadata().setUid(null);
        c.getMetadata().setResourceVersion(null);
        c.getMetadata().setCreationTimestamp(null);
        return c;
    }

    private static Pod pod(String ns, String name) {
        return new PodBuilder()
                .withMetadata(new ObjectMetaBuilder()
                        .withName(name)
                        .withNamespace(ns)
                        .withLabels(Map.of("app", "x"))
                        .build())
                .withNewSpec()
                .addNewContainer()
                .withName("main")
                .withImage("sandboxd:test")
                .endContainer()
                .endSpec()
                .build();
    }
}
