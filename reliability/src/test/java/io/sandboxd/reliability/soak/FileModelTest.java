package io.sandboxd.reliability.soak;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.LinkedHashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

class FileModelTest {
    @Test
    void expectedListingHasFilesAndSubdirectoriesSorted() {
        FileModel m = new FileModel("soak/c1");
        assertThat(m.dirExists("")).isFalse();
        m.written("f1", new byte[3]);
        m.written("sub1/deep/h0", new byte[5]);
        m.written("f0", new byte[1]);
        m.deleted("f1");
        Map<String, Long> want = new LinkedHashMap<>();
        want.put("f0", 1L);
        want.put("sub1", -1L);
        assertThat(m.expectedEntries("")).containsExactlyEntriesOf(want);
        assertThat(m.expectedEntries("sub1")).containsExactlyEntriesOf(Map.of("deep", -1L));
        assertThat(m.expectedEntries("sub1/deep")).containsExactlyEntriesOf(Map.of("h0", 5L));
        assertThat(m.dirExists("sub1/deep")).isTrue();
        assertThat(m.dirExists("sub0")).isFalse();
        assertThat(m.path("")).isEqualTo("soak/c1");
        assertThat(m.path("sub1/deep/h0")).isEqualTo("soak/c1/sub1/deep/h0");
    }

    @Test
    void sealedSharedContentDetectsTruncation() {
        byte[] sealed = SharedFiles.seal("payload".getBytes());
        assertThat(SharedFiles.intact(sealed)).isTrue();
        assertThat(SharedFiles.intact(java.util.Arrays.copyOf(sealed, sealed.length - 1)))
                .isFalse();
        assertThat(SharedFiles.intact(new byte[3])).isFalse();
    }
}
