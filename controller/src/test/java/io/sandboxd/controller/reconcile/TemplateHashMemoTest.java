package io.sandboxd.controller.reconcile;

import static io.sandboxd.controller.reconcile.VersionedTemplates.template;
import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.controller.core.Blueprints;
import io.sandboxd.controller.model.SandboxTemplate;
import org.junit.jupiter.api.Test;

class TemplateHashMemoTest {
    @Test
    void sameVersionIsHashedOnce() {
        TemplateHashMemo memo = new TemplateHashMemo();
        Blueprints.Hashes first = memo.of(template("a", "7", "img:1"));
        assertThat(first).isEqualTo(Blueprints.hashes(template("a", "7", "img:1")));
        assertThat(memo.of(template("a", "7", "img:1"))).isSameAs(first);
    }

    @Test
    void aNewVersionIsHashedAfresh() {
        TemplateHashMemo memo = new TemplateHashMemo();
        Blueprints.Hashes before = memo.of(template("a", "7", "img:1"));
        Blueprints.Hashes after = memo.of(template("a", "8", "img:2"));
        assertThat(after).isEqualTo(Blueprints.hashes(template("a", "8", "img:2")));
        assertThat(after.podTemplate()).isNotEqualTo(before.podTemplate());
        assertThat(after.blueprint()).isNotEqualTo(before.blueprint());
    }

    @Test
    void templatesAreKeptApart() {
        TemplateHashMemo memo = new TemplateHashMemo();
        memo.of(template("a", "7", "img:1"));
        assertThat(memo.of(template("b", "7", "img:2"))).isEqualTo(Blueprints.hashes(template("b", "7", "img:2")));
    }

    @Test
    void aTemplateWithoutVersionIsAlwaysHashed() {
        TemplateHashMemo memo = new TemplateHashMemo();
        Blueprints.Hashes first = memo.of(template("a", null, "img:1"));
        SandboxTemplate edited = template("a", null, "img:2");
        assertThat(memo.of(edited)).isEqualTo(Blueprints.hashes(edited)).isNotEqualTo(first);
    }

    @Test
    void staysCorrectPastItsBound() {
        TemplateHashMemo memo = new TemplateHashMemo();
        for (int i = 0; i <= TemplateHashMemo.MAX_TEMPLATES + 1; i++) memo.of(template("t" + i, "1", "img:" + i));
        SandboxTemplate t = template("t3", "1", "img:3");
        assertThat(memo.of(t)).isEqualTo(Blueprints.hashes(t));
    }
}
