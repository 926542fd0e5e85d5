package io.sandboxd.controller.reconcile;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;
import tools.jackson.core.JacksonException;

class ResourceVersionScanTest {
    private static String scan(String json) {
        return ResourceVersionScan.of(json.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void readsTheTopLevelMetadataVersionWhereverMetadataStands() {
        assertThat(scan("{\"metadata\":{\"name\":\"a\",\"resourceVersion\":\"42\"}}"))
                .isEqualTo("42");
        assertThat(scan("{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"spec\":{\"containers\":[{\"name\":\"c\"}]},"
                        + "\"metadata\":{\"labels\":{\"a\":\"b\"},\"managedFields\":[{\"manager\":\"m\"}],"
                        + "\"resourceVersion\":\"7\",\"uid\":\"u\"},\"status\":{}}"))
                .isEqualTo("7");
    }

    @Test
    void aResourceVersionAnywhereElseIsNotTheObjects() {
        assertThat(scan("{\"spec\":{\"resourceVersion\":\"1\",\"metadata\":{\"resourceVersion\":\"2\"}},"
                        + "\"metadata\":{\"labels\":{\"resourceVersion\":\"3\"},"
                        + "\"ownerReferences\":[{\"resourceVersion\":\"4\"}],\"resourceVersion\":\"5\"}}"))
                .isEqualTo("5");
        assertThat(scan("{\"items\":[{\"metadata\":{\"resourceVersion\":\"1\"}}],\"resourceVersion\":\"2\"}"))
                .isNull();
    }

    @Test
    void noVersionIsNull() {
        assertThat(scan("{\"metadata\":{\"name\":\"a\"},\"status\":{}}")).isNull();
        assertThat(scan("{\"metadata\":null}")).isNull();
        assertThat(scan("{\"metadata\":{\"resourceVersion\":7}}"))
                .as("not a string")
                .isNull();
        assertThat(scan("{}")).isNull();
        assertThat(scan("[]")).isNull();
    }

    @Test
    void brokenJsonIsRefused() {
        assertThatThrownBy(() -> scan("{\"metadata\":{\"resourceVersion\":")).isInstanceOf(JacksonException.class);
    }
}
