package io.sandboxd.controller.it;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimTemplateBuilder;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.PodBuilder;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import io.sandboxd.controller.core.Keys;
import io.sandboxd.controller.core.NameHash;
import io.sandboxd.controller.core.Ownership;
import io.sandboxd.controller.model.Sandbox;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The Sandbox controller end to end on fabric8's CRUD mock API server (as upstream agent-sandbox does). */
class SandboxControllerIT extends HarnessTestBase {
    private Pod pod(String ns, String name) {
        return client.pods().inNamespace(ns).withName(name).get();
    }

    @Test
    void minimalSpecCreatesOwnedPodAndNoServiceThenReadyWhenPodIsReady() {
        String ns = ControllerHarness.namespace("minimal");
        client.resource(ControllerHarness.sandbox(ns, "sb1")).create();
        Await.until("pod created", () -> pod(ns, "sb1") != null);
        Await.until(
                "Ready=False DependenciesNotReady",
                () -> h.hasCondition(ns, "sb1", "Ready", "False", "DependenciesNotReady"));

        Sandbox sb = h.get(ns, "sb1");
        Pod pod = pod(ns, "sb1");
        assertThat(pod.getMetadata().getLabels()).containsEntry(Keys.SANDBOX_NAME_HASH, NameHash.of("sb1"));
        assertThat(Ownership.controlledBy(pod, sb)).isTrue();
        assertThat(Ownership.controllerOf(pod).getBlockOwnerDeletion()).isTrue();
        assertThat(Ownership.controllerOf(pod).getApiVersion()).isEqualTo("agents.x-k8s.io/v1beta1");
        assertThat(client.services().inNamespace(ns).withName("sb1").get()).isNull();
        assertThat(h.condition(ns, "sb1", "Ready").getMessage()).isEqualTo("Pod exists with phase: ");
        assertThat(h.condition(ns, "sb1", "Suspended").getReason()).isEqualTo("NotSuspended");

        h.kubelet.start(ns, "sb1");
        Await.until("Ready=True", () -> h.hasCondition(ns, "sb1", "Ready", "True", "DependenciesReady"));
        sb = h.get(ns, "sb1");
        assertThat(h.condition(ns, "sb1", "Ready").getMessage()).isEqualTo("Pod is Ready");
        assertThat(h.condition(ns, "sb1", "Ready").getObservedGeneration())
                .isEqualTo(sb.getMetadata().getGeneration());
        assertThat(h.condition(ns, "sb1", "PodScheduled").getStatus()).isEqualTo("True");
        assertThat(h.condition(ns, "sb1", "PodScheduled").getReason()).isEqualTo("PodScheduled");
        assertThat(sb.getStatus().getPodIPs()).hasSize(1);
        assertThat(sb.getStatus().getNodeName()).isEqualTo("node-1");
        assertThat(sb.getStatus().getSelector()).isEqualTo(Keys.SANDBOX_NAME_HASH + "=" + NameHash.of("sb1"));
        assertThat(sb.getStatus().getService()).isNull();
        assertThat(sb.getMetadata().getAnnotations()).containsEntry(Keys.POD_NAME, "sb1");
        assertThat(h.condition(ns, "sb1", "Finished")).isNull();
    }

    /**
     * CRDs newer than the controller (installed first in an upgrade) let the API server send fields
     * the controller's model lacks; the Sandbox is still reconciled (a model that refused them
     * stopped the whole Sandbox informer).
     */
    @Test
    void aSandboxWithFieldsFromANewerSchemaIsReconciled() {
        String ns = ControllerHarness.namespace("newer");
        h.kubelet.auto(ns);
        GenericKubernetesResource newer = client.getKubernetesSerialization()
                .convertValue(ControllerHarness.sandbox(ns, "nb"), GenericKubernetesResource.class);
        Map<String, Object> spec = newer.get("spec");
        spec.put("fromANewerSchema", Map.of("x", List.of(1, 2)));
        newer.setAdditionalProperty("status", Map.of("fromANewerSchema", "y"));
        client.genericKubernetesResources(ResourceDefinitionContext.fromResourceType(Sandbox.class))
                .inNamespace(ns)
                .resource(newer)
                .create();
        Await.until("Ready=True", () -> h.hasCondition(ns, "nb", "Ready", "True", "DependenciesReady"));
        assertThat(pod(ns, "nb")).isNotNull();
        assertThat(h.get(ns, "nb").getStatus().getPodIPs()).hasSize(1);
    }

