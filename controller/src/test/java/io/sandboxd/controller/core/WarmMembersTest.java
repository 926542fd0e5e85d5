package io.sandboxd.controller.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.fabric8.kubernetes.api.model.Condition;
import io.fabric8.kubernetes.api.model.OwnerReference;
import io.sandboxd.controller.model.Sandbox;
import io.sandboxd.controller.model.SandboxStatus;
import io.sandboxd.controller.model.SandboxTemplate;
import io.sandboxd.controller.model.SandboxWarmPool;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;

/** Every rule that makes a Sandbox a warm member a claim may adopt, one at a time. */
public class WarmMembersTest {
    static final SandboxTemplate TPL = ExtensionBuildersTest.template("tpl");

    static SandboxWarmPool pool() {
        SandboxWarmPool p = ExtensionBuildersTest.pool();
        p.setApiVersion("extensions.agents.x-k8s.io/v1beta1");
        return p;
    }

    /** A Ready member built by the pool, as the pool controller creates it. */
    public static Sandbox member(String name, String created) {
        Sandbox sb = PoolSandboxes.build(pool(), TPL, Blueprints.hashes(TPL), name, true);
        sb.getMetadata().setUid(name + "-uid");
        sb.getMetadata().setCreationTimestamp(created);
        sb.getMetadata().setResourceVersion("1");
        SandboxStatus st = new SandboxStatus();
        List<Condition> conds = new ArrayList<>();
        conds.add(Conditions.of(SandboxConditions.READY, Conditions.TRUE, "DependenciesReady", "ready", 1L));
        st.setConditions(conds);
        sb.setStatus(st);
        return sb;
    }

    static Sandbox with(Consumer<Sandbox> change) {
        Sandbox sb = member("pool-abcde", "2026-01-01T00:00:00Z");
        change.accept(sb);
        return sb;
    }

    static void label(Sandbox sb, String key, String value) {
        Map<String, String> l = new LinkedHashMap<>(sb.getMetadata().getLabels());
        if (value == null) l.remove(key);
        else l.put(key, value);
        sb.getMetadata().setLabels(l);
    }

    @Test
    void aReadyPoolControlledLabelledMemberIsAvailableInItsPool() {
        WarmMembers.PoolRef in = WarmMembers.availableIn(with(sb -> {}));
        assertThat(in).isEqualTo(new WarmMembers.PoolRef("ns", "pool", "pool-uid"));
        assertThat(WarmMembers.adoptable(with(sb -> {}), pool(), TPL)).isTrue();
    }

    @Test
    void notReadyDeletingUnlabelledOrNotPoolControlledMembersAreNotAvailable() {
        assertThat(WarmMembers.availableIn(with(sb -> sb.setStatus(null))))
                .as("no status")
                .isNull();
        assertThat(WarmMembers.availableIn(
                        with(sb -> sb.getStatus().getConditions().get(0).setStatus("False"))))
                .as("not Ready")
                .isNull();
        assertThat(WarmMembers.availableIn(with(sb -> sb.getMetadata().setDeletionTimestamp("2026-01-01T00:00:01Z"))))
                .as("deleting")
                .isNull();
        assertThat(WarmMembers.availableIn(with(sb -> label(sb, Keys.WARM_POOL_SANDBOX, null))))
                .as("no pool label")
                .isNull();
        assertThat(WarmMembers.availableIn(with(sb -> label(sb, Keys.TEMPLATE_REF_HASH, null))))
                .as("no template label")
                .isNull();
        assertThat(WarmMembers.availableIn(with(sb -> label(sb, Keys.WARM_POOL_SANDBOX, NameHash.of("other")))))
                .as("labelled for another pool")
                .isNull();
        assertThat(WarmMembers.availableIn(with(sb -> sb.getMetadata().setOwnerReferences(List.of()))))
                .as("orphan")
                .isNull();
        assertThat(WarmMembers.availableIn(
                        with(sb -> sb.getMetadata().getOwnerReferences().get(0).setController(false))))
                .as("owner but not controller")
                .isNull();
        assertThat(WarmMembers.availableIn(with(sb -> sb.getMetadata()
                        .setOwnerReferences(List.of(Ownership.controllerRef(ExtensionBuildersTest.claim()))))))
                .as("already claimed")
                .isNull();
        assertThat(WarmMembers.availableIn(with(sb -> {
                    OwnerReference r = sb.getMetadata().getOwnerReferences().get(0);
                    r.setApiVersion("example.com/v1");
                })))
                .as("a SandboxWarmPool of another group")
                .isNull();
    }

    @Test
    void adoptableOnlyByTheSamePoolObjectAndUnderRecreateOnlyWhenFresh() {
        SandboxWarmPool namesake = pool();
        namesake.getMetadata().setUid("new-uid");
        assertThat(WarmMembers.adoptable(with(sb -> {}), namesake, TPL))
                .as("pool recreated under the same name")
                .isFalse();
        SandboxWarmPool elsewhere = pool();
        elsewhere.getMetadata().setNamespace("other");
        assertThat(WarmMembers.adoptable(with(sb -> {}), elsewhere, TPL)).isFalse();

        SandboxTemplate changed = ExtensionBuildersTest.template("tpl");
        changed.getSpec().getPodTemplate().getSpec().getContainers().get(0).setImage("img:v2");
        SandboxWarmPool recreate = pool();
        recreate.getSpec().setUpdateStrategy(new SandboxWarmPool.UpdateStrategy());
        recreate.getSpec().getUpdateStrategy().setType("Recreate");
        assertThat(WarmMembers.adoptable(with(sb -> {}), recreate, changed))
                .as("stale under Recreate")
                .isFalse();
        assertThat(WarmMembers.adoptable(with(sb -> {}), recreate, TPL))
                .as("fresh under Recreate")
                .isTrue();
        assertThat(WarmMembers.adoptable(with(sb -> {}), pool(), changed))
                .as("stale under OnReplenish")
                .isTrue();
    }
}
