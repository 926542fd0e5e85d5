package io.sandboxd.router.authz;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

class TtlCacheTest {
    @Test
    void entriesLiveExactlyTheTtl() {
        AtomicLong now = new AtomicLong(1_000);
        TtlCache<String, Boolean> c = new TtlCache<>(100, 10, now::get);
        c.put("k", true);
        now.addAndGet(99);
        assertThat(c.get("k")).isTrue();
        now.addAndGet(1);
        assertThat(c.get("k")).isNull();
        assertThat(c.size()).isZero(); // an expired entry is dropped when met
    }

    @Test
    void theLeastRecentlyUsedEntryGoesFirst() {
        AtomicLong now = new AtomicLong();
        TtlCache<String, Integer> c = new TtlCache<>(1_000, 2, now::get);
        c.put("a", 1);
        c.put("b", 2);
        assertThat(c.get("a")).isEqualTo(1); // a is now the most recent
        c.put("c", 3);
        assertThat(c.get("b")).isNull();
        assertThat(c.get("a")).isEqualTo(1);
        assertThat(c.get("c")).isEqualTo(3);
        assertThat(c.size()).isEqualTo(2);
    }

    @Test
    void aPutRenewsTheTtl() {
        AtomicLong now = new AtomicLong();
        TtlCache<String, Integer> c = new TtlCache<>(100, 2, now::get);
        c.put("a", 1);
        now.addAndGet(90);
        c.put("a", 2);
        now.addAndGet(90);
        assertThat(c.get("a")).isEqualTo(2);
    }

    @Test
    void limitsMustBePositive() {
        assertThatThrownBy(() -> new TtlCache<>(0, 1, System::nanoTime)).isInstanceOf(IllegalArgumentException.class);
        assertThatThrownBy(() -> new TtlCache<>(1, 0, System::nanoTime)).isInstanceOf(IllegalArgumentException.class);
    }
}
