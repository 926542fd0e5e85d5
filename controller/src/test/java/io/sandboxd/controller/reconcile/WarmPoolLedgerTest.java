package io.sandboxd.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.controller.core.Copies;
import io.sandboxd.controller.core.WarmMembersTest;
import io.sandboxd.controller.model.Sandbox;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Test;

class WarmPoolLedgerTest {
    static Sandbox member(int i) {
        return WarmMembersTest.member(
                String.format("pool-%04d", i), String.format("2026-01-01T00:%02d:%02dZ", i / 60 % 60, i % 60));
    }

    static Sandbox newer(Sandbox sb, String rv) {
        Sandbox c = Copies.deep(sb);
        c.getMetadata().setResourceVersion(rv);
        return c;
    }

    @Test
    void takesOldestFirstAndEachMemberOnce() {
        WarmPoolLedger l = new WarmPoolLedger();
        l.upsert(member(3));
        l.upsert(member(1));
        l.upsert(member(2));
        assertThat(l.take("ns", "pool", sb -> true).getMetadata().getName()).isEqualTo("pool-0001");
        assertThat(l.take("ns", "pool", sb -> true).getMetadata().getName()).isEqualTo("pool-0002");
        assertThat(l.take("ns", "pool", sb -> true).getMetadata().getName()).isEqualTo("pool-0003");
        assertThat(l.take("ns", "pool", sb -> true)).isNull();
        assertThat(l.take("ns", "other-pool", sb -> true)).isNull();
    }

    @Test
    void membersCreatedInTheSameSecondGoByNameAndOnesWithoutATimeGoLast() {
        WarmPoolLedger l = new WarmPoolLedger();
        Sandbox undated = WarmMembersTest.member("pool-a", null);
        l.upsert(undated);
        l.upsert(WarmMembersTest.member("pool-c", "2026-01-01T00:00:00Z"));
        l.upsert(WarmMembersTest.member("pool-b", "2026-01-01T00:00:00Z"));
        assertThat(l.take("ns", "pool", sb -> true).getMetadata().getName()).isEqualTo("pool-b");
        assertThat(l.take("ns", "pool", sb -> true).getMetadata().getName()).isEqualTo("pool-c");
        assertThat(l.take("ns", "pool", sb -> true).getMetadata().getName()).isEqualTo("pool-a");
    }

    @Test
    void updatesKeepAMembersPlaceAndARecreatedMemberGoesByItsNewCreationTime() {
        WarmPoolLedger l = new WarmPoolLedger();
        l.upsert(member(1));
        l.upsert(member(2));
        l.upsert(newer(member(1), "2"));
        l.upsert(newer(member(1), "3"));
        assertThat(l.available("ns", "pool")).isEqualTo(2);
        assertThat(l.take("ns", "pool", sb -> true).getMetadata().getResourceVersion())
                .as("the newest version of the oldest member")
                .isEqualTo("3");
        assertThat(l.take("ns", "pool", sb -> true).getMetadata().getName()).isEqualTo("pool-0002");

        WarmPoolLedger r = new WarmPoolLedger();
        r.upsert(member(1));
        r.upsert(member(2));
        r.upsert(newer(member(1), "2"));
        // pool-0001 created again under the same name, after pool-0003, its delete unseen (a relist)
        Sandbox again = newer(member(1), "9");
        again.getMetadata().setCreationTimestamp("2026-01-01T01:00:00Z");
        r.upsert(again);
        r.upsert(member(3));
        assertThat(r.take("ns", "pool", sb -> true).getMetadata().getName()).isEqualTo("pool-0002");
        assertThat(r.take("ns", "pool", sb -> true).getMetadata().getName()).isEqualTo("pool-0003");
        assertThat(r.take("ns", "pool", sb -> true).getMetadata().getName()).isEqualTo("pool-0001");
    }

    @Test
    void aReservedMemberStaysOutWhileUpdatedAndAnAdoptedOneForGood() {
        WarmPoolLedger l = new WarmPoolLedger();
        Sandbox m = member(1);
        l.upsert(m);
        Sandbox taken = l.take("ns", "pool", sb -> true);
        assertThat(l.reserved(m)).isTrue();
        l.upsert(newer(m, "2")); // e.g. a status write while a claim adopts it
        assertThat(l.available("ns", "pool")).isZero();
        l.adopted(taken);
        assertThat(l.reserved(m)).isFalse();
        assertThat(l.take("ns", "pool", sb -> true)).isNull();
    }

    @Test
    void aLostAdoptionIsOfferedAgainOnlyWithANewerVersion() {
        WarmPoolLedger l = new WarmPoolLedger();
        Sandbox m = member(1);
        l.upsert(m);
        Sandbox taken = l.take("ns", "pool", sb -> true);
        l.lost(taken);
        assertThat(l.available("ns", "pool"))
                .as("same version: it would lose again")
                .isZero();
        l.upsert(newer(m, "2"));
        assertThat(l.take("ns", "pool", sb -> true).getMetadata().getResourceVersion())
                .isEqualTo("2");

        Sandbox n = member(2);
        l.upsert(n);
        Sandbox t2 = l.take("ns", "pool", sb -> true);
        l.upsert(newer(n, "7")); // the change that made our patch fail arrived first
        l.lost(t2);
        assertThat(l.take("ns", "pool", sb -> true).getMetadata().getResourceVersion())
                .isEqualTo("7");
    }

    @Test
    void membersThatStopQualifyingOrAreDeletedLeave() {
        WarmPoolLedger l = new WarmPoolLedger();
        Sandbox a = member(1);
        Sandbox b = member(2);
        l.upsert(a);
        l.upsert(b);
        Sandbox notReady = newer(a, "5");
        notReady.getStatus().getConditions().get(0).setStatus("False");
        l.upsert(notReady);
        l.delete(b);
        assertThat(l.available("ns", "pool")).isZero();
        assertThat(l.take("ns", "pool", sb -> true)).isNull();
    }

    @Test
    void aMemberTheClaimRefusesIsSkippedForTheNextOne() {
        WarmPoolLedger l = new WarmPoolLedger();
        l.upsert(member(1));
        l.upsert(member(2));
        assertThat(l.take("ns", "pool", sb -> !sb.getMetadata().getName().equals("pool-0001"))
                        .getMetadata()
                        .getName())
                .isEqualTo("pool-0002");
        assertThat(l.reserved(member(1))).isFalse();
    }

    @Test
    void concurrentClaimsNeverTakeTheSameMember() throws Exception {
        WarmPoolLedger l = new WarmPoolLedger();
        int n = 2000;
        for (int i = 0; i < n; i++) l.upsert(member(i));
        Set<String> taken = ConcurrentHashMap.newKeySet();
        ExecutorService ex = Executors.newFixedThreadPool(16);
        CountDownLatch go = new CountDownLatch(1);
        List<Future<Integer>> fs = new ArrayList<>();
        for (int t = 0; t < 16; t++) {
            fs.add(ex.submit(() -> {
                go.await();
                int mine = 0;
                for (Sandbox sb; (sb = l.take("ns", "pool", x -> true)) != null; ) {
                    if (!taken.add(sb.getMetadata().getName()))
                        throw new AssertionError(
                                "taken twice: " + sb.getMetadata().getName());
                    // meanwhile the informer keeps updating members, taken or not
                    l.upsert(newer(sb, "9"));
                    mine++;
                }
                return mine;
            }));
        }
        go.countDown();
        int total = 0;
        for (Future<Integer> f : fs) total += f.get();
        ex.shutdown();
        assertThat(total).isEqualTo(n);
        assertThat(taken).hasSize(n);
    }
}
