package io.sandboxd.controller.reconcile;

import static io.sandboxd.controller.reconcile.VersionedTemplates.template;
import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.controller.core.Blueprints;
import io.sandboxd.controller.core.Copies;
import io.sandboxd.controller.core.PoolSandboxes;
import io.sandboxd.controller.model.SandboxTemplate;
import io.sandboxd.controller.model.SandboxWarmPool;
import org.junit.jupiter.api.Test;

class MemberSpecMemoTest {
    private static SandboxWarmPool pool(String uid, String name) {
        SandboxWarmPool p = new SandboxWarmPool();
        p.getMetadata().setName(name);
        p.getMetadata().setNamespace("ns");
        p.getMetadata().setUid(uid);
        return p;
    }

    /** What the memo must answer: a member's spec built afresh, and its JSON. */
    private static void assertBuiltAfresh(MemberSpecMemo.MemberSpec m, SandboxWarmPool p, SandboxTemplate t) {
        var fresh = PoolSandboxes.spec(p, t, Blueprints.hashes(t), true);
        assertThat(Copies.json(m.spec())).isEqualTo(Copies.json(fresh));
        assertThat(m.json()).isEqualTo(Copies.json(fresh));
    }

    @Test
    void oneBuildPerPoolAndTemplateVersion() {
        MemberSpecMemo memo = new MemberSpecMemo();
        SandboxTemplate t = template("t", "7", "img:1");
        MemberSpecMemo.MemberSpec first = memo.of(pool("p", "pool"), t, Blueprints.hashes(t));
        assertBuiltAfresh(first, pool("p", "pool"), t);
        SandboxTemplate same = template("t", "7", "img:1");
        assertThat(memo.of(pool("p", "pool"), same, Blueprints.hashes(same))).isSameAs(first);
    }

    @Test
    void anEditedTemplateOrAnotherPoolIsBuiltAfresh() {
        MemberSpecMemo memo = new MemberSpecMemo();
        SandboxTemplate t = template("t", "7", "img:1");
        MemberSpecMemo.MemberSpec first = memo.of(pool("p", "pool"), t, Blueprints.hashes(t));

        SandboxTemplate edited = template("t", "8", "img:2");
        MemberSpecMemo.MemberSpec afterEdit = memo.of(pool("p", "pool"), edited, Blueprints.hashes(edited));
        assertBuiltAfresh(afterEdit, pool("p", "pool"), edited);
        assertThat(afterEdit.json()).isNotEqualTo(first.json());

        // another pool: its name is in the members' pod template labels
        MemberSpecMemo.MemberSpec other = memo.of(pool("q", "other"), edited, Blueprints.hashes(edited));
        assertBuiltAfresh(other, pool("q", "other"), edited);
        assertThat(other.json()).isNotEqualTo(afterEdit.json());

        // the pool switched to another template that happens to have the same version
        SandboxTemplate second = template("u", "8", "img:3");
        assertBuiltAfresh(memo.of(pool("p", "pool"), second, Blueprints.hashes(second)), pool("p", "pool"), second);
    }

    @Test
    void aTemplateWithoutVersionIsAlwaysBuilt() {
        MemberSpecMemo memo = new MemberSpecMemo();
        SandboxTemplate t = template("t", null, "img:1");
        memo.of(pool("p", "pool"), t, Blueprints.hashes(t));
        SandboxTemplate edited = template("t", null, "img:2");
        assertBuiltAfresh(memo.of(pool("p", "pool"), edited, Blueprints.hashes(edited)), pool("p", "pool"), edited);
    }
}