    @Test
    void podAndHeadlessServiceWithStatusFqdn() {
        String ns = ControllerHarness.namespace("svc");
        h.kubelet.auto(ns);
        Sandbox sb = ControllerHarness.sandbox(ns, "web");
        sb.getSpec().setService(true);
        client.resource(sb).create();
        Await.until("Ready=True with service", () -> h.hasCondition(ns, "web", "Ready", "True", "DependenciesReady"));
        assertThat(h.condition(ns, "web", "Ready").getMessage()).isEqualTo("Pod is Ready; Service Exists");
        Service svc = client.services().inNamespace(ns).withName("web").get();
        assertThat(svc.getSpec().getClusterIP()).isEqualTo("None");
        assertThat(svc.getSpec().getSelector()).isEqualTo(Map.of(Keys.SANDBOX_NAME_HASH, NameHash.of("web")));
        assertThat(svc.getSpec().getPorts())
                .extracting(p -> p.getName() + ":" + p.getPort())
                .containsExactly("http:8080", "p-9090-tcp:9090");
        assertThat(Ownership.controlledBy(svc, h.get(ns, "web"))).isTrue();
        Sandbox got = h.get(ns, "web");
        assertThat(got.getStatus().getService()).isEqualTo("web");
        assertThat(got.getStatus().getServiceFQDN()).isEqualTo("web." + ns + ".svc.cluster.local");

        // service: false deletes the owned Service and clears the status.
        h.patchSandboxSpec(ns, "web", "service", false);
        Await.until(
                "service deleted",
                () -> client.services().inNamespace(ns).withName("web").get() == null);
        Await.until(
                "status cleared",
                () -> h.get(ns, "web").getStatus().getServiceFQDN() == null
                        && "Pod is Ready".equals(h.condition(ns, "web", "Ready").getMessage()));
    }

    @Test
    void volumeClaimTemplatesBecomeOwnedLabelledPvcsMountedInThePod() {
        String ns = ControllerHarness.namespace("pvc");
        Sandbox sb = ControllerHarness.sandbox(ns, "vol");
        sb.getSpec()
                .setVolumeClaimTemplates(List.of(new PersistentVolumeClaimTemplateBuilder()
                        .withNewMetadata()
                        .withName("data")
                        .withLabels(Map.of("tier", "fast"))
                        .endMetadata()
                        .withNewSpec()
                        .withAccessModes("ReadWriteOnce")
                        .withNewResources()
                        .withRequests(Map.of("storage", new Quantity("1Gi")))
                        .endResources()
                        .endSpec()
                        .build()));
        client.resource(sb).create();
        Await.until(
                "PVC created",
                () -> client.persistentVolumeClaims()
                                .inNamespace(ns)
                                .withName("data-vol")
                                .get()
                        != null);
        Await.until("pod created", () -> pod(ns, "vol") != null);
        PersistentVolumeClaim pvc = client.persistentVolumeClaims()
                .inNamespace(ns)
                .withName("data-vol")
                .get();
        assertThat(pvc.getMetadata().getLabels())
                .containsEntry("tier", "fast")
                .containsEntry(Keys.SANDBOX_NAME_HASH, NameHash.of("vol"));
        assertThat(Ownership.controlledBy(pvc, h.get(ns, "vol"))).isTrue();
        assertThat(pod(ns, "vol").getSpec().getVolumes()).anySatisfy(v -> {
            assertThat(v.getName()).isEqualTo("data");
            assertThat(v.getPersistentVolumeClaim().getClaimName()).isEqualTo("data-vol");
        });
    }

