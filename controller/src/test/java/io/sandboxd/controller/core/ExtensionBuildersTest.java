package io.sandboxd.controller.core;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.ContainerBuilder;
import io.fabric8.kubernetes.api.model.EnvFromSourceBuilder;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.ObjectMeta;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaimTemplateBuilder;
import io.fabric8.kubernetes.api.model.PodSpecBuilder;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.sandboxd.controller.model.Ref;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxClaim;
import io.sandboxd.controller.model.SandboxTemplate;
import io.sandboxd.controller.model.SandboxWarmPool;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ExtensionBuildersTest {
    static SandboxTemplate template(String name) {
        SandboxTemplate t = new SandboxTemplate();
        t.getMetadata().setName(name);
        t.getMetadata().setNamespace("ns");
        t.getMetadata().setUid("tpl-uid");
        PodTemplateSpec pt = new PodTemplateSpec();
        ObjectMeta m = new ObjectMeta();
        m.setLabels(Map.of("app", "agent"));
        pt.setMetadata(m);
        pt.setSpec(new PodSpecBuilder()
                .withContainers(
                        new ContainerBuilder()
                                .withName("main")
                                .withImage("img")
                                .withEnv(new EnvVar("MODE", "a", null))
                                .build(),
                        new ContainerBuilder().withName("side").withImage("img").build())
                .build());
        t.getSpec().setPodTemplate(pt);
        return t;
    }

    static SandboxWarmPool pool() {
        SandboxWarmPool p = new SandboxWarmPool();
        p.getMetadata().setName("pool");
        p.getMetadata().setNamespace("ns");
        p.getMetadata().setUid("pool-uid");
        p.getSpec().setSandboxTemplateRef(new Ref("tpl"));
        return p;
    }

    static SandboxClaim claim() {
        SandboxClaim c = new SandboxClaim();
        c.getMetadata().setName("claim");
        c.getMetadata().setNamespace("ns");
        c.getMetadata().setUid("claim-uid");
        c.getSpec().setWarmPoolRef(new Ref("pool"));
        return c;
    }

    @Test
    void sandboxesWeBuildNameTheirPodUpFrontSoNoAnnotationWriteFollowsThePodsCreation() {
        assertThat(PoolSandboxes.build(pool(), template("tpl"), Blueprints.hashes(template("tpl")), "pool-abcde", true)
                        .getMetadata()
                        .getAnnotations())
                .containsEntry(Keys.POD_NAME, "pool-abcde");
        assertThat(ClaimSandboxes.cold(claim(), template("tpl")).getMetadata().getAnnotations())
                .containsEntry(Keys.POD_NAME, "claim");
    }

    @Test
    void defaultNetworkPolicyAndSecureDefaults() {
        SandboxTemplate t = template("test-template");
        var np = DesiredNetworkPolicy.build(t);
        assertThat(np.getMetadata().getName()).isEqualTo("test-template-network-policy");
        assertThat(np.getSpec().getPodSelector().getMatchLabels())
                .containsExactly(Map.entry(Keys.TEMPLATE_REF_HASH, "69155462"));
        assertThat(np.getSpec().getEgress().get(0).getTo().get(0).getIpBlock().getExcept())
                .contains("169.254.0.0/16");
        assertThat(np.getMetadata().getOwnerReferences().get(0).getController()).isTrue();

        var spec = new PodSpecBuilder().build();
        Blueprints.applySecureDefaults(spec, t);
        assertThat(spec.getAutomountServiceAccountToken()).isFalse();
        assertThat(spec.getDnsPolicy()).isEqualTo("None");
        assertThat(spec.getDnsConfig().getNameservers()).containsExactly("8.8.8.8", "1.1.1.1");

        var explicit = new PodSpecBuilder()
                .withAutomountServiceAccountToken(true)
                .withDnsPolicy("ClusterFirst")
                .build();
        Blueprints.applySecureDefaults(explicit, t);
        assertThat(explicit.getAutomountServiceAccountToken()).isTrue();
        assertThat(explicit.getDnsPolicy()).isEqualTo("ClusterFirst");

        t.getSpec().setNetworkPolicyManagement("Unmanaged");
        var unmanaged = new PodSpecBuilder().build();
        Blueprints.applySecureDefaults(unmanaged, t);
        assertThat(unmanaged.getDnsPolicy()).isNull();
        assertThat(unmanaged.getAutomountServiceAccountToken()).isFalse();
    }

    @Test
    void poolMembersCarryPoolMarkersAndAreFreshUntilTheSpecChanges() {
        SandboxTemplate t = template("tpl");
        Sandbox sb = PoolSandboxes.build(pool(), t, Blueprints.hashes(t), "pool-abcde", true);
        assertThat(sb.getMetadata().getLabels())
                .containsEntry(Keys.WARM_POOL_SANDBOX, NameHash.of("pool"))
                .containsEntry(Keys.TEMPLATE_REF_HASH, NameHash.of("tpl"))
                .containsEntry(Keys.LAUNCH_TYPE, "warm")
                .containsEntry(Keys.CREATED_BY, "controller")
                .containsKey(Keys.TEMPLATE_HASH);
        assertThat(sb.getSpec().getPodTemplate().getMetadata().getAnnotations())
                .containsEntry(Keys.SAFE_TO_EVICT, "true");
        assertThat(sb.getSpec().getPodTemplate().getMetadata().getLabels()).containsEntry("app", "agent");
        assertThat(sb.getMetadata().getOwnerReferences()).singleElement().satisfies(o -> assertThat(o.getUid())
                .isEqualTo("pool-uid"));
        assertThat(t.getSpec().getPodTemplate().getSpec().getAutomountServiceAccountToken())
                .as("template untouched")
                .isNull();
        assertThat(PoolSandboxes.memberName("pool")).matches("pool-[a-z0-9]{5}");

        assertThat(Blueprints.stale(sb, t)).isFalse();
        SandboxTemplate metaOnly = template("tpl");
        metaOnly.getSpec().getPodTemplate().getMetadata().setLabels(Map.of("app", "other"));
        sb.getMetadata().getLabels().remove(Keys.TEMPLATE_HASH); // force the semantic comparison
        assertThat(Blueprints.stale(sb, metaOnly))
                .as("metadata-only edits never make a member stale")
                .isFalse();
        SandboxTemplate newImage = template("tpl");
        newImage.getSpec().getPodTemplate().getSpec().getContainers().get(0).setImage("img:v2");
        assertThat(Blueprints.stale(sb, newImage)).isTrue();
        assertThat(Blueprints.stale(sb, template("other"))).isTrue();
    }

    @Test
    void excessDeletesNotReadyFirstThenNewest() {
        List<Sandbox> l = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            Sandbox s = new Sandbox();
            s.getMetadata().setName("s" + i);
            s.getMetadata()
                    .setCreationTimestamp(
                            Instant.parse("2026-01-01T00:00:00Z").plusSeconds(i).toString());
            if (i != 1) {
                s.setStatus(new io.sandboxd.controller.model.SandboxStatus());
                s.getStatus().getConditions().add(Conditions.of("Ready", "True", "DependenciesReady", "", 1L));
            }
            l.add(s);
        }
        assertThat(PoolSandboxes.excess(l, 2))
                .extracting(s -> s.getMetadata().getName())
                .containsExactly("s1", "s3");
        assertThat(PoolSandboxes.excess(l, 4)).isEmpty();
    }

    @Test
    void adoptionMovesControllerToClaimAndDropsPoolMarkers() {
        SandboxTemplate t = template("tpl");
        Sandbox member = PoolSandboxes.build(pool(), t, Blueprints.hashes(t), "pool-abcde", true);
        SandboxClaim c = claim();
        c.getMetadata().setLabels(Map.of(Keys.CREATED_BY, "python-client"));
        ClaimSandboxes.Adoption a = ClaimSandboxes.adoption(member, c, t);
        assertThat(a.labels())
                .doesNotContainKeys(Keys.WARM_POOL_SANDBOX, Keys.TEMPLATE_HASH, Keys.POD_TEMPLATE_HASH)
                .containsEntry(Keys.LAUNCH_TYPE, "warm")
                .containsEntry(Keys.CLAIM_UID, "claim-uid")
                .containsEntry(Keys.TEMPLATE_REF_HASH, NameHash.of("tpl"))
                .containsEntry(Keys.CREATED_BY, "python-client");
        assertThat(a.ownerReferences()).singleElement().satisfies(o -> {
            assertThat(o.getKind()).isEqualTo("SandboxClaim");
            assertThat(o.getUid()).isEqualTo("claim-uid");
            assertThat(o.getController()).isTrue();
        });
        assertThat(a.annotations()).containsEntry(Keys.POD_NAME, "pool-abcde");
        assertThat(a.podTemplateMetadata().getAnnotations()).isNull(); // safe-to-evict gone
        assertThat(a.podTemplateMetadata().getLabels()).containsEntry(Keys.CLAIM_UID, "claim-uid");
        assertThat(member.getMetadata().getLabels()).as("input untouched").containsKey(Keys.WARM_POOL_SANDBOX);
        assertThat(member.getMetadata().getLabels()).as("input untouched").doesNotContainKey(Keys.CLAIM_UID);
        assertThat(member.getSpec().getPodTemplate().getMetadata().getAnnotations())
                .as("input untouched")
                .containsKey(Keys.SAFE_TO_EVICT);
        assertThat(member.getMetadata().getOwnerReferences())
                .as("input untouched")
                .singleElement()
                .satisfies(o -> assertThat(o.getKind()).isEqualTo("SandboxWarmPool"));
    }

    @Test
    void coldSandboxEnvAndVctPolicies() {
        SandboxTemplate t = template("tpl");
        SandboxClaim c = claim();
        assertThat(ClaimSandboxes.forcesCold(c)).isFalse();
        Sandbox cold = ClaimSandboxes.cold(c, t);
        assertThat(cold.getMetadata().getName()).isEqualTo("claim");
        assertThat(cold.getMetadata().getLabels())
                .containsEntry(Keys.LAUNCH_TYPE, "cold")
                .containsEntry(Keys.CLAIM_UID, "claim-uid");
        assertThat(cold.getMetadata().getAnnotations()).containsEntry(Keys.TEMPLATE_REF, "tpl");
        assertThat(cold.getSpec().getPodTemplate().getSpec().getAutomountServiceAccountToken())
                .isFalse();

        c.getSpec().setEnv(List.of(new SandboxClaim.EnvVar("NEW", "1")));
        assertThat(ClaimSandboxes.forcesCold(c)).isTrue();
        assertThatThrownBy(() -> ClaimSandboxes.cold(c, t))
                .hasFieldOrPropertyWithValue("reason", "EnvVarsInjectionRejected");
        t.getSpec().setEnvVarsInjectionPolicy("Allowed");
        assertThat(ClaimSandboxes.cold(c, t)
                        .getSpec()
                        .getPodTemplate()
                        .getSpec()
                        .getContainers()
                        .get(0)
                        .getEnv())
                .extracting(EnvVar::getName)
                .containsExactly("MODE", "NEW");
        c.getSpec().setEnv(List.of(new SandboxClaim.EnvVar("MODE", "b")));
        assertThatThrownBy(() -> ClaimSandboxes.cold(c, t))
                .hasMessageContaining("override is not allowed")
                .hasFieldOrPropertyWithValue("reason", "ReconcilerError");
        t.getSpec().setEnvVarsInjectionPolicy("Overrides");
        assertThat(ClaimSandboxes.cold(c, t)
                        .getSpec()
                        .getPodTemplate()
                        .getSpec()
                        .getContainers()
                        .get(0)
                        .getEnv())
                .extracting(e -> e.getName() + "=" + e.getValue())
                .containsExactly("MODE=b");
        var side = new SandboxClaim.EnvVar("S", "1");
        side.setContainerName("side");
        c.getSpec().setEnv(List.of(side));
        assertThat(ClaimSandboxes.cold(c, t)
                        .getSpec()
                        .getPodTemplate()
                        .getSpec()
                        .getContainers()
                        .get(1)
                        .getEnv())
                .extracting(EnvVar::getName)
                .containsExactly("S");
        side.setContainerName("nope");
        assertThatThrownBy(() -> ClaimSandboxes.cold(c, t)).hasMessageContaining("container \"nope\" not found");
        t.getSpec().setEnvVarsInjectionPolicy("Allowed");
        side.setContainerName("side");
        t.getSpec()
                .getPodTemplate()
                .getSpec()
                .getContainers()
                .get(1)
                .setEnvFrom(List.of(new EnvFromSourceBuilder().build()));
        assertThatThrownBy(() -> ClaimSandboxes.cold(c, t))
                .hasFieldOrPropertyWithValue("reason", "EnvVarsInjectionRejected");

        SandboxClaim v = claim();
        v.getSpec()
                .setVolumeClaimTemplates(List.of(new PersistentVolumeClaimTemplateBuilder()
                        .withNewMetadata()
                        .withName("data")
                        .endMetadata()
                        .build()));
        assertThat(ClaimSandboxes.forcesCold(v)).isTrue();
        SandboxTemplate vt = template("tpl");
        assertThatThrownBy(() -> ClaimSandboxes.cold(v, vt))
                .hasFieldOrPropertyWithValue("reason", "VolumeClaimTemplatesError");
        vt.getSpec().setVolumeClaimTemplatesPolicy("Allowed");
        assertThat(ClaimSandboxes.cold(v, vt).getSpec().getVolumeClaimTemplates())
                .hasSize(1);
        vt.getSpec()
                .setVolumeClaimTemplates(List.of(new PersistentVolumeClaimTemplateBuilder()
                        .withNewMetadata()
                        .withName("data")
                        .endMetadata()
                        .build()));
        assertThatThrownBy(() -> ClaimSandboxes.cold(v, vt)).hasMessageContaining("already defined");
        vt.getSpec().setVolumeClaimTemplatesPolicy("Overrides");
        assertThat(ClaimSandboxes.cold(v, vt).getSpec().getVolumeClaimTemplates())
                .hasSize(1);
    }

    @Test
    void additionalPodMetadataValidationAndConflicts() {
        SandboxClaim c = claim();
        var md = new SandboxClaim.PodMetadata();
        c.getSpec().setAdditionalPodMetadata(md);
        md.setLabels(Map.of("team", "x"));
        assertThat(ClaimSandboxes.validateMetadata(c)).contains("domain prefix");
        md.setLabels(Map.of("agents.x-k8s.io/sandbox-name-hash", "x"));
        assertThat(ClaimSandboxes.validateMetadata(c)).contains("restricted");
        md.setLabels(Map.of("sandbox.users.io/team", "x".repeat(64)));
        assertThat(ClaimSandboxes.validateMetadata(c)).contains("invalid value");
        md.setLabels(Map.of("sandbox.users.io/team", "blue"));
        md.setAnnotations(Map.of("kubernetes.io/x", "y"));
        assertThat(ClaimSandboxes.validateMetadata(c)).contains("restricted domain");
        md.setAnnotations(Map.of(Keys.SAFE_TO_EVICT, "false", "example.com/note", "n"));
        assertThat(ClaimSandboxes.validateMetadata(c)).isNull();
        ObjectMeta m = ClaimSandboxes.podTemplateMetadata(c, template("tpl"));
        assertThat(m.getLabels()).containsEntry("sandbox.users.io/team", "blue").containsEntry("app", "agent");
        md.setLabels(Map.of("app", "other"));
        assertThatThrownBy(() -> ClaimSandboxes.podTemplateMetadata(c, template("tpl")))
                .hasMessageContaining("metadata override conflict");
    }

    @Test
    void claimReadyMirrorsTheSandbox() {
        List<io.fabric8.kubernetes.api.model.Condition> conds = new ArrayList<>();
        Instant now = Instant.parse("2026-01-01T00:00:00Z");
        ClaimConditions.apply(conds, null, null, null, false, 1L, now);
        assertThat(conds.get(0).getReason()).isEqualTo("SandboxMissing");
        Sandbox sb = new Sandbox();
        ClaimConditions.apply(conds, sb, null, null, false, 1L, now);
        assertThat(conds.get(0).getReason()).isEqualTo("SandboxNotReady");
        sb.setStatus(new io.sandboxd.controller.model.SandboxStatus());
        sb.getStatus().getConditions().add(Conditions.of("Ready", "True", "DependenciesReady", "Pod is Ready", 4L));
        sb.getStatus()
                .getConditions()
                .add(Conditions.of("Finished", "True", "PodSucceeded", "Pod completed successfully", 4L));
        ClaimConditions.apply(conds, sb, null, null, false, 1L, now);
        assertThat(io.sandboxd.controller.model.Conds.find(conds, "Ready").getReason())
                .isEqualTo("DependenciesReady");
        assertThat(io.sandboxd.controller.model.Conds.find(conds, "Ready").getObservedGeneration())
                .isEqualTo(1L);
        assertThat(io.sandboxd.controller.model.Conds.find(conds, "Finished").getReason())
                .isEqualTo("PodSucceeded");
        sb.getStatus()
                .getConditions()
                .set(0, Conditions.of("Ready", "False", "SandboxExpired", "Sandbox has expired", 4L));
        ClaimConditions.apply(conds, sb, null, null, false, 1L, now);
        assertThat(io.sandboxd.controller.model.Conds.find(conds, "Ready").getReason())
                .isEqualTo("SandboxExpired");
        ClaimConditions.apply(conds, sb, "WarmPoolNotFound", "SandboxWarmPool \"p\" not found", false, 1L, now);
        assertThat(io.sandboxd.controller.model.Conds.find(conds, "Ready").getMessage())
                .isEqualTo("SandboxWarmPool \"p\" not found");
    }
}
