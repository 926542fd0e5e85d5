package io.sandboxd.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.fabric8.kubernetes.api.model.OwnerReference;
import io.sandboxd.controller.model.SandboxWarmPool;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

/**
 * Only the echo of our own status write is dropped: the version that write made, with nothing
 * but the status changed. Any other change of the metadata a reconcile reads, or a version we did
 * not make, still reconciles.
 */
class OwnStatusEchoesTest {
    static SandboxWarmPool pool(String resourceVersion, int replicas) {
        SandboxWarmPool p = new SandboxWarmPool();
        p.getMetadata().setName("pool");
        p.getMetadata().setNamespace("ns");
        p.getMetadata().setUid("pool-uid");
        p.getMetadata().setGeneration(3L);
        p.getMetadata().setResourceVersion(resourceVersion);
        p.getMetadata().setLabels(Map.of("a", "b"));
        p.getMetadata().setAnnotations(Map.of("c", "d"));
        SandboxWarmPool.Status st = new SandboxWarmPool.Status();
        st.setReplicas(replicas);
        p.setStatus(st);
        return p;
    }

    /** A memo that saw our write of replicas=2 over version 10, which made version 11. */
    static StatusMemo<SandboxWarmPool.Status> wroteVersion11() {
        StatusMemo<SandboxWarmPool.Status> memo = new StatusMemo<>();
        memo.wrote(pool("10", 1), "11", pool("11", 2).getStatus());
        return memo;
    }

    static OwnStatusEchoes<SandboxWarmPool, SandboxWarmPool.Status> echoes(StatusMemo<SandboxWarmPool.Status> memo) {
        return new OwnStatusEchoes<>(memo, SandboxWarmPool::getStatus);
    }

    @Test
    void theEchoOfOurOwnStatusWriteIsDropped() {
        assertThat(echoes(wroteVersion11()).accept(pool("11", 2), pool("10", 1)))
                .isFalse();
    }

    @Test
    void aStatusWrittenBySomeoneElseStillReconciles() {
        assertThat(echoes(wroteVersion11()).accept(pool("12", 5), pool("11", 2)))
                .isTrue();
    }

    @Test
    void withoutAWriteOfOursEveryUpdateReconciles() {
        assertThat(echoes(new StatusMemo<>()).accept(pool("11", 2), pool("10", 1)))
                .isTrue();
    }

    static List<Arguments> metadataChanges() {
        return List.of(
                Arguments.of("generation (spec)", (Consumer<SandboxWarmPool>)
                        p -> p.getMetadata().setGeneration(4L)),
                Arguments.of("labels", (Consumer<SandboxWarmPool>)
                        p -> p.getMetadata().setLabels(Map.of("a", "x"))),
                Arguments.of("labels gone", (Consumer<SandboxWarmPool>)
                        p -> p.getMetadata().setLabels(null)),
                Arguments.of("annotations", (Consumer<SandboxWarmPool>)
                        p -> p.getMetadata().setAnnotations(Map.of("c", "x"))),
                Arguments.of("owners", (Consumer<SandboxWarmPool>) p -> p.getMetadata()
                        .setOwnerReferences(List.of(new OwnerReference("v1", true, true, "K", "o", "u")))),
                Arguments.of("finalizers", (Consumer<SandboxWarmPool>)
                        p -> p.getMetadata().setFinalizers(List.of("f"))),
                Arguments.of("deletion", (Consumer<SandboxWarmPool>)
                        p -> p.getMetadata().setDeletionTimestamp("2026-12-02T00:00:00Z")),
                Arguments.of("deletion grace", (Consumer<SandboxWarmPool>)
                        p -> p.getMetadata().setDeletionGracePeriodSeconds(30L)));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("metadataChanges")
    void atOurVersionAnyOtherChangeStillReconciles(String what, Consumer<SandboxWarmPool> change) {
        // Our status patch carries no resourceVersion: the object it made may include another
        // writer's change the informer never showed on its own (a relist jumps versions).
        SandboxWarmPool now = pool("11", 2);
        change.accept(now);
        assertThat(echoes(wroteVersion11()).accept(now, pool("10", 1))).isTrue();
    }

    @Test
    void anEchoThatOvertakesItsWritesResponseIsDroppedToo() {
        StatusMemo<SandboxWarmPool.Status> memo = new StatusMemo<>();
        SandboxWarmPool read = pool("10", 1);
        List<Boolean> seen = new ArrayList<>();
        memo.write(read, pool("11", 2).getStatus(), () -> {
            // The watch event of this write, before the write has returned its version:
            seen.add(echoes(memo).accept(pool("11", 2), read));
            // A status-only update by someone else, with another status, at the same moment:
            seen.add(echoes(memo).accept(pool("11", 5), read));
            return "11";
        });
        assertThat(seen).containsExactly(false, true);
        // Once the write has returned, its version identifies it, and nothing is on its way.
        assertThat(echoes(memo).accept(pool("11", 2), read)).isFalse();
        assertThat(echoes(memo).accept(pool("12", 2), pool("11", 2))).isTrue();
    }

    @Test
    void aWriteThatFailedLeavesNothingOnItsWay() {
        StatusMemo<SandboxWarmPool.Status> memo = new StatusMemo<>();
        SandboxWarmPool read = pool("10", 1);
        assertThatThrownBy(() -> memo.write(read, pool("11", 2).getStatus(), () -> {
                    throw new IllegalStateException("409");
                }))
                .hasMessage("409");
        assertThat(echoes(memo).accept(pool("11", 2), read)).isTrue();
    }
}
