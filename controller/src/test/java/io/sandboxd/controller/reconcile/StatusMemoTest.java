package io.sandboxd.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.controller.model.SandboxClaim;
import org.junit.jupiter.api.Test;

class StatusMemoTest {
    static SandboxClaim at(String rv) {
        SandboxClaim c = new SandboxClaim();
        c.getMetadata().setUid("u");
        c.getMetadata().setResourceVersion(rv);
        return c;
    }

    @Test
    void ourWriteIsTheBaseUntilTheCacheShowsItOrANewerVersion() {
        StatusMemo<String> m = new StatusMemo<>();
        assertThat(m.current(at("1"), "cached")).isEqualTo("cached");
        m.wrote(at("1"), "2", "ours");
        assertThat(m.current(at("1"), "stale"))
                .as("cache still at the version we wrote over")
                .isEqualTo("ours");
        assertThat(m.current(at("2"), "seen")).as("cache caught up").isEqualTo("seen");
        assertThat(m.current(at("1"), "stale")).as("memo ended").isEqualTo("stale");
    }

    @Test
    void aSecondWriteBeforeTheCacheCaughtUpKeepsBothOlderVersions() {
        StatusMemo<String> m = new StatusMemo<>();
        m.wrote(at("1"), "2", "first");
        m.wrote(at("1"), "3", "second"); // reconciled again from the stale cache
        assertThat(m.current(at("2"), "has first only"))
                .as("our first write is older than our second")
                .isEqualTo("second");
        assertThat(m.current(at("3"), "has second")).isEqualTo("has second");
    }

    @Test
    void someoneElsesNewerVersionEndsTheMemo() {
        StatusMemo<String> m = new StatusMemo<>();
        m.wrote(at("1"), "2", "ours");
        assertThat(m.current(at("7"), "theirs")).isEqualTo("theirs");
    }

    @Test
    void aWriteWhoseAnswerHadNoVersionIsForgotten() {
        StatusMemo<String> m = new StatusMemo<>();
        m.wrote(at("1"), "2", "first");
        m.wrote(at("1"), null, "second");
        assertThat(m.current(at("1"), "cached"))
                .as("no version to tell our write's echo by: start from the cache")
                .isEqualTo("cached");
        assertThat(m.showsOurWrite(at("2"), "first")).isFalse();
    }
}