    @Test
    void adoptsOnlyAdoptableOrHashLabelledPodsAndRefusesForeignOnes() {
        String ns = ControllerHarness.namespace("adopt");
        // 1. adoptable=true: adopted in place, same UID.
        Pod unowned = client.pods()
                .inNamespace(ns)
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName("a1")
                        .withLabels(Map.of(Keys.ADOPTABLE, "true"))
                        .endMetadata()
                        .withSpec(ControllerHarness.sandbox(ns, "a1")
                                .getSpec()
                                .getPodTemplate()
                                .getSpec())
                        .build())
                .create();
        // 2. plain unowned pod: refused.
        client.pods()
                .inNamespace(ns)
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName("a2")
                        .withLabels(Map.of(Keys.SANDBOX_NAME_HASH, "deadbeef"))
                        .endMetadata()
                        .withSpec(unowned.getSpec())
                        .build())
                .create();
        // 3. pod controlled by something else: refused.
        client.pods()
                .inNamespace(ns)
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName("a3")
                        .withLabels(Map.of(Keys.SANDBOX_NAME_HASH, NameHash.of("a3")))
                        .addNewOwnerReference()
                        .withApiVersion("apps/v1")
                        .withKind("ReplicaSet")
                        .withName("rs")
                        .withUid("uid-rs")
                        .withController(true)
                        .endOwnerReference()
                        .endMetadata()
                        .withSpec(unowned.getSpec())
                        .build())
                .create();
        // 4. carries this sandbox's hash label: adopted.
        Pod hashed = client.pods()
                .inNamespace(ns)
                .resource(new PodBuilder()
                        .withNewMetadata()
                        .withName("a4")
                        .withLabels(Map.of(Keys.SANDBOX_NAME_HASH, NameHash.of("a4")))
                        .endMetadata()
                        .withSpec(unowned.getSpec())
                        .build())
                .create();
        for (String n : List.of("a1", "a2", "a3", "a4"))
            client.resource(ControllerHarness.sandbox(ns, n)).create();

        Await.until("a1 adopted", () -> Ownership.controlledBy(pod(ns, "a1"), h.get(ns, "a1")));
        assertThat(pod(ns, "a1").getMetadata().getUid())
                .isEqualTo(unowned.getMetadata().getUid());
        assertThat(pod(ns, "a1").getMetadata().getLabels()).containsEntry(Keys.SANDBOX_NAME_HASH, NameHash.of("a1"));
        Await.until("a4 adopted", () -> Ownership.controlledBy(pod(ns, "a4"), h.get(ns, "a4")));
        assertThat(pod(ns, "a4").getMetadata().getUid())
                .isEqualTo(hashed.getMetadata().getUid());

        Await.until("a2 refused", () -> h.hasCondition(ns, "a2", "Ready", "False", "ReconcilerError"));
        assertThat(h.condition(ns, "a2", "Ready").getMessage())
                .startsWith("Error seen: cannot adopt unowned pod \"a2\"");
        assertThat(Ownership.controllerOf(pod(ns, "a2"))).isNull();
        Await.until("a3 refused", () -> h.hasCondition(ns, "a3", "Ready", "False", "ReconcilerError"));
        assertThat(h.condition(ns, "a3", "Ready").getMessage())
                .isEqualTo("Error seen: pod \"a3\" is owned by ReplicaSet/rs (UID: uid-rs), not by sandbox \"a3\"");
        assertThat(Ownership.controllerOf(pod(ns, "a3")).getKind()).isEqualTo("ReplicaSet");
    }

    @Test
    void reservedKeysInPodTemplateAreDroppedSoATenantCannotJoinAnotherSandboxsService() {
        String ns = ControllerHarness.namespace("reserved");
        h.kubelet.auto(ns);
        Sandbox victim = ControllerHarness.sandbox(ns, "victim");
        victim.getSpec().setService(true);
        client.resource(victim).create();
        Sandbox attacker = ControllerHarness.sandbox(ns, "attacker");
        ObjectMeta meta = new ObjectMeta();
        meta.setLabels(Map.of(
                Keys.SANDBOX_NAME_HASH,
                NameHash.of("victim"),
                Keys.WARM_POOL_SANDBOX,
                "x",
                "extensions.agents.x-k8s.io/anything",
                "y",
                "team",
                "blue"));
        meta.setAnnotations(Map.of(
                Keys.POD_NAME, "victim", "extensions.agents.x-k8s.io/a", "b", Keys.TRACE_CONTEXT, "t", "note", "kept"));
        attacker.getSpec().getPodTemplate().setMetadata(meta);
        client.resource(attacker).create();
        Await.until("attacker ready", () -> h.hasCondition(ns, "attacker", "Ready", "True", "DependenciesReady"));
        Await.until("victim ready", () -> h.hasCondition(ns, "victim", "Ready", "True", "DependenciesReady"));

        Pod p = pod(ns, "attacker");
        assertThat(p.getMetadata().getLabels())
                .containsEntry(Keys.SANDBOX_NAME_HASH, NameHash.of("attacker"))
                .containsEntry("team", "blue")
                .doesNotContainKeys(Keys.WARM_POOL_SANDBOX, "extensions.agents.x-k8s.io/anything");
        assertThat(p.getMetadata().getAnnotations())
                .containsEntry("note", "kept")
                .doesNotContainKeys(Keys.POD_NAME, "extensions.agents.x-k8s.io/a", Keys.TRACE_CONTEXT)
                .containsEntry(Keys.PROPAGATED_LABELS, "team")
                .containsEntry(Keys.PROPAGATED_ANNOTATIONS, "note");
        Service svc = client.services().inNamespace(ns).withName("victim").get();
        List<Pod> selected = client.pods()
                .inNamespace(ns)
                .withLabels(svc.getSpec().getSelector())
                .list()
                .getItems();
        assertThat(selected).extracting(x -> x.getMetadata().getName()).containsExactly("victim");
    }

    @Test
    void suspendAndResumeTwiceKeepsSandboxAndPvcsAndRecreatesThePod() {
        String ns = ControllerHarness.namespace("suspend");
        h.kubelet.auto(ns);
        Sandbox sb = ControllerHarness.sandbox(ns, "s1");
        sb.getSpec().setService(true);
        sb.getSpec()
                .setVolumeClaimTemplates(List.of(new PersistentVolumeClaimTemplateBuilder()
                        .withNewMetadata()
                        .withName("home")
                        .endMetadata()
                        .withNewSpec()
                        .withAccessModes("ReadWriteOnce")
                        .endSpec()
                        .build()));
        client.resource(sb).create();
        Await.until("ready", () -> h.hasCondition(ns, "s1", "Ready", "True", "DependenciesReady"));
        String pvcUid = client.persistentVolumeClaims()
                .inNamespace(ns)
                .withName("home-s1")
                .get()
                .getMetadata()
                .getUid();
        List<String> podUids = new ArrayList<>();
        podUids.add(pod(ns, "s1").getMetadata().getUid());
        String lastSuspendedTransition = null;

        for (int round = 0; round < 2; round++) {
            setMode(ns, "s1", "Suspended");
            Await.until("suspended", () -> h.hasCondition(ns, "s1", "Suspended", "True", "PodTerminated"));
            Await.until("ready=SandboxSuspended", () -> h.hasCondition(ns, "s1", "Ready", "False", "SandboxSuspended"));
            assertThat(pod(ns, "s1")).isNull();
            Sandbox s = h.get(ns, "s1");
            assertThat(s.getStatus().getPodIPs()).isNullOrEmpty();
            assertThat(s.getStatus().getNodeName()).isNull();
            assertThat(s.getStatus().getSelector()).isNotNull();
            assertThat(s.getStatus().getService()).isEqualTo("s1");
            assertThat(h.condition(ns, "s1", "Ready").getMessage()).isEqualTo("Sandbox is suspended");
            assertThat(s.getMetadata().getAnnotations()).doesNotContainKey(Keys.POD_NAME);
            assertThat(client.persistentVolumeClaims()
                            .inNamespace(ns)
                            .withName("home-s1")
                            .get()
                            .getMetadata()
                            .getUid())
                    .isEqualTo(pvcUid);
            assertThat(client.services().inNamespace(ns).withName("s1").get()).isNotNull();
            String t = h.condition(ns, "s1", "Suspended").getLastTransitionTime();
            assertThat(t).isNotNull();
            lastSuspendedTransition = t;

            setMode(ns, "s1", "Running");
            Await.until(
                    "resumed ready",
                    () -> h.hasCondition(ns, "s1", "Ready", "True", "DependenciesReady")
                            && h.hasCondition(ns, "s1", "Suspended", "False", "NotSuspended"));
            Pod p = pod(ns, "s1");
            assertThat(podUids).doesNotContain(p.getMetadata().getUid());
            podUids.add(p.getMetadata().getUid());
            assertThat(p.getSpec().getVolumes())
                    .anySatisfy(v -> assertThat(v.getPersistentVolumeClaim().getClaimName())
                            .isEqualTo("home-s1"));
            assertThat(h.get(ns, "s1").getStatus().getPodIPs()).hasSize(1);
        }
        assertThat(podUids).hasSize(3);
        assertThat(lastSuspendedTransition).isNotNull();
    }

    private void setMode(String ns, String name, String mode) {
        h.patchSandboxSpec(ns, name, "operatingMode", mode);
    }

    @Test
    void expiryWithRetainKeepsTheSandboxAndClearsStatusWithDeleteRemovesIt() {
        String ns = ControllerHarness.namespace("expiry");
        h.kubelet.auto(ns);
        for (String policy : List.of("Retain", "Delete")) {
            String name = "exp-" + policy.toLowerCase();
            Sandbox sb = ControllerHarness.sandbox(ns, name);
            sb.getSpec().setService(true);
            sb.getSpec().setShutdownPolicy(policy);
            sb.getSpec()
                    .setShutdownTime(Instant.now().plus(Duration.ofSeconds(4)).toString());
            client.resource(sb).create();
        }
        Await.until("retain ready", () -> h.hasCondition(ns, "exp-retain", "Ready", "True", "DependenciesReady"));
        Await.until(
                "retain expired",
                () -> h.hasCondition(ns, "exp-retain", "Ready", "False", "SandboxExpired")
                        && h.get(ns, "exp-retain").getStatus().getService() == null);
        Sandbox retained = h.get(ns, "exp-retain");
        assertThat(h.condition(ns, "exp-retain", "Ready").getMessage()).isEqualTo("Sandbox has expired");
        assertThat(h.condition(ns, "exp-retain", "PodScheduled")).isNull();
        assertThat(h.condition(ns, "exp-retain", "Suspended")).isNotNull();
        assertThat(retained.getStatus().getPodIPs()).isNullOrEmpty();
        assertThat(retained.getStatus().getSelector()).isNull();
        Await.until("retain pod deleted", () -> pod(ns, "exp-retain") == null);
        assertThat(client.services().inNamespace(ns).withName("exp-retain").get())
                .isNull();

        Await.until("delete policy removes the sandbox", () -> h.get(ns, "exp-delete") == null);
        assertThat(pod(ns, "exp-delete")).isNull();
        assertThat(client.services().inNamespace(ns).withName("exp-delete").get())
                .isNull();
    }

    @Test
    void multipleOwnedPodsGiveMultiplePodsWithoutCreatingOrChoosing() {
        String ns = ControllerHarness.namespace("multi");
        client.resource(ControllerHarness.sandbox(ns, "m1")).create();
        Await.until("pod created", () -> pod(ns, "m1") != null);
        Sandbox sb = h.get(ns, "m1");
        Pod extra = new PodBuilder(pod(ns, "m1"))
                .editMetadata()
                .withName("m1-extra")
                .withResourceVersion(null)
                .withUid(null)
                .endMetadata()
                .withStatus(null)
                .build();
        client.pods().inNamespace(ns).resource(extra).create();
        Await.until("MultiplePods", () -> h.hasCondition(ns, "m1", "Ready", "False", "MultiplePods"));
        Condition ready = h.condition(ns, "m1", "Ready");
        assertThat(ready.getMessage())
                .isEqualTo("multiple Pods (2) are controlled by this Sandbox; refusing to choose or create a Pod");
        assertThat(client.pods().inNamespace(ns).list().getItems()).hasSize(2);
        assertThat(sb.getMetadata().getUid()).isNotNull();

        client.pods().inNamespace(ns).withName("m1-extra").delete();
        Await.until("back to one pod", () -> h.hasCondition(ns, "m1", "Ready", "False", "DependenciesNotReady"));
    }

    @Test
    void podDeletedWhileRunningIsRecreatedAndSuspendedStaysFalse() {
        String ns = ControllerHarness.namespace("recreate");
        h.kubelet.auto(ns);
        client.resource(ControllerHarness.sandbox(ns, "r1")).create();
        Await.until("ready", () -> h.hasCondition(ns, "r1", "Ready", "True", "DependenciesReady"));
        String uid = pod(ns, "r1").getMetadata().getUid();
        client.pods().inNamespace(ns).withName("r1").delete();
        Await.until(
                "recreated",
                () -> pod(ns, "r1") != null
                        && !uid.equals(pod(ns, "r1").getMetadata().getUid()));
        Await.until("ready again", () -> h.hasCondition(ns, "r1", "Ready", "True", "DependenciesReady"));
        assertThat(h.condition(ns, "r1", "Suspended").getReason()).isEqualTo("NotSuspended");
    }

    @Test
    void finishedPodGivesFinishedCondition() {
        String ns = ControllerHarness.namespace("finished");
        client.resource(ControllerHarness.sandbox(ns, "f1")).create();
        Await.until("pod", () -> pod(ns, "f1") != null);
        h.kubelet.setPhase(ns, "f1", "Succeeded");
        Await.until("Finished", () -> h.hasCondition(ns, "f1", "Finished", "True", "PodSucceeded"));
        assertThat(h.condition(ns, "f1", "Ready").getReason()).isEqualTo("PodSucceeded");
    }
}
