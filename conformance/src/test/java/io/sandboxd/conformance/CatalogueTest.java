package io.sandboxd.conformance;

import static org.assertj.core.api.Assertions.assertThat;

import io.sandboxd.conformance.checks.Registry;
import io.sandboxd.conformance.suite.CheckId;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import org.junit.jupiter.api.Test;

class CatalogueTest {
    @Test
    void everyCheckHasAnImplementationAndAWellFormedId() {
        assertThat(Registry.all().keySet()).containsExactlyInAnyOrder(CheckId.values());
        Set<String> ids = new HashSet<>();
        for (CheckId c : CheckId.values()) {
            assertThat(c.id()).matches("(PROC|FS|RT|AUTH|DUR|WATCH|CODE)(-[A-Z]+)*-\\d{3}");
            assertThat(ids.add(c.id())).as(c.id()).isTrue();
            assertThat(c.section()).matches("[1234](\\.[1-8])?");
            assertThat(c.statement()).isNotBlank().endsWith(".");
        }
    }

    @Test
    void extendedChecksAreExactlyThoseOfSection4() {
        for (CheckId c : CheckId.values()) {
            assertThat(c.level() == io.sandboxd.conformance.suite.Level.EXTENDED)
                    .as(c.id() + " (section " + c.section() + ", " + c.level() + ")")
                    .isEqualTo(c.section().startsWith("4"));
        }
    }

    @Test
    void theRootWipeRunsLast() {
        CheckId[] all = CheckId.values();
        assertThat(all[all.length - 1]).isEqualTo(CheckId.FS_DEL_008);
        assertThat(Arrays.stream(all).filter(c -> c.id().equals("FS-DEL-008")).count())
                .isEqualTo(1);
    }
}
