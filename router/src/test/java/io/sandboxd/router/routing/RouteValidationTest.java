package io.sandboxd.router.routing;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class RouteValidationTest {
    @ParameterizedTest
    @ValueSource(
            strings = {"a", "0", "sb-1", "a-b-c", "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij123"})
    void validLabels(String s) {
        assertThat(RouteValidation.isDns1123Label(s)).isTrue();
    }

    @ParameterizedTest
    @ValueSource(
            strings = {
                "",
                "-a",
                "a-",
                "A",
                "a_b",
                "a.b",
                "a/b",
                "é",
                " a",
                "abcdefghijabcdefghijabcdefghijabcdefghijabcdefghijabcdefghij1234"
            })
    void invalidLabels(String s) {
        assertThat(RouteValidation.isDns1123Label(s)).isFalse();
    }

    @Test
    void nullLabelIsInvalid() {
        assertThat(RouteValidation.isDns1123Label(null)).isFalse();
    }

    @Test
    void ports() {
        assertThat(RouteValidation.parsePort("1")).isEqualTo(1);
        assertThat(RouteValidation.parsePort("8888")).isEqualTo(8888);
        assertThat(RouteValidation.parsePort("65535")).isEqualTo(65535);
        for (String bad : new String[] {"0", "65536", "99999", "-1", "+80", "8o", "", " 80", "080000", null}) {
            assertThat(RouteValidation.parsePort(bad)).as(String.valueOf(bad)).isEqualTo(-1);
        }
    }
}
