package io.sandboxd.controller.core;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class NameHashTest {
    @ParameterizedTest
    @CsvSource({"'',811c9dc5", "a,e40c292c", "my-sandbox,374de8f5", "pool,91dd7983", "test-template,69155462"})
    void matchesUpstreamVectors(String in, String hash) {
        assertThat(NameHash.of(in)).isEqualTo(hash);
    }
}
